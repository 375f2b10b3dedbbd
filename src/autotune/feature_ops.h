// Internal to the feature extractor (features.cc): the arithmetic a store's expressions compute,
// counted by kind for the compute features (Group 1), and the buffer loads they read.
#pragma once

#include <vector>

#include "te/expr.h"

namespace ttune::autotune::detail {

enum OpKind { kMad, kAddSub, kMul, kDivMod, kCmp, kMathFunc, kOtherFunc, kNumOpKinds };

// Operations per execution of an expression, float and integer apart.
struct OpCounts {
  double flt[kNumOpKinds] = {};
  double integer[kNumOpKinds] = {};
  double bool_op = 0, select_op = 0;
  double floatOps() const {  // a mad is two operations
    double s = flt[kMad];
    for (double v : flt) s += v;
    return s;
  }
};

// Adds e's operations to c. A multiply feeding an add or subtract counts once, as a fused
// multiply-add (the code generator contracts them).
void countOps(const te::Expr& e, OpCounts& c);
// Appends every buffer load in e (including those in load indices), outermost first.
void collectLoads(const te::Expr& e, std::vector<const te::BufferLoad*>& out);

}  // namespace ttune::autotune::detail
