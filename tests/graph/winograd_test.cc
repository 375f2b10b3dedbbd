// The Winograd pass: stride-1 3x3 NHWC convolutions with enough channels become input transform,
// batched matrix product and output transform, the graph computes what it computed (reference
// evaluator before and after, with residual adds, padding variants and a graph output that is a
// rewritten convolution), and everything else stays direct. Fusion puts the transform's matrix
// product, the output transform and the epilogue in one kernel.
#include <gtest/gtest.h>

#include "graph_test_util.h"

#include "count_ops.h"
#include "graph/fusion.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "graph/winograd.h"

namespace ttune::graph {
namespace {

using testing::randomArray;

int conv(Graph& g, const std::string& name, int x, int64_t c, int64_t k, int64_t kernel, int64_t stride, Pad4 pads,
         uint64_t seed) {
  Conv2dAttrs a;
  a.strides = {stride, stride};
  a.pads = pads;
  return g.addNode(name, a, {x, g.addConstant(name + ".w", randomArray({k, c, kernel, kernel}, seed, -0.3, 0.3))});
}

TEST(Winograd, RewritesOnlyWhatItCanAndKeepsResults) {
  Graph g;
  int x = g.addInput("x", {1, 16, 13, 11});
  int a = g.addNode("a.relu", UnaryAttrs{UnaryKind::Relu}, {conv(g, "a", x, 16, 24, 3, 1, {1, 1, 1, 1}, 1)});
  int b = conv(g, "b", a, 24, 16, 3, 1, {1, 1, 1, 1}, 2);            // rewritten
  int res = g.addNode("res", BinaryAttrs{BinaryKind::Add}, {b, x});  // residual
  int s2 = conv(g, "s2", res, 16, 16, 3, 2, {1, 1, 1, 1}, 3);        // stride 2: direct
  int few = conv(g, "few", s2, 16, 8, 3, 1, {1, 1, 1, 1}, 4);        // 8 output channels: direct
  int unpadded = conv(g, "unpadded", s2, 16, 16, 3, 1, {0, 0, 0, 0}, 5);
  int odd = conv(g, "odd", res, 16, 16, 3, 1, {0, 1, 2, 1}, 6);  // asymmetric padding
  g.markOutput(few);
  g.markOutput(unpadded);
  g.markOutput(odd);

  std::vector<runtime::NDArray> inputs = {randomArray(g.value(x).shape, 9)};
  Graph direct = g;
  optimizeGraph(direct, {.channels_last = true, .winograd = false});
  Graph wino = g;
  optimizeGraph(wino, {.channels_last = true, .winograd = true});
  EXPECT_EQ(count(direct, "winograd_input"), 0);
  EXPECT_EQ(count(wino, "winograd_input"), 4);  // a, b, unpadded, odd
  EXPECT_EQ(count(wino, "winograd_output"), 4);
  EXPECT_EQ(count(wino, "conv2d_nhwc"), 2);  // s2 and few
  auto want = evaluateGraph(direct, inputs);
  auto got = evaluateGraph(wino, inputs);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(direct.value(direct.outputs()[i]).name, wino.value(wino.outputs()[i]).name);
    auto cmp = runtime::compare(got[i], want[i], 1e-4, 1e-4);
    EXPECT_TRUE(cmp.ok()) << "output " << i << " max abs err " << cmp.max_abs_err;
  }
  // The matrix product anchors a kernel with the output transform and the epilogue.
  int fused = 0;
  for (const Kernel& k : partition(wino))
    if (k.class_name.rfind("batch_matmul+winograd_output", 0) == 0) ++fused;
  EXPECT_EQ(fused, 4);
  bool residual = false;
  for (const Kernel& k : partition(wino)) residual = residual || k.class_name == "batch_matmul+winograd_output+add";
  EXPECT_TRUE(residual) << "the residual add follows the output transform in its kernel";
}

// F(4x4) stores 4x the direct weights and uses each once per tile: on 7x7 and 8x8 images (4 tiles
// of 4x4) the pass takes F(2x2), on larger images or batches F(4x4).
TEST(Winograd, SmallImagesTakeTwoByTwoTiles) {
  EXPECT_EQ(winogradTileFor(1, 7, 7), 2);
  EXPECT_EQ(winogradTileFor(1, 8, 8), 2);
  EXPECT_EQ(winogradTileFor(1, 14, 14), 4);
  EXPECT_EQ(winogradTileFor(1, 56, 56), 4);
  EXPECT_EQ(winogradTileFor(8, 7, 7), 4);
  EXPECT_EQ(winogradTileFor(1, 56, 56, {.tile = 2}), 2);

  Graph g;
  int x = g.addInput("x", {1, 32, 7, 7});
  int big = conv(g, "big", x, 32, 32, 3, 1, {1, 1, 1, 1}, 11);
  int y = g.addInput("y", {1, 16, 16, 16});
  int small = conv(g, "small", y, 16, 16, 3, 1, {1, 1, 1, 1}, 12);
  g.markOutput(big);
  g.markOutput(small);
  std::vector<runtime::NDArray> inputs = {randomArray(g.value(x).shape, 13), randomArray(g.value(y).shape, 14)};
  Graph direct = g;
  optimizeGraph(direct, {.channels_last = true, .winograd = false});
  Graph wino = g;
  optimizeGraph(wino, {.channels_last = true, .winograd = true});
  std::vector<int64_t> tiles;
  for (const Node& n : wino.nodes())
    if (const auto* a = std::get_if<WinogradInputAttrs>(&n.attrs)) tiles.push_back(a->m);
  EXPECT_EQ(tiles, (std::vector<int64_t>{2, 4}));
  auto want = evaluateGraph(direct, inputs);
  auto got = evaluateGraph(wino, inputs);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    auto cmp = runtime::compare(got[i], want[i], 1e-4, 1e-4);
    EXPECT_TRUE(cmp.ok()) << "output " << i << " max abs err " << cmp.max_abs_err;
  }
}

}  // namespace
}  // namespace ttune::graph
