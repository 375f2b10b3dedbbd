// isLaneParallel and resolveVectorLoops (lower/vector_loops.h): each reason a body cannot run its
// lanes at once, and what a vectorized loop becomes when it cannot.
#include <gtest/gtest.h>

#include "ir_builders.h"
#include "lower/vector_loops.h"

namespace ttune {
namespace {

using lower::ForKind;
using lower::Stmt;
using testing::buffer;
using testing::loop;

struct Lane {
  te::Var v{"v"}, k{"k"};
  te::BufferRef a = buffer("A", 64), b = buffer("B", 64);
  te::Expr two = te::floatImm(2);
};

TEST(LaneParallel, StoresAtTheLaneWithLoadsElsewhere) {
  Lane l;
  Stmt elsewhere = lower::makeStore(l.a, l.v, te::bufferLoad(l.b, l.v + te::intImm(1)) * l.two);
  EXPECT_TRUE(lower::isLaneParallel(elsewhere, l.v.get()));
  // A stride other than one, and an inner loop over a constant range.
  Stmt strided = loop(l.k, 4, ForKind::Serial,
                      lower::makeStore(l.a, te::Expr(l.v) * te::intImm(4) + l.k, te::bufferLoad(l.b, l.k)));
  EXPECT_TRUE(lower::isLaneParallel(strided, l.v.get()));
  // A buffer read at the very index it is written at.
  EXPECT_TRUE(lower::isLaneParallel(lower::makeStore(l.a, l.v, te::bufferLoad(l.a, l.v) + l.two), l.v.get()));
}

TEST(LaneParallel, StoreNotIndexedByTheLaneIsNot) {
  Lane l;
  EXPECT_FALSE(lower::isLaneParallel(lower::makeStore(l.a, te::intImm(0), te::bufferLoad(l.b, l.v)), l.v.get()));
  // The lane in the index with a zero stride.
  EXPECT_FALSE(lower::isLaneParallel(lower::makeStore(l.a, te::Expr(l.v) * te::intImm(0), l.two), l.v.get()));
  // Nor in a second store of the body.
  Stmt both = lower::makeSeq({lower::makeStore(l.a, l.v, l.two), lower::makeStore(l.b, l.k, l.two)});
  EXPECT_FALSE(lower::isLaneParallel(lower::makeLet(l.k, te::intImm(3), both), l.v.get()));
}

TEST(LaneParallel, LoopExtentDependingOnTheLaneIsNot) {
  Lane l;
  Stmt store = lower::makeStore(l.a, te::Expr(l.v) * te::intImm(8) + l.k, l.two);
  EXPECT_FALSE(lower::isLaneParallel(lower::makeFor(l.k, l.v + te::intImm(1), 8, ForKind::Serial, store), l.v.get()));
  EXPECT_TRUE(lower::isLaneParallel(lower::makeFor(l.k, te::intImm(8), 8, ForKind::Serial, store), l.v.get()));
  // A parallel loop inside a lane is not either.
  EXPECT_FALSE(lower::isLaneParallel(loop(l.k, 8, ForKind::Parallel, store), l.v.get()));
}

TEST(LaneParallel, AllocationPerLaneIsNot) {
  Lane l;
  te::BufferRef t = buffer("T", 4, te::MemScope::Local);
  // Every store and load at the lane: only the allocation stands in the way.
  Stmt body = lower::makeSeq({lower::makeStore(t, l.v, l.two), lower::makeStore(l.a, l.v, te::bufferLoad(t, l.v))});
  EXPECT_FALSE(lower::isLaneParallel(lower::makeAllocate(t, body), l.v.get()));
  EXPECT_TRUE(lower::isLaneParallel(body, l.v.get()));
}

TEST(LaneParallel, BufferReadAtAnotherIndexThanWrittenIsNot) {
  Lane l;
  // A[v] = A[v + 1]: lane v reads what lane v + 1 writes.
  EXPECT_FALSE(lower::isLaneParallel(lower::makeStore(l.a, l.v, te::bufferLoad(l.a, l.v + te::intImm(1))), l.v.get()));
  // Also when the read is in a condition or a let's value.
  Stmt store = lower::makeStore(l.a, l.v, l.two);
  EXPECT_FALSE(lower::isLaneParallel(lower::makeIf(te::bufferLoad(l.a, te::intImm(0)) > l.two, store), l.v.get()));
  EXPECT_FALSE(lower::isLaneParallel(lower::makeLet(l.k, te::bufferLoad(l.a, te::intImm(0)), store), l.v.get()));
  EXPECT_TRUE(lower::isLaneParallel(lower::makeIf(te::bufferLoad(l.b, te::intImm(0)) > l.two, store), l.v.get()));
}

TEST(ResolveVectorLoops, LoopsThatCannotRunAsVectorsAreUnrolledOrSerial) {
  Lane l;
  Stmt parallel = loop(l.v, 8, ForKind::Vectorized, lower::makeStore(l.a, l.v, l.two));
  EXPECT_EQ(lower::resolveVectorLoops(parallel), parallel);
  auto kindOf = [&](int64_t extent, const Stmt& body) {
    Stmt out = lower::resolveVectorLoops(loop(l.v, extent, ForKind::Vectorized, body));
    return std::get<lower::For>(out->kind).kind;
  };
  Stmt scalar = lower::makeStore(l.a, te::intImm(0), te::bufferLoad(l.b, l.v));
  EXPECT_EQ(kindOf(16, scalar), ForKind::Unrolled);
  EXPECT_EQ(kindOf(17, scalar), ForKind::Serial);
  EXPECT_EQ(kindOf(1, lower::makeStore(l.a, l.v, l.two)), ForKind::Unrolled);  // one lane
  // Inner loops are resolved first, and the outer one is judged on what they became.
  Stmt nested = loop(l.k, 4, ForKind::Serial, loop(l.v, 8, ForKind::Vectorized, scalar));
  const auto& outer = std::get<lower::For>(lower::resolveVectorLoops(nested)->kind);
  EXPECT_EQ(outer.kind, ForKind::Serial);
  EXPECT_EQ(std::get<lower::For>(outer.body->kind).kind, ForKind::Unrolled);
}

}  // namespace
}  // namespace ttune
