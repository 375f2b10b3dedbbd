// The default schedule's choices (schedule/default_schedule.h): register tiles for depthwise,
// grouped and short-channel convolutions, the basic baseline, inlining decisions, row reductions,
// transpose blocks and tile widths, each checked against the reference on both x86 ISA levels.
#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "codegen/target.h"
#include "common/check.h"
#include "measure/builder.h"
#include "ops/elementwise.h"
#include "ops/nn.h"
#include "ops/reduce.h"
#include "ops/transform.h"
#include "ops/winograd.h"
#include "schedule/record.h"
#include "support/json.h"

namespace ttune {
namespace {

// A depthwise convolution (no broadcast operand, nine or 25 taps) gets a register tile with its
// bias and clip epilogue computed at the tile (no separate pass over the output) and its padding
// inlined; stride 2, 5x5 and channel counts that leave a tail vector stay exact on both ISAs.
TEST(DefaultSchedule, DepthwiseConvolutionGetsAFusedRegisterTile) {
  struct Case {
    int64_t c, hw, k, stride;
  };
  for (const Case& cs : {Case{40, 9, 3, 1}, Case{24, 11, 3, 2}, Case{48, 8, 5, 1}}) {
    te::Tensor x = te::placeholder("data", {1, cs.hw, cs.hw, cs.c});
    te::Tensor w = te::placeholder("weight", {cs.k, cs.k, 1, cs.c}, te::DType::Float32, true);
    te::Tensor b = te::placeholder("bias", {1, 1, 1, cs.c}, te::DType::Float32, true);
    int64_t p = cs.k / 2;
    te::Tensor y = ops::clip(ops::add(ops::depthwise_conv2d_nhwc(x, w, {cs.stride, cs.stride}, {p, p, p, p}), b), 0, 6);
    auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w, b}, std::vector<te::Tensor>{y});
    testing::Checker checker(dag);
    for (const schedule::Target& t : testing::isaTargets()) {
      std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag, t);
      bool tile_at_epilogue = false, pad_inlined = false;
      for (const schedule::Step& s : steps) {
        if (const auto* ca = std::get_if<schedule::ComputeAtStep>(&s))
          tile_at_epilogue |= ca->stage.find("depthwise") != std::string::npos && ca->target_stage == y.name();
        if (const auto* in = std::get_if<schedule::ComputeInlineStep>(&s)) pad_inlined |= in->stage == "pad";
      }
      EXPECT_TRUE(tile_at_epilogue) << schedule::isaName(t.isa) << " k" << cs.k << " s" << cs.stride;
      EXPECT_TRUE(pad_inlined) << schedule::isaName(t.isa);
      if (!testing::skipReason(t).empty()) continue;
      auto st = schedule::State::replay(dag, steps);
      ASSERT_TRUE(st.ok()) << st.error();
      auto r = checker.check(*st, 3, 1e-4, 1e-4, {}, t);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa) << " k" << cs.k << " s" << cs.stride << " max abs err "
                              << r.cmp.max_abs_err;
    }
  }
}

// Stride-1 depthwise rows take a tile whose rows divide the width (a remainder block's guarded
// code made a 112-wide layer 1.7x slower); stride-2 rows keep the six-accumulator tile.
TEST(DefaultSchedule, DepthwiseRowsDivideUnitStrideWidths) {
  struct Case {
    int64_t hw, stride;
  };
  for (const Case& cs : {Case{112, 1}, Case{56, 1}, Case{14, 1}, Case{7, 1}, Case{112, 2}}) {
    te::Tensor x = te::placeholder("data", {1, cs.hw, cs.hw, 96});
    te::Tensor w = te::placeholder("weight", {3, 3, 1, 96}, te::DType::Float32, true);
    te::Tensor y = ops::depthwise_conv2d_nhwc(x, w, {cs.stride, cs.stride}, {1, 1, 1, 1});
    auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w}, std::vector<te::Tensor>{y});
    int64_t out_w = (cs.hw - 1) / cs.stride + 1;
    for (const schedule::Target& t : testing::isaTargets()) {
      int64_t rows = 0;
      for (const schedule::Step& s : measure::defaultScheduleFor(*dag, t))
        if (const auto* sp = std::get_if<schedule::SplitStep>(&s);
            sp && sp->stage.ends_with(".local") && sp->iter == "xx")
          rows = sp->lengths.at(0).value_or(0);
      ASSERT_GT(rows, 0) << schedule::isaName(t.isa);
      if (cs.stride == 1) {
        EXPECT_EQ(out_w % rows, 0) << schedule::isaName(t.isa) << " width " << out_w << " rows " << rows;
      } else {
        EXPECT_EQ(rows, schedule::elementwiseTileFor(t, out_w, 96 / t.lanes(), false).rows) << schedule::isaName(t.isa);
      }
    }
  }
}

// A grouped convolution reads its input at channel (ff / Kg) * Cg + rc: its default vectorizes the
// output channels in blocks that divide a group's width (the input then a broadcast, as in an
// ordinary convolution: 85 instead of 4.5 GFLOP/s on a 32-group 3x3 layer, Zen 5), with an
// outer-product register tile; group widths below, at and above a vector, and odd ones, stay
// exact on both ISAs.
TEST(DefaultSchedule, GroupedConvolutionVectorizesWithinAGroup) {
  struct Case {
    int64_t c, k, groups, hw, stride;
  };
  for (const Case& cs : {Case{64, 64, 16, 9, 1}, Case{64, 64, 8, 8, 2}, Case{96, 96, 3, 7, 1}, Case{60, 60, 4, 7, 1},
                         Case{32, 64, 2, 6, 1}}) {
    te::Tensor x = te::placeholder("data", {1, cs.hw, cs.hw, cs.c});
    te::Tensor w = te::placeholder("weight", {3, 3, cs.c / cs.groups, cs.k}, te::DType::Float32, true);
    te::Tensor y = ops::relu(ops::conv2d_nhwc(x, w, {cs.stride, cs.stride}, {1, 1, 1, 1}, {1, 1}, cs.groups));
    auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w}, std::vector<te::Tensor>{y});
    testing::Checker checker(dag);
    const int64_t kg = cs.k / cs.groups;
    for (const schedule::Target& t : testing::isaTargets()) {
      std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag, t);
      int64_t width = 0;
      bool vectorized = false;
      for (const schedule::Step& s : steps) {
        if (const auto* sp = std::get_if<schedule::SplitStep>(&s); sp && sp->stage == "conv2d_nhwc" && sp->iter == "ff")
          width = sp->lengths.at(0).value_or(0);
        if (const auto* a = std::get_if<schedule::AnnotationStep>(&s))
          vectorized |=
              a->stage == "conv2d_nhwc" && a->iter == "ff.1" && a->annotation == schedule::IterAnnotation::Vectorize;
      }
      std::string what = std::string(schedule::isaName(t.isa)) + " groups " + std::to_string(cs.groups);
      ASSERT_GT(width, 1) << what;
      // Groups of at most a quarter vector: whole vectors across groups, loaded as one vector
      // and a shuffle per input channel (no gather).
      const bool across = kg * 4 <= t.lanes() && t.lanes() % kg == 0 && cs.k % t.lanes() == 0;
      if (across) {
        EXPECT_EQ(width % t.lanes(), 0) << what;
      } else {
        EXPECT_EQ(kg % width, 0) << what << ": a vector of " << width << " crosses a group of " << kg;
        EXPECT_LE(width, std::max<int64_t>(kg, 1)) << what;
      }
      EXPECT_TRUE(vectorized) << what;
      auto st = schedule::State::replay(dag, steps);
      ASSERT_TRUE(st.ok()) << st.error();
      if (across) {
        auto f = lower::lower(*st, "kernel");
        ASSERT_TRUE(f.ok()) << f.error();
        auto ir = codegen::emitLLVMIR(*f, true, t);
        ASSERT_TRUE(ir.ok()) << ir.error();
        EXPECT_EQ(ir->find("gather"), std::string::npos) << what;
      }
      if (!testing::skipReason(t).empty()) continue;
      auto r = checker.check(*st, 3, 1e-4, 1e-4, {}, t);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << what << " max abs err " << r.cmp.max_abs_err;
    }
  }
}

// Fewer output channels than the vector width (a transposed convolution to RGB has 4 phases x 3
// channels): still vectors along the channels, masked, never along the image, which reads the
// input at a channel stride (12 channels ran at 5 GFLOP/s on AVX-512, 16 at 108).
TEST(DefaultSchedule, ShortChannelAxisStaysTheVectorAxis) {
  for (const schedule::Target& t : testing::isaTargets()) {
    const int64_t k = t.lanes() * 3 / 4;
    te::Tensor x = te::placeholder("data", {1, 18, 18, 32});
    te::Tensor w = te::placeholder("weight", {2, 2, 32, k}, te::DType::Float32, true);
    te::Tensor y = ops::conv2d_nhwc(x, w, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1);
    auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w}, std::vector<te::Tensor>{y});
    std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag, t);
    std::string vectorized;
    for (const schedule::Step& s : steps)
      if (const auto* a = std::get_if<schedule::AnnotationStep>(&s);
          a && a->stage == "conv2d_nhwc" && a->annotation == schedule::IterAnnotation::Vectorize)
        vectorized = a->iter;
    std::string what = std::string(schedule::isaName(t.isa)) + ", " + std::to_string(k) + " channels";
    EXPECT_EQ(vectorized.rfind("ff", 0), 0u) << what << ": vectorized along " << vectorized;
    if (!testing::skipReason(t).empty()) continue;
    auto st = schedule::State::replay(dag, steps);
    ASSERT_TRUE(st.ok()) << st.error();
    auto r = testing::Checker(dag).check(*st, 3, 1e-4, 1e-4, {}, t);
    ASSERT_TRUE(r.built) << r.error;
    EXPECT_TRUE(r.cmp.ok()) << what << " max abs err " << r.cmp.max_abs_err;
  }
}

// The basic baseline (the transfer-tuning paper's conditions) is the kind of schedule TVM falls
// back to without tuning logs: parallel outer loops and a vectorized inner loop per stage, the
// padding inlined, and none of the strong defaults' register tiles, packed weights or copies; it
// stays exact on both ISAs.
TEST(DefaultSchedule, BasicBaselineIsParallelOuterAndVectorInnerOnly) {
  te::Tensor x = te::placeholder("data", {1, 10, 10, 32});
  te::Tensor w = te::placeholder("weight", {3, 3, 32, 48}, te::DType::Float32, true);
  te::Tensor b = te::placeholder("bias", {1, 1, 1, 48}, te::DType::Float32, true);
  te::Tensor y = ops::relu(ops::add(ops::conv2d_nhwc(x, w, {1, 1}, {1, 1, 1, 1}), b));
  auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w, b}, std::vector<te::Tensor>{y});
  testing::Checker checker(dag);
  for (const schedule::Target& t : testing::isaTargets()) {
    std::vector<schedule::Step> basic = measure::defaultScheduleFor(*dag, t, schedule::Baseline::Basic);
    int parallel = 0, vectorize = 0, other = 0;
    for (const schedule::Step& s : basic) {
      if (const auto* a = std::get_if<schedule::AnnotationStep>(&s)) {
        parallel += a->annotation == schedule::IterAnnotation::Parallel;
        vectorize += a->annotation == schedule::IterAnnotation::Vectorize;
        other +=
            a->annotation != schedule::IterAnnotation::Parallel && a->annotation != schedule::IterAnnotation::Vectorize;
      }
      other += std::holds_alternative<schedule::CacheWriteStep>(s) ||
               std::holds_alternative<schedule::LayoutRewriteStep>(s) ||
               std::holds_alternative<schedule::ComputeAtStep>(s);
    }
    EXPECT_GE(parallel, 1) << schedule::isaName(t.isa);
    EXPECT_GE(vectorize, 1) << schedule::isaName(t.isa);
    EXPECT_EQ(other, 0) << schedule::isaName(t.isa);
    auto dump = [](const std::vector<schedule::Step>& steps) {
      Json j = Json::array();
      for (const schedule::Step& st : steps) j.push_back(schedule::stepToJson(st));
      return j.dump();
    };
    EXPECT_NE(dump(basic), dump(measure::defaultScheduleFor(*dag, t)));
    if (!testing::skipReason(t).empty()) continue;
    auto st = schedule::State::replay(dag, basic);
    ASSERT_TRUE(st.ok()) << st.error();
    auto r = checker.check(*st, 3, 1e-4, 1e-4, {}, t);
    ASSERT_TRUE(r.built) << r.error;
    EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa) << " max abs err " << r.cmp.max_abs_err;
  }
}

// A product of two activations (attention's probabilities times values) has a broadcast
// operand even though neither input is constant: it keeps the outer-product register tile, the
// reduction outside the tile's rows, not the depthwise-style tile (which ran it at half speed).
TEST(DefaultSchedule, ProductOfActivationsKeepsAnOuterProductTile) {
  te::Tensor a = te::placeholder("A", {4, 64, 48});
  te::Tensor b = te::placeholder("B", {4, 48, 64});
  auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, b},
                                                    std::vector<te::Tensor>{ops::batch_matmul(a, b)});
  for (const schedule::Target& t : testing::isaTargets()) {
    std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag, t);
    const schedule::ReorderStep* tile = nullptr;
    for (const schedule::Step& s : steps)
      if (const auto* r = std::get_if<schedule::ReorderStep>(&s); r && r->stage.ends_with(".local")) tile = r;
    ASSERT_NE(tile, nullptr) << schedule::isaName(t.isa);
    ASSERT_GE(tile->order.size(), 3u);
    std::vector<std::string> tail(tile->order.end() - 3, tile->order.end());
    EXPECT_EQ(tail, (std::vector<std::string>{"k", "i.1", "j.1"})) << schedule::isaName(t.isa);
  }
}

// Padding is cheap: inlined into the Winograd input transform, which reads each padded input in
// all of its 36 outputs (a separate padding pass ran 1.5-3.5x slower in vgg16).
TEST(DefaultSchedule, PaddingInlinesIntoTheWinogradInputTransform) {
  te::Tensor x = te::placeholder("data", {1, 14, 14, 32});
  te::Tensor y = ops::winograd_input(x, 4, {1, 1, 1, 1});
  auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x}, std::vector<te::Tensor>{y});
  for (const schedule::Target& t : testing::isaTargets()) {
    bool pad_inlined = false;
    for (const schedule::Step& s : measure::defaultScheduleFor(*dag, t))
      if (const auto* in = std::get_if<schedule::ComputeInlineStep>(&s)) pad_inlined |= in->stage == "pad";
    EXPECT_TRUE(pad_inlined) << schedule::isaName(t.isa);
  }
}

// A squeeze-excitation gate: sigmoid(conv(pooled) + bias) broadcast over the feature map. The
// sigmoid keeps a stage of its own (inlined into the product it would be computed once per
// pixel instead of once per channel) and the kernel stays exact.
TEST(DefaultSchedule, BroadcastGateIsComputedOnce) {
  te::Tensor pooled = te::placeholder("pooled", {1, 1, 1, 8});
  te::Tensor w = te::placeholder("weight", {1, 1, 8, 40}, te::DType::Float32, true);
  te::Tensor b = te::placeholder("bias", {1, 1, 1, 40}, te::DType::Float32, true);
  te::Tensor fmap = te::placeholder("fmap", {1, 12, 12, 40});
  te::Tensor gate = ops::sigmoid(ops::add(ops::conv2d_nhwc(pooled, w), b));
  te::Tensor y = ops::mul(fmap, gate);
  auto dag =
      std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{pooled, w, b, fmap}, std::vector<te::Tensor>{y});
  testing::Checker checker(dag);
  for (const schedule::Target& t : testing::isaTargets()) {
    std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag, t);
    for (const schedule::Step& s : steps) {
      if (const auto* in = std::get_if<schedule::ComputeInlineStep>(&s)) {
        EXPECT_NE(in->stage, gate.name());
      }
    }
    if (!testing::skipReason(t).empty()) continue;
    auto st = schedule::State::replay(dag, steps);
    ASSERT_TRUE(st.ok()) << st.error();
    auto r = checker.check(*st, 3, 1e-4, 1e-4, {}, t);
    ASSERT_TRUE(r.built) << r.error;
    EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa) << " max abs err " << r.cmp.max_abs_err;
  }
}

// Softmax's max and sum run along the contiguous last axis: the default factors each into a
// vector of partial results per row (rfactor) instead of vectorizing across rows (gathers), and
// stays exact, also when the row length leaves a tail vector.
TEST(DefaultSchedule, RowReductionsVectorizeAlongTheRow) {
  for (int64_t len : {256, 100}) {
    te::Tensor x = te::placeholder("x", {3, 17, len});
    te::Tensor y = ops::softmax(x, -1);
    auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x}, std::vector<te::Tensor>{y});
    testing::Checker checker(dag);
    for (const schedule::Target& t : testing::isaTargets()) {
      std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag, t);
      int rfactors = 0;
      for (const schedule::Step& s : steps) rfactors += std::holds_alternative<schedule::RfactorStep>(s);
      EXPECT_EQ(rfactors, 2) << schedule::isaName(t.isa) << " row " << len;
      if (!testing::skipReason(t).empty()) continue;
      auto st = schedule::State::replay(dag, steps);
      ASSERT_TRUE(st.ok()) << st.error();
      auto r = checker.check(*st, 3, 1e-5, 1e-4, {}, t);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa) << " row " << len << " max abs err " << r.cmp.max_abs_err;
    }
  }
}

// How many loops the steps annotate with `kind`.
int annotations(const std::vector<schedule::Step>& steps, schedule::IterAnnotation kind) {
  int n = 0;
  for (const schedule::Step& s : steps)
    if (const auto* a = std::get_if<schedule::AnnotationStep>(&s)) n += a->annotation == kind;
  return n;
}

// A transpose whose output's last axis reads the input with a stride goes in unrolled blocks
// (no vector loop along a strided read, which would gather); a non-dividing shape checks the
// blocks' guards.
TEST(DefaultSchedule, TransposesGoInUnrolledBlocksWithoutGathers) {
  struct Case {
    te::Shape input, shape;  // shape: the input reshaped to it when different
    std::vector<int64_t> perm;
  };
  // The last case splits attention heads first (BERT's K^T): its reads are linear only once the
  // reshape's flat-index arithmetic is simplified.
  for (const Case& k : {Case{{1, 3, 40, 37}, {1, 3, 40, 37}, {0, 2, 3, 1}}, Case{{4, 37, 21}, {4, 37, 21}, {0, 2, 1}},
                        Case{{24, 48}, {24, 3, 16}, {1, 2, 0}}}) {
    te::Tensor x = te::placeholder("x", k.input);
    te::Tensor y = ops::transpose(k.input == k.shape ? x : ops::reshape(x, k.shape), k.perm);
    auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x}, std::vector<te::Tensor>{y});
    testing::Checker checker(dag);
    for (const schedule::Target& t : testing::isaTargets()) {
      std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag, t);
      EXPECT_EQ(annotations(steps, schedule::IterAnnotation::Unroll), 2) << schedule::isaName(t.isa);
      EXPECT_EQ(annotations(steps, schedule::IterAnnotation::Vectorize), 0) << schedule::isaName(t.isa);
      if (!testing::skipReason(t).empty()) continue;
      auto st = schedule::State::replay(dag, steps);
      ASSERT_TRUE(st.ok()) << st.error();
      auto r = checker.check(*st, 3, 0, 0, {}, t);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa) << " max abs err " << r.cmp.max_abs_err;
    }
  }
}

// A transpose back to the input's layout around an element-wise op (densenet's batch norm
// between two layout changes) reads contiguously once the inlined stages are substituted: it
// keeps the vector loop (the blocked transpose was 2-4x slower there).
TEST(DefaultSchedule, TransposeRoundTripStaysVectorized) {
  te::Tensor x = te::placeholder("x", {1, 5, 6, 40});
  te::Tensor y = ops::transpose(ops::relu(ops::transpose(x, {0, 3, 1, 2})), {0, 2, 3, 1});
  auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x}, std::vector<te::Tensor>{y});
  testing::Checker checker(dag);
  for (const schedule::Target& t : testing::isaTargets()) {
    std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag, t);
    EXPECT_EQ(annotations(steps, schedule::IterAnnotation::Unroll), 0) << schedule::isaName(t.isa);
    EXPECT_EQ(annotations(steps, schedule::IterAnnotation::Vectorize), 1) << schedule::isaName(t.isa);
    if (!testing::skipReason(t).empty()) continue;
    auto st = schedule::State::replay(dag, steps);
    ASSERT_TRUE(st.ok()) << st.error();
    auto r = checker.check(*st, 3, 0, 0, {}, t);
    ASSERT_TRUE(r.built) << r.error;
    EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa);
  }
}

// Output channels that the register tile's width does not divide (mnasnet's 1x1 convs to 72 and
// 120 channels) get vector blocks that divide them: a remainder block guarded every vector of the
// tile (18-47 GFLOP/s instead of ~200 on Zen 4).
TEST(DefaultSchedule, RegisterTileWidthDividesTheChannels) {
  for (int64_t k : {72, 120, 112}) {
    te::Tensor x = te::placeholder("x", {1, 7, 9, 40});
    te::Tensor w = te::placeholder("w", {1, 1, 40, k}, te::DType::Float32, true);
    te::Tensor y = ops::conv2d_nhwc(x, w, {1, 1}, {0, 0, 0, 0});
    auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w}, std::vector<te::Tensor>{y});
    testing::Checker checker(dag);
    for (const schedule::Target& t : testing::isaTargets()) {
      std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag, t);
      int channel_splits = 0;
      for (const schedule::Step& s : steps)
        if (const auto* sp = std::get_if<schedule::SplitStep>(&s); sp && sp->extent && *sp->extent == k) {
          ++channel_splits;
          ASSERT_EQ(sp->lengths.size(), 1u);
          ASSERT_TRUE(sp->lengths[0]);
          EXPECT_EQ(k % *sp->lengths[0], 0)
              << schedule::isaName(t.isa) << " " << k << " in blocks of " << *sp->lengths[0];
        }
      EXPECT_EQ(channel_splits, 1) << schedule::isaName(t.isa) << " " << k;
      if (!testing::skipReason(t).empty()) continue;
      auto st = schedule::State::replay(dag, steps);
      ASSERT_TRUE(st.ok()) << st.error();
      auto r = checker.check(*st, 3, 1e-4, 1e-3, {}, t);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa) << " " << k;
    }
  }
}

// An extent with no useful divisor (ViT-B/16's 197 tokens, a prime) is split into full vector
// blocks and one remainder block, not into blocks of one element: the scalar tile ran attention's
// Q.K^T at 25 GFLOP/s instead of ~300 (Zen 5).
TEST(DefaultSchedule, PrimeExtentGetsVectorBlocksWithARemainder) {
  te::Tensor a = te::placeholder("A", {2, 13, 8});
  te::Tensor b = te::placeholder("B", {2, 8, 197});
  auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, b},
                                                    std::vector<te::Tensor>{ops::batch_matmul(a, b)});
  testing::Checker checker(dag);
  for (const schedule::Target& t : testing::isaTargets()) {
    std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag, t);
    int column_splits = 0;
    for (const schedule::Step& s : steps)
      if (const auto* sp = std::get_if<schedule::SplitStep>(&s);
          sp && sp->iter == "j" && sp->extent && *sp->extent == 197) {
        ++column_splits;
        ASSERT_EQ(sp->lengths.size(), 1u);
        ASSERT_TRUE(sp->lengths[0]);
        EXPECT_GE(*sp->lengths[0], t.lanes()) << schedule::isaName(t.isa);
      }
    EXPECT_EQ(column_splits, 1) << schedule::isaName(t.isa);
    if (!testing::skipReason(t).empty()) continue;
    auto st = schedule::State::replay(dag, steps);
    ASSERT_TRUE(st.ok()) << st.error();
    auto r = checker.check(*st, 3, 1e-4, 1e-3, {}, t);
    ASSERT_TRUE(r.built) << r.error;
    EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa);
  }
}

}  // namespace
}  // namespace ttune
