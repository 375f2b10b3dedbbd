// Whole-model latency as the commands report it: compile the model with the given schedules and
// take the median of a few runs on seeded random inputs (after one warm-up run). Kernel-level
// timing for tuning lives in measure/; this is the end-to-end number users compare.
#pragma once

#include "executor/executor.h"
#include "graph/graph.h"

namespace ttune::cli {

double modelLatency(const graph::Graph& g, const executor::ModelOptions& options, int repeat = 7);

}  // namespace ttune::cli
