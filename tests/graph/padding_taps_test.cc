// Convolution taps that read only padding are removed (graph/padding_taps.h): the rewritten
// convolution computes what the original computed, over a sweep of shapes, strides, dilations
// and paddings, and the atrous case becomes a 1x1.
#include <gtest/gtest.h>

#include "graph/conv_regions.h"
#include "graph/padding_taps.h"
#include "graph/reference.h"
#include "graph_test_util.h"
#include "support/error.h"

namespace ttune::graph {
namespace {

using testing::randomArray;

struct ConvCase {
  int64_t h, w, kh, kw, stride, dil_h, dil_w;
  Pad4 pads;
};

// Builds x -> conv -> y; returns the graph, or nothing when the shapes are invalid.
std::optional<Graph> convGraph(const ConvCase& c, int64_t groups = 1) {
  Graph g;
  int x = g.addInput("x", {1, 4, c.h, c.w});
  Conv2dAttrs a;
  a.strides = {c.stride, c.stride};
  a.dilation = {c.dil_h, c.dil_w};
  a.pads = c.pads;
  a.groups = groups;
  int w = g.addConstant("w", randomArray({6, 4 / groups, c.kh, c.kw}, 3));
  try {
    g.markOutput(g.addNode("conv", a, {x, w}));
  } catch (const Error&) {
    return std::nullopt;
  }
  return g;
}

const Conv2dAttrs& convOf(const Graph& g) { return std::get<Conv2dAttrs>(g.node(0).attrs); }

// The rewritten graph's output equals the original's (the dropped terms are zeros).
void expectSameResult(const Graph& before, const Graph& after, uint64_t seed) {
  std::vector<runtime::NDArray> in = {randomArray(before.value(before.inputs()[0]).shape, seed)};
  auto want = evaluateGraph(before, in);
  auto got = evaluateGraph(after, in);
  ASSERT_EQ(got[0].shape(), want[0].shape());
  EXPECT_TRUE(runtime::compare(got[0], want[0], 1e-6, 1e-6).ok());
}

TEST(PaddingTaps, AnAtrous3x3OnASmallerMapBecomesA1x1) {
  // DeepLab's ASPP at rate 12 on an 8x8 map: only the centre tap ever reads the image.
  ConvCase c{8, 8, 3, 3, 1, 12, 12, {12, 12, 12, 12}};
  Graph g = *convGraph(c), r = g;
  EXPECT_EQ(dropPaddingTaps(r), 1);
  const Conv2dAttrs& a = convOf(r);
  EXPECT_EQ(r.value(r.node(0).inputs[1]).shape, (te::Shape{6, 4, 1, 1}));
  EXPECT_EQ(a.pads, (Pad4{0, 0, 0, 0}));
  EXPECT_EQ(a.dilation, (Hw{1, 1}));
  expectSameResult(g, r, 5);
}

TEST(PaddingTaps, OneSidedAndPartialNarrowingKeepsTheOutput) {
  // Rows: the last tap reads only the bottom padding; columns: nothing to drop.
  ConvCase c{8, 8, 3, 3, 1, 5, 1, {0, 1, 10, 1}};
  Graph g = *convGraph(c), r = g;
  EXPECT_EQ(dropPaddingTaps(r), 1);
  EXPECT_EQ(r.value(r.node(0).inputs[1]).shape, (te::Shape{6, 4, 2, 3}));
  EXPECT_EQ(convOf(r).dilation, (Hw{5, 1}));
  expectSameResult(g, r, 6);
}

// ASPP at rate 12 on a 14x14 map: every tap reads input somewhere, but the outer ones only for
// two rows or columns; nine regions, each without padding.
TEST(ConvRegions, AnAtrousConvolutionOnAMapNearItsRateRunsByRegion) {
  ConvCase c{14, 14, 3, 3, 1, 12, 12, {12, 12, 12, 12}};
  Graph g = *convGraph(c), r = g;
  EXPECT_EQ(dropPaddingTaps(r), 0);
  EXPECT_EQ(splitConvRegions(r), 1);
  int convs = 0, taps = 0;
  for (const Node& n : r.nodes())
    if (const Conv2dAttrs* a = std::get_if<Conv2dAttrs>(&n.attrs)) {
      ++convs;
      EXPECT_EQ(a->pads, (Pad4{0, 0, 0, 0}));
      const te::Shape& w = r.value(n.inputs[1]).shape;
      const te::Shape& y = r.value(n.output).shape;
      taps += static_cast<int>(w[2] * w[3] * y[2] * y[3]);
    }
  EXPECT_EQ(convs, 9);
  EXPECT_EQ(taps, 18 * 18);  // (14 + 2 + 2)^2 tap positions read input, of 9 * 14^2
  expectSameResult(g, r, 8);
  // A plain 3x3 with padding 1 wastes little: left alone.
  Graph plain = *convGraph({14, 14, 3, 3, 1, 1, 1, {1, 1, 1, 1}});
  EXPECT_EQ(splitConvRegions(plain), 0);
}

TEST(PaddingTaps, ConvolutionsWhoseTapsAllReadInputAreLeftAlone) {
  ConvCase c{7, 7, 3, 3, 1, 1, 1, {1, 1, 1, 1}};
  Graph g = *convGraph(c);
  EXPECT_EQ(dropPaddingTaps(g), 0);
  // A non-zero padding value (an 8-bit input's zero point) is never dropped.
  Graph z = *convGraph({1, 1, 3, 3, 1, 1, 1, {1, 1, 1, 1}});
  std::vector<Node> nodes = z.nodes();
  std::get<Conv2dAttrs>(nodes[0].attrs).pad_value = 3;
  z.setNodes(nodes);
  EXPECT_EQ(dropPaddingTaps(z), 0);
}

// Every valid case of a sweep computes the same after the pass; the sweep must rewrite some.
TEST(PaddingTaps, SweepOfShapesStridesDilationsAndPaddingsComputesTheSame) {
  int rewritten = 0, cases = 0, split = 0;
  uint64_t seed = 1;
  for (int64_t h : {1, 2, 5, 8})
    for (int64_t k : {1, 2, 3})
      for (int64_t stride : {1, 2, 3})
        for (int64_t dil : {1, 2, 6, 12})
          for (int64_t pb : {0, 1, 6, 13}) {
            const int64_t pe = (pb * 7 + k + stride) % 14;  // an asymmetric trailing padding
            ConvCase c{h, h + 1, k, k, stride, dil, dil, {pb, pe, pe, pb}};
            for (int64_t groups : {1, 2}) {
              std::optional<Graph> g = convGraph(c, groups);
              if (!g) continue;
              ++cases;
              Graph r = *g;
              const int narrowed = dropPaddingTaps(r);
              const int regions = splitConvRegions(r);
              split += regions;
              if (narrowed + regions == 0) continue;
              ++rewritten;
              SCOPED_TRACE(::testing::Message() << "h " << h << " k " << k << " stride " << stride << " dilation "
                                                << dil << " pads " << pb << "," << pe << " groups " << groups);
              expectSameResult(*g, r, seed++);
            }
          }
  EXPECT_GT(cases, 200);
  EXPECT_GT(rewritten, 50);
  EXPECT_GT(split, 10);
}

}  // namespace
}  // namespace ttune::graph
