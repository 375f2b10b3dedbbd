// Whole-model latency as the commands report it, for configurations that are compared with each
// other (untuned vs tuned vs transferred, checkpoints of a tuning run, in-model refinement
// variants): all are compiled first (sharing compiled kernels), then run on the same seeded
// inputs in alternating rounds, so that load from other processes on a shared machine slows all
// of them alike. Each round runs every configuration `per_round` times back to back; the round's
// ratio of a configuration is the first configuration's round median over its own. Rounds go on
// until every configuration's speedup over the first is known to the protocol's width, or its
// round cap (measure/speedup.h: the median of the per-round ratios and its interval).
// What ran just before a configuration changes its time (latency.cc says what was measured), so
// rounds run the configurations in balanced orders (measure/round_order.h: each follows every
// other equally often) and each block starts with untimed runs of its configuration
// (block_warm_s); bench/bench_aa.cc is the A/A test of the whole routine.
// Kernel-level timing for tuning lives in measure/; this is the end-to-end number users compare.
#pragma once

#include <functional>

#include <vector>

#include "executor/executor.h"
#include "graph/graph.h"
#include "measure/round_order.h"
#include "measure/speedup.h"

namespace ttune::executor {

// How the rounds are run.
struct Interleave {
  int per_round = 3;  // runs of a configuration back to back in a round
  measure::RoundOrder order = measure::RoundOrder::Balanced;
  // Untimed runs of a configuration before its block, for at least this long (0: none); not for
  // configurations whose run takes a second or more.
  double block_warm_s = 0.1;
  // A configuration whose run takes at least this long (seconds; 0: never) runs once per round
  // instead of per_round times: three runs per round of a model that runs for seconds (bert_base
  // with basic defaults: 6-7 s) made one check cost minutes and one report 25; the rounds'
  // interval is as valid with one run each, only less narrow.
  double single_run_from_s = 0;
};

// Interleave::single_run_from_s of whole-model comparisons, those that decide (model checks,
// in-model refinement) and reports (transfer/compare.h) alike.
inline constexpr double kSingleRunFromS = 1.0;

struct ModelTimings {
  std::vector<double> median_s;           // per configuration, over all its runs
  std::vector<measure::Speedup> speedup;  // per configuration, over the first (the first's: 1)
  std::vector<int> timed_runs;            // per configuration, over all rounds (warm-ups not counted)
};

// Compiles each configuration (sharing compiled kernels) and times them interleaved.
ModelTimings timeModels(const graph::Graph& g, std::vector<ModelOptions> configs,
                        const measure::RoundsProtocol& protocol = measure::modelRounds(), const Interleave& how = {});

// Runs of anything timed the same way (each callable runs one configuration once), e.g. a model
// compiled for ranges of sizes against the model compiled for one size.
ModelTimings timeRuns(const std::vector<std::function<void()>>& runs,
                      const measure::RoundsProtocol& protocol = measure::modelRounds(), const Interleave& how = {});

// Compiled models of the same graph timed the same way (the caller compiled them).
ModelTimings timeCompiled(std::vector<CompiledModel>& models, const std::vector<runtime::NDArray>& inputs,
                          const measure::RoundsProtocol& protocol = measure::modelRounds(), const Interleave& how = {});

}  // namespace ttune::executor
