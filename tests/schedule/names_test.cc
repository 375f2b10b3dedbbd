// The derived names of schedule/names.h: what replay produces is what the helpers spell, and
// parsing gives back exactly what was built.
#include <gtest/gtest.h>

#include "ops/nn.h"
#include "schedule/names.h"
#include "schedule/state.h"

namespace ttune::schedule {
namespace {

TEST(Names, SplitPartsRoundTrip) {
  EXPECT_EQ(names::splitPart("yy", 0), "yy.0");
  EXPECT_EQ(names::splitPart("a@b@", 12), "a@b@.12");
  for (size_t k : {0, 1, 3, 10}) {
    auto p = names::parseSplitPart(names::splitPart("nn.1", k));
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(*p, (names::SplitPart{"nn.1", k}));
  }
}

TEST(Names, NamesThatAreNoSplitPartParseToNothing) {
  for (const char* n : {"yy", "yy.", ".0", "yy.rf", "yy.01", "yy.-1", "yy.1a", "a@b@", "yy.99999999999999999999999"})
    EXPECT_FALSE(names::parseSplitPart(n).has_value()) << n;
}

TEST(Names, FusedIteratorsAndDerivedStages) {
  EXPECT_EQ(names::fused({"a", "b", "c"}), "a@b@c@");
  EXPECT_EQ(names::fused({"a"}), "a");  // a fuse of one iterator leaves it as it is
  EXPECT_EQ(names::cacheStage("conv", names::kLocalScope), "conv.local");
  EXPECT_EQ(names::rfactorStage("sum"), "sum.rf");
  EXPECT_EQ(names::packedWeight("p1"), "p1.packed");
}

// Replay derives the names the helpers spell (the bank's records depend on it).
TEST(Names, ReplayDerivesTheSpelledNames) {
  te::Tensor a = te::placeholder("A", {64, 32}), b = te::placeholder("B", {48, 32});
  te::Tensor c = ops::dense(a, b);
  auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, b}, std::vector<te::Tensor>{c});
  const std::string op = c.name();
  std::vector<Step> steps = {CacheWriteStep{op, names::kLocalScope}};
  auto s = State::replay(dag, steps);
  ASSERT_TRUE(s) << s.error();
  EXPECT_GE(s->stageIndex(names::cacheStage(op, names::kLocalScope)), 0);
  const std::string i = s->stage(op).iters[0].name, j = s->stage(op).iters[1].name;
  ASSERT_TRUE(s->apply(SplitStep{op, i, 64, {std::optional<int64_t>(8)}, true}).ok());
  EXPECT_GE(s->stage(op).iterIndex(names::splitPart(i, 0)), 0);
  EXPECT_GE(s->stage(op).iterIndex(names::splitPart(i, 1)), 0);
  ASSERT_TRUE(s->apply(FuseStep{op, {names::splitPart(i, 1), j}}).ok());
  EXPECT_GE(s->stage(op).iterIndex(names::fused({names::splitPart(i, 1), j})), 0);
}

}  // namespace
}  // namespace ttune::schedule
