// A persistent thread pool for parallel loops. One process-wide pool; the calling thread takes
// part in every parallel region. Workers spin briefly after a region (back-to-back kernels are
// common) and then sleep. A parallel region started from inside a region runs serially.
// The thread count defaults to the number of online cores, or TTUNE_NUM_THREADS when set.
#pragma once

#include <cstdint>

namespace ttune::runtime {

using ParallelBody = void (*)(void* env, int64_t begin, int64_t end);

class ThreadPool {
 public:
  static ThreadPool& global();
  // Runs body over [0, n) split into one contiguous chunk per thread.
  void parallelFor(int64_t n, ParallelBody body, void* env);
  int numThreads() const;
  // Changes the thread count (joins and restarts workers); not while a region runs.
  void setNumThreads(int n);

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool();

 private:
  ThreadPool();
  struct Impl;
  Impl* impl_;
};

int defaultNumThreads();

}  // namespace ttune::runtime
