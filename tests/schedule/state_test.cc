#include <gtest/gtest.h>

#include "common/check.h"
#include "schedule/state.h"

namespace ttune::schedule {
namespace {

using namespace te;

// C = A x B ; D = relu(C + 1)
std::shared_ptr<const ComputeDAG> matmulRelu(int64_t M = 64, int64_t N = 48, int64_t K = 32) {
  Tensor a = placeholder("A", {M, K});
  Tensor b = placeholder("B", {K, N}, DType::Float32, true);
  IterVar k = reduceAxis(K, "k");
  Tensor c = compute("C", {M, N}, [&](const std::vector<Var>& v) { return sum(a(v[0], k.var) * b(k.var, v[1]), {k}); });
  Tensor d = compute("D", {M, N}, [&](const std::vector<Var>& v) { return max(c(v) + 1.0, floatImm(0.0)); });
  return std::make_shared<const ComputeDAG>(std::vector<Tensor>{a, b}, std::vector<Tensor>{d});
}

std::vector<std::string> names(const Stage& s) {
  std::vector<std::string> n;
  for (const Iterator& it : s.iters) n.push_back(it.name + ":" + (it.extent ? std::to_string(*it.extent) : "?"));
  return n;
}

TEST(Split, InnerToOuterNamesAndExtents) {
  State s(matmulRelu());
  ASSERT_TRUE(s.apply(SplitStep{"C", "i", 64, {4, 2}, true}).ok());
  EXPECT_EQ(names(s.stage("C")), (std::vector<std::string>{"i.0:8", "i.1:4", "i.2:2", "j:48", "k:32"}));
}

TEST(Split, NonDividingUsesCeilDiv) {
  State s(matmulRelu());
  ASSERT_TRUE(s.apply(SplitStep{"C", "j", 48, {5}, true}).ok());
  EXPECT_EQ(names(s.stage("C"))[1], "j.0:10");
  EXPECT_EQ(names(s.stage("C"))[2], "j.1:5");
}

TEST(Split, NpartsSplitsFromOutside) {
  State s(matmulRelu());
  ASSERT_TRUE(s.apply(SplitStep{"C", "i", 64, {4}, false}).ok());
  EXPECT_EQ(names(s.stage("C"))[0], "i.0:4");
  EXPECT_EQ(names(s.stage("C"))[1], "i.1:16");
}

TEST(Split, Failures) {
  State s(matmulRelu());
  EXPECT_EQ(s.apply(SplitStep{"X", "i", 64, {4}, true}).error(), "no stage named X");
  EXPECT_EQ(s.apply(SplitStep{"C", "q", 64, {4}, true}).error(), "stage C has no iterator q");
  EXPECT_EQ(s.apply(SplitStep{"A", "i", 64, {4}, true}).error(), "stage A is a placeholder");
  EXPECT_EQ(s.apply(SplitStep{"C", "i", 64, {0}, true}).error(), "split of i has a length below 1");
  EXPECT_TRUE(s.steps().empty());  // failed steps leave no trace
}

TEST(FollowSplit, CopiesOuterLengths) {
  State s(matmulRelu());
  ASSERT_TRUE(s.apply(SplitStep{"C", "i", 64, {2, 1, 4}, true}).ok());
  ASSERT_TRUE(s.apply(FollowSplitStep{"D", "i", 0, 2}).ok());
  EXPECT_EQ(names(s.stage("D")), (std::vector<std::string>{"i.0:8", "i.1:2", "i.2:4", "j:48"}));
  EXPECT_FALSE(s.apply(FollowSplitStep{"D", "j", 5, 2}).ok());
  EXPECT_EQ(s.apply(FollowSplitStep{"D", "j", 0, 7}).error(), "follow_split takes 1 to 4 parts, not 7");
}

TEST(Fuse, ConsecutiveOnly) {
  State s(matmulRelu());
  ASSERT_TRUE(s.apply(FuseStep{"D", {"i", "j"}}).ok());
  EXPECT_EQ(names(s.stage("D")), std::vector<std::string>{"i@j@:3072"});
  State t(matmulRelu());
  ASSERT_TRUE(t.apply(SplitStep{"D", "i", 64, {4}, true}).ok());
  EXPECT_EQ(t.apply(FuseStep{"D", {"i.0", "j"}}).error(), "fused iterators of D are not consecutive");
  EXPECT_EQ(t.apply(FuseStep{"C", {"j", "k"}}).error(), "fuse would mix spatial and reduction iterators in C");
}

TEST(Reorder, NeedsPermutation) {
  State s(matmulRelu());
  EXPECT_EQ(s.apply(ReorderStep{"C", {"k", "i"}}).error(), "reorder of C lists 2 iterators, the stage has 3");
  EXPECT_EQ(s.apply(ReorderStep{"C", {"k", "i", "i"}}).error(), "reorder lists i twice");
  ASSERT_TRUE(s.apply(ReorderStep{"C", {"k", "i", "j"}}).ok());
  EXPECT_EQ(s.stage("C").iters[0].name, "k");
}

TEST(Annotate, Rules) {
  State s(matmulRelu());
  EXPECT_EQ(s.apply(AnnotationStep{"C", "k", IterAnnotation::Parallel}).error(),
            "reduction iterator k cannot run in parallel");
  ASSERT_TRUE(s.apply(AnnotationStep{"C", "j", IterAnnotation::Vectorize}).ok());
  EXPECT_EQ(s.apply(AnnotationStep{"C", "j", IterAnnotation::Unroll}).error(),
            "iterator j is already annotated vectorize");
}

TEST(ComputeAt, InfersRegion) {
  State s(matmulRelu());
  ASSERT_TRUE(s.apply(SplitStep{"D", "i", 64, {8}, true}).ok());
  ASSERT_TRUE(s.apply(SplitStep{"D", "j", 48, {16}, true}).ok());
  ASSERT_TRUE(s.apply(ReorderStep{"D", {"i.0", "j.0", "i.1", "j.1"}}).ok());
  ASSERT_TRUE(s.apply(ComputeAtStep{"C", "D", "j.0"}).ok());
  ASSERT_TRUE(s.inferBounds().ok());
  EXPECT_EQ(names(s.stage("C")), (std::vector<std::string>{"i:8", "j:16", "k:32"}));
  EXPECT_EQ(s.apply(ComputeAtStep{"D", "C", "i"}).error(), "output stage D cannot be computed at another stage");
  EXPECT_EQ(s.apply(ComputeAtStep{"C", "C", "i"}).error(),
            "stage C can only be computed at its single consumer, not at C");
  auto r = testing::checkState(s);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << r.lowered;
}

TEST(ComputeInline, Rules) {
  State s(matmulRelu());
  EXPECT_EQ(s.apply(ComputeInlineStep{"C"}).error(), "reduction stage C cannot be inlined");
  EXPECT_EQ(s.apply(ComputeInlineStep{"D"}).error(), "output stage D cannot be inlined");
}

TEST(CacheWrite, AddsStageAndMustComeFirst) {
  State s(matmulRelu());
  ASSERT_TRUE(s.apply(CacheWriteStep{"C", "local"}).ok());
  EXPECT_GE(s.stageIndex("C.local"), 0);
  EXPECT_EQ(s.stageIndex("C.local") + 1, s.stageIndex("C"));
  State t(matmulRelu());
  ASSERT_TRUE(t.apply(SplitStep{"C", "i", 64, {4}, true}).ok());
  EXPECT_EQ(t.apply(CacheWriteStep{"C", "local"}).error(), "cache_write must precede other transforms of stage C");
}

TEST(Rfactor, FactorsReductionIntoNewStage) {
  Tensor a = placeholder("A", {4, 1000});
  IterVar k = reduceAxis(1000, "k");
  Tensor s = compute("S", {4}, [&](const std::vector<Var>& v) { return sum(a(v[0], k.var), {k}); });
  auto dag = std::make_shared<const ComputeDAG>(std::vector<Tensor>{a}, std::vector<Tensor>{s});
  auto st = State::replay(dag, {SplitStep{"S", "k", 1000, {16}, true}, RfactorStep{"S", "k.1", 1},
                                AnnotationStep{"S.rf", "k.1", IterAnnotation::Vectorize}});
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_GE(st->stageIndex("S.rf"), 0);
  EXPECT_EQ(st->stage("S").iters.back().name, "k.1");
  auto r = testing::checkState(*st);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << r.lowered;
  auto bad = State::replay(dag, {RfactorStep{"S", "i", 0}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "step 0 rfactor(S, i, 0): rfactor iterator i is not a reduction");
}

TEST(Replay, ReasonNamesTheStep) {
  auto r = State::replay(matmulRelu(), {SplitStep{"C", "i", 64, {4}, true}, FuseStep{"C", {"zz"}}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "step 1 fuse(C, [zz]): stage C has no iterator zz");
}

TEST(Replay, NestedParallelIsRejected) {
  auto r =
      State::replay(matmulRelu(), {ComputeAtStep{"C", "D", "i"}, AnnotationStep{"D", "i", IterAnnotation::Parallel},
                                   AnnotationStep{"C", "j", IterAnnotation::Parallel}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("nested in another parallel loop"), std::string::npos);
}

TEST(State, PrintsLoopNest) {
  auto st = State::replay(matmulRelu(), {SplitStep{"D", "i", 64, {8}, true}, ComputeAtStep{"C", "D", "i.0"},
                                         AnnotationStep{"D", "i.0", IterAnnotation::Parallel},
                                         AnnotationStep{"D", "j", IterAnnotation::Vectorize}});
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_EQ(st->toString(),
            "placeholders: A, B\n"
            "parallel i.0 (0,8)\n"
            "  for i (0,8)\n"
            "    for j (0,48)\n"
            "      for k (0,32)\n"
            "        C = ...\n"
            "  for i.1 (0,8)\n"
            "    vectorize j (0,48)\n"
            "      D = ...\n");
}

}  // namespace
}  // namespace ttune::schedule
