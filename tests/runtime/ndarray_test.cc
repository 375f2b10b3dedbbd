// runtime::compare, the verdict behind every output check in the suite (a compare that accepted
// everything would make those tests unable to fail): tolerances, non-finite values on either
// side; and NDArray's seeded fills, which every test input comes from.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "runtime/ndarray.h"

namespace ttune::runtime {
namespace {

NDArray floats(const std::vector<float>& v) {
  NDArray a({static_cast<int64_t>(v.size())}, te::DType::Float32);
  for (size_t i = 0; i < v.size(); ++i) a.as<float>()[i] = v[i];
  return a;
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(Compare, ToleranceIsAbsolutePlusRelativeToTheExpectedValue) {
  EXPECT_TRUE(compare(floats({1.0f, 100.0f}), floats({1.0f, 100.0f})).ok());
  Comparison near = compare(floats({1.00005f, 100.005f}), floats({1.0f, 100.0f}));
  EXPECT_TRUE(near.ok());  // 0.005 is within 1e-4 + 1e-4 * 100
  Comparison far = compare(floats({1.0f, 100.02f}), floats({1.0f, 100.0f}));
  EXPECT_FALSE(far.ok());
  EXPECT_EQ(far.mismatches, 1);
  EXPECT_NEAR(far.max_abs_err, 0.02, 1e-5);
  EXPECT_NEAR(far.max_rel_err, 2e-4, 1e-7);
  EXPECT_TRUE(compare(floats({1.0f, 100.02f}), floats({1.0f, 100.0f}), 0.05, 0).ok());  // a looser atol
  EXPECT_EQ(compare(floats({0.5f, -3.0f, 7.0f}), floats({0.0f, 3.0f, 7.0f})).mismatches, 2);
}

TEST(Compare, NonFiniteValuesMatchOnlyTheSameNonFiniteValue) {
  Comparison nan_for_finite = compare(floats({kNaN, kInf}), floats({1.0f, 2.0f}));
  EXPECT_EQ(nan_for_finite.non_finite, 2);
  EXPECT_EQ(nan_for_finite.mismatches, 0);
  EXPECT_FALSE(nan_for_finite.ok());
  EXPECT_TRUE(compare(floats({kInf, -kInf, kNaN}), floats({kInf, -kInf, kNaN})).ok());
  EXPECT_EQ(compare(floats({-kInf, 1.0f, kNaN}), floats({kInf, kNaN, -kInf})).mismatches, 3);
}

TEST(Compare, IntegersCompareByValue) {
  NDArray a({3}, te::DType::Int64), b({3}, te::DType::Int64);
  a.as<int64_t>()[0] = b.as<int64_t>()[0] = std::numeric_limits<int64_t>::max();
  a.as<int64_t>()[1] = b.as<int64_t>()[1] = -7;
  a.as<int64_t>()[2] = 3;
  b.as<int64_t>()[2] = 4;
  Comparison c = compare(a, b, 0.5, 0);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_DOUBLE_EQ(c.max_abs_err, 1.0);
}

TEST(NDArray, SeededFillsAreReproducibleAndStayInTheirRange) {
  NDArray f1({256}, te::DType::Float32), f2({256}, te::DType::Float32), f3({256}, te::DType::Float32);
  f1.fillRandom(5, -2.0, 3.0);
  f2.fillRandom(5, -2.0, 3.0);
  f3.fillRandom(6, -2.0, 3.0);
  EXPECT_EQ(compare(f1, f2, 0, 0).mismatches, 0);
  EXPECT_GT(compare(f1, f3, 0, 0).mismatches, 200);
  for (int i = 0; i < 256; ++i) {
    ASSERT_GE(f1.as<float>()[i], -2.0f);
    ASSERT_LT(f1.as<float>()[i], 3.0f);
  }
  NDArray i32({512}, te::DType::Int32);
  i32.fillRandom(1, -3, 3);  // integers in [lo, hi)
  std::set<int32_t> seen(i32.as<int32_t>(), i32.as<int32_t>() + 512);
  EXPECT_EQ(seen, (std::set<int32_t>{-3, -2, -1, 0, 1, 2}));
  NDArray i8({512}, te::DType::Int8);
  i8.fillRandom(1, -1000, 1000);  // clamped to the type
  std::set<int8_t> bytes(i8.as<int8_t>(), i8.as<int8_t>() + 512);
  EXPECT_GT(bytes.size(), 200u);
  NDArray z({4}, te::DType::Float64);
  z.fill(2.5);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(z.as<double>()[i], 2.5);
}

}  // namespace
}  // namespace ttune::runtime
