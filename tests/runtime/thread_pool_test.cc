// The thread pool: every iteration runs exactly once, a thread count change never re-runs an old
// region, a thread held up (its core taken) does not hold up the region's other work, and
// threads that share one core do not hold it from each other.
#include <gtest/gtest.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "runtime/thread_pool.h"

namespace ttune::runtime {
namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> calls{0};
  explicit Counts(int64_t n) : hits(static_cast<size_t>(n)) {}
};

void count(void* env, int64_t b, int64_t e) {
  auto* c = static_cast<Counts*>(env);
  c->calls++;
  for (int64_t i = b; i < e; ++i) c->hits[static_cast<size_t>(i)]++;
}

TEST(ThreadPool, EveryIterationRunsExactlyOnce) {
  ThreadPool& pool = ThreadPool::global();
  for (int threads : {1, 2, 3, 4}) {
    pool.setNumThreads(threads);
    for (int64_t n : {1, 2, 3, 7, 64, 1000, 4097}) {
      Counts c(n);
      pool.parallelFor(n, count, &c);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(c.hits[static_cast<size_t>(i)].load(), 1) << threads << " threads, n " << n << ", i " << i;
    }
  }
}

TEST(ThreadPool, NewWorkersNeverRunAnOldRegion) {
  // Regression: workers started by setNumThreads began with an old generation and ran the
  // previous region's body again, with its environment long gone.
  ThreadPool& pool = ThreadPool::global();
  pool.setNumThreads(2);
  Counts first(2);
  pool.parallelFor(2, count, &first);
  EXPECT_EQ(first.hits[0].load() + first.hits[1].load(), 2);
  int calls = first.calls.load();
  pool.setNumThreads(4);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // time for a stale worker to misbehave
  EXPECT_EQ(first.calls.load(), calls) << "a new worker re-ran the previous region";
  Counts second(4);
  pool.parallelFor(4, count, &second);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(second.hits[static_cast<size_t>(i)].load(), 1);
  EXPECT_EQ(first.calls.load(), calls);
  pool.setNumThreads(defaultNumThreads());
}

struct Slow {
  std::thread::id caller;
  std::atomic<int64_t> by_caller{0}, by_others{0};
};

void slowCaller(void* env, int64_t b, int64_t e) {
  auto* s = static_cast<Slow*>(env);
  if (std::this_thread::get_id() == s->caller) {
    // The calling thread is held up, as if its core were taken by another process.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    s->by_caller += e - b;
  } else {
    s->by_others += e - b;
  }
}

TEST(ThreadPool, IdleThreadsTakeOverTheWorkOfAHeldUpOne) {
  ThreadPool& pool = ThreadPool::global();
  pool.setNumThreads(2);
  Slow s;
  s.caller = std::this_thread::get_id();
  pool.parallelFor(64, slowCaller, &s);
  EXPECT_EQ(s.by_caller + s.by_others, 64);
  // With a static split the caller would run its 32 iterations; the other thread takes most.
  EXPECT_GT(s.by_others.load(), 40) << "the caller ran " << s.by_caller.load() << " of 64";
  pool.setNumThreads(defaultNumThreads());
}

void nothing(void*, int64_t, int64_t) {}

TEST(ThreadPool, ThreadsSharingOneCoreDoNotWaitATimeSliceForEachOther) {
  // Regression: the caller spun for the workers (and they for the next region) without giving
  // up the core, so when the scheduler put them on one core -- it does so for a new process until
  // it learns that the threads wake each other -- each region cost a time slice (milliseconds):
  // a 5 us pooling kernel measured 0.8 ms in a fresh measurement worker. Here all threads are
  // confined to one core; 2000 regions then burnt about a millisecond of CPU time each, spinning;
  // a thread that offers the core burns microseconds. CPU time, not wall time: another process
  // on the core delays the regions but does not charge this one.
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  int cpu = 0;
  while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &all)) ++cpu;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ThreadPool& pool = ThreadPool::global();
  pool.setNumThreads(1);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  pool.setNumThreads(2);  // its worker inherits the one-core mask
  auto cpuSeconds = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  const double t0 = cpuSeconds();
  for (int i = 0; i < 2000; ++i) pool.parallelFor(2, nothing, nullptr);
  const double s = cpuSeconds() - t0;
  pool.setNumThreads(1);
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
  pool.setNumThreads(defaultNumThreads());
  EXPECT_LT(s, 0.5) << "2000 regions of two threads on one core took " << s << " s of CPU time";
}

}  // namespace
}  // namespace ttune::runtime
