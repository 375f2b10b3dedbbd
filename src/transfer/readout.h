// Reading a transfer-tuning comparison (compare.h) with its error bars. S_tt (the transfer's
// speedup) and the tuning checkpoints' speedups are medians of per-round paired ratios against
// the untuned model, timed in one interleaved group, so every configuration has a ratio in every
// round. The share of the tuning speedup that transfer reaches, %max = (S_tt - 1) / (S_max - 1),
// is computed per round from that round's two ratios and read the same way (median and
// order-statistic interval, measure/speedup.h). A model whose S_max interval contains 1 shows no
// measurable gain from tuning: its %max would divide noise by noise, so it has none and
// averages leave it out. The tuning time to match S_tt is the first checkpoint whose median
// reaches S_tt's; it lies between the first checkpoint whose interval reaches S_tt's interval
// (earliest plausible) and the first whose whole interval is at or above it (latest plausible;
// none when no checkpoint of the run is).
#pragma once

#include <optional>
#include <vector>

#include "measure/speedup.h"

namespace ttune::transfer {

struct TimedSpeedup {
  double elapsed_s = 0;      // search time at which the configuration was reached
  measure::Speedup speedup;  // over untuned, with its rounds
};

struct ShareReadout {
  bool measurable_gain = false;  // S_max's interval lies above 1
  measure::Speedup share;        // per-round %max (no rounds when no measurable gain)
  std::optional<double> match_s, match_early_s, match_late_s;
};

// `tt`: the transfer's speedup; `checkpoints`: the tuning run's in time order, the last being
// S_max. Every speedup must come from the same rounds.
ShareReadout readShare(const measure::Speedup& tt, const std::vector<TimedSpeedup>& checkpoints);

}  // namespace ttune::transfer
