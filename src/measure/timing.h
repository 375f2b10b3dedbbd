// The timing protocol shared by the measurement worker, `ttune op --bench`, model benchmarks and
// bench/: warm-up runs, then `repeat` repeats of `number` back-to-back runs each; `number` grows
// until one repeat lasts at least min_repeat_ms (so short kernels are timed over many runs); the
// cost of a repeat is its mean run time. Optional cache flush evicts the inputs from all cache
// levels before every run (number is then 1). Reported: every repeat's cost, median and spread.
#pragma once

#include <functional>
#include <vector>

namespace ttune::measure {

struct TimingOptions {
  int warmup = 1;
  int number = 0;  // 0: grown automatically to reach min_repeat_ms
  int repeat = 3;
  double min_repeat_ms = 40;  // per repeat
  bool cache_flush = false;
  // When the warm-up run alone takes longer than this (seconds; 0: never), it is the only
  // sample: a candidate far slower than the best known one needs no precise time.
  double slow_cutoff_s = 0;
};

struct Timing {
  std::vector<double> costs_s;  // one per repeat
  double median_s = 0, min_s = 0, max_s = 0;
  int number = 1;
};

// Times fn; flush (when set and options.cache_flush) runs before each timed call, untimed.
Timing timeFunction(const std::function<void()>& fn, const TimingOptions& options,
                    const std::function<void()>& flush = {});

// Evicts [data, data+bytes) from the cache hierarchy.
void flushCache(const void* data, size_t bytes);

double median(std::vector<double> v);

// Runs per repeat for a repeat to last min_repeat_ms, given one run's seconds (at least 1).
int runsPerRepeat(double per_run_s, double min_repeat_ms);

}  // namespace ttune::measure
