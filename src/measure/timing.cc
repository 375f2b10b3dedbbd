#include "measure/timing.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>

namespace ttune::measure {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int runsPerRepeat(double per_run_s, double min_repeat_ms) {
  double n = std::ceil(min_repeat_ms * 1e-3 / std::max(per_run_s, 1e-9));
  return static_cast<int>(std::clamp(n, 1.0, double(1 << 24)));
}

void flushCache(const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
#if defined(__x86_64__) || defined(__i386__)
  for (size_t off = 0; off < bytes; off += 64) _mm_clflush(p + off);
  _mm_mfence();
#elif defined(__aarch64__)
  // Clean and invalidate by address to the point of coherency, line by line (the smallest data
  // line size is CTR_EL0.DminLine words; Linux lets user space read CTR_EL0 and use DC CIVAC).
  uint64_t ctr;
  __asm__ __volatile__("mrs %0, ctr_el0" : "=r"(ctr));
  const size_t line = size_t(4) << ((ctr >> 16) & 0xf);
  for (size_t off = 0; off < bytes; off += line) __asm__ __volatile__("dc civac, %0" ::"r"(p + off) : "memory");
  __asm__ __volatile__("dsb ish" ::: "memory");
#else
  (void)p, (void)bytes;
#endif
}

Timing timeFunction(const std::function<void()>& fn, const TimingOptions& opt, const std::function<void()>& flush) {
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::duration d) { return std::chrono::duration<double>(d).count(); };
  bool flushing = opt.cache_flush && flush;
  double last = 0;
  for (int i = 0; i < std::max(1, opt.warmup); ++i) {
    if (flushing) flush();
    auto t0 = clock::now();
    fn();
    last = secs(clock::now() - t0);
  }
  Timing t;
  if (opt.slow_cutoff_s > 0 && last > opt.slow_cutoff_s) {
    t.costs_s = {last};
    t.median_s = t.min_s = t.max_s = last;
    return t;
  }
  int number = opt.number > 0 ? opt.number : 1;
  if (!flushing && opt.number <= 0 && opt.min_repeat_ms > 0) {
    // Enough runs per repeat to last min_repeat_ms, calibrated on a second (warm) run.
    auto t0 = clock::now();
    fn();
    number = runsPerRepeat(std::min(last, secs(clock::now() - t0)), opt.min_repeat_ms);
  }
  if (flushing) number = 1;
  t.number = number;
  for (int r = 0; r < std::max(1, opt.repeat); ++r) {
    double total = 0;
    for (int i = 0; i < number; ++i) {
      if (flushing) flush();
      auto t0 = clock::now();
      fn();
      total += secs(clock::now() - t0);
    }
    t.costs_s.push_back(total / number);
  }
  t.median_s = median(t.costs_s);
  t.min_s = *std::min_element(t.costs_s.begin(), t.costs_s.end());
  t.max_s = *std::max_element(t.costs_s.begin(), t.costs_s.end());
  return t;
}

}  // namespace ttune::measure
