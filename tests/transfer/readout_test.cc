// The error bars of a comparison's readout (transfer/readout.h) on synthetic per-round ratios.
#include <gtest/gtest.h>

#include "transfer/readout.h"

namespace ttune::transfer {
namespace {

using measure::speedupOf;

// A tuning gain well beyond the spread: %max per round, its median and interval; the match time
// lies between the first checkpoint whose interval reaches S_tt's and the first entirely above it.
TEST(Readout, ShareAndMatchTimeWithTheirIntervals) {
  measure::Speedup tt = speedupOf({1.50, 1.55, 1.45, 1.52, 1.48});
  std::vector<TimedSpeedup> cps = {
      {60, speedupOf({1.30, 1.32, 1.28, 1.31, 1.29})},
      {120, speedupOf({1.47, 1.53, 1.45, 1.50, 1.49})},  // reaches S_tt within the spread
      {180, speedupOf({1.60, 1.62, 1.58, 1.61, 1.59})},  // entirely above it
      {240, speedupOf({2.00, 2.04, 1.96, 2.02, 1.98})},
  };
  ShareReadout r = readShare(tt, cps);
  EXPECT_TRUE(r.measurable_gain);
  ASSERT_EQ(r.share.rounds(), 5);
  EXPECT_NEAR(r.share.median, 0.5, 0.01);  // per round (S_tt - 1) / (S_max - 1), e.g. 0.50 / 1.00
  EXPECT_LT(r.share.lo, r.share.median);
  EXPECT_GT(r.share.hi, r.share.median);
  ASSERT_TRUE(r.match_s && r.match_early_s && r.match_late_s);
  EXPECT_EQ(*r.match_s, 180);        // the first median at or above 1.50 (120's is 1.49)
  EXPECT_EQ(*r.match_early_s, 120);  // its interval reaches 1.48
  EXPECT_EQ(*r.match_late_s, 180);
}

// A tuning run whose speedup interval contains 1 has no measurable gain: no %max (it would
// divide noise by noise), and a transfer inside the spread is matched at once.
TEST(Readout, NoMeasurableGainHasNoShare) {
  measure::Speedup tt = speedupOf({1.01, 0.99, 1.02, 1.00, 0.98});
  std::vector<TimedSpeedup> cps = {{30, speedupOf({1.00, 1.03, 0.98, 1.01, 0.99})},
                                   {90, speedupOf({1.02, 0.99, 1.04, 0.97, 1.01})}};
  ShareReadout r = readShare(tt, cps);
  EXPECT_FALSE(r.measurable_gain);
  EXPECT_EQ(r.share.rounds(), 0);
  ASSERT_TRUE(r.match_early_s);
  EXPECT_EQ(*r.match_early_s, 30);
  EXPECT_FALSE(r.match_late_s);  // no checkpoint is entirely above S_tt's interval
}

// A transfer beyond every checkpoint: never matched, not even at its interval's edge.
TEST(Readout, AnUnmatchedTransfer) {
  measure::Speedup tt = speedupOf({3.0, 3.1, 2.9, 3.05, 2.95});
  std::vector<TimedSpeedup> cps = {{60, speedupOf({1.5, 1.6, 1.4, 1.55, 1.45})},
                                   {600, speedupOf({2.0, 2.1, 1.9, 2.05, 1.95})}};
  ShareReadout r = readShare(tt, cps);
  EXPECT_TRUE(r.measurable_gain);
  EXPECT_GT(r.share.median, 1.5);
  EXPECT_FALSE(r.match_s);
  EXPECT_FALSE(r.match_early_s);
  EXPECT_FALSE(r.match_late_s);
}

}  // namespace
}  // namespace ttune::transfer
