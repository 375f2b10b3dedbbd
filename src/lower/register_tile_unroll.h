// Keeps small local tiles in registers. LLVM promotes a stack buffer to registers only when every
// access has a constant offset, so a short serial loop that indexes a register tile
// (register_tile.h) with its loop variable (typically the loop copying an accumulator tile out,
// or initializing it) is unrolled here. Loops are unrolled bottom-up while the replicated body
// stays within `max_steps` steps (statements executed per run, a vectorized loop counting once).
// A run-time extent does not prevent it: an unrolled loop with a short tail keeps constant offsets.
#pragma once

#include "lower/loop_ir.h"
#include "lower/register_tile.h"

namespace ttune::lower {

Stmt unrollRegisterTileLoops(const Stmt& s, int64_t max_tile_elements = kMaxRegisterTileElements,
                             int64_t max_steps = 64);

}  // namespace ttune::lower
