// Which vectorized loops the code generator can run as vectors, and what the others become.
// A vectorized loop whose body is not lane-parallel is emitted lane by lane, so lowering turns it
// into an unrolled (short) or serial loop: what is emitted is then what the size limits
// (limit_unrolling.h) count.
#pragma once

#include "lower/loop_ir.h"

namespace ttune::lower {

// True when a vectorized loop's body can run its lanes at once: every store is indexed by the
// lane with a non-zero linear stride, no loop extent depends on the lane, nothing is allocated
// per lane, and a buffer written here is read only at the very index it is written at.
bool isLaneParallel(const Stmt& body, const te::VarNode* lane);

// Vectorized loops of at most one lane or whose body is not lane-parallel become unrolled loops
// (at most 16 lanes) or serial ones.
Stmt resolveVectorLoops(const Stmt& s);

}  // namespace ttune::lower
