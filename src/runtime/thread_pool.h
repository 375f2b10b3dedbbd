// A persistent thread pool for parallel loops. One process-wide pool; the calling thread takes
// part in every parallel region. Each thread owns a contiguous share of the iterations (the same
// share for the same loop every time, so a thread reads what it wrote in the previous kernel) and
// runs it in pieces; a thread done early takes the remaining pieces of the others, so a thread
// whose core is busy with another process does not hold up the region. Workers spin briefly
// after a region (back-to-back kernels are common) and then sleep; every spin offers the core
// now and then, since two of the threads may share one. A parallel region started
// from inside a region runs serially. Workers started by setNumThreads never run a region that
// began before them.
// The thread count defaults to the number of online cores, or TTUNE_NUM_THREADS when set.
#pragma once

#include <cstdint>

namespace ttune::runtime {

using ParallelBody = void (*)(void* env, int64_t begin, int64_t end);

class ThreadPool {
 public:
  static ThreadPool& global();
  // Runs body over [0, n) in contiguous pieces (see above); returns when all have run.
  void parallelFor(int64_t n, ParallelBody body, void* env);
  int numThreads() const;
  // Changes the thread count (joins and restarts workers); not while a region runs.
  void setNumThreads(int n);
  // Parallel regions run on several threads so far (profiles count the fork/join cost by it).
  uint64_t regionsRun() const;
  // Median cost of one parallel region with an empty body: waking the workers and joining them.
  double measureRegionOverhead(int samples = 2000);

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
