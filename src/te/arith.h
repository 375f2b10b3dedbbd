// Integer arithmetic analysis for index expressions: constant bounds, linear forms and the
// simplifier that keeps lowered indices small.
//
// Contract: analysis treats integers as unbounded mathematical integers (index expressions never
// overflow int64), floordiv/floormod round toward negative infinity, and bounds are inclusive.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "te/expr.h"
#include "te/expr_functor.h"

namespace ttune::te {

// Inclusive integer interval; kNegInf/kPosInf mean unknown on that side.
struct IntBound {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t lo = kNegInf;
  int64_t hi = kPosInf;
  static IntBound exact(int64_t v) { return {v, v}; }
  static IntBound range(int64_t lo, int64_t extent) { return {lo, lo + extent - 1}; }
  bool isConst() const { return lo == hi && lo != kNegInf; }
  bool bounded() const { return lo != kNegInf && hi != kPosInf; }
};

using VarBounds = VarMap<IntBound>;

// Conservative bound of an integer (or bool) expression given bounds of its variables.
IntBound constIntBound(const Expr& e, const VarBounds& bounds);

// e = sum(coef_i * atom_i) + constant, where atoms are variables or non-linear sub-expressions,
// kept in order of first appearance so that rebuilding is deterministic.
struct LinearForm {
  std::vector<std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;
};
LinearForm toLinear(const Expr& e);
Expr fromLinear(const LinearForm& f, DType dtype = DType::Int64);

// If e == base + coef * var with `base` not mentioning var, returns coef (0 when var is absent).
// Returns nullopt when var appears non-linearly.
std::optional<int64_t> linearCoefficient(const Expr& e, const VarNode* var);

// Simplifies integer index arithmetic (canonical linear sums, floordiv/floormod elimination using
// bounds, min/max/comparison decisions) and folds constants in float expressions.
Expr simplify(const Expr& e, const VarBounds& bounds = {});

// True when `cond` is provably true (false) under the bounds.
bool proveTrue(const Expr& cond, const VarBounds& bounds = {});

}  // namespace ttune::te
