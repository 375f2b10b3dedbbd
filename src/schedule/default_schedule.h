// The default schedule: what a hand-written fallback would do, and the untuned baseline that
// tuning speedups are measured against. Per stage: inline cheap single-consumer elementwise
// stages; fuse the outer spatial loops into one parallel loop; split the innermost spatial loop
// by the vector width and vectorize it, with the reduction loops in between (so a reduction
// accumulates a vector of outputs at a time). A large reduction (conv, dense, matmul) instead
// accumulates a register tile of rows x vectors shaped for the target's register file
// (registerTileFor: e.g. 4 x 3 vectors with 16 registers, 14 x 2 with 32), the vectors along the
// output channels when the input is invariant in them (so strided convolutions never gather),
// with its element-wise consumer fused and constant weights packed in tile order. A depthwise
// convolution (no broadcast operand) gets a small tile (elementwiseTileFor); a reduction along
// its input's contiguous axis with nothing else to vectorize (softmax, layer norm) is factored
// into a vector of partial results per row; a stage its consumer broadcasts is not inlined.
#pragma once

#include <vector>

#include "schedule/step.h"
#include "schedule/target.h"
#include "te/compute_dag.h"

namespace ttune::schedule {

struct DefaultScheduleOptions {
  Target target;              // lanes, registers and caches come from here
  int64_t min_parallel = 64;  // parallel loop extent to aim for
};
DefaultScheduleOptions defaultScheduleOptions(const Target& target);

std::vector<Step> defaultSchedule(const te::ComputeDAG& dag, const DefaultScheduleOptions& options);

}  // namespace ttune::schedule
