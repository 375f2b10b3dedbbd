#include "runtime/thread_pool.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "support/assert.h"
#include "support/cpu_relax.h"

namespace ttune::runtime {

namespace {
thread_local bool t_in_region = false;

// A spin keeps a region's fork and join at a few hundred nanoseconds while each thread has a
// core of its own. When two of them share one (the scheduler queues a woken worker on its
// waker's core until it learns that the two wake each other, as in a new process), a spinning
// thread holds the core the other one needs until its time slice ends: a 5 us pooling kernel
// took 0.8 ms per call in a fresh measurement worker. So every few hundred spins, offer the
// core (sched_yield returns at once when nothing else waits for it).
inline void spinOrYield(int spin) {
  if (spin % 256 == 255)
    sched_yield();
  else
    cpuRelax();
}
}  // namespace

int defaultNumThreads() {
  if (const char* env = std::getenv("TTUNE_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

struct ThreadPool::Impl {
  std::atomic<int> nthreads{1};
  std::vector<pthread_t> workers;
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<uint64_t> generation{0};
  uint64_t start_generation = 0;  // the generation when the current workers started
  std::atomic<int> remaining{0};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> regions{0};
  // Current region.
  ParallelBody body = nullptr;
  void* env = nullptr;
  int64_t n = 0;
  std::mutex region_mu;  // one region at a time

  // Each thread owns a contiguous range of the iterations (so a thread reads what it wrote in
  // the previous kernel, as a static split would) and takes it in pieces; a thread done with
  // its own range takes pieces of the others' (a thread whose core is busy elsewhere no longer
  // holds up the region). One cache line per range.
  struct alignas(64) Range {
    std::atomic<int64_t> next{0};
    int64_t end = 0, grain = 1;
  };
  std::unique_ptr<Range[]> ranges;

  struct Arg {
    Impl* impl;
    int index;
  };
  std::vector<Arg> args;

  void drain(int t) {
    Range& r = ranges[t];
    for (;;) {
      int64_t b = r.next.fetch_add(r.grain, std::memory_order_relaxed);
      if (b >= r.end) return;
      body(env, b, std::min(b + r.grain, r.end));
    }
  }

  void runChunks(int index) {
    int T = nthreads.load(std::memory_order_relaxed);
    drain(index);
    for (int k = 1; k < T; ++k) drain((index + k) % T);
  }

  void prepare(int64_t count) {
    int T = nthreads.load(std::memory_order_relaxed);
    for (int t = 0; t < T; ++t) {
      int64_t b = count * t / T, e = count * (t + 1) / T;
      ranges[t].next.store(b, std::memory_order_relaxed);
      ranges[t].end = e;
      ranges[t].grain = std::max<int64_t>(1, (e - b + 7) / 8);
    }
  }

  static void* workerMain(void* p) {
    Arg* a = static_cast<Arg*>(p);
    Impl* self = a->impl;
    t_in_region = true;
    // Regions started before this worker existed are not its to run.
    uint64_t seen = self->start_generation;
    while (true) {
      // Spin a little before sleeping: kernels of one model run back to back.
      uint64_t g = self->generation.load(std::memory_order_acquire);
      for (int spin = 0; g == seen && spin < 20000 && !self->stop.load(std::memory_order_relaxed); ++spin) {
        spinOrYield(spin);
        g = self->generation.load(std::memory_order_acquire);
      }
      if (g == seen) {
        std::unique_lock<std::mutex> lock(self->mu);
        self->cv.wait(lock,
                      [&] { return self->stop.load() || self->generation.load(std::memory_order_acquire) != seen; });
        g = self->generation.load(std::memory_order_acquire);
      }
      if (self->stop.load()) return nullptr;
      seen = g;
      self->runChunks(a->index);
      self->remaining.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  void start(int count) {
    int T = std::max(1, count);
    nthreads.store(T, std::memory_order_relaxed);
    stop = false;
    start_generation = generation.load();
    ranges.reset(new Range[T]);
    args.resize(T);
    workers.resize(T > 1 ? T - 1 : 0);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 16u << 20);  // kernels keep tiles on the stack
    for (int i = 1; i < T; ++i) {
      args[i] = Arg{this, i};
      int rc = pthread_create(&workers[i - 1], &attr, &workerMain, &args[i]);
      TT_ASSERT(rc == 0, "cannot start a thread-pool worker");
    }
    pthread_attr_destroy(&attr);
  }

  void shutdown() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    cv.notify_all();
    for (pthread_t t : workers) pthread_join(t, nullptr);
    workers.clear();
  }
};

ThreadPool::ThreadPool() : impl_(new Impl) { impl_->start(defaultNumThreads()); }

ThreadPool::~ThreadPool() {
  impl_->shutdown();
  delete impl_;
}

ThreadPool& ThreadPool::global() {
  static ThreadPool* pool = new ThreadPool();  // never destroyed: kernels may run at exit
  return *pool;
}

uint64_t ThreadPool::regionsRun() const { return impl_->regions.load(std::memory_order_relaxed); }

double ThreadPool::measureRegionOverhead(int samples) {
  std::vector<double> t;
  t.reserve(static_cast<size_t>(samples));
  int64_t n = numThreads();
  for (int i = 0; i < samples; ++i) {
    auto a = std::chrono::steady_clock::now();
    parallelFor(
        n, [](void*, int64_t, int64_t) {}, nullptr);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::nth_element(t.begin(), t.begin() + static_cast<long>(t.size() / 2), t.end());
  return t.empty() ? 0 : t[t.size() / 2];
}

int ThreadPool::numThreads() const { return impl_->nthreads.load(std::memory_order_relaxed); }

void ThreadPool::setNumThreads(int n) {
  std::lock_guard<std::mutex> lock(impl_->region_mu);
  if (n == impl_->nthreads.load()) return;
  impl_->shutdown();
  impl_->start(n);
}

void ThreadPool::parallelFor(int64_t n, ParallelBody body, void* env) {
  if (n <= 0) return;
  if (t_in_region || n == 1) {
    body(env, 0, n);
    return;
  }
  std::lock_guard<std::mutex> region(impl_->region_mu);
  Impl& im = *impl_;
  int T = im.nthreads.load(std::memory_order_relaxed);
  if (T == 1) {
    body(env, 0, n);
    return;
  }
  im.regions.fetch_add(1, std::memory_order_relaxed);
  im.body = body;
  im.env = env;
  im.n = n;
  im.prepare(n);
  im.remaining.store(T - 1, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(im.mu);
    im.generation.fetch_add(1, std::memory_order_acq_rel);
  }
  im.cv.notify_all();
  t_in_region = true;
  im.runChunks(0);
  t_in_region = false;
  for (int spin = 0; im.remaining.load(std::memory_order_acquire) > 0; ++spin) spinOrYield(spin);
}

}  // namespace ttune::runtime
