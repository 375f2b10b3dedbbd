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
//
// Those are the strong defaults, what users run. The basic defaults (Baseline::Basic) are the
// kind of schedule TVM falls back to without tuning logs, the untuned baseline of the
// transfer-tuning paper: every single-consumer element-wise stage inlined, then every stage
// with its outer spatial loops fused and parallel and its innermost loop vectorized (reductions
// in between): no register tiles, no packed weights, no transpose blocks. (Its other half, no
// Winograd rewrite, is a graph choice: the commands load the model with direct convolutions.)
#pragma once

#include <vector>

#include "schedule/baseline.h"
#include "schedule/step.h"
#include "schedule/target.h"
#include "te/compute_dag.h"

namespace ttune::schedule {

struct DefaultScheduleOptions {
  Target target;              // lanes, registers and caches come from here
  int64_t min_parallel = 64;  // parallel loop extent to aim for
  Baseline baseline = Baseline::Strong;
};
DefaultScheduleOptions defaultScheduleOptions(const Target& target, Baseline baseline = Baseline::Strong);

std::vector<Step> defaultSchedule(const te::ComputeDAG& dag, const DefaultScheduleOptions& options);
// Whether one block of a register-tiled reduction's weights (reduce_len x block_lanes floats)
// stays within half of L1: such reductions are parallelized over the image rather than over
// blocks of output channels (defaultSchedule; graph/flatten.h keeps their images 2-D).
bool shortReduction(const Target& t, int64_t reduce_len, int64_t block_lanes);

}  // namespace ttune::schedule
