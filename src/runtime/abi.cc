#include "runtime/abi.h"

#include <cstdlib>

#include "runtime/thread_pool.h"
#include "support/assert.h"

namespace ttune::runtime {
namespace {

// Kernels take their scratch buffers at every call, often once per parallel piece. Blocks of a
// few hundred KiB and more are where malloc maps fresh pages and hands them back at free (glibc
// raises those thresholds only after a while, and never above 32 MiB), so every call faulted
// its pages in again: resnet50's first convolution (basic schedule) took 8.4 ms per call in a
// new process and 2.9 ms once malloc had adapted. So each thread keeps the large blocks it
// frees, a few of them, for the next call; a block is preceded by its size.
constexpr size_t kKeepFrom = size_t(64) << 10;    // smaller blocks malloc recycles by itself
constexpr size_t kKeptBytes = size_t(256) << 20;  // per thread
constexpr int kKept = 4;

struct Kept {
  void* base[kKept] = {};
  size_t size[kKept] = {};
  int n = 0;
  size_t bytes = 0;
  void drop(int i) {
    bytes -= size[i];
    base[i] = base[n - 1];
    size[i] = size[n - 1];
    --n;
  }
  ~Kept() {
    for (int i = 0; i < n; ++i) std::free(base[i]);
  }
};
thread_local Kept t_kept;

constexpr size_t kScratchHeader = 64;  // keeps the data 64-byte aligned

// The smallest kept block of at least `size` bytes and at most twice that, or null.
void* takeKept(size_t size) {
  Kept& k = t_kept;
  int best = -1;
  for (int i = 0; i < k.n; ++i)
    if (k.size[i] >= size && k.size[i] <= 2 * size && (best < 0 || k.size[i] < k.size[best])) best = i;
  if (best < 0) return nullptr;
  void* base = k.base[best];
  k.drop(best);
  return base;
}

// Keeps a freed block for this thread's next calls; false when it is not worth keeping.
bool keep(void* base, size_t size) {
  Kept& k = t_kept;
  if (size < kKeepFrom || size > kKeptBytes) return false;
  while (k.n == kKept || k.bytes + size > kKeptBytes) {
    int smallest = 0;
    for (int i = 1; i < k.n; ++i)
      if (k.size[i] < k.size[smallest]) smallest = i;
    if (k.size[smallest] >= size) return false;  // the kept ones are at least as useful
    std::free(k.base[smallest]);
    k.drop(smallest);
  }
  k.base[k.n] = base;
  k.size[k.n] = size;
  ++k.n;
  k.bytes += size;
  return true;
}

}  // namespace
}  // namespace ttune::runtime

extern "C" {

void ttune_parallel_for(int64_t n, TtuneParallelBody body, void* env) {
  ttune::runtime::ThreadPool::global().parallelFor(n, body, env);
}

void* ttune_alloc(int64_t bytes) {
  size_t size = (static_cast<size_t>(bytes) + 63) & ~size_t(63);
  if (size == 0) size = 64;
  void* base = ttune::runtime::takeKept(size);
  if (!base) {
    if (posix_memalign(&base, 64, size + ttune::runtime::kScratchHeader) != 0)
      TT_UNREACHABLE("out of memory in a kernel scratch buffer");
    *static_cast<size_t*>(base) = size;
  }
  return static_cast<char*>(base) + ttune::runtime::kScratchHeader;
}

void ttune_free(void* ptr) {
  if (!ptr) return;
  void* base = static_cast<char*>(ptr) - ttune::runtime::kScratchHeader;
  if (!ttune::runtime::keep(base, *static_cast<size_t*>(base))) std::free(base);
}
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
