// Whole-model latency as the commands report it, for configurations that are compared with each
// other (untuned vs tuned vs transferred, checkpoints of a tuning run, in-model refinement
// variants): all are compiled first (sharing compiled kernels), then run on the same seeded
// inputs in alternating rounds, so that load from other processes on a shared machine slows all
// of them alike. A configuration's speedup over the first is the median over rounds of the
// paired ratio within each round, steadier than the ratio of medians when the load drifts.
// Kernel-level timing for tuning lives in measure/; this is the end-to-end number users compare.
#pragma once

#include <vector>

#include "executor/executor.h"
#include "graph/graph.h"

namespace ttune::executor {

struct ModelTimings {
  std::vector<double> median_s;        // per configuration, over all its runs
  std::vector<double> speedup_vs_first;  // per configuration: median over rounds of t(first) / t(config)
};

// rounds x per_round runs of each configuration, interleaved by round (after one warm-up run).
ModelTimings timeModels(const graph::Graph& g, std::vector<ModelOptions> configs, int rounds = 7, int per_round = 3);

// Compiled models of the same graph timed the same way (the caller compiled them).
ModelTimings timeCompiled(std::vector<CompiledModel>& models, const std::vector<runtime::NDArray>& inputs, int rounds,
                          int per_round);

}  // namespace ttune::executor
