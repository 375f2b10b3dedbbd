// The statistics of a comparison (measure/speedup.h, measure/round_order.h, measure/timing.h): the
// median ratio and its order-statistic interval, when rounds stop, how the verdict is printed and
// stored, the order configurations run in within a round, and how many runs make one repeat.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "measure/round_order.h"
#include "measure/speedup.h"
#include "measure/timing.h"

namespace ttune::measure {
namespace {

// The interval of a median from order statistics: with 5 to 8 rounds it is the range, with 9 the
// second smallest to second largest; a decision needs the whole interval above 1.
TEST(Speedup, IntervalFromOrderStatisticsAndDecision) {
  Speedup s = speedupOf({1.10, 1.02, 1.05, 1.04, 1.08});
  EXPECT_DOUBLE_EQ(s.median, 1.05);
  EXPECT_DOUBLE_EQ(s.lo, 1.02);
  EXPECT_DOUBLE_EQ(s.hi, 1.10);
  EXPECT_TRUE(s.gain());
  EXPECT_FALSE(s.loss());
  Speedup nine = speedupOf({0.90, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.30});
  EXPECT_DOUBLE_EQ(nine.lo, 1.01);  // one disturbed round on each side does not move it
  EXPECT_DOUBLE_EQ(nine.hi, 1.07);
  EXPECT_TRUE(nine.gain());
  // A gain of 2% inside a spread of +-4% is no gain, and no loss either.
  Speedup inside = speedupOf({0.98, 1.06, 1.02, 0.99, 1.05, 1.01, 1.03});
  EXPECT_FALSE(inside.gain());
  EXPECT_FALSE(inside.loss());
  EXPECT_TRUE(speedupOf({0.8, 0.9, 0.85, 0.88, 0.95}).loss());
  // A failed round of the configuration (ratio 0) counts against it; NaN as a failure.
  Speedup failed = speedupOf({1.1, 1.1, std::nan(""), 0.0, 1.1});
  EXPECT_DOUBLE_EQ(failed.lo, 0);
  EXPECT_FALSE(failed.gain());
  EXPECT_EQ(speedupOf({}).rounds(), 0);
  EXPECT_FALSE(speedupOf({}).gain());
}

TEST(Speedup, RoundsStopAtTheWidthOrTheCap) {
  RoundsProtocol p;
  p.min_rounds = 5;
  p.max_rounds = 9;
  p.max_width = 0.03;
  Speedup tight = speedupOf({1.00, 1.01, 1.005, 1.01, 1.00});
  Speedup wide = speedupOf({0.95, 1.05, 1.00, 1.02, 0.97});
  EXPECT_FALSE(roundsDone({tight}, 4, p));  // too few rounds
  EXPECT_TRUE(roundsDone({tight}, 5, p));
  EXPECT_FALSE(roundsDone({tight, wide}, 5, p));
  EXPECT_TRUE(roundsDone({tight, wide}, 9, p));  // the cap
  EXPECT_TRUE(roundsDone({}, 5, p));
}

// A decision stops once its verdict is known: wide intervals that lie wholly above (or below) 1
// need no more rounds; one that still contains 1 does, up to the cap.
TEST(Speedup, DecisionsStopOnceEveryIntervalExcludesOne) {
  RoundsProtocol p;
  p.min_rounds = 5;
  p.max_rounds = 15;
  Speedup faster = speedupOf({3.1, 4.6, 2.2, 5.0, 3.9});   // 2.2-5.0: wide, above 1
  Speedup slower = speedupOf({0.5, 0.8, 0.6, 0.7, 0.9});   // 0.5-0.9: wide, below 1
  Speedup unknown = speedupOf({0.8, 1.3, 1.1, 0.9, 1.2});  // contains 1
  EXPECT_FALSE(roundsDone({faster}, 5, p));                // a report wants the narrow ratio
  RoundsProtocol d = decided(p);
  EXPECT_FALSE(roundsDone({faster}, 4, d));  // never before min_rounds
  EXPECT_TRUE(roundsDone({faster}, 5, d));
  EXPECT_TRUE(roundsDone({faster, slower}, 5, d));
  EXPECT_FALSE(roundsDone({faster, unknown}, 5, d));
  EXPECT_TRUE(roundsDone({unknown}, 15, d));  // the cap still ends it
  // Five rounds all above 1 but one at 1.0 exactly: the interval's low end is 1, not above it.
  EXPECT_FALSE(roundsDone({speedupOf({1.0, 1.5, 1.6, 1.7, 1.8})}, 5, d));
}

TEST(Speedup, PrintsAndRoundTripsThroughJson) {
  Speedup s = speedupOf({0.97, 0.99, 1.01, 0.98, 1.00, 0.99, 1.01});
  EXPECT_EQ(formatSpeedup(s), "0.99x (0.97-1.01 over 7 rounds)");
  Json j = speedupJson(s, "x_");
  EXPECT_EQ(j["x_rounds"], 7);
  EXPECT_EQ(j["x_round_ratios"].size(), 7u);
  Speedup back = speedupFromJson(j, "x_");
  EXPECT_DOUBLE_EQ(back.lo, s.lo);
  EXPECT_DOUBLE_EQ(back.hi, s.hi);
  EXPECT_EQ(back.ratios, s.ratios);
  EXPECT_EQ(formatSpeedup(speedupOf({1.234})), "1.23x");
}

TEST(Speedup, TheConfidenceSetsTheOrderStatisticOfTheInterval) {
  std::vector<double> r = {0.90, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.30};
  Speedup nominal = speedupOf(r), strict = speedupOf(r, 0.99), loose = speedupOf(r, 0.5);
  EXPECT_DOUBLE_EQ(strict.lo, 0.90);  // k = 1: the range
  EXPECT_DOUBLE_EQ(strict.hi, 1.30);
  EXPECT_DOUBLE_EQ(nominal.lo, 1.01);
  EXPECT_DOUBLE_EQ(loose.lo, 1.02);  // k = 3
  EXPECT_DOUBLE_EQ(loose.hi, 1.06);
  EXPECT_DOUBLE_EQ(loose.median, 1.04);
}

TEST(Speedup, JsonWithoutTheIntervalOrWithNonFiniteRatiosReadsBackSafely) {
  Speedup old = speedupFromJson(Json{{"speedup", 1.5}});  // written before intervals existed
  EXPECT_DOUBLE_EQ(old.median, 1.5);
  EXPECT_DOUBLE_EQ(old.lo, 1.5);
  EXPECT_DOUBLE_EQ(old.hi, 1.5);
  EXPECT_EQ(old.rounds(), 0);
  EXPECT_FALSE(old.gain());  // no rounds, no decision
  Speedup none = speedupFromJson(Json::object());
  EXPECT_DOUBLE_EQ(none.median, 1);
  // A round where the baseline failed is +inf; JSON has no infinity, so it is written as null.
  Speedup s = speedupOf({1.2, std::numeric_limits<double>::infinity(), 1.1, 1.3, 1.25});
  Json j = speedupJson(s);
  EXPECT_TRUE(j["speedup_hi"].is_null());
  EXPECT_TRUE(j["round_ratios"][1].is_null());
  Speedup back = speedupFromJson(j);
  EXPECT_TRUE(std::isinf(back.ratios[1]) && back.ratios[1] > 0);
  EXPECT_DOUBLE_EQ(back.hi, back.median);  // an unreadable interval end falls back to the median
  EXPECT_DOUBLE_EQ(back.lo, 1.1);
}

// Every run is counted: one warm-up, one calibration run, then `number` runs per repeat, with
// `number` grown so that a repeat lasts the minimum time; a fixed number and cache flushing are
// honoured, and a warm-up beyond the slow cutoff is the only sample.
TEST(Timing, RunsWarmUpCalibrationAndNumberPerRepeat) {
  int calls = 0, flushes = 0;
  auto fn = [&] { ++calls; };
  TimingOptions o;
  o.min_repeat_ms = 5;
  o.repeat = 2;
  Timing t = timeFunction(fn, o);
  EXPECT_GT(t.number, 1);
  EXPECT_EQ(calls, 2 + t.number * 2);
  ASSERT_EQ(t.costs_s.size(), 2u);
  EXPECT_LE(t.min_s, t.median_s);
  EXPECT_LE(t.median_s, t.max_s);
  EXPECT_GT(t.number * t.median_s * 1e3, 1.0) << "a repeat lasts about min_repeat_ms";
  calls = 0;
  o.number = 3;
  t = timeFunction(fn, o);
  EXPECT_EQ(t.number, 3);
  EXPECT_EQ(calls, 1 + 3 * 2);  // no calibration run
  calls = 0;
  o.number = 0;
  o.cache_flush = true;
  t = timeFunction(fn, o, [&] { ++flushes; });
  EXPECT_EQ(t.number, 1);
  EXPECT_EQ(calls, 1 + 2);
  EXPECT_EQ(flushes, calls);  // before every run
  calls = 0;
  o.cache_flush = false;
  o.slow_cutoff_s = 1e-3;
  t = timeFunction(
      [&] {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
      },
      o);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(t.costs_s.size(), 1u);
  EXPECT_GE(t.median_s, 3e-3);
}

TEST(Timing, MedianAndRunsPerRepeat) {
  EXPECT_EQ(median({}), 0);
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(runsPerRepeat(1e-3, 10), 10);     // 1 ms runs fill 10 ms with 10
  EXPECT_EQ(runsPerRepeat(3e-3, 10), 4);      // rounded up: a repeat lasts at least the minimum
  EXPECT_EQ(runsPerRepeat(0.5, 10), 1);       // a slow run is one per repeat
  EXPECT_EQ(runsPerRepeat(0, 10), 10000000);  // an unmeasurably fast run counts as 1 ns
  EXPECT_EQ(runsPerRepeat(0, 100), 1 << 24);  // and the count is capped
}

// Over one cycle of balanced orders every configuration follows every other exactly once within
// the rounds, for even and odd counts; each round is a permutation; fixed and rotating orders
// give every configuration the same (cyclic) predecessor in every round.
TEST(RoundOrder, BalancedOrdersMeetEveryPredecessorOnce) {
  for (size_t n = 1; n <= 9; ++n) {
    int cycle = roundOrderCycle(RoundOrder::Balanced, n);
    EXPECT_EQ(cycle, n < 2 ? 1 : static_cast<int>(n % 2 == 0 ? n : 2 * n)) << n;
    std::vector<std::vector<int>> follows(n, std::vector<int>(n, 0));  // [before][after]
    for (int r = 0; r < cycle; ++r) {
      std::vector<size_t> order = roundOrder(RoundOrder::Balanced, n, r);
      std::vector<size_t> sorted = order;
      std::sort(sorted.begin(), sorted.end());
      for (size_t j = 0; j < n; ++j) ASSERT_EQ(sorted[j], j) << "round " << r << " of " << n << " is no permutation";
      for (size_t j = 1; j < n; ++j) ++follows[order[j - 1]][order[j]];
      EXPECT_EQ(roundOrder(RoundOrder::Balanced, n, r + cycle), order) << "the order repeats after its cycle";
    }
    int times = n % 2 == 0 ? 1 : 2;
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b) EXPECT_EQ(follows[a][b], a == b ? 0 : times) << n << ": " << b << " after " << a;
  }
  EXPECT_EQ(roundOrder(RoundOrder::Balanced, 4, 0), (std::vector<size_t>{0, 1, 3, 2}));
  EXPECT_EQ(roundOrder(RoundOrder::Balanced, 2, 1), (std::vector<size_t>{1, 0}));
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(roundOrder(RoundOrder::Fixed, 3, r), (std::vector<size_t>{0, 1, 2}));
    std::vector<size_t> rot = roundOrder(RoundOrder::Rotating, 3, r);
    for (size_t j = 0; j < 3; ++j) EXPECT_EQ(rot[(j + 1) % 3], (rot[j] + 1) % 3) << "rotation keeps cyclic neighbours";
  }
  EXPECT_TRUE(roundOrder(RoundOrder::Balanced, 0, 3).empty());
}

}  // namespace
}  // namespace ttune::measure
