// Keeps small local tiles in registers. LLVM promotes a stack buffer to registers only when every
// access has a constant offset, so a short serial loop that indexes a small Local buffer with its
// loop variable (typically the loop copying an accumulator tile out, or initializing it) is
// unrolled here. Loops are unrolled bottom-up while the replicated body stays within
// `max_steps` steps.
#pragma once

#include "lower/loop_ir.h"

namespace ttune::lower {

Stmt unrollRegisterTileLoops(const Stmt& s, int64_t max_tile_elements = 1024, int64_t max_steps = 64);

// Full-tile versions of register tiles. A non-dividing split leaves loops inside a tile's region
// (the allocation of a small Local buffer) with run-time extents that are fixed for the whole
// region (a tail tile is shorter); one region then holds every combination of full and tail
// code, and the control flow makes LLVM spill the accumulators even for full tiles. Each such
// region becomes `if (every such extent is at its maximum) <region with constant extents> else
// <region as it was>`: full tiles run straight-line code. When the enclosing loops (constant
// extents, lets inlined) determine those extents and give them at most two shorter combinations
// -- the tail tiles of non-dividing splits -- each gets a constant-extent version as well, tried
// before the guarded region, which stays as the last resort.
Stmt versionTiles(const Stmt& s, int64_t max_tile_elements = 1024);

// Bounds code size: when replicating an unrolled loop would emit more than `max_nodes`
// expression nodes (a vectorized loop counting once per vector of `lanes`, a loop with a
// run-time extent twice for its tail version), the outermost unrolled loops become serial until
// it fits. Keeps compile time bounded for any schedule.
Stmt limitUnrolling(const Stmt& s, int64_t max_nodes, int lanes);

// True when a vectorized loop's body can run its lanes at once: every store is indexed by the
// lane with a non-zero linear stride, no loop extent depends on the lane, nothing is allocated
// per lane, and a buffer written here is read only at the very index it is written at.
bool isLaneParallel(const Stmt& body, const te::VarNode* lane);

// Vectorized loops whose body is not lane-parallel become unrolled (short) or serial loops,
// so that what is emitted is what the size limits above count.
Stmt resolveVectorLoops(const Stmt& s);

}  // namespace ttune::lower
