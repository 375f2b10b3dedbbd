// Dot-product groups of int8 and bfloat16 reductions. An int8 product (8-bit operands widened to
// int32 and summed) or a bfloat16 one (widened to float32) runs on the target's dot-product
// units when its innermost reduction axis is split into groups of Target::int8_group (or
// bf16_group) consecutive elements and the group loop is the stage's innermost loop, inside its
// vectorized loop, unrolled (codegen/emitter_dot.cc turns each group into one instruction per
// vector). The default schedule and the search space build that shape;
// the search recognizes it in states so that it keeps the group loop innermost and whole.
#pragma once

#include <cstdint>

#include "schedule/state.h"
#include "schedule/target.h"
#include "te/tensor.h"

namespace ttune::schedule {

// The group of an int8 or bfloat16 product on target t when its innermost reduction axis holds
// whole groups; 1 for every other op (float32, non-reductions) and targets without a unit.
int64_t dotGroup(const te::ComputeOp& c, const Target& t);

// Whether the stage's innermost loop is a dot-product group loop: a reduction loop of 2 or 4
// iterations, annotated unroll, innermost.
bool endsInDotGroup(const Stage& st);

}  // namespace ttune::schedule
