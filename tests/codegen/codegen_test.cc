#include <gtest/gtest.h>

#include "codegen/jit.h"
#include "common/check.h"
#include "te/compute_dag.h"

namespace ttune {
namespace {

using namespace te;

std::shared_ptr<const ComputeDAG> matmulDag(int64_t M, int64_t N, int64_t K) {
  Tensor a = placeholder("A", {M, K});
  Tensor b = placeholder("B", {K, N}, DType::Float32, /*is_constant=*/true);
  IterVar k = reduceAxis(K, "k");
  Tensor c = compute("C", {M, N}, [&](const std::vector<Var>& v) { return sum(a(v[0], k.var) * b(k.var, v[1]), {k}); });
  return std::make_shared<const ComputeDAG>(std::vector<Tensor>{a, b}, std::vector<Tensor>{c});
}

// Splits `axis` of stage B by 16, vectorizes the inner part and checks the kernel against the
// reference evaluator.
void checkVectorizedBy16(const std::shared_ptr<const ComputeDAG>& dag, int64_t extent) {
  using namespace schedule;
  std::vector<Step> steps = {
      SplitStep{"B", "j", extent, {16}, true},
      AnnotationStep{"B", "j.1", IterAnnotation::Vectorize},
  };
  auto st = State::replay(dag, steps);
  ASSERT_TRUE(st.ok()) << st.error();
  auto r = testing::checkState(*st);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << r.lowered << " max_abs_err " << r.cmp.max_abs_err;
}

// Regression: a JIT library created for an object that then failed to load was never removed.
TEST(Codegen, AFailedLoadLeavesNoKernelLibraryBehind) {
  int64_t before = codegen::liveKernelLibraries();
  codegen::ObjectCode junk{"kernel", std::vector<char>(64, 'x')};
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(codegen::loadKernel(junk).ok());
  EXPECT_EQ(codegen::liveKernelLibraries(), before);
}

TEST(Codegen, UnscheduledMatmul) {
  schedule::State s(matmulDag(13, 17, 19));
  auto r = testing::checkState(s);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << r.lowered << " max_abs_err " << r.cmp.max_abs_err;
}

TEST(Codegen, ElementwiseMathAndSelect) {
  Tensor a = placeholder("A", {3, 37});
  Tensor b = compute("B", {3, 37}, [&](const std::vector<Var>& v) {
    Expr x = a(v) * 3.0;
    return exp(x) + tanh(x) + erf(x) + sigmoid(x) + select(x > 0.5, sqrt(abs(x)), -x) + max(x, floatImm(0.1));
  });
  schedule::State s(std::make_shared<const ComputeDAG>(std::vector<Tensor>{a}, std::vector<Tensor>{b}));
  auto r = testing::checkState(s);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << r.lowered << " max_abs_err " << r.cmp.max_abs_err;
}

// The vector polynomials of sin / cos / tan / atan and the exp / log compositions of asin, acos
// and the hyperbolic functions, vectorized, against libm (through the evaluator) over ranges
// that reach every branch (range reduction, large-argument forms, series near zero).
TEST(Codegen, VectorizedTrigonometricAndHyperbolicMath) {
  struct Case {
    UnOp op;
    double scale, offset;
    bool abs_input;
  };
  for (const Case& c : std::vector<Case>{{UnOp::Sin, 40, 0, false},
                                         {UnOp::Cos, 40, 0, false},
                                         {UnOp::Tan, 10, 0, false},
                                         {UnOp::Asin, 1, 0, false},
                                         {UnOp::Acos, 1, 0, false},
                                         {UnOp::Atan, 30, 0, false},
                                         {UnOp::Sinh, 8, 0, false},
                                         {UnOp::Sinh, 0.6, 0, false},
                                         {UnOp::Cosh, 8, 0, false},
                                         {UnOp::Asinh, 9000, 0, false},
                                         {UnOp::Asinh, 0.01, 0, false},
                                         {UnOp::Acosh, 8000, 1, true},
                                         {UnOp::Acosh, 0.01, 1, true},
                                         {UnOp::Atanh, 0.999, 0, false},
                                         {UnOp::Atanh, 0.001, 0, false}}) {
    SCOPED_TRACE(std::string(unOpName(c.op)) + " scale " + std::to_string(c.scale));
    Tensor a = placeholder("A", {4, 64});
    Tensor b = compute("B", {4, 64}, [&](const std::vector<Var>& v) {
      Expr x = c.abs_input ? abs(a(v)) : a(v);
      return unary(c.op, x * c.scale + c.offset);
    });
    auto dag = std::make_shared<const ComputeDAG>(std::vector<Tensor>{a}, std::vector<Tensor>{b});
    using namespace schedule;
    auto st = State::replay(
        dag, {SplitStep{"B", "j", 64, {16}, true}, AnnotationStep{"B", "j.1", IterAnnotation::Vectorize}});
    ASSERT_TRUE(st.ok()) << st.error();
    auto r = testing::checkState(*st, 3, /*atol=*/1e-6, /*rtol=*/1e-5);
    ASSERT_TRUE(r.built) << r.error;
    EXPECT_TRUE(r.cmp.ok()) << " max_abs_err " << r.cmp.max_abs_err;
  }
}

TEST(Codegen, TiledVectorizedParallelMatmul) {
  auto dag = matmulDag(64, 48, 32);
  using namespace schedule;
  std::vector<Step> steps = {
      SplitStep{"C", "i", 64, {4}, true},
      SplitStep{"C", "j", 48, {16}, true},
      ReorderStep{"C", {"i.0", "j.0", "k", "i.1", "j.1"}},
      AnnotationStep{"C", "j.1", IterAnnotation::Vectorize},
      AnnotationStep{"C", "i.1", IterAnnotation::Unroll},
      AnnotationStep{"C", "i.0", IterAnnotation::Parallel},
  };
  auto st = State::replay(dag, steps);
  ASSERT_TRUE(st.ok()) << st.error();
  auto r = testing::checkState(*st);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << r.lowered << " max_abs_err " << r.cmp.max_abs_err;
}

TEST(Codegen, ImperfectSplitsStayExact) {
  auto dag = matmulDag(30, 37, 11);
  using namespace schedule;
  std::vector<Step> steps = {
      SplitStep{"C", "i", 30, {4, 2}, true},
      SplitStep{"C", "j", 37, {16}, true},
      SplitStep{"C", "k", 11, {4}, true},
      ReorderStep{"C", {"i.0", "j.0", "k.0", "i.1", "k.1", "i.2", "j.1"}},
      AnnotationStep{"C", "j.1", IterAnnotation::Vectorize},
      AnnotationStep{"C", "i.0", IterAnnotation::Parallel},
  };
  auto st = State::replay(dag, steps);
  ASSERT_TRUE(st.ok()) << st.error();
  auto r = testing::checkState(*st);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << r.lowered << " max_abs_err " << r.cmp.max_abs_err;
}

TEST(Codegen, CacheWriteComputeAt) {
  auto dag = matmulDag(64, 64, 40);
  using namespace schedule;
  std::vector<Step> steps = {
      CacheWriteStep{"C", "local"},
      SplitStep{"C.local", "i", 64, {2, 4}, true},
      SplitStep{"C.local", "j", 64, {2, 16}, true},
      ReorderStep{"C.local", {"i.0", "j.0", "i.1", "j.1", "k", "i.2", "j.2"}},
      FollowSplitStep{"C", "i", 1, 2},
      FollowSplitStep{"C", "j", 2, 2},
      ReorderStep{"C", {"i.0", "j.0", "i.1", "j.1", "i.2", "j.2"}},
      ComputeAtStep{"C.local", "C", "j.1"},
      FuseStep{"C", {"i.0", "j.0"}},
      AnnotationStep{"C", "i.0@j.0@", IterAnnotation::Parallel},
      AnnotationStep{"C.local", "j.2", IterAnnotation::Vectorize},
      AutoUnrollStep{"C.local", 64},
      AnnotationStep{"C", "j.2", IterAnnotation::Vectorize},
  };
  auto st = State::replay(dag, steps);
  ASSERT_TRUE(st.ok()) << st.error();
  auto r = testing::checkState(*st);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << r.lowered << " max_abs_err " << r.cmp.max_abs_err;
}

// A tile too large for the stack is a heap buffer; it must stay allocated while the consumer's
// write-back loop reads it (a 1 MiB tile: freed early it is unmapped, and reading it crashes).
TEST(Codegen, HeapTileLivesThroughItsConsumer) {
  auto dag = matmulDag(512, 1024, 8);
  using namespace schedule;
  std::vector<Step> steps = {
      CacheWriteStep{"C", "local"},
      SplitStep{"C.local", "j", 1024, {512}, true},
      ReorderStep{"C.local", {"j.0", "i", "k", "j.1"}},
      FollowSplitStep{"C", "j", 1, 1},
      ReorderStep{"C", {"j.0", "i", "j.1"}},
      ComputeAtStep{"C.local", "C", "j.0"},
      AnnotationStep{"C", "j.0", IterAnnotation::Parallel},
      AnnotationStep{"C.local", "j.1", IterAnnotation::Vectorize},
  };
  auto st = State::replay(dag, steps);
  ASSERT_TRUE(st.ok()) << st.error();
  auto r = testing::checkState(*st);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_NE(r.lowered.find("global"), std::string::npos) << r.lowered;
  EXPECT_TRUE(r.cmp.ok()) << r.lowered << " max_abs_err " << r.cmp.max_abs_err;
}

// Vector reads with a small constant stride (a strided convolution's input) are one wide masked
// load and a shuffle; the tail vector and the last row end exactly at the buffer's end, so a load
// of the whole span would read past it.
TEST(Codegen, StridedVectorReads) {
  for (int64_t stride : {2, 3, 4, 5}) {
    SCOPED_TRACE(stride);
    Tensor a = placeholder("A", {3, 36 * stride + 2});
    Tensor b = compute("B", {3, 37}, [&](const std::vector<Var>& v) { return a(v[0], v[1] * stride + 1) * 2.0; });
    checkVectorizedBy16(std::make_shared<const ComputeDAG>(std::vector<Tensor>{a}, std::vector<Tensor>{b}), 37);
  }
}

// Regression (torchvision's fcn_resnet50, a bilinear Resize): a row index read from a buffer
// inside a vector loop with a tail mask was loaded as a vector, so the row's address became a
// vector of pointers and the contiguous masked load over it was invalid IR.
TEST(Codegen, GatheredRowUnderATailMask) {
  Tensor a = placeholder("A", {4, 28});
  Tensor taps = placeholder("T", {40}, DType::Int64, /*is_constant=*/true);  // rows in [0, 4)
  Tensor w = placeholder("W", {40});
  Tensor b = compute("B", {40, 28}, [&](const std::vector<Var>& v) { return a(taps(v[0]), v[1]) * w(v[0]); });
  checkVectorizedBy16(std::make_shared<const ComputeDAG>(std::vector<Tensor>{a, taps, w}, std::vector<Tensor>{b}), 28);
}

TEST(Codegen, LayoutRewriteOfAttachedStageWithImperfectTiles) {
  auto dag = matmulDag(50, 70, 30);
  using namespace schedule;
  std::vector<Step> steps = {
      CacheWriteStep{"C", "local"},
      SplitStep{"C.local", "i", 50, {2, 4}, true},
      SplitStep{"C.local", "j", 70, {2, 16}, true},
      SplitStep{"C.local", "k", 30, {4}, true},
      ReorderStep{"C.local", {"i.0", "j.0", "i.1", "j.1", "k.0", "i.2", "k.1", "j.2"}},
      FollowSplitStep{"C", "i", 1, 2},
      FollowSplitStep{"C", "j", 2, 2},
      ReorderStep{"C", {"i.0", "j.0", "i.1", "j.1", "i.2", "j.2"}},
      ComputeAtStep{"C.local", "C", "j.1"},
      FuseStep{"C", {"i.0", "j.0"}},
      AnnotationStep{"C", "i.0@j.0@", IterAnnotation::Parallel},
      AnnotationStep{"C.local", "j.2", IterAnnotation::Vectorize},
      AutoUnrollStep{"C.local", 16},
      LayoutRewriteStep{"C.local", "B"},
  };
  auto st = State::replay(dag, steps);
  ASSERT_TRUE(st.ok()) << st.error();
  ASSERT_EQ(st->weightLayouts().size(), 1u);
  auto r = testing::checkState(*st);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << r.lowered << " max_abs_err " << r.cmp.max_abs_err;
}

}  // namespace
}  // namespace ttune
