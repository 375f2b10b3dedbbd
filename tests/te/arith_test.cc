#include <gtest/gtest.h>

#include "te/arith.h"
#include "te/printer.h"

namespace ttune::te {
namespace {

TEST(Arith, LinearCanonicalization) {
  Var i("i"), j("j");
  EXPECT_EQ(toString(simplify((i + j) * 2 - j - i)), "(i + j)");
  EXPECT_EQ(toString(simplify(i * 4 + 3 - i * 4)), "3");
  EXPECT_EQ(toString(simplify((i + 1) * 3 + (j - 2) * 3)), "(((i * 3) + (j * 3)) - 3)");
}

TEST(Arith, DivModEliminationWithBounds) {
  Var o("o"), in("in");
  VarBounds b{{o.get(), IntBound::range(0, 16)}, {in.get(), IntBound::range(0, 8)}};
  Expr fused = o * 8 + in;  // a split: o outer, in inner of factor 8
  EXPECT_EQ(toString(simplify(fused / 8, b)), "o");
  EXPECT_EQ(toString(simplify(fused % 8, b)), "in");
  EXPECT_EQ(toString(simplify((fused + 16) / 8, b)), "(o + 2)");
  // Without bounds on `in` nothing can be decided about the remainder.
  EXPECT_EQ(toString(simplify(fused / 8)), "(o + (in // 8))");
}

TEST(Arith, MinMaxAndComparisonsDecidedByBounds) {
  Var i("i");
  VarBounds b{{i.get(), IntBound::range(0, 10)}};
  EXPECT_EQ(toString(simplify(min(i, Expr(20)), b)), "i");
  EXPECT_EQ(toString(simplify(max(i, Expr(-1)), b)), "i");
  EXPECT_EQ(toString(simplify(i < 10, b)), "true");
  EXPECT_EQ(toString(simplify(i < 9, b)), "(i < 9)");
  EXPECT_TRUE(proveTrue(i + 1 > 0, b));
  EXPECT_FALSE(proveTrue(i > 0, b));
}

TEST(Arith, ConstIntBound) {
  Var i("i"), j("j");
  VarBounds b{{i.get(), IntBound::range(0, 4)}, {j.get(), IntBound::range(2, 3)}};
  IntBound r = constIntBound(i * 3 - j + 1, b);
  EXPECT_EQ(r.lo, 0 - 4 + 1);
  EXPECT_EQ(r.hi, 9 - 2 + 1);
  IntBound m = constIntBound((i * 3 + j) % 5, b);
  EXPECT_EQ(m.lo, 0);
  EXPECT_EQ(m.hi, 4);
}

TEST(Arith, LinearCoefficient) {
  Var i("i"), j("j");
  EXPECT_EQ(linearCoefficient(i * 4 + j * 2 + 1, j.get()), 2);
  EXPECT_EQ(linearCoefficient(i * 4 + 1, j.get()), 0);
  EXPECT_EQ(linearCoefficient((i + j) / 2, j.get()), std::nullopt);
}

}  // namespace
}  // namespace ttune::te
