// The channels-last conversion keeps every graph's results (checked with the reference
// evaluator before and after) and leaves no transposes where the layout can follow.
#include <gtest/gtest.h>

#include "graph_test_util.h"

#include "count_ops.h"
#include "graph/layout.h"
#include "graph/passes.h"
#include "graph/reference.h"

namespace ttune::graph {
namespace {

using testing::randomArray;

// Converts a copy of g and checks that it computes what g computes, with the same outputs.
Graph convertedAndChecked(const Graph& g, uint64_t seed = 11, int vector_lanes = 0) {
  std::vector<runtime::NDArray> inputs;
  for (int v : g.inputs()) inputs.push_back(randomArray(g.value(v).shape, seed++));
  auto before = evaluateGraph(g, inputs);
  Graph c = g;
  convertToChannelsLast(c, vector_lanes);
  auto after = evaluateGraph(c, inputs);
  EXPECT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    EXPECT_EQ(g.value(g.outputs()[i]).name, c.value(c.outputs()[i]).name);
    EXPECT_EQ(after[i].shape(), before[i].shape());
    auto cmp = runtime::compare(after[i], before[i], 1e-4, 1e-4);
    EXPECT_TRUE(cmp.ok()) << "output " << i << " max abs err " << cmp.max_abs_err;
  }
  return c;
}

int conv(Graph& g, const std::string& name, int x, int64_t c, int64_t k, int64_t kernel, int64_t stride, int64_t groups,
         uint64_t seed) {
  Conv2dAttrs a;
  a.strides = {stride, stride};
  int64_t p = kernel / 2;
  a.pads = {p, p, p, p};
  a.groups = groups;
  return g.addNode(name, a, {x, g.addConstant(name + ".w", randomArray({k, c / groups, kernel, kernel}, seed))});
}

// A small CNN with everything the zoo uses around convolutions: stem conv + max pool, a
// depthwise conv, a squeeze-excite gate (global pool, convs, sigmoid, broadcast multiply), a
// residual add, inception-style channel concat, an average pool, explicit padding, a bias
// broadcast of rank 3, global pooling, flatten and a dense head.
TEST(ChannelsLast, SmallCnnKeepsResultsAndTransposesOnlyTheInput) {
  Graph g;
  int x = g.addInput("x", {1, 3, 17, 15});
  int s = g.addNode("stem.relu", UnaryAttrs{UnaryKind::Relu}, {conv(g, "stem", x, 3, 8, 3, 2, 1, 1)});
  Pool2dAttrs mp{PoolKind::Max, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, true};
  int p = g.addNode("pool", mp, {s});
  int dw = g.addNode("dw.clip", UnaryAttrs{UnaryKind::Clip, 0, 6}, {conv(g, "dw", p, 8, 8, 3, 1, 8, 2)});
  int se = g.addNode("se.pool", GlobalPool2dAttrs{PoolKind::Avg}, {dw});
  int se1 = g.addNode("se.relu", UnaryAttrs{UnaryKind::Relu}, {conv(g, "se.fc1", se, 8, 4, 1, 1, 1, 3)});
  int gate = g.addNode("se.gate", UnaryAttrs{UnaryKind::Sigmoid}, {conv(g, "se.fc2", se1, 4, 8, 1, 1, 1, 4)});
  int scaled = g.addNode("se.mul", BinaryAttrs{BinaryKind::Mul}, {dw, gate});
  int res = g.addNode("res", BinaryAttrs{BinaryKind::Add}, {scaled, p});
  int b1 = conv(g, "b1", res, 8, 4, 1, 1, 1, 5);
  Pool2dAttrs ap{PoolKind::Avg, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, false, false};
  int b2 = conv(g, "b2", g.addNode("b2.pool", ap, {res}), 8, 6, 1, 1, 1, 6);
  int cat = g.addNode("cat", ConcatAttrs{1}, {b1, b2});
  int bias =
      g.addNode("bias", BinaryAttrs{BinaryKind::Add}, {cat, g.addConstant("bias.b", randomArray({10, 1, 1}, 7))});
  int padded = g.addNode("pad", PadAttrs{{0, 0, 1, 0}, {0, 0, 0, 2}, 0.5}, {bias});
  int gp = g.addNode("gp", GlobalPool2dAttrs{PoolKind::Max}, {padded});
  int flat = g.addNode("flat", ReshapeAttrs{{1, 10}}, {gp});
  int fc = g.addNode("fc", DenseAttrs{}, {flat, g.addConstant("fc.w", randomArray({5, 10}, 8))});
  g.markOutput(fc);

  Graph c = convertedAndChecked(g);
  EXPECT_EQ(count(c, "transpose"), 1);  // the input's, to NHWC
  EXPECT_EQ(count(c, "conv2d_nhwc"), 5);
  EXPECT_EQ(count(c, "group_conv2d_nhwc"), 1);
  EXPECT_EQ(count(c, "conv2d_nchw") + count(c, "group_conv2d_nchw"), 0);
  EXPECT_EQ(count(c, "max_pool2d_nhwc") + count(c, "avg_pool2d_nhwc"), 2);
  EXPECT_EQ(count(c, "global_avg_pool2d_nhwc") + count(c, "global_max_pool2d_nhwc"), 2);
  // After optimizeGraph too (batch-norm folding first, then the conversion), same results.
  Graph o = g;
  optimizeGraph(o);
  EXPECT_EQ(count(o, "transpose"), 1);
}

// Readers that cannot follow NHWC get the value back in NCHW, converted once however many read it.
TEST(ChannelsLast, OtherReadersGetNchwOnce) {
  Graph g;
  int x = g.addInput("x", {1, 4, 5, 6});
  int y = conv(g, "conv", x, 4, 6, 3, 1, 1, 1);
  int sm = g.addNode("sm", SoftmaxAttrs{1}, {y});
  int red = g.addNode("mean", ReduceAttrs{ReduceKind::Mean, {1}, true}, {y});
  int out = g.addNode("out", BinaryAttrs{BinaryKind::Add}, {sm, red});
  g.markOutput(out);
  g.markOutput(y);  // a graph output computed in NHWC keeps its name and NCHW shape
  Graph c = convertedAndChecked(g);
  EXPECT_EQ(count(c, "transpose"), 2);  // input to NHWC, conv output back to NCHW
}

// A weight read by two convolutions is copied, not re-laid-out under the other reader.
TEST(ChannelsLast, SharedWeightsAndNonConstantWeights) {
  Graph g;
  int x = g.addInput("x", {1, 4, 6, 6});
  int w = g.addConstant("w", randomArray({4, 4, 3, 3}, 1));
  Conv2dAttrs a;
  a.pads = {1, 1, 1, 1};
  int y1 = g.addNode("c1", a, {x, w});
  int y2 = g.addNode("c2", a, {y1, w});
  int wx = g.addInput("wx", {4, 4, 3, 3});  // a weight computed at run time keeps the conv NCHW
  int y3 = g.addNode("c3", a, {y2, wx});
  g.markOutput(y3);
  Graph c = convertedAndChecked(g);
  EXPECT_EQ(count(c, "conv2d_nhwc"), 2);
  EXPECT_EQ(count(c, "conv2d_nchw"), 1);
}

// An instance norm (mean and variance over H and W, per channel) follows the convolution into
// NHWC, and a head with fewer output channels than half a vector (an RGB image) stays NCHW, so
// the only transposes left are the input's and the one into the head.
TEST(ChannelsLast, InstanceNormFollowsAndANarrowHeadStaysNchw) {
  auto build = [](int64_t head_channels) {
    Graph g;
    int x = g.addInput("x", {1, 3, 20, 36});
    int y = conv(g, "body", x, 3, 16, 3, 1, 1, 1);
    ReduceAttrs mean{ReduceKind::Mean, {2, 3}, true};
    int mu = g.addNode("mean", mean, {y});
    int d = g.addNode("centered", BinaryAttrs{BinaryKind::Sub}, {y, mu});
    int var = g.addNode("var", ReduceAttrs{ReduceKind::Mean, {-2, -1}, true},
                        {g.addNode("square", BinaryAttrs{BinaryKind::Mul}, {d, d})});
    int sd = g.addNode(
        "std", UnaryAttrs{UnaryKind::Sqrt},
        {g.addNode("var_eps", BinaryAttrs{BinaryKind::Add}, {var, g.addConstant("eps", randomArray({1}, 3))})});
    int nrm = g.addNode("norm", BinaryAttrs{BinaryKind::Div}, {d, sd});
    int sc =
        g.addNode("scaled", BinaryAttrs{BinaryKind::Mul}, {nrm, g.addConstant("gamma", randomArray({16, 1, 1}, 4))});
    int r = g.addNode("relu", UnaryAttrs{UnaryKind::Relu}, {sc});
    g.markOutput(conv(g, "head", r, 16, head_channels, 3, 1, 1, 5));
    return g;
  };
  Graph rgb = convertedAndChecked(build(3), 11, 16);
  EXPECT_EQ(count(rgb, "conv2d_nhwc"), 1);
  EXPECT_EQ(count(rgb, "conv2d_nchw"), 1);
  EXPECT_EQ(count(rgb, "transpose"), 2);  // the input to NHWC, the head's input back to NCHW
  // Fewer than 4 channels stay NCHW on a 4-lane target too; an image narrower than a vector
  // gains nothing from vectors along its rows, and no target means NHWC throughout.
  EXPECT_EQ(count(convertedAndChecked(build(3), 11, 4), "conv2d_nchw"), 1);
  EXPECT_EQ(count(convertedAndChecked(build(3), 11, 64), "conv2d_nhwc"), 2);
  EXPECT_EQ(count(convertedAndChecked(build(3), 11, 0), "conv2d_nhwc"), 2);
  Graph wide = convertedAndChecked(build(8), 11, 16);
  EXPECT_EQ(count(wide, "conv2d_nhwc"), 2);
  EXPECT_EQ(count(wide, "transpose"), 2);  // the input's and the output's
}

// ShuffleNet v2's unit: the channel shuffle (reshape to [N, 2, C/2, H, W], swap axes 1 and 2,
// reshape back) and the channel splits around it follow NHWC, as a shuffle within each pixel.
TEST(ChannelsLast, ChannelShuffleAndSplitsFollow) {
  Graph g;
  int x = g.addInput("x", {1, 3, 6, 7});
  int y = conv(g, "stem", x, 3, 8, 3, 1, 1, 1);
  auto half = [&](const std::string& name, int v, int64_t from) {
    return g.addNode(name, SliceAttrs{{from}, {from + 4}, {1}, {1}}, {v});
  };
  int branch = g.addNode("relu", UnaryAttrs{UnaryKind::Relu}, {conv(g, "b", half("x2", y, 4), 4, 4, 1, 1, 1, 2)});
  int cat = g.addNode("cat", ConcatAttrs{1}, {half("x1", y, 0), branch});
  int v = g.addNode("view", ReshapeAttrs{{1, 2, 4, 6, 7}}, {cat});
  int t = g.addNode("swap", TransposeAttrs{{0, 2, 1, 3, 4}}, {v});
  int s = g.addNode("shuffled", ReshapeAttrs{{1, 8, 6, 7}}, {t});
  int out = g.addNode("out", BinaryAttrs{BinaryKind::Add},
                      {half("y1", s, 0), conv(g, "c2", half("y2", s, 4), 4, 4, 3, 1, 1, 3)});
  g.markOutput(out);
  Graph c = convertedAndChecked(g);
  // The input to NHWC, the shuffle's own swap (of the last two axes), the output back to NCHW.
  EXPECT_EQ(count(c, "transpose"), 3);
  EXPECT_EQ(count(c, "conv2d_nhwc"), 3);
  for (const Node& n : c.nodes()) {
    if (const auto* p = std::get_if<TransposeAttrs>(&n.attrs); p && p->perm.size() == 5) {
      EXPECT_EQ(p->perm, (std::vector<int64_t>{0, 1, 2, 4, 3}));
    }
  }
}

// A slice without axes slices the leading axes of the NCHW value, whatever layout computes it.
TEST(ChannelsLast, SliceWithoutAxesKeepsItsNchwAxes) {
  Graph g;
  int x = g.addInput("x", {1, 3, 6, 7});
  int y = conv(g, "c", x, 3, 8, 3, 1, 1, 1);
  int s = g.addNode("s", SliceAttrs{{0, 2, 1}, {1, 6, 5}, {}, {}}, {y});
  g.markOutput(g.addNode("relu", UnaryAttrs{UnaryKind::Relu}, {s}));
  convertedAndChecked(g);
}

}  // namespace
}  // namespace ttune::graph
