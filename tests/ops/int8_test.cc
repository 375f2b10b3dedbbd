// Integer products (the int8 kernels' anchors): convolutions, dense, matmul and batch matmul of
// 8-bit operands summed in int32, against int64 loops written from the definition, padded taps
// reading the padding value.
#include <gtest/gtest.h>

#include "ops/nn.h"
#include "te/compute_dag.h"
#include "test_util.h"

namespace ttune::ops {
namespace {

using namespace ttune::ops::testing;
using te::placeholder;

double lowOf(DType t) { return t == DType::UInt8 ? 0 : -128; }
double highOf(DType t) { return t == DType::UInt8 ? 255 : 127; }

Buffer randomBytes(const Shape& s, DType t, Rng& rng) {
  Buffer b = Buffer::zeros(s, t);
  for (int64_t i = 0; i < b.size(); ++i)
    b.set(i, static_cast<double>(rng.uniformInt(static_cast<int64_t>(lowOf(t)), static_cast<int64_t>(highOf(t)))));
  return b;
}

struct IntConvCase {
  int64_t N, C, H, W, K, R, S;
  Hw stride;
  Pad4 pad;
  Hw dil;
  int64_t groups;
  int64_t pad_value;
  DType xt, wt;
};

TEST(Int8Products, ConvolutionsSumWidenedProductsExactly) {
  const std::vector<IntConvCase> cases = {
      {1, 8, 7, 7, 16, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, 17, DType::UInt8, DType::Int8},  // zero point 17 padding
      {2, 5, 9, 6, 7, 3, 2, {2, 1}, {0, 1, 2, 1}, {1, 2}, 1, 0, DType::Int8, DType::Int8},     // primes, dilation
      {1, 6, 8, 7, 9, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 3, 255, DType::UInt8, DType::Int8},  // 3 groups, max pad
      {1, 6, 8, 7, 12, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 6, 128, DType::UInt8, DType::UInt8},  // depthwise x2
      {1, 64, 5, 5, 32, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, 0, DType::UInt8, DType::Int8},    // 1x1, long reduction
  };
  Rng rng(53);
  for (bool nhwc : {true, false}) {
    for (const IntConvCase& c : cases) {
      SCOPED_TRACE(::testing::Message() << (nhwc ? "NHWC" : "NCHW") << " C=" << c.C << " K=" << c.K
                                        << " groups=" << c.groups);
      Shape xs = nhwc ? Shape{c.N, c.H, c.W, c.C} : Shape{c.N, c.C, c.H, c.W};
      Shape ws = nhwc ? Shape{c.R, c.S, c.C / c.groups, c.K} : Shape{c.K, c.C / c.groups, c.R, c.S};
      te::Tensor x = placeholder("x", xs, c.xt), w = placeholder("w", ws, c.wt, true);
      te::Tensor y = nhwc ? conv2d_nhwc(x, w, c.stride, c.pad, c.dil, c.groups, c.pad_value)
                          : conv2d_nchw(x, w, c.stride, c.pad, c.dil, c.groups, c.pad_value);
      ASSERT_EQ(y.dtype(), DType::Int32);
      Buffer xb = randomBytes(xs, c.xt, rng), wb = randomBytes(ws, c.wt, rng);
      Buffer got = run1({x, w}, {xb, wb}, y);
      int64_t OH = (c.H + c.pad[0] + c.pad[2] - c.dil[0] * (c.R - 1) - 1) / c.stride[0] + 1;
      int64_t OW = (c.W + c.pad[1] + c.pad[3] - c.dil[1] * (c.S - 1) - 1) / c.stride[1] + 1;
      int64_t Cg = c.C / c.groups, Kg = c.K / c.groups;
      std::vector<double> want;
      Shape out = nhwc ? Shape{c.N, OH, OW, c.K} : Shape{c.N, c.K, OH, OW};
      forEachIndex(out, [&](const std::vector<int64_t>& o) {
        int64_t n = o[0], k = nhwc ? o[3] : o[1], oh = nhwc ? o[1] : o[2], ow = nhwc ? o[2] : o[3];
        int64_t acc = 0;
        for (int64_t rc = 0; rc < Cg; ++rc)
          for (int64_t r = 0; r < c.R; ++r)
            for (int64_t s = 0; s < c.S; ++s) {
              int64_t ih = oh * c.stride[0] - c.pad[0] + r * c.dil[0], iw = ow * c.stride[1] - c.pad[1] + s * c.dil[1];
              int64_t ch = (k / Kg) * Cg + rc;
              bool inside = ih >= 0 && ih < c.H && iw >= 0 && iw < c.W;
              int64_t xv =
                  inside ? static_cast<int64_t>(nhwc ? xb.at({n, ih, iw, ch}) : xb.at({n, ch, ih, iw})) : c.pad_value;
              int64_t wv = static_cast<int64_t>(nhwc ? wb.at({r, s, rc, k}) : wb.at({k, rc, r, s}));
              acc += xv * wv;
            }
        want.push_back(static_cast<double>(acc));
      });
      EXPECT_TRUE(allClose(got, out, want, 0, 0));
    }
  }
}

TEST(Int8Products, DenseMatmulAndBatchMatmulSumExactly) {
  Rng rng(7);
  for (auto [at, bt] :
       {std::pair{DType::UInt8, DType::Int8}, {DType::Int8, DType::Int8}, {DType::UInt8, DType::UInt8}}) {
    const int64_t M = 5, N = 7, K = 36;
    te::Tensor x = placeholder("x", {M, K}, at), w = placeholder("w", {N, K}, bt, true);
    Buffer xb = randomBytes({M, K}, at, rng), wb = randomBytes({N, K}, bt, rng);
    te::Tensor d = dense(x, w), mt = matmul(x, w, false, true);
    std::vector<double> want;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        int64_t acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += static_cast<int64_t>(xb.at({i, k})) * static_cast<int64_t>(wb.at({j, k}));
        want.push_back(static_cast<double>(acc));
      }
    EXPECT_TRUE(allClose(run1({x, w}, {xb, wb}, d), {M, N}, want, 0, 0));
    EXPECT_TRUE(allClose(run1({x, w}, {xb, wb}, mt), {M, N}, want, 0, 0));
    te::Tensor a3 = placeholder("a", {2, M, K}, at), b3 = placeholder("b", {K, N}, bt);
    Buffer ab = randomBytes({2, M, K}, at, rng), bb = randomBytes({K, N}, bt, rng);
    std::vector<double> want3;
    for (int64_t q = 0; q < 2; ++q)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          int64_t acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += static_cast<int64_t>(ab.at({q, i, k})) * static_cast<int64_t>(bb.at({k, j}));
          want3.push_back(static_cast<double>(acc));
        }
    EXPECT_TRUE(allClose(run1({a3, b3}, {ab, bb}, batch_matmul(a3, b3)), {2, M, N}, want3, 0, 0));
  }
}

TEST(Int8Products, PrecisionIsPartOfTheOpAndOperationsCount) {
  te::Tensor x = placeholder("x", {4, 64}, DType::UInt8), w = placeholder("w", {8, 64}, DType::Int8, true);
  te::Tensor y = dense(x, w);
  EXPECT_EQ(te::precisionTag(y.op()), "u8s8");
  te::Tensor xf = placeholder("x", {4, 64}), wf = placeholder("w", {8, 64}, DType::Float32, true);
  EXPECT_EQ(te::precisionTag(dense(xf, wf).op()), "");
  // A multiply and an add per term, as for float32.
  EXPECT_EQ(te::opFlops(y.op()), te::opFlops(dense(xf, wf).op()));
}

TEST(Int8Products, RejectMixedOperandsAndForeignPaddingValues) {
  te::Tensor x8 = placeholder("x", {1, 4, 5, 5}, DType::UInt8), xf = placeholder("x", {1, 4, 5, 5});
  te::Tensor w8 = placeholder("w", {2, 4, 3, 3}, DType::Int8, true),
             wf = placeholder("w", {2, 4, 3, 3}, DType::Float32, true);
  EXPECT_TRUE(throwsError([&] { conv2d_nchw(x8, wf); }, {"conv2d_nchw", "int8 or uint8"}));
  EXPECT_TRUE(throwsError([&] { conv2d_nchw(xf, w8); }, {"conv2d_nchw", "int8 or uint8"}));
  EXPECT_TRUE(throwsError(
      [&] {
        conv2d_nchw(x8, w8, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, 256);
      },
      {"padding value 256", "uint8"}));
  EXPECT_TRUE(throwsError([&] { conv2d_nchw(xf, wf, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, 3); }, {"padding value 3"}));
  te::Tensor d8 = placeholder("d", {3, 4}, DType::Int8), df = placeholder("d", {5, 4}, DType::Float32, true);
  EXPECT_TRUE(throwsError([&] { dense(d8, df); }, {"dense", "int8 or uint8"}));
}

}  // namespace
}  // namespace ttune::ops
