#include "runtime/abi.h"

#include <cstdlib>

#include "runtime/thread_pool.h"
#include "support/assert.h"

extern "C" {

void ttune_parallel_for(int64_t n, TtuneParallelBody body, void* env) {
  ttune::runtime::ThreadPool::global().parallelFor(n, body, env);
}

void* ttune_alloc(int64_t bytes) {
  void* p = nullptr;
  size_t size = (static_cast<size_t>(bytes) + 63) & ~size_t(63);
  if (posix_memalign(&p, 64, size ? size : 64) != 0) TT_UNREACHABLE("out of memory in a kernel scratch buffer");
  return p;
}

void ttune_free(void* ptr) { std::free(ptr); }
}

namespace ttune::runtime {

std::vector<std::pair<std::string, void*>> runtimeSymbols() {
  return {
      {"ttune_parallel_for", reinterpret_cast<void*>(&ttune_parallel_for)},
      {"ttune_alloc", reinterpret_cast<void*>(&ttune_alloc)},
      {"ttune_free", reinterpret_cast<void*>(&ttune_free)},
  };
}

}  // namespace ttune::runtime
