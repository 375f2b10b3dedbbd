// Conformance with Ansor's sketch counts (its rules, OSDI 2020 §4.1; num_cores = 4 as in TVM's tests).
#include <gtest/gtest.h>

#include "autotune/sampler.h"
#include "autotune/sketch.h"
#include "common/check.h"
#include "measure/builder.h"
#include "ops/ops.h"
#include "ops/winograd.h"
#include "schedule/dot_group.h"
#include "schedule/record.h"

namespace ttune::autotune {
namespace {

using namespace te;

std::shared_ptr<const ComputeDAG> dagOf(std::vector<Tensor> in, std::vector<Tensor> out) {
  return std::make_shared<const ComputeDAG>(std::move(in), std::move(out));
}

size_t count(const std::shared_ptr<const ComputeDAG>& dag) {
  return generateSketches(dag, SketchOptions{4, "SSRSRS"}).size();
}

TEST(Sketch, Matmul512) {
  Tensor a = placeholder("A", {512, 512}), b = placeholder("B", {512, 512});
  EXPECT_EQ(count(dagOf({a, b}, {ops::matmul(a, b)})), 3u);
}

TEST(Sketch, SmallMatmulGetsRfactor) {
  Tensor a = placeholder("A", {8, 512}), b = placeholder("B", {512, 8});
  EXPECT_EQ(count(dagOf({a, b}, {ops::matmul(a, b)})), 5u);
}

TEST(Sketch, DoubleMatmul) {
  Tensor a = placeholder("A", {512, 512}), b = placeholder("B", {512, 512}), c = placeholder("C", {512, 512});
  Tensor d = ops::matmul(ops::matmul(a, b), c);
  EXPECT_EQ(count(dagOf({a, b, c}, {d})), 9u);
}

TEST(Sketch, ConvBnRelu) {
  Tensor x = placeholder("data", {1, 512, 56, 56});
  Tensor w = placeholder("weight", {512, 512, 3, 3}, DType::Float32, true);
  Tensor bias = placeholder("bias", {1, 512, 1, 1});
  Tensor scale = placeholder("scale", {1, 512, 1, 1});
  Tensor shift = placeholder("shift", {1, 512, 1, 1});
  Tensor y = ops::conv2d_nchw(x, w, {1, 1}, {1, 1, 1, 1});
  y = ops::relu(ops::add(ops::mul(ops::add(y, bias), scale), shift));
  auto sketches = generateSketches(dagOf({x, w, bias, scale, shift}, {y}), SketchOptions{4, "SSRSRS"});
  EXPECT_EQ(sketches.size(), 3u);
}

TEST(Sketch, MaxPoolHasNoSteps) {
  Tensor x = placeholder("data", {1, 64, 56, 56});
  auto sketches = generateSketches(dagOf({x}, {ops::max_pool2d(x, {2, 2}, {2, 2})}), SketchOptions{4, "SSRSRS"});
  ASSERT_EQ(sketches.size(), 1u);
  EXPECT_TRUE(sketches[0].steps().empty());
}

TEST(Sketch, MinReduce) {
  Tensor x = placeholder("A", {10, 1024});
  EXPECT_EQ(count(dagOf({x}, {ops::reduce_min(x, {1}, false)})), 3u);
}

TEST(Sketch, Softmax) {
  Tensor x = placeholder("A", {1, 1024});
  EXPECT_EQ(count(dagOf({x}, {ops::softmax(x, -1)})), 9u);
}

TEST(Sketch, TiledMatmulStructure) {
  Tensor a = placeholder("A", {512, 512}), b = placeholder("B", {512, 512});
  auto sketches = generateSketches(dagOf({a, b}, {ops::matmul(a, b)}), SketchOptions{4, "SSRSRS"});
  // The sketch without cache write: SSRSRS order of the matmul's loops.
  bool found = false;
  for (const auto& s : sketches) {
    if (s.stageIndex("matmul.local") >= 0) continue;
    std::vector<std::string> names;
    for (const auto& it : s.stage("matmul").iters) names.push_back(it.name);
    EXPECT_EQ(names, (std::vector<std::string>{"i.0", "j.0", "i.1", "j.1", "k.0", "i.2", "j.2", "k.1", "i.3", "j.3"}));
    found = true;
  }
  EXPECT_TRUE(found);
}

// The search refines the default schedule (SearchTask's local search mutates the incumbents):
// a good share of the mutations of the default of each kind of tunable kernel (a matmul, an
// NHWC conv, a Winograd batched product with its output transform) must replay, or a strong
// default is a dead end the search never improves on.
TEST(Sampler, DefaultSchedulesMutate) {
  Tensor x = placeholder("X", {1, 14, 14, 64});
  Tensor w = placeholder("W", {3, 3, 64, 128}, te::DType::Float32, true);
  Tensor a = placeholder("A", {256, 256}), b = placeholder("B", {256, 256}, te::DType::Float32, true);
  Tensor tiles = placeholder("T", {6, 6, 4, 512});
  Tensor ww = placeholder("U", {6, 6, 512, 512}, te::DType::Float32, true);
  Tensor wino = ops::relu(ops::winograd_output(ops::batch_matmul(tiles, ww), 4, 1, 7, 7));
  std::vector<std::shared_ptr<const te::ComputeDAG>> dags = {
      dagOf({x, w}, {ops::conv2d_nhwc(x, w, {1, 1}, {1, 1, 1, 1})}), dagOf({a, b}, {ops::matmul(a, b)}),
      dagOf({tiles, ww}, {wino})};
  for (const char* name : {"x86-64-v3", "x86-64-v4"}) {
    SamplerOptions opt;
    opt.target = *codegen::resolveTarget(name);
    for (const auto& dag : dags) {
      auto d = schedule::State::replay(dag, withoutLayoutRewrites(measure::defaultScheduleFor(*dag, opt.target)));
      ASSERT_TRUE(d.ok()) << d.error();
      int ok = 0;
      for (int i = 0; i < 100; ++i) {
        Rng rng(7 + i);
        ok += mutateState(*d, rng, opt).has_value();
      }
      EXPECT_GT(ok, 30) << name << " " << dag->outputs()[0].name();
    }
  }
}

TEST(Sampler, RegisterTilesFitTheTargetsRegisterFile) {
  // Sampled states of an NHWC conv and a matmul: the accumulators of their innermost tiles fit
  // 16 registers on AVX2 and 32 on AVX-512; mutations never leave the budget either.
  Tensor x = placeholder("X", {1, 14, 14, 64});
  Tensor w = placeholder("W", {3, 3, 64, 128}, te::DType::Float32, true);
  Tensor a = placeholder("A", {256, 256}), b = placeholder("B", {256, 256});
  std::vector<std::shared_ptr<const te::ComputeDAG>> dags = {
      dagOf({x, w}, {ops::conv2d_nhwc(x, w, {1, 1}, {1, 1, 1, 1})}), dagOf({a, b}, {ops::matmul(a, b)})};
  for (const char* name : {"x86-64-v3", "x86-64-v4"}) {
    SamplerOptions opt;
    opt.target = *codegen::resolveTarget(name);
    int lanes = opt.target.lanes(), regs = opt.target.vector_registers;
    for (const auto& dag : dags) {
      auto sketches = generateSketches(dag, SketchOptions{2, "SSRSRS"});
      int sampled = 0, bigger_than_lanes = 0;
      for (int i = 0; i < 200; ++i) {
        Rng rng(1000 + i);
        auto st = sampleState(sketches[rng.index(sketches.size())], rng, opt);
        if (!st) continue;
        ++sampled;
        int need = tileRegisters(*st, lanes);
        EXPECT_LE(need, regs) << name;
        bigger_than_lanes += need > 4;
        if (auto m = mutateState(*st, rng, opt)) {
          EXPECT_LE(tileRegisters(*m, lanes), regs) << name;
        }
      }
      EXPECT_GT(sampled, 150) << name;
      EXPECT_GT(bigger_than_lanes, 20) << name << ": the repair should shrink tiles, not collapse them";
    }
  }
}

// An int8 product's sketches end in the target's dot-product group; sampled and mutated states
// keep it innermost and whole, vectorize the loop around it, and compute exactly (AVX2 code
// runs a group of four as vpmaddwd pairs, so every x86 machine checks them).
TEST(Sampler, Int8ProductsKeepTheirDotProductGroup) {
  Tensor x = placeholder("X", {1, 9, 9, 32}, te::DType::UInt8);
  Tensor w = placeholder("W", {3, 3, 32, 48}, te::DType::Int8, true);
  auto dag = dagOf({x, w}, {ops::conv2d_nhwc(x, w, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, 7)});
  SamplerOptions opt;
  opt.target = *codegen::resolveTarget("x86-64-v3");
  opt.target.int8_group = 4;
  auto sketches = generateSketches(dag, SketchOptions{2, "SSRSRS", 4});
  ASSERT_FALSE(sketches.empty());
  const std::string conv = dag->outputs()[0].name();
  auto endsInGroup = [&](const schedule::State& s) {
    for (const schedule::Stage& st : s.stages())
      if (schedule::endsInDotGroup(st) && *st.iters.back().extent == 4) return true;
    return false;
  };
  testing::Checker checker(dag, testing::fullRangeInputs(*dag, 3));
  int sampled = 0, mutated = 0, checked = 0, vectorized_states = 0;
  for (int i = 0; i < 60; ++i) {
    Rng rng(300 + i);
    auto st = sampleState(sketches[rng.index(sketches.size())], rng, opt);
    if (!st) continue;
    ++sampled;
    EXPECT_TRUE(endsInGroup(*st)) << schedule::stepToString(st->steps().back());
    bool vectorized = false;
    for (const schedule::Stage& stage : st->stages())
      for (const schedule::Iterator& it : stage.iters)
        vectorized = vectorized || it.annotation == schedule::IterAnnotation::Vectorize;
    vectorized_states += vectorized;  // not when the loop around the group exceeds max_vectorize
    if (auto m = mutateState(*st, rng, opt)) {
      ++mutated;
      EXPECT_TRUE(endsInGroup(*m));
    }
    if (checked < 6 && testing::skipReason(opt.target).empty()) {
      auto built = schedule::State::replay(dag, finalizeForMeasurement(*st));
      ASSERT_TRUE(built.ok()) << built.error();
      testing::CheckResult r = checker.check(*built, 3, 0, 0, {}, opt.target);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << r.lowered;
      ++checked;
    }
  }
  EXPECT_GT(sampled, 30);
  EXPECT_GT(vectorized_states, sampled / 2);
  EXPECT_GT(mutated, 5);
}

}  // namespace
}  // namespace ttune::autotune
