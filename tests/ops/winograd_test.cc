// Winograd F(2x2,3x3) and F(4x4,3x3): input transform, batched matrix product with the
// transformed filter, output transform equal a direct 3x3 convolution (NHWC, stride 1), with
// padding, odd sizes that leave partial tiles, and several images.
#include <gtest/gtest.h>

#include "ops/nn.h"
#include "ops/winograd.h"
#include "test_util.h"

namespace ttune::ops {
namespace {

using testing::Buffer;

struct Case {
  int64_t n, h, w, c, k, m;
  Pad4 pad;
};

TEST(Winograd, EqualsTheDirectConvolution) {
  const Case cases[] = {
      {1, 8, 8, 4, 5, 2, {1, 1, 1, 1}},  {1, 7, 9, 3, 6, 2, {1, 1, 1, 1}}, {2, 10, 10, 8, 4, 4, {1, 1, 1, 1}},
      {1, 7, 7, 16, 8, 4, {1, 1, 1, 1}}, {1, 9, 6, 5, 3, 4, {0, 0, 0, 0}}, {1, 14, 11, 4, 4, 4, {1, 0, 2, 1}},
  };
  for (const Case& cs : cases) {
    Rng rng(cs.h * 31 + cs.w + cs.m);
    te::Tensor x = te::placeholder("x", {cs.n, cs.h, cs.w, cs.c});
    te::Tensor w = te::placeholder("w", {3, 3, cs.c, cs.k}, te::DType::Float32, true);
    Buffer xb = testing::randomBuffer(x.shape(), rng), wb = testing::randomBuffer(w.shape(), rng);
    Buffer direct = testing::run1({x, w}, {xb, wb}, conv2d_nhwc(x, w, {1, 1}, cs.pad));

    int64_t a = cs.m + 2, OH = direct.shape[1], OW = direct.shape[2];
    te::Tensor u = te::placeholder("u", {a, a, cs.c, cs.k}, te::DType::Float32, true);
    Buffer ub = Buffer::zeros(u.shape());
    ub.f = winogradWeights(wb.f, cs.c, cs.k, cs.m);
    te::Tensor tiles = winograd_input(x, cs.m, cs.pad);
    te::Tensor y = winograd_output(batch_matmul(tiles, u), cs.m, cs.n, OH, OW);
    Buffer got = testing::run1({x, u}, {xb, ub}, y);
    std::vector<double> want(direct.f.begin(), direct.f.end());
    // F(4,3) has larger rounding than the direct sum (its transforms scale by up to 8 and 1/24).
    EXPECT_TRUE(testing::allClose(got, direct.shape, want, 1e-4, cs.m == 4 ? 2e-4 : 2e-5))
        << "n" << cs.n << " " << cs.h << "x" << cs.w << " c" << cs.c << " k" << cs.k << " m" << cs.m;
  }
}

TEST(Winograd, RejectsWhatItCannotCompute) {
  te::Tensor x = te::placeholder("x", {1, 8, 8, 4});
  EXPECT_TRUE(testing::throwsError([&] { winograd_input(x, 3, {1, 1, 1, 1}); }, {"winograd_input", "tiles of 3"}));
  te::Tensor t = te::placeholder("t", {6, 6, 5, 4});
  EXPECT_TRUE(testing::throwsError([&] { winograd_output(t, 4, 1, 8, 8); }, {"winograd_output", "do not match"}));
  EXPECT_TRUE(testing::throwsError([&] { winogradWeights(std::vector<float>(10), 2, 2, 4); }, {"winograd", "values"}));
}

}  // namespace
}  // namespace ttune::ops
