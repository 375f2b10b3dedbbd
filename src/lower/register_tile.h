// Which buffers count as register tiles for the register-tile passes (register_tile_unroll.h,
// version_tiles.h): small Local allocations, which LLVM can keep in registers when every access
// has a constant offset. One definition, so that the passes agree on what a tile is.
#pragma once

#include <cstdint>

#include "te/expr.h"

namespace ttune::lower {

// Tiles of more elements than this stay in memory however they are indexed.
inline constexpr int64_t kMaxRegisterTileElements = 1024;

inline bool isRegisterTile(const te::Buffer& b, int64_t max_tile_elements) {
  return b.scope == te::MemScope::Local && b.size <= max_tile_elements;
}

}  // namespace ttune::lower
