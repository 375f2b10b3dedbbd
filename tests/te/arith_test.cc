#include <gtest/gtest.h>

#include "te/arith.h"
#include "te/expr_functor.h"
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

TEST(Arith, DivModDropsTheResidueBelowTheCommonFactor) {
  // 16a + r0 with r0 < 16 never crosses a multiple of 32 by r0's part below gcd(16, 32).
  Var a("a");
  VarBounds b{{a.get(), IntBound::range(0, 64)}};
  for (int64_t l = 0; l < 8; ++l) {
    EXPECT_EQ(toString(simplify((a * 16 + 8 + l) / 32 - (a * 16 + 8) / 32, b)), "0") << "lane " << l;
    EXPECT_EQ(toString(simplify((a * 16 + 8 + l) % 32 - (a * 16 + 8) % 32, b)), std::to_string(l)) << "lane " << l;
  }
  // Not across the common factor: lane 8 reaches the next group for odd a.
  EXPECT_NE(toString(simplify((a * 16 + 16) / 32 - (a * 16) / 32, b)), "0");
  // Every rewrite agrees with the arithmetic it replaces, negative values included.
  Var x("x"), y("y");
  VarBounds xb{{x.get(), IntBound::range(-20, 41)}, {y.get(), IntBound::range(0, 5)}};
  for (int64_t c : {4, 6, 32}) {
    for (int64_t k : {0, 1, 3, 7, 13}) {
      Expr e = x * 6 + y * 4 + k;
      Expr d = simplify(e / c, xb), m = simplify(e % c, xb);
      for (int64_t xv = -20; xv <= 20; ++xv)
        for (int64_t yv = 0; yv < 5; ++yv) {
          int64_t v = xv * 6 + yv * 4 + k;
          int64_t fd = v >= 0 ? v / c : -((-v + c - 1) / c);
          VarMap<Expr> at{{x.get(), Expr(xv)}, {y.get(), Expr(yv)}};
          int64_t got_d = 0, got_m = 0;
          ASSERT_TRUE(isConstInt(simplify(substitute(d, at)), &got_d)) << toString(d);
          ASSERT_TRUE(isConstInt(simplify(substitute(m, at)), &got_m)) << toString(m);
          EXPECT_EQ(got_d, fd) << toString(d) << " at x=" << xv << " y=" << yv;
          EXPECT_EQ(got_m, v - fd * c) << toString(m) << " at x=" << xv << " y=" << yv;
        }
    }
  }
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
