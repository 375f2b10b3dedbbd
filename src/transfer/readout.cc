#include "transfer/readout.h"

#include "support/assert.h"

namespace ttune::transfer {

ShareReadout readShare(const measure::Speedup& tt, const std::vector<TimedSpeedup>& checkpoints) {
  TT_ASSERT(!checkpoints.empty(), "readShare: no checkpoints");
  ShareReadout out;
  const measure::Speedup& max = checkpoints.back().speedup;
  out.measurable_gain = max.gain();
  if (out.measurable_gain && tt.rounds() == max.rounds()) {
    std::vector<double> shares;
    for (int r = 0; r < max.rounds(); ++r)
      if (max.ratios[r] > 1) shares.push_back((tt.ratios[r] - 1) / (max.ratios[r] - 1));
    out.share = measure::speedupOf(shares);
  }
  for (const TimedSpeedup& cp : checkpoints) {
    if (!out.match_s && cp.speedup.median >= tt.median) out.match_s = cp.elapsed_s;
    if (!out.match_early_s && cp.speedup.hi >= tt.lo) out.match_early_s = cp.elapsed_s;
    if (!out.match_late_s && cp.speedup.lo >= tt.hi) out.match_late_s = cp.elapsed_s;
  }
  return out;
}

}  // namespace ttune::transfer
