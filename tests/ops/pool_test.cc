// Pooling against loop implementations of the ONNX / PyTorch definitions, plus hand-checked values
// for the ceil-mode and count_include_pad corner cases.
#include "ops/pool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace ttune::ops {
namespace {

using namespace ttune::ops::testing;
using te::placeholder;

// PyTorch's rule: ceil or floor division, then drop a last window that starts in the right padding.
int64_t refOut(int64_t in, int64_t pb, int64_t pa, int64_t k, int64_t s, int64_t d, bool ceil_mode) {
  int64_t num = in + pb + pa - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

struct PoolCase {
  Shape shape;  // NCHW
  Hw kernel, stride;
  Pad4 pad;
  Hw dil;
  bool ceil_mode;
};

std::string caseName(const PoolCase& c) {
  return cat(te::shapeToString(c.shape), " k", listToString(c.kernel), " s", listToString(c.stride), " p",
             listToString(c.pad), " d", listToString(c.dil), c.ceil_mode ? " ceil" : " floor");
}

const std::vector<PoolCase>& poolCases() {
  static const std::vector<PoolCase> cases = {
      {{1, 3, 9, 9}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, false},  // ResNet stem style
      {{2, 2, 11, 7}, {3, 2}, {2, 3}, {0, 1, 1, 0}, {1, 1}, true},  // primes, asymmetric, ceil
      {{1, 2, 7, 7}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, true},   // ceil overhang without padding
      {{1, 2, 7, 7}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, false},
      {{1, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1, 1, 1}, {1, 1}, true},  // last ceil window dropped
      {{1, 2, 6, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, true},  // overhang past the padding
      {{1, 3, 10, 9}, {3, 2}, {3, 2}, {2, 1, 2, 1}, {1, 1}, true},
      {{1, 1, 13, 8}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, false},  // stride 1
  };
  return cases;
}

TEST(MaxPool2d, MatchesReference) {
  Rng rng(10);
  std::vector<PoolCase> cases = poolCases();
  cases.push_back({{1, 2, 11, 10}, {3, 3}, {2, 1}, {1, 1, 1, 1}, {2, 2}, true});  // dilation, ceil
  cases.push_back({{1, 2, 9, 9}, {2, 3}, {1, 2}, {0, 2, 1, 0}, {3, 2}, false});   // dilation, asymmetric
  for (const PoolCase& c : cases) {
    SCOPED_TRACE(caseName(c));
    te::Tensor x = placeholder("x", c.shape);
    te::Tensor y = max_pool2d(x, c.kernel, c.stride, c.pad, c.dil, c.ceil_mode);
    int64_t N = c.shape[0], C = c.shape[1], H = c.shape[2], W = c.shape[3];
    int64_t OH = refOut(H, c.pad[0], c.pad[2], c.kernel[0], c.stride[0], c.dil[0], c.ceil_mode);
    int64_t OW = refOut(W, c.pad[1], c.pad[3], c.kernel[1], c.stride[1], c.dil[1], c.ceil_mode);
    Buffer xb = randomBuffer(c.shape, rng);
    std::vector<double> want;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t ch = 0; ch < C; ++ch)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            double m = -std::numeric_limits<double>::infinity();
            for (int64_t r = 0; r < c.kernel[0]; ++r)
              for (int64_t s = 0; s < c.kernel[1]; ++s) {
                int64_t ih = oh * c.stride[0] - c.pad[0] + r * c.dil[0];
                int64_t iw = ow * c.stride[1] - c.pad[1] + s * c.dil[1];
                if (ih >= 0 && ih < H && iw >= 0 && iw < W) m = std::max(m, xb.at({n, ch, ih, iw}));
              }
            want.push_back(m);
          }
    EXPECT_TRUE(allClose(run1({x}, {xb}, y), {N, C, OH, OW}, want));
    EXPECT_EQ(y.name(), "pool_max");
    EXPECT_EQ(y.op().tag(), te::OpTag::Pool);
    EXPECT_EQ(axisNamesOf(y), (std::vector<std::string>{"nn", "cc", "yy", "xx"}));
    EXPECT_EQ(reduceAxisNamesOf(y), (std::vector<std::string>{"ry", "rx"}));
  }
}

TEST(AvgPool2d, MatchesReference) {
  Rng rng(11);
  for (bool include_pad : {false, true})
    for (const PoolCase& c : poolCases()) {
      SCOPED_TRACE(caseName(c) + (include_pad ? " count_include_pad" : ""));
      te::Tensor x = placeholder("x", c.shape);
      te::Tensor y = avg_pool2d(x, c.kernel, c.stride, c.pad, c.ceil_mode, include_pad);
      int64_t N = c.shape[0], C = c.shape[1], H = c.shape[2], W = c.shape[3];
      int64_t OH = refOut(H, c.pad[0], c.pad[2], c.kernel[0], c.stride[0], 1, c.ceil_mode);
      int64_t OW = refOut(W, c.pad[1], c.pad[3], c.kernel[1], c.stride[1], 1, c.ceil_mode);
      Buffer xb = randomBuffer(c.shape, rng);
      std::vector<double> want;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t ch = 0; ch < C; ++ch)
          for (int64_t oh = 0; oh < OH; ++oh)
            for (int64_t ow = 0; ow < OW; ++ow) {
              // PyTorch: the window is clipped to the explicitly padded extent for the divisor
              // (count_include_pad) and to the input for the sum.
              int64_t hs = oh * c.stride[0] - c.pad[0], ws = ow * c.stride[1] - c.pad[1];
              int64_t he = std::min(hs + c.kernel[0], H + c.pad[2]), we = std::min(ws + c.kernel[1], W + c.pad[3]);
              int64_t padded_count = (he - hs) * (we - ws);
              hs = std::max<int64_t>(hs, 0);
              ws = std::max<int64_t>(ws, 0);
              he = std::min(he, H);
              we = std::min(we, W);
              double s = 0;
              for (int64_t ih = hs; ih < he; ++ih)
                for (int64_t iw = ws; iw < we; ++iw) s += xb.at({n, ch, ih, iw});
              want.push_back(s / static_cast<double>(include_pad ? padded_count : (he - hs) * (we - ws)));
            }
      EXPECT_TRUE(allClose(run1({x}, {xb}, y), {N, C, OH, OW}, want));
      EXPECT_EQ(y.name(), "pool_avg");
    }
}

// Hand-computed values (they match torch.nn.functional.avg_pool2d / ONNX AveragePool).
TEST(AvgPool2d, CeilModeAndCountIncludePadByHand) {
  te::Tensor x = placeholder("x", {1, 1, 6, 1});
  Buffer ones = Buffer::zeros({1, 1, 6, 1});
  for (float& v : ones.f) v = 1.0f;
  // Windows of 3 with stride 2 over [-1, 7): starts -1, 1, 3, 5; the last covers row 5, the
  // bottom pad row 6, and row 7, which is ceil-mode overhang and never counted.
  te::Tensor inc = avg_pool2d(x, {3, 1}, {2, 1}, {1, 0, 1, 0}, true, true);
  EXPECT_TRUE(allClose(run1({x}, {ones}, inc), {1, 1, 4, 1}, {2.0 / 3, 1, 1, 0.5}));
  te::Tensor exc = avg_pool2d(x, {3, 1}, {2, 1}, {1, 0, 1, 0}, true, false);
  EXPECT_TRUE(allClose(run1({x}, {ones}, exc), {1, 1, 4, 1}, {1, 1, 1, 1}));
  // Floor mode drops the last window.
  te::Tensor flo = avg_pool2d(x, {3, 1}, {2, 1}, {1, 0, 1, 0}, false, true);
  EXPECT_TRUE(allClose(run1({x}, {ones}, flo), {1, 1, 3, 1}, {2.0 / 3, 1, 1}));

  // 5x5 ones, kernel 3, stride 2, pad 1, ceil mode, count_include_pad: corners 4/9, edges 6/9.
  te::Tensor x5 = placeholder("x", {1, 1, 5, 5});
  Buffer ones5 = Buffer::zeros({1, 1, 5, 5});
  for (float& v : ones5.f) v = 1.0f;
  te::Tensor y5 = avg_pool2d(x5, {3, 3}, {2, 2}, {1, 1, 1, 1}, true, true);
  double c = 4.0 / 9, e = 6.0 / 9;
  EXPECT_TRUE(allClose(run1({x5}, {ones5}, y5), {1, 1, 3, 3}, {c, e, c, e, 1, e, c, e, c}));
}

TEST(MaxPool2d, CeilModeDropsWindowStartingInPadding) {
  // H = 5, kernel 2, stride 2, pad 1: ceil((5 + 2 - 2) / 2) + 1 = 4 windows, but the fourth would
  // start at row 5, inside the bottom padding, so there are 3.
  te::Tensor x = placeholder("x", {1, 1, 5, 1});
  te::Tensor y = max_pool2d(x, {2, 1}, {2, 1}, {1, 0, 1, 0}, {1, 1}, true);
  EXPECT_EQ(y.shape(), (Shape{1, 1, 3, 1}));
  Buffer xb = Buffer::zeros({1, 1, 5, 1});
  xb.f = {-5, -4, -3, -2, -1};
  // Windows [-1, 0], [1, 2], [3, 4]: padding is -inf so a negative input still wins.
  EXPECT_TRUE(allClose(run1({x}, {xb}, y), {1, 1, 3, 1}, {-5, -3, -1}));
  EXPECT_EQ(poolOutputSize(5, 1, 1, 2, 2, 1, true), 3);
  EXPECT_EQ(poolOutputSize(112, 1, 1, 3, 2, 1, false), 56);
  EXPECT_EQ(poolOutputSize(7, 0, 0, 2, 2, 1, true), 4);
  EXPECT_EQ(poolOutputSize(7, 0, 0, 2, 2, 1, false), 3);
}

TEST(Pool2d, PadOpStructure) {
  te::Tensor x = placeholder("x", {1, 2, 7, 7});
  // Ceil-mode overhang alone needs a pad op; an exact fit does not.
  EXPECT_EQ(opNames({x}, {max_pool2d(x, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, true)}),
            (std::vector<std::string>{"x", "pad", "pool_max"}));
  EXPECT_EQ(opNames({x}, {max_pool2d(x, {3, 3}, {2, 2})}), (std::vector<std::string>{"x", "pool_max"}));
  EXPECT_EQ(opNames({x}, {avg_pool2d(x, {3, 3}, {2, 2}, {1, 1, 1, 1})}),
            (std::vector<std::string>{"x", "pad", "pool_sum", "pool_avg"}));
}

TEST(GlobalPool2d, MatchesReference) {
  Rng rng(12);
  for (const Shape& s : std::vector<Shape>{{1, 3, 7, 7}, {2, 5, 1, 3}, {1, 1, 11, 2}}) {
    SCOPED_TRACE(te::shapeToString(s));
    te::Tensor x = placeholder("x", s);
    te::Tensor avg = global_avg_pool2d(x), mx = global_max_pool2d(x);
    Buffer xb = randomBuffer(s, rng);
    std::vector<double> want_avg, want_max;
    for (int64_t n = 0; n < s[0]; ++n)
      for (int64_t c = 0; c < s[1]; ++c) {
        double sum = 0, m = -1e30;
        for (int64_t h = 0; h < s[2]; ++h)
          for (int64_t w = 0; w < s[3]; ++w) {
            sum += xb.at({n, c, h, w});
            m = std::max(m, xb.at({n, c, h, w}));
          }
        want_avg.push_back(sum / static_cast<double>(s[2] * s[3]));
        want_max.push_back(m);
      }
    std::vector<Buffer> out = run({x}, {xb}, {avg, mx});
    EXPECT_TRUE(allClose(out[0], {s[0], s[1], 1, 1}, want_avg));
    EXPECT_TRUE(allClose(out[1], {s[0], s[1], 1, 1}, want_max));
    EXPECT_EQ(avg.name(), "global_pool_avg");
  }
}

// NCHW [n, c, h, w] -> NHWC [n, h, w, c].
Buffer toNhwc(const Buffer& x) {
  const Shape& s = x.shape;
  Buffer r = Buffer::zeros({s[0], s[2], s[3], s[1]});
  int64_t flat = 0;
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t h = 0; h < s[2]; ++h)
      for (int64_t w = 0; w < s[3]; ++w)
        for (int64_t c = 0; c < s[1]; ++c) r.set(flat++, x.at({n, c, h, w}));
  return r;
}

// Every pooling op in NHWC computes the NCHW result, transposed (the NCHW ops are checked
// against loop references above).
TEST(Pool2d, NhwcMatchesNchw) {
  Rng rng(13);
  for (const PoolCase& c : poolCases()) {
    SCOPED_TRACE(caseName(c));
    const Shape& s = c.shape;
    te::Tensor x = placeholder("x", s);
    te::Tensor xt = placeholder("xt", {s[0], s[2], s[3], s[1]});
    Buffer xb = randomBuffer(s, rng);
    std::vector<Buffer> want =
        run({x}, {xb},
            {max_pool2d(x, c.kernel, c.stride, c.pad, c.dil, c.ceil_mode),
             avg_pool2d(x, c.kernel, c.stride, c.pad, c.ceil_mode, true),
             avg_pool2d(x, c.kernel, c.stride, c.pad, c.ceil_mode, false), global_avg_pool2d(x), global_max_pool2d(x)});
    std::vector<Buffer> got = run({xt}, {toNhwc(xb)},
                                  {max_pool2d(xt, c.kernel, c.stride, c.pad, c.dil, c.ceil_mode, true),
                                   avg_pool2d(xt, c.kernel, c.stride, c.pad, c.ceil_mode, true, true),
                                   avg_pool2d(xt, c.kernel, c.stride, c.pad, c.ceil_mode, false, true),
                                   global_avg_pool2d(xt, true), global_max_pool2d(xt, true)});
    ASSERT_EQ(want.size(), got.size());
    for (size_t k = 0; k < want.size(); ++k) {
      Buffer expected = toNhwc(want[k]);
      EXPECT_TRUE(allClose(got[k], expected.shape, std::vector<double>(expected.f.begin(), expected.f.end())))
          << "output " << k;
    }
  }
}

TEST(Pool2d, RejectsBadArguments) {
  te::Tensor x = placeholder("x", {1, 2, 5, 5});
  EXPECT_OP_ERROR(max_pool2d(x, {3, 3}, {1, 1}, {3, 0, 0, 0}), "max_pool2d", "padding", "smaller than the kernel");
  EXPECT_OP_ERROR(avg_pool2d(x, {2, 2}, {1, 1}, {0, 0, 0, 2}), "avg_pool2d", "width padding");
  EXPECT_OP_ERROR(max_pool2d(x, {6, 1}), "max_pool2d", "kernel height 6");
  EXPECT_OP_ERROR(max_pool2d(x, {3, 3}, {1, 1}, {0, 0, 0, 0}, {3, 1}), "max_pool2d", "spans 7");
  EXPECT_OP_ERROR(avg_pool2d(x, {2, 2}, {0, 1}), "avg_pool2d", "strides must be positive");
  EXPECT_OP_ERROR(avg_pool2d(x, {0, 2}), "avg_pool2d", "kernel must be positive");
  EXPECT_OP_ERROR(max_pool2d(x, {2, 2}, {1, 1}, {-1, 0, 0, 0}), "max_pool2d", "non-negative");
  EXPECT_OP_ERROR(max_pool2d(placeholder("y", {2, 5, 5}), {2, 2}), "max_pool2d", "rank 4");
  EXPECT_OP_ERROR(global_avg_pool2d(placeholder("y", {2, 5})), "global_avg_pool2d", "rank 4");
}

}  // namespace
}  // namespace ttune::ops
