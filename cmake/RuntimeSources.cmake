# Sources shared by the main build and the cross builds (cross/CMakeLists.txt), relative to src/:
# the runtime every exported model links, and the measurement worker without LLVM.
set(TTUNE_RT_SOURCES runtime/abi.cc runtime/thread_pool.cc runtime/plan.cc runtime/range_plan.cc support/assert.cc
    deploy/image.cc deploy/weights_file.cc deploy/cpu_features.cc deploy/capi.cc)
set(TTUNE_WORKER_SOURCES measure/worker.cc measure/wire.cc measure/timing.cc runtime/ndarray.cc
    runtime/thread_pool.cc runtime/abi.cc support/assert.cc te/shape.cc)
