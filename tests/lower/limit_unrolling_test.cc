// limitUnrolling (lower/limit_unrolling.h): unrolled loops whose replicated code would pass the
// budget become serial, outermost first; under the budget the statement is left as it is.
#include <gtest/gtest.h>

#include "ir_builders.h"
#include "lower/limit_unrolling.h"

namespace ttune {
namespace {

using lower::ForKind;
using lower::Stmt;
using testing::buffer;
using testing::loop;

struct Nest {
  te::Var i{"i"}, j{"j"};
  te::BufferRef a = buffer("A", 64), b = buffer("B", 64);
  // A[i*8 + j] = B[i*8 + j] + 1: 14 expression nodes with its store (index 5, value 8).
  Stmt store() const {
    te::Expr idx = te::Expr(i) * te::intImm(8) + j;
    return lower::makeStore(a, idx, te::bufferLoad(b, idx) + te::floatImm(1));
  }
  // Two unrolled loops of 8: 8 * 14 = 112 nodes inside, 8 * 112 = 896 in all.
  Stmt unrolled(ForKind inner = ForKind::Unrolled) const {
    return loop(i, 8, ForKind::Unrolled, loop(j, 8, inner, store()));
  }
};

std::vector<ForKind> kinds(const Stmt& s) {
  std::vector<ForKind> out;
  for (Stmt at = s; at && std::holds_alternative<lower::For>(at->kind);) {
    const auto& f = std::get<lower::For>(at->kind);
    out.push_back(f.kind);
    at = f.body;
  }
  return out;
}

TEST(LimitUnrolling, UnderTheBudgetNothingChanges) {
  Nest n;
  Stmt s = n.unrolled();
  EXPECT_EQ(lower::limitUnrolling(s, 896, 16), s);
}

TEST(LimitUnrolling, OutermostUnrolledLoopsBecomeSerialUntilItFits) {
  Nest n;
  EXPECT_EQ(kinds(lower::limitUnrolling(n.unrolled(), 895, 16)), (std::vector{ForKind::Serial, ForKind::Unrolled}));
  EXPECT_EQ(kinds(lower::limitUnrolling(n.unrolled(), 112, 16)), (std::vector{ForKind::Serial, ForKind::Unrolled}));
  EXPECT_EQ(kinds(lower::limitUnrolling(n.unrolled(), 111, 16)), (std::vector{ForKind::Serial, ForKind::Serial}));
}

TEST(LimitUnrolling, VectorizedLoopsCountOncePerVector) {
  Nest n;
  // 8 lanes are one vector of 16 lanes (8 * 14 = 112 nodes in all) but two of 4 (8 * 2 * 14 = 224).
  Stmt s = n.unrolled(ForKind::Vectorized);
  EXPECT_EQ(lower::limitUnrolling(s, 200, 16), s);
  EXPECT_EQ(kinds(lower::limitUnrolling(s, 200, 4)), (std::vector{ForKind::Serial, ForKind::Vectorized}));
}

TEST(LimitUnrolling, RunTimeExtentCountsTwice) {
  Nest n;
  te::Var m{"m"};
  // The same nest with the outer extent m (at most 8): a full and a tail version, 1792 nodes.
  Stmt s = lower::makeFor(n.i, m, 8, ForKind::Unrolled, loop(n.j, 8, ForKind::Unrolled, n.store()));
  EXPECT_EQ(lower::limitUnrolling(s, 1792, 16), s);
  EXPECT_EQ(kinds(lower::limitUnrolling(s, 1000, 16)), (std::vector{ForKind::Serial, ForKind::Unrolled}));
}

TEST(LimitUnrolling, SelectsTheIndexDecidesCountOnlyTheTakenBranch) {
  te::Var i{"i"};
  te::BufferRef a = buffer("A", 8), b = buffer("B", 8);
  // A[i] = select(i < 4, B[i], B[i] * B[i] * B[i]): with i known, 1 + 1 + (1 + 2) or 1 + 1 + (1 + 8)
  // nodes; the select counted whole (with its condition) makes 1 + 1 + (1 + 3 + 2 + 8).
  te::Expr load = te::bufferLoad(b, i);
  Stmt store = lower::makeStore(a, i, te::select(te::Expr(i) < te::intImm(4), load, load * load * load));
  Stmt s = loop(i, 8, ForKind::Unrolled, store);
  // 4 * 5 + 4 * 11 = 64 nodes, where every select counted whole would be 8 * 16 = 128.
  EXPECT_EQ(lower::limitUnrolling(s, 64, 16), s);
  EXPECT_EQ(kinds(lower::limitUnrolling(s, 63, 16)), std::vector{ForKind::Serial});
}

}  // namespace
}  // namespace ttune
