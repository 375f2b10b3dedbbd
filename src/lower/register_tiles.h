// Keeps small local tiles in registers. LLVM promotes a stack buffer to registers only when every
// access has a constant offset, so a short serial loop that indexes a small Local buffer with its
// loop variable (typically the loop copying an accumulator tile out, or initializing it) is
// unrolled here. Loops are unrolled bottom-up while the replicated body stays within
// `max_steps` steps.
#pragma once

#include "lower/loop_ir.h"

namespace ttune::lower {

Stmt unrollRegisterTileLoops(const Stmt& s, int64_t max_tile_elements = 1024, int64_t max_steps = 64);

// Bounds code size: when replicating an unrolled loop would emit more than `max_nodes`
// expression nodes (a vectorized loop counting once per vector of `lanes`, a loop with a
// run-time extent twice for its tail version), the outermost unrolled loops become serial until
// it fits. Keeps compile time bounded for any schedule.
Stmt limitUnrolling(const Stmt& s, int64_t max_nodes, int lanes);

}  // namespace ttune::lower
