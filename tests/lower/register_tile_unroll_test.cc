// unrollRegisterTileLoops (lower/register_tile_unroll.h): short serial loops that index a small
// local tile are unrolled, so that the tile can live in registers; others are left alone.
#include <gtest/gtest.h>

#include "ir_builders.h"
#include "lower/register_tile_unroll.h"

namespace ttune {
namespace {

using lower::ForKind;
using lower::Stmt;
using testing::buffer;
using testing::loop;

ForKind kindAt(const Stmt& s, size_t k) {
  const auto& seq = std::get<lower::Seq>(s->kind);
  return std::get<lower::For>(seq.stmts.at(k)->kind).kind;
}

// allocate T; { for i: T[i] = 0 }, then for i: C[i] = T[i] (the write-back after the allocation).
Stmt tileNest(const te::BufferRef& t, int64_t extent) {
  te::Var i{"i"}, j{"j"};
  te::BufferRef c = buffer("C", 1024);
  Stmt init = loop(i, extent, ForKind::Serial, lower::makeStore(t, i, te::floatImm(0)));
  Stmt back = loop(j, extent, ForKind::Serial, lower::makeStore(c, j, te::bufferLoad(t, j)));
  return lower::makeSeq({lower::makeAllocate(t, init), back});
}

TEST(RegisterTileUnroll, LoopsIndexingASmallLocalTileAreUnrolled) {
  Stmt s = lower::unrollRegisterTileLoops(tileNest(buffer("T", 16, te::MemScope::Local), 16));
  const auto& alloc = std::get<lower::Allocate>(std::get<lower::Seq>(s->kind).stmts[0]->kind);
  EXPECT_EQ(std::get<lower::For>(alloc.body->kind).kind, ForKind::Unrolled);
  EXPECT_EQ(kindAt(s, 1), ForKind::Unrolled);
}

TEST(RegisterTileUnroll, LargeOrGlobalBuffersAndLongLoopsStaySerial) {
  for (const te::BufferRef& t : {buffer("T", 2048, te::MemScope::Local), buffer("T", 16, te::MemScope::Global)}) {
    Stmt s = tileNest(t, 16);
    EXPECT_EQ(lower::unrollRegisterTileLoops(s), s) << t->size;
  }
  // 100 steps are more than the 64 allowed.
  Stmt s = tileNest(buffer("T", 128, te::MemScope::Local), 100);
  EXPECT_EQ(lower::unrollRegisterTileLoops(s), s);
  EXPECT_EQ(kindAt(lower::unrollRegisterTileLoops(s, 1024, 100), 1), ForKind::Unrolled);
}

}  // namespace
}  // namespace ttune
