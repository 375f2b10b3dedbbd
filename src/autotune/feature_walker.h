// Internal to the feature extractor: the first pass over the loop IR. It records every loop with
// its *expected* trip count, every Store with the loops, guards and allocation around it, and
// provides the small integer evaluator both passes use.
//
// Expected trip counts: a loop with a constant extent runs that many times. A loop whose extent is
// an expression of enclosing loop variables (the tail of a non-dividing split, a clamped region)
// runs, on average over the iterations of those enclosing loops, mean(extent) times; the walker
// enumerates the loops the extent depends on (transitively through their own extents) with their
// actual ranges. Beyond `budget` evaluations it samples each range at evenly spaced points plus
// its last point, where tails are. The product of the expected trip counts along a nest is then
// the real number of executions of its body (exactly so for split tails). An `if` contributes the
// fraction of enumerated iterations for which its condition holds. An expression that cannot be
// evaluated (a data-dependent extent) falls back to max_extent and is flagged `unknown`.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "lower/loop_ir.h"

namespace ttune::autotune::detail {

struct LoopInfo {
  const te::VarNode* var = nullptr;
  lower::ForKind kind = lower::ForKind::Serial;
  int64_t max_extent = 0;
  double trips = 0;       // expected trip count per execution of the enclosing body
  double short_frac = 0;  // fraction of runs with fewer than max_extent iterations
  bool unknown = false;   // extent not evaluable: trips = max_extent
};

struct StoreInfo {
  const lower::Store* store = nullptr;
  std::vector<int> loops;  // indices into WalkResult::loops, outermost first
  double guard_prob = 1;   // product of the pass fractions of the enclosing ifs
  int guard_ifs = 0;
  int alloc = -1;  // index into WalkResult::allocs of the written buffer, or -1
};

struct AllocInfo {
  const te::Buffer* buffer = nullptr;
  double execs = 0;  // expected number of times the allocation is made
};

struct WalkResult {
  std::vector<LoopInfo> loops;
  std::vector<StoreInfo> stores;
  std::vector<AllocInfo> allocs;
};

// `budget`: evaluations per expected-value estimate.
WalkResult walkLoopIR(const lower::Stmt& body, int budget = 1024);

// Variable values for evalInt (innermost last; looked up from the back).
using Env = std::vector<std::pair<const te::VarNode*, int64_t>>;
// Exact value of an integer or boolean expression, or nullopt when it reads memory, uses a
// variable missing from env, divides by zero or is not integer.
std::optional<int64_t> evalInt(const te::Expr& e, const Env& env);
// Appends the distinct variables of e (first appearance order).
void collectVars(const te::Expr& e, std::vector<const te::VarNode*>& out);

}  // namespace ttune::autotune::detail
