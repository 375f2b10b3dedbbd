#include "runtime/thread_pool.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "support/assert.h"

namespace ttune::runtime {

namespace {
thread_local bool t_in_region = false;
}

int defaultNumThreads() {
  if (const char* env = std::getenv("TTUNE_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

struct ThreadPool::Impl {
  int nthreads = 1;
  std::vector<pthread_t> workers;
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<uint64_t> generation{0};
  std::atomic<int> remaining{0};
  std::atomic<bool> stop{false};
  // Current region.
  ParallelBody body = nullptr;
  void* env = nullptr;
  int64_t n = 0;
  std::mutex region_mu;  // one region at a time

  struct Arg {
    Impl* impl;
    int index;
  };
  std::vector<Arg> args;

  void runChunk(int index) {
    int64_t begin = n * index / nthreads, end = n * (index + 1) / nthreads;
    if (begin < end) body(env, begin, end);
  }

  static void* workerMain(void* p) {
    Arg* a = static_cast<Arg*>(p);
    Impl* self = a->impl;
    t_in_region = true;
    uint64_t seen = 0;
    while (true) {
      // Spin a little before sleeping: kernels of one model run back to back.
      uint64_t g = self->generation.load(std::memory_order_acquire);
      for (int spin = 0; g == seen && spin < 20000 && !self->stop.load(std::memory_order_relaxed); ++spin) {
        __builtin_ia32_pause();
        g = self->generation.load(std::memory_order_acquire);
      }
      if (g == seen) {
        std::unique_lock<std::mutex> lock(self->mu);
        self->cv.wait(lock, [&] {
          return self->stop.load() || self->generation.load(std::memory_order_acquire) != seen;
        });
        g = self->generation.load(std::memory_order_acquire);
      }
      if (self->stop.load()) return nullptr;
      seen = g;
      self->runChunk(a->index);
      self->remaining.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  void start(int count) {
    nthreads = std::max(1, count);
    stop = false;
    args.resize(nthreads);
    workers.resize(nthreads > 1 ? nthreads - 1 : 0);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 16u << 20);  // kernels keep tiles on the stack
    for (int i = 1; i < nthreads; ++i) {
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

int ThreadPool::numThreads() const { return impl_->nthreads; }

void ThreadPool::setNumThreads(int n) {
  std::lock_guard<std::mutex> lock(impl_->region_mu);
  if (n == impl_->nthreads) return;
  impl_->shutdown();
  impl_->start(n);
}

void ThreadPool::parallelFor(int64_t n, ParallelBody body, void* env) {
  if (n <= 0) return;
  if (t_in_region || impl_->nthreads == 1 || n == 1) {
    body(env, 0, n);
    return;
  }
  std::lock_guard<std::mutex> region(impl_->region_mu);
  Impl& im = *impl_;
  im.body = body;
  im.env = env;
  im.n = n;
  im.remaining.store(im.nthreads - 1, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(im.mu);
    im.generation.fetch_add(1, std::memory_order_acq_rel);
  }
  im.cv.notify_all();
  t_in_region = true;
  im.runChunk(0);
  t_in_region = false;
  while (im.remaining.load(std::memory_order_acquire) > 0) __builtin_ia32_pause();
}

}  // namespace ttune::runtime
