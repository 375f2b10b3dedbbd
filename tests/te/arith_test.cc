// The integer analysis and simplifier of te/arith.h: linear canonical forms, floordiv/floormod
// elimination and recombination under bounds, min/max and comparisons decided by bounds,
// constant bounds (saturating, and whole-range for wrapping types), and float constant folding.
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

TEST(Arith, SplitDivModRecombinesIntoTheFusedIndex) {
  Var i("i"), j("j");
  EXPECT_EQ(toString(simplify(i / 8 * 8 + i % 8)), "i");
  EXPECT_EQ(toString(simplify(i / 8 * 32 + i % 8 * 4 + j)), "(j + (i * 4))");
  // Only when the coefficients match (k*c and k) and the operands are the same.
  EXPECT_EQ(toString(simplify(i / 8 * 16 + i % 8)), "(((i // 8) * 16) + (i % 8))");
  EXPECT_EQ(toString(simplify(i / 8 * 8 + j % 8)), "(((i // 8) * 8) + (j % 8))");
}

TEST(Arith, BoundsSaturateAndFollowFloorDivision) {
  Var i("i"), j("j");
  VarBounds big{{i.get(), IntBound{0, IntBound::kPosInf / 2}}, {j.get(), IntBound{-4, 4}}};
  IntBound p = constIntBound(i * 4, big);
  EXPECT_EQ(p.lo, 0);
  EXPECT_EQ(p.hi, IntBound::kPosInf);  // saturated, not wrapped to a negative
  EXPECT_FALSE(constIntBound(i, {}).bounded());
  VarBounds neg{{i.get(), IntBound{-9, -1}}};
  IntBound d = constIntBound(i / 4, neg);  // floor: -9 // 4 = -3, -1 // 4 = -1
  EXPECT_EQ(d.lo, -3);
  EXPECT_EQ(d.hi, -1);
  VarBounds small{{i.get(), IntBound{0, 2}}};
  IntBound inside = constIntBound((i + 5) % 8, small);  // within one period: the shifted range
  EXPECT_EQ(inside.lo, 5);
  EXPECT_EQ(inside.hi, 7);
  IntBound across = constIntBound((i + 7) % 8, small);  // wraps: the whole period
  EXPECT_EQ(across.lo, 0);
  EXPECT_EQ(across.hi, 7);
  IntBound sel =
      constIntBound(select(i < 1, j, i * 10), VarBounds{{i.get(), IntBound{0, 2}}, {j.get(), IntBound{-4, 4}}});
  EXPECT_EQ(sel.lo, -4);
  EXPECT_EQ(sel.hi, 20);
}

TEST(Arith, BoundsOfWrappingTypesStayInTheTypeAndUInt64IsUnknown) {
  Var i("i");
  VarBounds b{{i.get(), IntBound::range(0, 300)}};
  IntBound narrow = constIntBound(cast(DType::Int8, i), b);  // leaves int8: any int8
  EXPECT_EQ(narrow.lo, -128);
  EXPECT_EQ(narrow.hi, 127);
  VarBounds fits{{i.get(), IntBound::range(0, 100)}};
  IntBound kept = constIntBound(cast(DType::Int8, i), fits);
  EXPECT_EQ(kept.lo, 0);
  EXPECT_EQ(kept.hi, 99);
  EXPECT_FALSE(constIntBound(cast(DType::UInt64, i), fits).bounded());
}

TEST(Arith, FloatConstantsFoldInTheirOwnPrecision) {
  auto folded = [](const Expr& e) {
    double v = 0;
    EXPECT_TRUE(isConstFloat(e, &v)) << toString(e);
    return v;
  };
  Expr f32 = binary(BinOp::Add, floatImm(1.0, DType::Float32), floatImm(1e-10, DType::Float32));
  Expr f64 = binary(BinOp::Add, floatImm(1.0, DType::Float64), floatImm(1e-10, DType::Float64));
  EXPECT_EQ(folded(simplify(f32)), 1.0);  // rounded to float32
  EXPECT_EQ(folded(simplify(f64)), 1.0 + 1e-10);
  EXPECT_FALSE(
      isConstFloat(simplify(binary(BinOp::Add, floatImm(1.0, DType::Float16), floatImm(2.0, DType::Float16)))));
  EXPECT_FALSE(isConstFloat(simplify(binary(BinOp::Div, floatImm(1.0), floatImm(0.0)))));  // no fold of x / 0
  Var x("x", DType::Float32);
  EXPECT_EQ(toString(simplify(binary(BinOp::Mul, Expr(x), floatImm(1.0)))), "x");
  EXPECT_EQ(toString(simplify(binary(BinOp::Div, Expr(x), floatImm(1.0)))), "x");
}

}  // namespace
}  // namespace ttune::te
