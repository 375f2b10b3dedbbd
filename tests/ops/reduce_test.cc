// Reductions, softmax, layer norm and batch norm against loop references.
#include "ops/reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace ttune::ops {
namespace {

using namespace ttune::ops::testing;
using te::placeholder;

// Splits x's shape into (outer, axis extent, inner) around `axis`; element (o, a, i) is at
// (o * n + a) * inner + i.
struct Around {
  int64_t outer = 1, n = 1, inner = 1;
};
Around around(const Shape& s, size_t axis) {
  Around r;
  for (size_t d = 0; d < s.size(); ++d) (d < axis ? r.outer : d == axis ? r.n : r.inner) *= s[d];
  return r;
}

TEST(Softmax, MatchesReferenceOnEveryAxis) {
  Rng rng(30);
  struct Case {
    Shape shape;
    int64_t axis;
  };
  for (const Case& c :
       std::vector<Case>{{{5}, 0}, {{3, 7}, 1}, {{3, 7}, 0}, {{2, 3, 4}, 1}, {{2, 3, 4}, -1}, {{2, 1, 5}, -2}}) {
    SCOPED_TRACE(te::shapeToString(c.shape) + cat(" axis ", c.axis));
    te::Tensor x = placeholder("x", c.shape);
    te::Tensor y = softmax(x, c.axis);
    Buffer xb = randomBuffer(c.shape, rng, -5, 5);
    size_t ax = static_cast<size_t>(c.axis < 0 ? c.axis + static_cast<int64_t>(c.shape.size()) : c.axis);
    Around g = around(c.shape, ax);
    std::vector<double> want(static_cast<size_t>(xb.size()));
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t i = 0; i < g.inner; ++i) {
        double m = -1e30, s = 0;
        for (int64_t a = 0; a < g.n; ++a) m = std::max(m, xb.get((o * g.n + a) * g.inner + i));
        for (int64_t a = 0; a < g.n; ++a) s += std::exp(xb.get((o * g.n + a) * g.inner + i) - m);
        for (int64_t a = 0; a < g.n; ++a)
          want[static_cast<size_t>((o * g.n + a) * g.inner + i)] =
              std::exp(xb.get((o * g.n + a) * g.inner + i) - m) / s;
      }
    EXPECT_TRUE(allClose(run1({x}, {xb}, y), c.shape, want));
    EXPECT_EQ(opNames({x}, {y}),
              (std::vector<std::string>{"x", "softmax_maxelem", "softmax_exp", "softmax_expsum", "softmax_norm"}));
  }
}

TEST(Softmax, LargeInputsDoNotOverflow) {
  te::Tensor x = placeholder("x", {1, 3});
  Buffer xb = Buffer::zeros({1, 3});
  xb.f = {1000, 1000, 999};
  double e = std::exp(-1.0);
  EXPECT_TRUE(allClose(run1({x}, {xb}, softmax(x)), {1, 3}, {1 / (2 + e), 1 / (2 + e), e / (2 + e)}));
}

TEST(LayerNorm, MatchesReference) {
  Rng rng(31);
  struct Case {
    Shape shape;
    int64_t axis;
    bool gamma, beta;
  };
  for (const Case& c : std::vector<Case>{{{4, 10}, -1, true, true},
                                         {{2, 3, 5}, 1, true, true},
                                         {{3, 7}, 0, true, false},
                                         {{2, 5, 3}, 2, false, true},
                                         {{1, 6, 13}, -1, false, false}}) {
    SCOPED_TRACE(te::shapeToString(c.shape) + cat(" axis ", c.axis));
    size_t ax = static_cast<size_t>(c.axis < 0 ? c.axis + static_cast<int64_t>(c.shape.size()) : c.axis);
    Shape inner(c.shape.begin() + static_cast<std::ptrdiff_t>(ax), c.shape.end());
    te::Tensor x = placeholder("x", c.shape);
    te::Tensor g = c.gamma ? placeholder("gamma", inner, te::DType::Float32, true) : te::Tensor();
    te::Tensor b = c.beta ? placeholder("beta", inner, te::DType::Float32, true) : te::Tensor();
    const double eps = 1e-3;
    te::Tensor y = layer_norm(x, g, b, c.axis, eps);
    EXPECT_EQ(y.name(), "layer_norm");
    std::vector<te::Tensor> ins = {x};
    std::vector<Buffer> data = {randomBuffer(c.shape, rng, -3, 3)};
    Buffer gb = randomBuffer(inner, rng, 0.5, 1.5), bb = randomBuffer(inner, rng);
    if (c.gamma) ins.push_back(g), data.push_back(gb);
    if (c.beta) ins.push_back(b), data.push_back(bb);
    const Buffer& xb = data[0];
    int64_t n = te::shapeElements(inner), outer = xb.size() / n;
    std::vector<double> want;
    for (int64_t o = 0; o < outer; ++o) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < n; ++i) mean += xb.get(o * n + i);
      mean /= static_cast<double>(n);
      for (int64_t i = 0; i < n; ++i) var += (xb.get(o * n + i) - mean) * (xb.get(o * n + i) - mean);
      var /= static_cast<double>(n);
      for (int64_t i = 0; i < n; ++i) {
        double v = (xb.get(o * n + i) - mean) / std::sqrt(var + eps);
        if (c.gamma) v *= gb.get(i);
        if (c.beta) v += bb.get(i);
        want.push_back(v);
      }
    }
    EXPECT_TRUE(allClose(run1(ins, data, y), c.shape, want));
  }
}

struct ReduceCase {
  Shape shape;
  std::vector<int64_t> axes;
  bool keepdims;
};

TEST(Reduce, SumMeanMaxMinMatchReference) {
  Rng rng(32);
  std::vector<ReduceCase> cases = {
      {{2, 3, 4, 5}, {}, true},       {{2, 3, 4, 5}, {}, false},    {{2, 3, 4, 5}, {1}, true},
      {{2, 3, 4, 5}, {-1, 0}, false}, {{2, 3, 4, 5}, {1, 3}, true}, {{7}, {0}, false},
      {{3, 1, 5}, {2}, false},        {{5, 3}, {-2}, true},
  };
  for (const ReduceCase& c : cases) {
    SCOPED_TRACE(te::shapeToString(c.shape) + " axes " + listToString(c.axes) + (c.keepdims ? " keep" : ""));
    std::vector<bool> red(c.shape.size(), c.axes.empty());
    for (int64_t a : c.axes) red[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(c.shape.size()) : a)] = true;
    Shape out;
    for (size_t d = 0; d < c.shape.size(); ++d)
      if (!red[d] || c.keepdims) out.push_back(red[d] ? 1 : c.shape[d]);
    te::Tensor x = placeholder("x", c.shape);
    std::vector<te::Tensor> ys = {reduce_sum(x, c.axes, c.keepdims), reduce_mean(x, c.axes, c.keepdims),
                                  reduce_max(x, c.axes, c.keepdims), reduce_min(x, c.axes, c.keepdims)};
    Buffer xb = randomBuffer(c.shape, rng);
    int64_t n_out = te::shapeElements(out);
    std::vector<double> sum(n_out, 0), mx(n_out, -1e30), mn(n_out, 1e30), cnt(n_out, 0);
    forEachIndex(c.shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> o;
      for (size_t d = 0; d < i.size(); ++d)
        if (!red[d] || c.keepdims) o.push_back(red[d] ? 0 : i[d]);
      int64_t k = offsetOf(out, o);
      double v = xb.at(i);
      sum[k] += v;
      cnt[k] += 1;
      mx[k] = std::max(mx[k], v);
      mn[k] = std::min(mn[k], v);
    });
    std::vector<double> mean(n_out);
    for (int64_t k = 0; k < n_out; ++k) mean[k] = sum[k] / cnt[k];
    std::vector<Buffer> got = run({x}, {xb}, ys);
    EXPECT_TRUE(allClose(got[0], out, sum));
    EXPECT_TRUE(allClose(got[1], out, mean));
    EXPECT_TRUE(allClose(got[2], out, mx));
    EXPECT_TRUE(allClose(got[3], out, mn));
  }
}

TEST(Reduce, OpStructure) {
  te::Tensor x = placeholder("x", {2, 3, 4});
  te::Tensor s = reduce_sum(x, {0, 2}, false);
  EXPECT_EQ(s.name(), "reduce_sum");
  EXPECT_EQ(s.op().tag(), te::OpTag::Reduction);
  EXPECT_EQ(s.shape(), (Shape{3}));
  EXPECT_EQ(reduceAxisNamesOf(s), (std::vector<std::string>{"r0", "r1"}));
  te::Tensor m = reduce_mean(x, {1});
  EXPECT_EQ(m.shape(), (Shape{2, 1, 4}));
  EXPECT_EQ(opNames({x}, {m}), (std::vector<std::string>{"x", "reduce_sum", "reduce_mean"}));
  te::Tensor all = reduce_max(x, {}, false);
  EXPECT_EQ(all.shape(), Shape{});
}

TEST(BatchNorm, MatchesReference) {
  Rng rng(33);
  for (const Shape& s : std::vector<Shape>{{2, 3, 4, 5}, {1, 5, 3, 3}, {3, 2}, {1, 7, 1, 2, 2}}) {
    SCOPED_TRACE(te::shapeToString(s));
    Shape c = {s[1]};
    te::Tensor x = placeholder("x", s);
    te::Tensor g = placeholder("gamma", c, te::DType::Float32, true),
               b = placeholder("beta", c, te::DType::Float32, true);
    te::Tensor m = placeholder("mean", c, te::DType::Float32, true),
               v = placeholder("var", c, te::DType::Float32, true);
    te::Tensor y = batch_norm_inference(x, g, b, m, v, 1e-5);
    EXPECT_EQ(y.name(), "batch_norm");
    Buffer xb = randomBuffer(s, rng, -2, 2), gb = randomBuffer(c, rng), bb = randomBuffer(c, rng);
    Buffer mb = randomBuffer(c, rng), vb = randomBuffer(c, rng, 0.1, 2);
    std::vector<double> want;
    forEachIndex(s, [&](const std::vector<int64_t>& i) {
      int64_t ch = i[1];
      want.push_back((xb.at(i) - mb.get(ch)) / std::sqrt(vb.get(ch) + 1e-5) * gb.get(ch) + bb.get(ch));
    });
    EXPECT_TRUE(allClose(run1({x, g, b, m, v}, {xb, gb, bb, mb, vb}, y), s, want));
  }
}

TEST(Reductions, RejectBadArguments) {
  te::Tensor x = placeholder("x", {2, 3, 4});
  EXPECT_OP_ERROR(softmax(x, 3), "softmax: axis 3 is out of range for a tensor of rank 3");
  EXPECT_OP_ERROR(softmax(x, -4), "softmax", "out of range");
  EXPECT_OP_ERROR(reduce_sum(x, {1, -2}), "reduce_sum", "axis 1 is listed twice");
  EXPECT_OP_ERROR(reduce_mean(x, {5}), "reduce_mean", "axis 5 is out of range");
  EXPECT_OP_ERROR(reduce_max(placeholder("s", {}), {}), "reduce_max", "rank-0");
  // Sum, max, min and product take integers (exactly, in their type); the mean does not.
  EXPECT_OP_ERROR(reduce_mean(placeholder("i", {3}, te::DType::Int32), {0}), "reduce_mean", "int32");
  EXPECT_EQ(reduce_min(placeholder("i", {3}, te::DType::Int32), {0}).dtype(), te::DType::Int32);
  te::Tensor g = placeholder("gamma", {3, 4});
  EXPECT_OP_ERROR(layer_norm(x, g, te::Tensor(), -1), "layer_norm", "gamma has shape [3, 4]",
                  "normalized dimensions are [4]");
  EXPECT_OP_ERROR(layer_norm(x, te::Tensor(), placeholder("beta", {4}), 1), "layer_norm", "beta");
  EXPECT_OP_ERROR(layer_norm(x, te::Tensor(), te::Tensor(), 0, -1.0), "layer_norm", "epsilon");
  te::Tensor c3 = placeholder("p", {3}), c4 = placeholder("q", {4});
  EXPECT_OP_ERROR(batch_norm_inference(x, c3, c3, c4, c3), "batch_norm_inference", "mean has shape [4]", "3 channels");
  EXPECT_OP_ERROR(batch_norm_inference(placeholder("v", {3}), c3, c3, c3, c3), "batch_norm_inference",
                  "rank at least 2");
}

}  // namespace
}  // namespace ttune::ops
