// Convolution, dense, matmul and batch matmul against straightforward loop implementations.
#include "ops/nn.h"

#include <gtest/gtest.h>

#include "te/compute_dag.h"
#include "test_util.h"

namespace ttune::ops {
namespace {

using namespace ttune::ops::testing;
using te::placeholder;

struct ConvCase {
  int64_t N, C, H, W, K, R, S;
  Hw stride;
  Pad4 pad;  // top, left, bottom, right
  Hw dil;
  int64_t groups;
};

// Output extent written out from the definition, independently of the library helper.
int64_t outExtent(int64_t in, int64_t pb, int64_t pa, int64_t k, int64_t s, int64_t d) {
  return (in + pb + pa - d * (k - 1) - 1) / s + 1;
}

// NCHW data, OIHW weights.
std::vector<double> refConvNchw(const Buffer& x, const Buffer& w, const ConvCase& c, int64_t OH, int64_t OW) {
  int64_t Cg = c.C / c.groups, Kg = c.K / c.groups;
  std::vector<double> out;
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t k = 0; k < c.K; ++k)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = 0;
          int64_t g = k / Kg;
          for (int64_t rc = 0; rc < Cg; ++rc)
            for (int64_t r = 0; r < c.R; ++r)
              for (int64_t s = 0; s < c.S; ++s) {
                int64_t ih = oh * c.stride[0] - c.pad[0] + r * c.dil[0];
                int64_t iw = ow * c.stride[1] - c.pad[1] + s * c.dil[1];
                if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W) continue;
                acc += x.at({n, g * Cg + rc, ih, iw}) * w.at({k, rc, r, s});
              }
          out.push_back(acc);
        }
  return out;
}

// NHWC data, HWIO weights.
std::vector<double> refConvNhwc(const Buffer& x, const Buffer& w, const ConvCase& c, int64_t OH, int64_t OW) {
  int64_t Cg = c.C / c.groups, Kg = c.K / c.groups;
  std::vector<double> out;
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow)
        for (int64_t k = 0; k < c.K; ++k) {
          double acc = 0;
          for (int64_t r = 0; r < c.R; ++r)
            for (int64_t s = 0; s < c.S; ++s) {
              int64_t ih = oh * c.stride[0] - c.pad[0] + r * c.dil[0];
              int64_t iw = ow * c.stride[1] - c.pad[1] + s * c.dil[1];
              if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W) continue;
              for (int64_t rc = 0; rc < Cg; ++rc) acc += x.at({n, ih, iw, (k / Kg) * Cg + rc}) * w.at({r, s, rc, k});
            }
          out.push_back(acc);
        }
  return out;
}

const std::vector<ConvCase>& convCases() {
  static const std::vector<ConvCase> cases = {
      {1, 3, 7, 7, 4, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},    // 3x3 "same"
      {2, 5, 11, 13, 7, 3, 5, {2, 2}, {0, 1, 2, 2}, {1, 1}, 1},  // primes, asymmetric pad, 3x5 kernel
      {1, 4, 9, 10, 6, 3, 3, {1, 2}, {2, 2, 2, 2}, {2, 2}, 2},   // dilation 2, 2 groups
      {1, 6, 9, 7, 9, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 3}, 3},    // 3 groups of 2 -> 3, dilation (1,3)
      {1, 6, 8, 7, 6, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 6},    // depthwise
      {1, 3, 7, 5, 6, 3, 3, {1, 1}, {1, 0, 1, 0}, {1, 1}, 3},    // depthwise, channel multiplier 2
      {1, 5, 6, 6, 3, 1, 1, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1},    // 1x1 stride 2, no padding
      {1, 1, 5, 6, 3, 2, 2, {1, 1}, {0, 0, 1, 1}, {1, 1}, 1},    // one input channel
      {1, 2, 5, 5, 3, 5, 5, {3, 3}, {0, 0, 0, 0}, {1, 1}, 1},    // kernel as large as the input
  };
  return cases;
}

std::string caseName(const ConvCase& c) {
  return cat("N", c.N, "C", c.C, "H", c.H, "W", c.W, "K", c.K, "R", c.R, "S", c.S, " stride ", listToString(c.stride),
             " pad ", listToString(c.pad), " dil ", listToString(c.dil), " groups ", c.groups);
}

TEST(Conv2d, NchwMatchesReference) {
  Rng rng(1);
  for (const ConvCase& c : convCases()) {
    SCOPED_TRACE(caseName(c));
    te::Tensor x = placeholder("data", {c.N, c.C, c.H, c.W});
    te::Tensor w = placeholder("weight", {c.K, c.C / c.groups, c.R, c.S}, te::DType::Float32, true);
    te::Tensor y = conv2d_nchw(x, w, c.stride, c.pad, c.dil, c.groups);
    int64_t OH = outExtent(c.H, c.pad[0], c.pad[2], c.R, c.stride[0], c.dil[0]);
    int64_t OW = outExtent(c.W, c.pad[1], c.pad[3], c.S, c.stride[1], c.dil[1]);
    Buffer xb = randomBuffer(x.shape(), rng), wb = randomBuffer(w.shape(), rng);
    Buffer out = run1({x, w}, {xb, wb}, y);
    EXPECT_TRUE(allClose(out, {c.N, c.K, OH, OW}, refConvNchw(xb, wb, c, OH, OW)));
  }
}

TEST(Conv2d, NhwcMatchesReference) {
  Rng rng(2);
  for (const ConvCase& c : convCases()) {
    SCOPED_TRACE(caseName(c));
    te::Tensor x = placeholder("data", {c.N, c.H, c.W, c.C});
    te::Tensor w = placeholder("weight", {c.R, c.S, c.C / c.groups, c.K}, te::DType::Float32, true);
    te::Tensor y = conv2d_nhwc(x, w, c.stride, c.pad, c.dil, c.groups);
    int64_t OH = outExtent(c.H, c.pad[0], c.pad[2], c.R, c.stride[0], c.dil[0]);
    int64_t OW = outExtent(c.W, c.pad[1], c.pad[3], c.S, c.stride[1], c.dil[1]);
    Buffer xb = randomBuffer(x.shape(), rng), wb = randomBuffer(w.shape(), rng);
    Buffer out = run1({x, w}, {xb, wb}, y);
    EXPECT_TRUE(allClose(out, {c.N, OH, OW, c.K}, refConvNhwc(xb, wb, c, OH, OW)));
  }
}

TEST(Conv2d, OpStructureAndNames) {
  te::Tensor x = placeholder("data", {1, 4, 8, 8});
  te::Tensor w = placeholder("weight", {8, 2, 3, 3}, te::DType::Float32, true);
  te::Tensor y = conv2d_nchw(x, w, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2);
  EXPECT_EQ(y.name(), "conv2d_nchw");
  EXPECT_EQ(y.op().tag(), te::OpTag::Convolution);
  EXPECT_EQ(axisNamesOf(y), (std::vector<std::string>{"nn", "ff", "yy", "xx"}));
  EXPECT_EQ(reduceAxisNamesOf(y), (std::vector<std::string>{"rc", "ry", "rx"}));
  EXPECT_EQ(opNames({x, w}, {y}), (std::vector<std::string>{"data", "weight", "pad", "conv2d_nchw"}));

  // No padding: no pad op.
  te::Tensor y2 = conv2d_nchw(x, w, {1, 1}, {0, 0, 0, 0}, {1, 1}, 2);
  EXPECT_EQ(opNames({x, w}, {y2}), (std::vector<std::string>{"data", "weight", "conv2d_nchw"}));

  te::Tensor xh = placeholder("data", {1, 8, 8, 4});
  te::Tensor wh = placeholder("weight", {3, 3, 4, 8}, te::DType::Float32, true);
  te::Tensor yh = conv2d_nhwc(xh, wh, {2, 2}, {1, 1, 1, 1});
  EXPECT_EQ(yh.name(), "conv2d_nhwc");
  EXPECT_EQ(axisNamesOf(yh), (std::vector<std::string>{"nn", "yy", "xx", "ff"}));
  EXPECT_EQ(reduceAxisNamesOf(yh), (std::vector<std::string>{"ry", "rx", "rc"}));
  EXPECT_EQ(yh.shape(), (Shape{1, 4, 4, 8}));
}

TEST(Conv2d, DepthwiseBuildsSeparateOpWithoutChannelAxis) {
  Rng rng(3);
  te::Tensor x = placeholder("data", {1, 4, 7, 6});
  te::Tensor w = placeholder("weight", {8, 1, 3, 3}, te::DType::Float32, true);
  te::Tensor viaConv = conv2d_nchw(x, w, {1, 1}, {1, 1, 1, 1}, {1, 1}, 4);
  te::Tensor direct = depthwise_conv2d_nchw(x, w, {1, 1}, {1, 1, 1, 1});
  for (const te::Tensor& y : {viaConv, direct}) {
    EXPECT_EQ(y.name(), "depthwise_conv2d_nchw");
    EXPECT_EQ(y.op().tag(), te::OpTag::Convolution);
    EXPECT_EQ(reduceAxisNamesOf(y), (std::vector<std::string>{"ry", "rx"}));
    EXPECT_EQ(y.shape(), (Shape{1, 8, 7, 6}));
  }
  Buffer xb = randomBuffer(x.shape(), rng), wb = randomBuffer(w.shape(), rng);
  ConvCase c{1, 4, 7, 6, 8, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 4};
  EXPECT_TRUE(allClose(run1({x, w}, {xb, wb}, direct), {1, 8, 7, 6}, refConvNchw(xb, wb, c, 7, 6)));

  te::Tensor xh = placeholder("data", {2, 5, 7, 3});
  te::Tensor wh = placeholder("weight", {3, 2, 1, 3}, te::DType::Float32, true);
  te::Tensor yh = depthwise_conv2d_nhwc(xh, wh, {2, 1}, {1, 0, 1, 1}, {1, 2});
  EXPECT_EQ(yh.name(), "depthwise_conv2d_nhwc");
  EXPECT_EQ(axisNamesOf(yh), (std::vector<std::string>{"nn", "yy", "xx", "ff"}));
  ConvCase ch{2, 3, 5, 7, 3, 3, 2, {2, 1}, {1, 0, 1, 1}, {1, 2}, 3};
  int64_t OH = outExtent(5, 1, 1, 3, 2, 1), OW = outExtent(7, 0, 1, 2, 1, 2);
  Buffer xhb = randomBuffer(xh.shape(), rng), whb = randomBuffer(wh.shape(), rng);
  EXPECT_TRUE(allClose(run1({xh, wh}, {xhb, whb}, yh), {2, OH, OW, 3}, refConvNhwc(xhb, whb, ch, OH, OW)));
}

// Kernel classes rely on these: building an op twice gives the same DAG, and the same operator at
// other sizes (same strides-are-one-or-not and padded sides) has the same structural hash.
TEST(Conv2d, DeterministicAndSizeIndependentStructure) {
  auto build = [](int64_t C, int64_t H, int64_t K, Hw st, Pad4 pad) {
    te::Tensor x = placeholder("data", {1, C, H, H});
    te::Tensor w = placeholder("weight", {K, C, 3, 3}, te::DType::Float32, true);
    return te::ComputeDAG({x, w}, {conv2d_nchw(x, w, st, pad)});
  };
  te::ComputeDAG a = build(64, 56, 64, {1, 1}, {1, 1, 1, 1}), b = build(64, 56, 64, {1, 1}, {1, 1, 1, 1});
  EXPECT_EQ(a.exactHash(), b.exactHash());
  EXPECT_EQ(a.workloadKey(), b.workloadKey());
  te::ComputeDAG c = build(128, 28, 256, {1, 1}, {2, 2, 2, 2});
  EXPECT_EQ(a.structuralHash(), c.structuralHash());
  EXPECT_NE(a.exactHash(), c.exactHash());
  EXPECT_EQ(build(64, 56, 64, {2, 2}, {1, 1, 1, 1}).structuralHash(),
            build(32, 17, 8, {3, 3}, {1, 1, 1, 1}).structuralHash());
}

TEST(Conv2d, OutputSizeHelper) {
  EXPECT_EQ(convOutputSize(56, 1, 1, 3, 1, 1), 56);
  EXPECT_EQ(convOutputSize(224, 3, 3, 7, 2, 1), 112);
  EXPECT_EQ(convOutputSize(7, 0, 0, 3, 2, 2), 2);
  EXPECT_LE(convOutputSize(2, 0, 0, 3, 1, 1), 0);
}

TEST(Conv2d, RejectsBadArguments) {
  te::Tensor x = placeholder("data", {1, 3, 5, 5});
  te::Tensor w4 = placeholder("weight", {4, 4, 3, 3});
  EXPECT_OP_ERROR(conv2d_nchw(x, w4), "conv2d_nchw", "input has 3 channels but the weight expects 4 (groups=1)");
  te::Tensor x6 = placeholder("data", {1, 6, 5, 5});
  te::Tensor w2 = placeholder("weight", {4, 2, 3, 3});
  EXPECT_OP_ERROR(conv2d_nchw(x6, w2, {1, 1}, {0, 0, 0, 0}, {1, 1}, 4), "conv2d_nchw", "not divisible by groups=4");
  te::Tensor w5 = placeholder("weight", {5, 2, 3, 3});
  EXPECT_OP_ERROR(conv2d_nchw(x6, w5, {1, 1}, {0, 0, 0, 0}, {1, 1}, 3), "conv2d_nchw", "5 output channels");
  te::Tensor w3 = placeholder("weight", {4, 3, 3, 3});
  EXPECT_OP_ERROR(conv2d_nchw(x, w3, {0, 1}), "conv2d_nchw", "strides must be positive");
  EXPECT_OP_ERROR(conv2d_nchw(x, w3, {1, 1}, {0, -1, 0, 0}), "conv2d_nchw", "padding must be non-negative");
  EXPECT_OP_ERROR(conv2d_nchw(x, w3, {1, 1}, {0, 0, 0, 0}, {0, 1}), "conv2d_nchw", "dilations must be positive");
  EXPECT_OP_ERROR(conv2d_nchw(x, w3, {1, 1}, {0, 0, 0, 0}, {1, 1}, 0), "conv2d_nchw", "groups must be positive");
  EXPECT_OP_ERROR(conv2d_nchw(x, w3, {1, 1}, {0, 0, 0, 0}, {3, 1}), "conv2d_nchw", "kernel height 3 (dilation 3)");
  te::Tensor x3 = placeholder("data", {3, 5, 5});
  EXPECT_OP_ERROR(conv2d_nchw(x3, w3), "conv2d_nchw", "input must have rank 4");
  te::Tensor xi = placeholder("data", {1, 3, 5, 5}, te::DType::Int64);
  EXPECT_OP_ERROR(conv2d_nchw(xi, w3), "conv2d_nchw", "int64");
  te::Tensor xh = placeholder("data", {1, 5, 5, 3});
  te::Tensor wh = placeholder("weight", {3, 3, 2, 4});
  EXPECT_OP_ERROR(conv2d_nhwc(xh, wh), "conv2d_nhwc", "input has 3 channels but the weight expects 2");
  te::Tensor wd = placeholder("weight", {6, 2, 3, 3});
  EXPECT_OP_ERROR(depthwise_conv2d_nchw(x, wd), "depthwise_conv2d_nchw", "one input channel per group");
  te::Tensor wd2 = placeholder("weight", {4, 1, 3, 3});
  EXPECT_OP_ERROR(depthwise_conv2d_nchw(x, wd2), "depthwise_conv2d_nchw", "not a multiple");
}

// ---- dense / matmul / batch_matmul --------------------------------------------------------------

TEST(Dense, MatchesReference) {
  Rng rng(4);
  for (auto [M, N, K] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {3, 5, 7}, {13, 11, 17}, {2, 16, 33}}) {
    SCOPED_TRACE(cat("M", M, " N", N, " K", K));
    te::Tensor x = placeholder("x", {M, K});
    te::Tensor w = placeholder("w", {N, K}, te::DType::Float32, true);
    te::Tensor y = dense(x, w);
    EXPECT_EQ(y.name(), "dense");
    EXPECT_EQ(axisNamesOf(y), (std::vector<std::string>{"i", "j"}));
    EXPECT_EQ(reduceAxisNamesOf(y), (std::vector<std::string>{"k"}));
    Buffer xb = randomBuffer(x.shape(), rng), wb = randomBuffer(w.shape(), rng);
    std::vector<double> want;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += xb.at({i, k}) * wb.at({j, k});
        want.push_back(s);
      }
    EXPECT_TRUE(allClose(run1({x, w}, {xb, wb}, y), {M, N}, want));
  }
}

TEST(Matmul, AllTransposeCombinations) {
  Rng rng(5);
  for (auto [M, N, K] : std::vector<std::array<int64_t, 3>>{{3, 5, 7}, {1, 9, 2}, {11, 1, 13}})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        SCOPED_TRACE(cat("M", M, " N", N, " K", K, " ta", ta, " tb", tb));
        te::Tensor a = placeholder("A", ta ? Shape{K, M} : Shape{M, K});
        te::Tensor b = placeholder("B", tb ? Shape{N, K} : Shape{K, N});
        te::Tensor y = matmul(a, b, ta, tb);
        EXPECT_EQ(y.name(), "matmul");
        Buffer ab = randomBuffer(a.shape(), rng), bb = randomBuffer(b.shape(), rng);
        std::vector<double> want;
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double s = 0;
            for (int64_t k = 0; k < K; ++k)
              s += (ta ? ab.at({k, i}) : ab.at({i, k})) * (tb ? bb.at({j, k}) : bb.at({k, j}));
            want.push_back(s);
          }
        EXPECT_TRUE(allClose(run1({a, b}, {ab, bb}, y), {M, N}, want));
      }
}

struct BmmCase {
  Shape a_batch, b_batch;
  int64_t M, N, K;
  bool ta, tb;
};

TEST(BatchMatmul, BroadcastBatchesAndTransposes) {
  Rng rng(6);
  std::vector<BmmCase> cases = {
      {{1, 3}, {1, 3}, 5, 6, 4, false, false},  // BERT-like [1, heads, M, K] x [1, heads, K, N]
      {{1, 3}, {1, 3}, 5, 5, 4, false, true},   // Q K^T
      {{2, 3}, {3}, 3, 2, 5, true, false},      // batch broadcast across ranks
      {{2, 1}, {1, 3}, 2, 3, 7, true, true},    // both sides stretch
      {{3}, {}, 4, 5, 3, false, false},         // rank-2 right operand
      {{5}, {5}, 1, 1, 1, false, false},
  };
  for (const BmmCase& c : cases) {
    SCOPED_TRACE(cat(te::shapeToString(c.a_batch), " x ", te::shapeToString(c.b_batch), " M", c.M, " N", c.N, " K", c.K,
                     " ta", c.ta, " tb", c.tb));
    Shape as = c.a_batch, bs = c.b_batch;
    as.push_back(c.ta ? c.K : c.M);
    as.push_back(c.ta ? c.M : c.K);
    bs.push_back(c.tb ? c.N : c.K);
    bs.push_back(c.tb ? c.K : c.N);
    te::Tensor a = placeholder("A", as), b = placeholder("B", bs);
    te::Tensor y = batch_matmul(a, b, c.ta, c.tb);
    EXPECT_EQ(y.name(), "batch_matmul");
    // Batch shape by hand: right-aligned, 1 stretches.
    size_t nb = std::max(c.a_batch.size(), c.b_batch.size());
    Shape batch(nb);
    for (size_t d = 0; d < nb; ++d) {
      int64_t x = d + c.a_batch.size() >= nb ? c.a_batch[d + c.a_batch.size() - nb] : 1;
      int64_t z = d + c.b_batch.size() >= nb ? c.b_batch[d + c.b_batch.size() - nb] : 1;
      batch[d] = std::max(x, z);
    }
    std::vector<std::string> names;
    for (size_t d = 0; d < nb; ++d) names.push_back(cat("b", d));
    names.push_back("i");
    names.push_back("j");
    EXPECT_EQ(axisNamesOf(y), names);
    Buffer ab = randomBuffer(as, rng), bb = randomBuffer(bs, rng);
    std::vector<double> want;
    auto pick = [&](const Shape& own, const std::vector<int64_t>& bi) {
      std::vector<int64_t> idx;
      for (size_t d = 0; d < own.size(); ++d) idx.push_back(own[d] == 1 ? 0 : bi[d + nb - own.size()]);
      return idx;
    };
    forEachIndex(batch, [&](const std::vector<int64_t>& bi) {
      for (int64_t i = 0; i < c.M; ++i)
        for (int64_t j = 0; j < c.N; ++j) {
          double s = 0;
          for (int64_t k = 0; k < c.K; ++k) {
            std::vector<int64_t> ai = pick(c.a_batch, bi), bj = pick(c.b_batch, bi);
            ai.push_back(c.ta ? k : i);
            ai.push_back(c.ta ? i : k);
            bj.push_back(c.tb ? j : k);
            bj.push_back(c.tb ? k : j);
            s += ab.at(ai) * bb.at(bj);
          }
          want.push_back(s);
        }
    });
    Shape out = batch;
    out.push_back(c.M);
    out.push_back(c.N);
    EXPECT_TRUE(allClose(run1({a, b}, {ab, bb}, y), out, want));
  }
}

TEST(Dense, RejectsBadArguments) {
  te::Tensor x = placeholder("x", {3, 4});
  EXPECT_OP_ERROR(dense(x, placeholder("w", {5, 6})), "dense", "4 features", "expects 6");
  EXPECT_OP_ERROR(dense(placeholder("x", {3}), placeholder("w", {5, 3})), "dense", "rank 2");
  EXPECT_OP_ERROR(matmul(x, placeholder("b", {5, 6})), "matmul", "inner dimensions differ");
  EXPECT_OP_ERROR(matmul(x, placeholder("b", {5, 4}), true, true), "matmul", "inner dimensions differ");
  EXPECT_OP_ERROR(matmul(placeholder("a", {2, 3, 4}), placeholder("b", {4, 3})), "matmul", "rank 2");
  EXPECT_OP_ERROR(batch_matmul(placeholder("a", {2, 3, 4}), placeholder("b", {3, 4, 5})), "batch_matmul",
                  "batch dimensions", "do not broadcast");
  EXPECT_OP_ERROR(batch_matmul(placeholder("a", {2, 3, 4}), placeholder("b", {2, 5, 5})), "batch_matmul",
                  "inner dimensions differ");
  EXPECT_OP_ERROR(batch_matmul(placeholder("a", {4}), placeholder("b", {2, 4, 5})), "batch_matmul", "rank at least 2");
}

}  // namespace
}  // namespace ttune::ops
