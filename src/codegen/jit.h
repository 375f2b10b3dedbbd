// Loading compiled kernels into this process. One LLJIT instance per process; every loaded
// object lives in its own JITDylib (so the same kernel name can be loaded many times, e.g. by a
// measurement worker) and is unloaded when its LoadedKernel is destroyed.
#pragma once

#include <memory>

#include "codegen/codegen.h"
#include "runtime/abi.h"
#include "support/expected.h"

namespace ttune::codegen {

class LoadedKernel {
 public:
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;
  void operator()(void** args) const { fn_(args); }
  TtuneKernelFn function() const { return fn_; }

 private:
  friend Expected<std::shared_ptr<LoadedKernel>> loadKernel(const ObjectCode& code);
  // Kernel libraries currently in the JIT (diagnostics and tests: a failed load leaves none behind).
  int64_t liveKernelLibraries();
  LoadedKernel() = default;
  TtuneKernelFn fn_ = nullptr;
  void* dylib_ = nullptr;
};

Expected<std::shared_ptr<LoadedKernel>> loadKernel(const ObjectCode& code);
// Kernel libraries currently in the JIT (diagnostics and tests: a failed load leaves none behind).
int64_t liveKernelLibraries();

}  // namespace ttune::codegen
