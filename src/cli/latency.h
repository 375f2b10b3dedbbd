// Whole-model latency as the commands report it: compile the model with the given schedules and
// take the median of a few runs on seeded random inputs (after one warm-up run). Kernel-level
// timing for tuning lives in measure/; this is the end-to-end number users compare.
//
// Configurations that are compared with each other (untuned vs tuned, vs transferred) are timed
// with modelLatencies: all compiled first, then run in alternating rounds, so that load from
// other processes on a shared machine slows all of them alike and their ratios hold.
#pragma once

#include <vector>

#include "executor/executor.h"
#include "graph/graph.h"

namespace ttune::cli {

double modelLatency(const graph::Graph& g, const executor::ModelOptions& options, int repeat = 7);

// Median latency of each configuration over rounds x per_round runs, interleaved by round.
std::vector<double> modelLatencies(const graph::Graph& g, const std::vector<executor::ModelOptions>& configs,
                                   int rounds = 5, int per_round = 3);

}  // namespace ttune::cli
