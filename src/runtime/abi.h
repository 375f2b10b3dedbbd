// The kernel calling convention and the C functions generated code calls.
//
// A compiled kernel is `extern "C" void kernel(void** args)`: args[i] points to the i-th tensor of
// its ComputeDAG (inputs, then outputs), dense row-major, 64-byte aligned where the runtime
// allocated it. Tensors passed to one call never overlap. A kernel for a range of sizes
// (te/runtime_extents.h) takes its size parameters after the tensors: args[n_tensors + i] points
// to the int64 value of ComputeDAG::sizeParams()[i].
//
// Parallel loops are outlined into `void body(void* env, int64_t begin, int64_t end)` and run with
// ttune_parallel_for, which splits [0, n) into contiguous chunks over the thread pool and returns
// when all are done. Large scratch buffers come from ttune_alloc/ttune_free.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

extern "C" {
typedef void (*TtuneKernelFn)(void** args);
typedef void (*TtuneParallelBody)(void* env, int64_t begin, int64_t end);
void ttune_parallel_for(int64_t n, TtuneParallelBody body, void* env);
void* ttune_alloc(int64_t bytes);
void ttune_free(void* ptr);
}

namespace ttune::runtime {

// Name and address of every runtime function generated code may call (for the JIT linker).
std::vector<std::pair<std::string, void*>> runtimeSymbols();

}  // namespace ttune::runtime
