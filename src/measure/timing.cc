#include "measure/timing.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace ttune::measure {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void flushCache(const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  for (size_t off = 0; off < bytes; off += 64) _mm_clflush(p + off);
  _mm_mfence();
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
  int number = opt.number > 0 ? opt.number : 1;
  if (!flushing && opt.number <= 0 && opt.min_repeat_ms > 0) {
    // Grow the run count until one repeat is long enough to time reliably.
    double target = opt.min_repeat_ms * 1e-3;
    while (true) {
      auto t0 = clock::now();
      for (int i = 0; i < number; ++i) fn();
      double d = secs(clock::now() - t0);
      if (d >= target || number >= (1 << 24)) break;
      double per = std::max(d / number, 1e-9);
      number = std::max(number * 2, static_cast<int>(std::min(1.2 * target / per, double(1 << 24))));
    }
  }
  if (flushing) number = 1;
  (void)last;
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
