#include <gtest/gtest.h>

#include "support/error.h"
#include "te/expr.h"
#include "te/expr_functor.h"
#include "te/printer.h"
#include "te/tensor.h"

namespace ttune::te {
namespace {

TEST(Expr, ConstantFoldingAndPromotion) {
  Var i("i");
  EXPECT_EQ(toString(Expr(2) + 3), "5");
  EXPECT_EQ(toString(i + 0), "i");
  EXPECT_EQ(toString(i * 1), "i");
  EXPECT_EQ(toString(i * 0), "0");
  Expr f = floatImm(1.5) * 2;  // int constant meets float: becomes a float constant
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(toString(f), "(1.5f * 2f)");
  Expr c = floatImm(1.0) + i;  // int expression meets float: cast
  EXPECT_EQ(toString(c), "(1f + float32(i))");
  EXPECT_EQ((i < 3).dtype(), DType::Bool);
  EXPECT_EQ(toString(i / 2), "(i // 2)");
  EXPECT_EQ(toString(i % 4), "(i % 4)");
}

TEST(Expr, SelectFoldsConstantCondition) {
  Var i("i");
  EXPECT_EQ(toString(select(boolImm(true), i, Expr(0))), "i");
  EXPECT_EQ(toString(select(i < 2, floatImm(1.0), floatImm(0.0))), "select((i < 2), 1f, 0f)");
}

TEST(Tensor, ComputePrintsDefinition) {
  Tensor a = placeholder("A", {4, 8});
  Tensor b = placeholder("B", {8, 5});
  IterVar k = reduceAxis(8, "k");
  Tensor c = compute("C", {4, 5}, [&](const std::vector<Var>& v) { return sum(a(v[0], k.var) * b(k.var, v[1]), {k}); });
  EXPECT_EQ(toString(c.op()), "C[i, j] = sum((A[i, k] * B[k, j]), axis=[k])");
  ASSERT_EQ(c.op().inputs().size(), 2u);
  EXPECT_EQ(c.op().inputs()[0].name(), "A");
  EXPECT_EQ(c.shape(), (Shape{4, 5}));
}

TEST(Tensor, RejectsNonPositiveShape) { EXPECT_THROW(placeholder("A", {4, 0}), Error); }

TEST(Expr, StructuralHashAgreesWithStructuralEquality) {
  Var i("i"), j("j");
  Tensor a = placeholder("a", {8, 8});
  // Built twice: distinct nodes, equal structure.
  auto make = [&](const Var& x) { return select(x % 4 == 1, a(x / 4, j) * floatImm(2.0), a(j, x) + floatImm(1.0)); };
  Expr e1 = make(i), e2 = make(i);
  ASSERT_FALSE(e1.same(e2));
  EXPECT_TRUE(structurallyEqual(e1, e2));
  EXPECT_EQ(structuralHash(e1), structuralHash(e2));
  // Another variable, constant or operator: unequal, and here hashed apart.
  for (const Expr& other : {make(j), select(i % 4 == 2, a(i / 4, j) * floatImm(2.0), a(j, i) + floatImm(1.0)),
                            select(i % 4 == 1, a(i / 4, j) * floatImm(3.0), a(j, i) + floatImm(1.0)),
                            select(i % 4 == 1, a(i / 4, j) * floatImm(2.0), a(j, i) - floatImm(1.0))}) {
    EXPECT_FALSE(structurallyEqual(e1, other));
    EXPECT_NE(structuralHash(e1), structuralHash(other));
  }
}

}  // namespace
}  // namespace ttune::te
