// Loop structure and bound inference of a State, shared by State::inferBounds() and the lowering.
//
// StageLoops gives, for one stage, a Var per leaf loop and the value of every root axis as an
// expression of those Vars (relative to the stage's region start), plus whether the axis needs a
// guard because a split overshoots it. computeRegion() finds the part of a producer that one
// iteration of its consumer's loops (at and outside the attach point) reads: a symbolic start and
// a constant extent, clamped to the producer's shape.
#pragma once

#include <functional>

#include <vector>

#include "schedule/state.h"
#include "support/expected.h"
#include "te/arith.h"

namespace ttune::schedule {

// value < limit must hold for an iteration to be real: needed where a split part that is not the
// outermost one was split again by factors that do not divide it (its value can run past its
// extent without the root axis noticing).
struct InnerGuard {
  te::Expr value;
  int64_t limit;
  int root_axis;  // the root axis the guarded iterator derives from
};

struct StageLoops {
  std::vector<te::Var> leaf_vars;  // aligned with stage.iters
  std::vector<te::Expr> root_rel;  // per root axis: its offset inside the region
  std::vector<int64_t> rel_max;    // per root axis: largest value root_rel can take
  std::vector<InnerGuard> inner_guards;
  te::VarBounds bounds;  // leaf var ranges
};
// Fails when a split length is unset or an extent unknown.
Expected<StageLoops> buildStageLoops(const Stage& stage);

// The body of `stage`'s op with every read of a stage for which `inlined` holds replaced by
// that stage's definition (recursively); reads of other stages remain.
te::Expr expandStages(const te::ComputeDAG& dag, int stage, const std::function<bool(int)>& inlined);
// The body of `stage`'s op with every read of an inlined stage replaced by that stage's
// definition (recursively). Reads of other stages remain; structurally equal reads are one shared
// node (so passes can key per-read work by node).
te::Expr expandInlined(const State& state, int stage);

struct AxisRegion {
  te::Expr min;     // start (clamped to >= 0)
  int64_t extent;   // constant bound of the region size (buffer size)
  te::Expr actual;  // size actually computed (<= extent; smaller at clamped edges)
};

// Region of producer `producer` read by stage `consumer` when the consumer's root axes take the
// values `consumer_root` and the consumer's leaf loops strictly inside position `attach_pos`
// range over their extents (loops at and outside it are fixed). `fixed_bounds` bounds the fixed
// variables where known (used to bound non-constant extents and to avoid clamping).
Expected<std::vector<AxisRegion>> computeRegion(const State& state, int producer, int consumer,
                                                const StageLoops& consumer_loops,
                                                const std::vector<te::Expr>& consumer_root, int attach_pos,
                                                const te::VarBounds& fixed_bounds);

}  // namespace ttune::schedule
