// Full-tile versions of register tiles (register_tile.h). A non-dividing split leaves loops
// inside a tile's region (the allocation of the tile and the statements after it that read it)
// with run-time extents that are fixed for the whole region (a tail tile is shorter); one region
// then holds every combination of full and tail code, and the control flow makes LLVM spill the
// accumulators even for full tiles. Each such region becomes `if (every such extent is at its
// maximum) <region with constant extents> else <region as it was>`: full tiles run straight-line
// code. When the enclosing loops (constant extents, lets inlined) determine those extents and
// give them at most two shorter combinations -- the tail tiles of non-dividing splits -- each
// gets a constant-extent version as well, tried before the guarded region, which stays as the
// last resort. Applied at code generation (the cost model's features see the unversioned IR).
#pragma once

#include "lower/loop_ir.h"
#include "lower/register_tile.h"

namespace ttune::lower {

Stmt versionTiles(const Stmt& s, int64_t max_tile_elements = kMaxRegisterTileElements);

}  // namespace ttune::lower
