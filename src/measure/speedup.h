// A speedup read off interleaved rounds, with its interval, and the rule for how many rounds to
// time. Every ratio ttune reports or decides on (a kernel's pick against its default, a model's
// choice against its defaults, checkpoints of a tuning run) comes from paired rounds: in each
// round both configurations run back to back, and the round's ratio is t(baseline) / t(config),
// so a drift in the machine's load meets both. The statistic is the median of the per-round
// ratios; its interval is the distribution-free confidence interval of a median (sign-test order
// statistics: with n rounds sorted, the k-th smallest and k-th largest, k the largest with
// P(Binomial(n, 1/2) < k) <= (1 - confidence) / 2, at least 1). Rounds continue until every
// interval is narrower than `max_width` (hi / lo - 1) or `max_rounds` is reached; a decision
// (`until_decided`) also stops as soon as every interval lies wholly above or wholly below 1,
// since more rounds would only narrow an interval whose verdict is already known.
// A decision keeps the non-default configuration only when its whole interval lies above 1
// (`gain()`): a ratio inside its own spread keeps the default. docs/measurement.md states the
// protocol for users.
#pragma once

#include <string>
#include <vector>

#include "support/json.h"

namespace ttune::measure {

struct RoundsProtocol {
  int min_rounds = 5;
  int max_rounds = 15;
  double max_width = 0.03;     // stop when every interval's hi / lo - 1 is below this
  double confidence = 0.90;    // nominal coverage of the interval
  bool until_decided = false;  // also stop once every interval excludes 1 (after min_rounds)
};

// Kernels (side by side in the measurement worker) and whole models (in-process) use the same
// rule; whole models allow more rounds because a round is cheaper relative to its information.
inline RoundsProtocol kernelRounds() { return {}; }
inline RoundsProtocol modelRounds() {
  RoundsProtocol p;
  p.max_rounds = 21;
  return p;
}
// What decides a pick (tune, transfer, db refresh, the whole-model check) needs the verdict, not
// a narrow ratio: a 4x kernel is known to be faster after 5 rounds. Reports (compare,
// experiment, benchmarks) keep the width rule.
inline RoundsProtocol decided(RoundsProtocol p) {
  p.until_decided = true;
  return p;
}

struct Speedup {
  double median = 1, lo = 1, hi = 1;  // ratio t(baseline) / t(this): > 1 is faster
  std::vector<double> ratios;         // one per round, in round order
  int rounds() const { return static_cast<int>(ratios.size()); }
  bool gain() const { return rounds() > 0 && lo > 1; }  // faster beyond the spread
  bool loss() const { return rounds() > 0 && hi < 1; }  // slower beyond the spread
  double width() const { return lo > 0 ? hi / lo - 1 : 1e300; }
};

// The median and interval of per-round ratios (infinite or NaN rounds count as a failed round:
// +inf when the configuration was faster, 0 when it failed). Empty input: 1 with no rounds.
Speedup speedupOf(const std::vector<double>& ratios, double confidence = RoundsProtocol{}.confidence);

// Whether `rounds` rounds are enough for these intervals under the protocol.
bool roundsDone(const std::vector<Speedup>& speedups, int rounds, const RoundsProtocol& protocol);

// "1.23x (1.19-1.27 over 9 rounds)"; "1.23x" with one round.
std::string formatSpeedup(const Speedup& s);

// {"speedup", "speedup_lo", "speedup_hi", "rounds", "round_ratios"} with `prefix` before each
// name (e.g. "refine_defaults_" gives "refine_defaults_speedup", ...).
Json speedupJson(const Speedup& s, const std::string& prefix = "");
// Reads what speedupJson wrote (missing interval fields: the median only, no rounds).
Speedup speedupFromJson(const Json& j, const std::string& prefix = "");

}  // namespace ttune::measure
