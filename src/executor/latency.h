// Whole-model latency as the commands report it, for configurations that are compared with each
// other (untuned vs tuned vs transferred, checkpoints of a tuning run, in-model refinement
// variants): all are compiled first (sharing compiled kernels), then run on the same seeded
// inputs in alternating rounds, so that load from other processes on a shared machine slows all
// of them alike. Each round runs every configuration `per_round` times back to back; the round's
// ratio of a configuration is the first configuration's round median over its own. Rounds go on
// until every configuration's speedup over the first is known to the protocol's width, or its
// round cap (measure/speedup.h: the median of the per-round ratios and its interval).
// Known bias (`bench/bench_aa.cc`, an A/A test): with a different model among the
// configurations, the first configuration timed 2-7% slower than an identical copy of it on
// alexnet (0-1% on resnet50), in either round order; without one, identical copies agree within
// about 1%. The cause is not found; starting each round one configuration later (Rotating) did
// not remove it, so the order stays Fixed (the first configuration first in every round).
// Kernel-level timing for tuning lives in measure/; this is the end-to-end number users compare.
#pragma once

#include <vector>

#include "executor/executor.h"
#include "graph/graph.h"
#include "measure/speedup.h"

namespace ttune::executor {

// Fixed: configuration 0 first in every round; Rotating: round r starts at configuration r mod n.
enum class RoundOrder { Fixed, Rotating };

struct ModelTimings {
  std::vector<double> median_s;            // per configuration, over all its runs
  std::vector<measure::Speedup> speedup;   // per configuration, over the first (the first's: 1)
};

// Compiles each configuration (sharing compiled kernels) and times them interleaved.
ModelTimings timeModels(const graph::Graph& g, std::vector<ModelOptions> configs,
                        const measure::RoundsProtocol& protocol = measure::modelRounds(), int per_round = 3,
                        RoundOrder order = RoundOrder::Fixed);

// Compiled models of the same graph timed the same way (the caller compiled them).
ModelTimings timeCompiled(std::vector<CompiledModel>& models, const std::vector<runtime::NDArray>& inputs,
                          const measure::RoundsProtocol& protocol = measure::modelRounds(), int per_round = 3,
                          RoundOrder order = RoundOrder::Fixed);

}  // namespace ttune::executor
