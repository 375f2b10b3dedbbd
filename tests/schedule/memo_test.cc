// The memos the search relies on: the DAG rewrites and inlined bodies that States of one task
// share through KeyedMemo (tested itself in tests/support).
#include <gtest/gtest.h>

#include "schedule/bound.h"
#include "schedule/dag_rewrite.h"
#include "schedule/state.h"
#include "te/expr_functor.h"

namespace ttune::schedule {
namespace {

using namespace te;

// C = A x B ; D = relu(C + 1)
std::shared_ptr<const ComputeDAG> matmulRelu() {
  Tensor a = placeholder("A", {16, 8});
  Tensor b = placeholder("B", {8, 12}, DType::Float32, true);
  IterVar k = reduceAxis(8, "k");
  Tensor c =
      compute("C", {16, 12}, [&](const std::vector<Var>& v) { return sum(a(v[0], k.var) * b(k.var, v[1]), {k}); });
  Tensor d = compute("D", {16, 12}, [&](const std::vector<Var>& v) { return max(c(v) + 1.0, floatImm(0.0)); });
  return std::make_shared<const ComputeDAG>(std::vector<Tensor>{a, b}, std::vector<Tensor>{d});
}

TEST(RewriteMemo, StatesOfOneDagShareTheirRewrittenDag) {
  auto dag = matmulRelu();
  auto s1 = State::replay(dag, {CacheWriteStep{"C", "local"}});
  auto s2 = State::replay(dag, {CacheWriteStep{"C", "local"}});
  ASSERT_TRUE(s1.ok() && s2.ok());
  EXPECT_EQ(s1->dagPtr().get(), s2->dagPtr().get());
  EXPECT_NE(s1->dagPtr().get(), dag.get());
  EXPECT_GE(s1->dag().opIndex("C.local"), 0);
  // The memoized result is the rewrite's: same ops as building it directly.
  auto direct = cacheWriteDag(*dag, "C", "local");
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(direct->workloadKey(), s1->dag().workloadKey());
  // Another input DAG object (equal structure) gets its own entry.
  auto s3 = State::replay(matmulRelu(), {CacheWriteStep{"C", "local"}});
  ASSERT_TRUE(s3.ok());
  EXPECT_NE(s3->dagPtr().get(), s1->dagPtr().get());
  // Failures are reported, not cached as results.
  EXPECT_FALSE(State::replay(dag, {CacheWriteStep{"X", "local"}}).ok());
}

TEST(ExpandInlined, DependsOnTheInlinedStagesAndSharesEqualReads) {
  // E reads D twice at the same element; D (inlined) reads C.
  Tensor a = placeholder("A", {16});
  Tensor c = compute("C", {16}, [&](const std::vector<Var>& v) { return a(v[0]) * 2.0; });
  Tensor d = compute("D", {16}, [&](const std::vector<Var>& v) { return c(v[0]) + 1.0; });
  Tensor e = compute("E", {16}, [&](const std::vector<Var>& v) { return d(v[0]) * d(v[0]); });
  auto dag = std::make_shared<const ComputeDAG>(std::vector<Tensor>{a}, std::vector<Tensor>{e});
  State plain(dag);
  auto inl = State::replay(dag, {ComputeInlineStep{"D"}});
  ASSERT_TRUE(inl.ok());
  int ei = dag->opIndex("E");
  Expr body_plain = expandInlined(plain, ei), body_inl = expandInlined(*inl, ei);
  EXPECT_FALSE(structurallyEqual(body_plain, body_inl));  // D expanded only in the second
  EXPECT_TRUE(structurallyEqual(body_inl, expandInlined(*inl, ei)));
  // Both reads of C in the expanded body are one node.
  std::vector<const ExprNode*> reads;
  visitAll(body_inl, [&](const Expr& x) {
    if (const TensorRead* r = x.as<TensorRead>(); r && r->tensor.name() == "C") reads.push_back(x.get());
  });
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(reads[0], reads[1]);
}

}  // namespace
}  // namespace ttune::schedule
