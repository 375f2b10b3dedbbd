// Unary activations and broadcasting binary operators against scalar reference formulas.
#include "ops/elementwise.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace ttune::ops {
namespace {

using namespace ttune::ops::testing;
using te::placeholder;

struct UnaryCase {
  std::string name;
  std::function<te::Tensor(const te::Tensor&)> build;
  std::function<double(double)> ref;
  double lo = -4, hi = 4;
};

std::vector<UnaryCase> unaryCases() {
  auto clipd = [](double x, double lo, double hi) { return std::min(std::max(x, lo), hi); };
  return {
      {"relu", [](const te::Tensor& x) { return relu(x); }, [](double x) { return x > 0 ? x : 0; }},
      {"leaky_relu", [](const te::Tensor& x) { return leaky_relu(x, 0.1); },
       [](double x) { return x >= 0 ? x : 0.1 * x; }},
      {"clip", [](const te::Tensor& x) { return clip(x, -1.5, 2.0); }, [=](double x) { return clipd(x, -1.5, 2.0); }},
      {"clip", [](const te::Tensor& x) { return relu6(x); }, [=](double x) { return clipd(x, 0, 6); }, -3, 9},
      {"sigmoid", [](const te::Tensor& x) { return sigmoid(x); }, [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"tanh", [](const te::Tensor& x) { return tanh(x); }, [](double x) { return std::tanh(x); }},
      {"exp", [](const te::Tensor& x) { return exp(x); }, [](double x) { return std::exp(x); }},
      {"log", [](const te::Tensor& x) { return log(x); }, [](double x) { return std::log(x); }, 0.1, 5},
      {"sqrt", [](const te::Tensor& x) { return sqrt(x); }, [](double x) { return std::sqrt(x); }, 0, 5},
      {"erf", [](const te::Tensor& x) { return erf(x); }, [](double x) { return std::erf(x); }},
      {"gelu", [](const te::Tensor& x) { return gelu(x); },
       [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"silu", [](const te::Tensor& x) { return silu(x); }, [](double x) { return x / (1 + std::exp(-x)); }},
      {"hardswish", [](const te::Tensor& x) { return hardswish(x); },
       [=](double x) { return x * clipd(x + 3, 0, 6) / 6; }, -5, 5},
      {"hardsigmoid", [](const te::Tensor& x) { return hardsigmoid(x); },
       [=](double x) { return clipd(0.2 * x + 0.5, 0, 1); }},
      {"hardsigmoid", [](const te::Tensor& x) { return hardsigmoid(x, 1.0 / 6, 0.5); },
       [=](double x) { return clipd(x / 6 + 0.5, 0, 1); }},
      {"neg", [](const te::Tensor& x) { return neg(x); }, [](double x) { return -x; }},
      {"abs", [](const te::Tensor& x) { return abs(x); }, [](double x) { return std::fabs(x); }},
      {"scale_shift", [](const te::Tensor& x) { return scale_shift(x, -2.5, 0.75); },
       [](double x) { return x * -2.5 + 0.75; }},
  };
}

TEST(Unary, MatchesReference) {
  Rng rng(20);
  for (const UnaryCase& c : unaryCases())
    for (const Shape& s : std::vector<Shape>{{11}, {2, 3, 5}, {1, 3, 7, 5}}) {
      SCOPED_TRACE(c.name + " " + te::shapeToString(s));
      te::Tensor x = placeholder("x", s);
      te::Tensor y = c.build(x);
      EXPECT_EQ(y.name(), "T_" + c.name);
      EXPECT_EQ(y.op().tag(), te::OpTag::Elementwise);
      Buffer xb = randomBuffer(s, rng, c.lo, c.hi);
      std::vector<double> want;
      for (int64_t i = 0; i < xb.size(); ++i) want.push_back(c.ref(xb.get(i)));
      EXPECT_TRUE(allClose(run1({x}, {xb}, y), s, want));
    }
}

TEST(Unary, ExactValuesAtBoundaries) {
  te::Tensor x = placeholder("x", {7});
  Buffer xb = Buffer::zeros({7});
  xb.f = {-3, -1, 0, 1, 3, 6, 7};
  EXPECT_TRUE(allClose(run1({x}, {xb}, relu6(x)), {7}, {0, 0, 0, 1, 3, 6, 6}, 0, 0));
  EXPECT_TRUE(allClose(run1({x}, {xb}, hardswish(x)), {7}, {0, -1.0 / 3, 0, 2.0 / 3, 3, 6, 7}, 1e-6, 1e-7));
  EXPECT_TRUE(allClose(run1({x}, {xb}, relu(x)), {7}, {0, 0, 0, 1, 3, 6, 7}, 0, 0));
  // ONNX Clip with min > max yields max everywhere.
  EXPECT_TRUE(allClose(run1({x}, {xb}, clip(x, 2, 1)), {7}, {1, 1, 1, 1, 1, 1, 1}, 0, 0));
}

struct BinaryCase {
  std::string name;
  te::Tensor (*build)(const te::Tensor&, const te::Tensor&);
  std::function<double(double, double)> ref;
  double lo = -2, hi = 2;
};

// Reference broadcasting written out directly: align on the right, extent 1 reads index 0.
std::vector<int64_t> sourceIndex(const Shape& own, const std::vector<int64_t>& out) {
  std::vector<int64_t> idx;
  size_t off = out.size() - own.size();
  for (size_t d = 0; d < own.size(); ++d) idx.push_back(own[d] == 1 ? 0 : out[d + off]);
  return idx;
}

TEST(Binary, BroadcastingMatchesReference) {
  Rng rng(21);
  std::vector<BinaryCase> cases = {
      {"add", add, [](double a, double b) { return a + b; }},
      {"sub", sub, [](double a, double b) { return a - b; }},
      {"mul", mul, [](double a, double b) { return a * b; }},
      {"div", div, [](double a, double b) { return a / b; }, 0.5, 3},
      {"maximum", maximum, [](double a, double b) { return std::max(a, b); }},
      {"minimum", minimum, [](double a, double b) { return std::min(a, b); }},
      {"pow", pow, [](double a, double b) { return std::pow(a, b); }, 0.3, 2.5},
      {"greater", greater, [](double a, double b) { return a > b ? 1.0 : 0.0; }},
      {"less", less, [](double a, double b) { return a < b ? 1.0 : 0.0; }},
      {"equal", equal, [](double a, double b) { return a == b ? 1.0 : 0.0; }, -1, 1},
  };
  struct Shapes {
    Shape a, b, out;
  };
  std::vector<Shapes> shapes = {
      {{2, 3, 5}, {2, 3, 5}, {2, 3, 5}}, {{2, 3, 5}, {5}, {2, 3, 5}}, {{2, 1, 5}, {3, 1}, {2, 3, 5}},
      {{1}, {4, 1, 3}, {4, 1, 3}},       {{}, {3, 2}, {3, 2}},        {{7, 1, 1}, {1, 1, 1}, {7, 1, 1}},
  };
  for (const BinaryCase& c : cases)
    for (const Shapes& s : shapes) {
      SCOPED_TRACE(c.name + " " + te::shapeToString(s.a) + " " + te::shapeToString(s.b));
      te::Tensor a = placeholder("A", s.a), b = placeholder("B", s.b);
      te::Tensor y = c.build(a, b);
      EXPECT_EQ(y.name(), "T_" + c.name);
      EXPECT_EQ(y.op().tag(), s.a == s.b ? te::OpTag::Elementwise : te::OpTag::Broadcast);
      Buffer ab = randomBuffer(s.a, rng, c.lo, c.hi), bb = randomBuffer(s.b, rng, c.lo, c.hi);
      std::vector<double> want;
      forEachIndex(s.out, [&](const std::vector<int64_t>& i) {
        want.push_back(c.ref(ab.at(sourceIndex(s.a, i)), bb.at(sourceIndex(s.b, i))));
      });
      EXPECT_TRUE(allClose(run1({a, b}, {ab, bb}, y), s.out, want));
    }
}

TEST(Binary, IntegerArithmeticAndComparisons) {
  te::Tensor a = placeholder("A", {2, 3}, te::DType::Int64), b = placeholder("B", {3}, te::DType::Int64);
  Buffer ab = intBuffer({2, 3}, {1, -2, 3, 40, 5, -6}, te::DType::Int64);
  Buffer bb = intBuffer({3}, {10, -2, 7}, te::DType::Int64);
  std::vector<Buffer> out =
      run({a, b}, {ab, bb}, {add(a, b), mul(a, b), maximum(a, b), greater(a, b), equal(a, b), less(a, b)});
  EXPECT_EQ(out[0].i64, (std::vector<int64_t>{11, -4, 10, 50, 3, 1}));
  EXPECT_EQ(out[1].i64, (std::vector<int64_t>{10, 4, 21, 400, -10, -42}));
  EXPECT_EQ(out[2].i64, (std::vector<int64_t>{10, -2, 7, 40, 5, 7}));
  EXPECT_EQ(out[3].dtype, te::DType::Bool);
  EXPECT_EQ(out[3].b, (std::vector<uint8_t>{0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(out[4].b, (std::vector<uint8_t>{0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(out[5].b, (std::vector<uint8_t>{1, 0, 1, 0, 0, 1}));
}

TEST(Where, BroadcastsThreeOperands) {
  Rng rng(22);
  struct Shapes {
    Shape c, a, b, out;
  };
  for (const Shapes& s : std::vector<Shapes>{{{2, 3}, {2, 3}, {2, 3}, {2, 3}},
                                             {{1, 5}, {3, 5}, {3, 1}, {3, 5}},
                                             {{4, 1, 1}, {1, 3}, {2, 1}, {4, 2, 3}}}) {
    te::Tensor c = placeholder("cond", s.c, te::DType::Bool);
    te::Tensor a = placeholder("A", s.a), b = placeholder("B", s.b);
    te::Tensor y = where(c, a, b);
    EXPECT_EQ(y.name(), "T_where");
    Buffer cb = randomBuffer(s.c, rng, 0, 1, te::DType::Bool);
    Buffer ab = randomBuffer(s.a, rng), bb = randomBuffer(s.b, rng);
    std::vector<double> want;
    forEachIndex(s.out, [&](const std::vector<int64_t>& i) {
      want.push_back(cb.at(sourceIndex(s.c, i)) ? ab.at(sourceIndex(s.a, i)) : bb.at(sourceIndex(s.b, i)));
    });
    EXPECT_TRUE(allClose(run1({c, a, b}, {cb, ab, bb}, y), s.out, want, 0, 0));
  }
}

TEST(Elementwise, RejectsBadArguments) {
  te::Tensor a = placeholder("A", {2, 3}), b = placeholder("B", {4});
  EXPECT_OP_ERROR(add(a, b), "add: shapes [2, 3] and [4] do not broadcast");
  EXPECT_OP_ERROR(maximum(placeholder("A", {3, 2, 5}), placeholder("B", {3, 5})), "maximum", "do not broadcast");
  te::Tensor ai = placeholder("I", {2, 3}, te::DType::Int64);
  EXPECT_OP_ERROR(mul(a, ai), "mul", "different dtypes", "float32", "int64");
  te::Tensor bb = placeholder("b", {2, 3}, te::DType::Bool);
  EXPECT_OP_ERROR(pow(bb, bb), "pow", "bool", "a float or an integer type is required");
  EXPECT_OP_ERROR(relu(ai), "relu", "int64");
  EXPECT_OP_ERROR(gelu(placeholder("b", {2}, te::DType::Bool)), "gelu", "bool");
  EXPECT_OP_ERROR(sigmoid(te::Tensor()), "sigmoid", "missing");
  te::Tensor c = placeholder("cond", {2, 3}, te::DType::Bool);
  EXPECT_OP_ERROR(where(a, a, a), "where", "condition", "bool is required");
  EXPECT_OP_ERROR(where(c, a, ai), "where", "different dtypes");
  EXPECT_OP_ERROR(where(c, a, b), "where: shapes [2, 3], [2, 3] and [4] do not broadcast");
}

}  // namespace
}  // namespace ttune::ops
