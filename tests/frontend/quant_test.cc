// Quantized ONNX models: QuantizeLinear / DequantizeLinear (per tensor and per axis, int8 and
// uint8, ties rounding to even, saturation), DynamicQuantizeLinear, MatMulInteger, QLinearMatMul,
// ConvInteger, QLinearConv and 8-bit inputs of ordinary operators (Div, Max, Clip, MaxPool),
// each checked exactly against a plain loop written here from the operator definitions: the
// imported graph through the reference evaluator and compiled as `ttune run` compiles it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "executor/executor.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "onnx_builder.h"
#include "support/error.h"
#include "test_util.h"

namespace ttune::frontend {
namespace {

using namespace testing;
using te::DType;
using I = int64_t;

// An array of `dtype` from values (wrapped into the type by the caller's choice of values).
runtime::NDArray arrayOf(const te::Shape& s, DType dtype, const std::vector<double>& v) {
  runtime::NDArray a(s, dtype);
  for (size_t i = 0; i < v.size(); ++i) {
    switch (dtype) {
      case DType::Float32: a.as<float>()[i] = static_cast<float>(v[i]); break;
      case DType::Int32: a.as<int32_t>()[i] = static_cast<int32_t>(v[i]); break;
      case DType::Int8: a.as<int8_t>()[i] = static_cast<int8_t>(v[i]); break;
      case DType::UInt8: a.as<uint8_t>()[i] = static_cast<uint8_t>(v[i]); break;
      default: ADD_FAILURE() << "arrayOf: dtype";
    }
  }
  return a;
}

// Seeded values over the whole range of an 8-bit type.
runtime::NDArray randomInts(const te::Shape& s, DType dtype, uint64_t seed) {
  runtime::NDArray a(s, dtype);
  a.fillRandom(seed, static_cast<double>(te::intTypeMin(dtype)), static_cast<double>(te::intTypeMax(dtype)) + 1);
  return a;
}

double get(const runtime::NDArray& a, int64_t i) {
  switch (a.dtype()) {
    case DType::Float32: return a.as<float>()[i];
    case DType::Int32: return a.as<int32_t>()[i];
    case DType::Int8: return a.as<int8_t>()[i];
    case DType::UInt8: return a.as<uint8_t>()[i];
    default: return static_cast<double>(a.as<int64_t>()[i]);
  }
}

// saturate(round_half_even(y) + zp) in the range of `dtype`.
double saturate(float y, double zp, DType dtype) {
  double r = std::nearbyint(y) + zp;
  return std::clamp(r, static_cast<double>(te::intTypeMin(dtype)), static_cast<double>(te::intTypeMax(dtype)));
}

// Imports the model, then checks every output of the reference evaluator and of the compiled
// graph against `want` (exactly for integer outputs).
void checkModel(ModelBuilder& b, const std::vector<runtime::NDArray>& inputs, const std::vector<runtime::NDArray>& want) {
  graph::Graph g = importOnnxModel(b.model());
  auto compare = [&](const std::vector<runtime::NDArray>& got) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      SCOPED_TRACE("output " + std::to_string(i));
      bool exact = !te::isFloat(want[i].dtype());
      expectClose(got[i], want[i], exact ? 0 : 1e-6, exact ? 0 : 1e-6);
    }
  };
  {
    SCOPED_TRACE("reference evaluator");
    compare(graph::evaluateGraph(g, inputs));
  }
  graph::optimizeGraph(g);
  executor::CompiledModel m = executor::CompiledModel::compile(g);
  SCOPED_TRACE("compiled");
  compare(m.run(inputs));
}

// ---- QuantizeLinear / DequantizeLinear ---------------------------------------------------------

TEST(OnnxQuant, QuantizeLinearPerTensorAndPerAxisRoundsTiesToEvenAndSaturates) {
  for (DType dt : {DType::UInt8, DType::Int8}) {
    for (bool per_axis : {false, true}) {
      SCOPED_TRACE(std::string(te::dtypeName(dt)) + (per_axis ? " per axis" : " per tensor"));
      te::Shape xs = {2, 3, 4};
      // Multiples of a quarter with power-of-two scales: x / scale lands on many exact ties.
      std::vector<double> xv;
      for (int i = 0; i < 24; ++i) xv.push_back((i - 11) * 0.25 * (i % 3 == 0 ? 40 : 1));
      runtime::NDArray x = arrayOf(xs, DType::Float32, xv);
      std::vector<double> sv = per_axis ? std::vector<double>{0.5, 0.125, 2} : std::vector<double>{0.5};
      std::vector<double> zv = per_axis ? std::vector<double>{1, 3, dt == DType::UInt8 ? 250.0 : -120.0}
                                        : std::vector<double>{dt == DType::UInt8 ? 128.0 : -3.0};
      te::Shape ps = per_axis ? te::Shape{3} : te::Shape{};
      ModelBuilder b(13);
      b.input("x", {I(2), I(3), I(4)});
      b.initializer("s", arrayOf(ps, DType::Float32, sv));
      b.initializer("z", arrayOf(ps, dt, zv));
      onnx::NodeProto& n = b.node("QuantizeLinear", {"x", "s", "z"}, {"y"});
      if (per_axis) setAttr(n, "axis", I(-2));
      b.output("y");
      std::vector<double> want(24);
      for (int i = 0; i < 24; ++i) {
        int c = per_axis ? (i / 4) % 3 : 0;
        want[i] = saturate(static_cast<float>(xv[i]) / static_cast<float>(sv[c]), zv[c], dt);
      }
      checkModel(b, {x}, {arrayOf(xs, dt, want)});
    }
  }
}

TEST(OnnxQuant, QuantizeLinearWithoutZeroPointIsUint8) {
  ModelBuilder b(13);
  b.input("x", {I(5)});
  b.floats("s", {}, {0.1f});
  b.node("QuantizeLinear", {"x", "s"}, {"y"});
  b.output("y");
  std::vector<double> xv = {-1, 0.04, 0.05, 12.34, 30};
  std::vector<double> want;
  for (double v : xv) want.push_back(saturate(static_cast<float>(v) / 0.1f, 0, DType::UInt8));
  checkModel(b, {arrayOf({5}, DType::Float32, xv)}, {arrayOf({5}, DType::UInt8, want)});
}

TEST(OnnxQuant, DequantizeLinearPerTensorAndPerAxis) {
  for (DType dt : {DType::UInt8, DType::Int8, DType::Int32}) {
    for (bool per_axis : {false, true}) {
      SCOPED_TRACE(std::string(te::dtypeName(dt)) + (per_axis ? " per axis" : " per tensor"));
      te::Shape xs = {3, 5};
      runtime::NDArray x = dt == DType::Int32 ? arrayOf(xs, dt, {-70000, -5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 90000})
                                              : randomInts(xs, dt, 11);
      std::vector<double> sv = per_axis ? std::vector<double>{0.5, 0.01, 3} : std::vector<double>{0.02};
      std::vector<double> zv = dt == DType::Int32 ? std::vector<double>(sv.size(), 0)
                               : per_axis         ? std::vector<double>{0, 17, dt == DType::UInt8 ? 255.0 : -128.0}
                                                  : std::vector<double>{dt == DType::UInt8 ? 128.0 : 5.0};
      te::Shape ps = per_axis ? te::Shape{3} : te::Shape{};
      ModelBuilder b(13);
      b.input("x", {I(3), I(5)}, dt);
      b.initializer("s", arrayOf(ps, DType::Float32, sv));
      b.initializer("z", arrayOf(ps, dt, zv));
      onnx::NodeProto& n = b.node("DequantizeLinear", {"x", "s", "z"}, {"y"});
      setAttr(n, "axis", I(0));
      b.output("y");
      std::vector<double> want;
      for (int64_t i = 0; i < 15; ++i) {
        size_t c = per_axis ? static_cast<size_t>(i / 5) : 0;
        want.push_back((static_cast<float>(get(x, i)) - static_cast<float>(zv[c])) * static_cast<float>(sv[c]));
      }
      checkModel(b, {x}, {arrayOf(xs, DType::Float32, want)});
    }
  }
}

TEST(OnnxQuant, DynamicQuantizeLinearFollowsTheDataRange) {
  for (double shift : {-2.0, 0.0, 3.0}) {  // range below, around and above zero
    SCOPED_TRACE("shift " + std::to_string(shift));
    te::Shape xs = {3, 7};
    runtime::NDArray x = randomArray(xs, 5, -1.5 + shift, 1.5 + shift);
    ModelBuilder b(13);
    b.input("x", {I(3), I(7)});
    b.node("DynamicQuantizeLinear", {"x"}, {"y", "s", "z"});
    for (const char* o : {"y", "s", "z"}) b.output(o);
    float mn = 0, mx = 0;
    for (int64_t i = 0; i < 21; ++i) mn = std::min(mn, x.as<float>()[i]), mx = std::max(mx, x.as<float>()[i]);
    float scale = (mx - mn) / 255.0f;
    double zp = std::clamp(std::nearbyint(0.0f - mn / scale), 0.0f, 255.0f);
    std::vector<double> want;
    for (int64_t i = 0; i < 21; ++i) want.push_back(saturate(x.as<float>()[i] / scale, zp, DType::UInt8));
    checkModel(b, {x}, {arrayOf(xs, DType::UInt8, want), arrayOf({}, DType::Float32, {scale}), arrayOf({}, DType::UInt8, {zp})});
  }
}

// ---- integer and quantized products ------------------------------------------------------------

// (a - az) x (b - bz) over int64, az per row or scalar, bz per column or scalar.
std::vector<int64_t> centeredProduct(const runtime::NDArray& a, const runtime::NDArray& b, const std::vector<double>& az,
                                     const std::vector<double>& bz, I m, I k, I n) {
  std::vector<int64_t> y(static_cast<size_t>(m * n));
  for (I i = 0; i < m; ++i)
    for (I j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (I l = 0; l < k; ++l) {
        int64_t x = static_cast<int64_t>(get(a, i * k + l) - az[az.size() == 1 ? 0 : i]);
        int64_t w = static_cast<int64_t>(get(b, l * n + j) - bz[bz.size() == 1 ? 0 : j]);
        acc += x * w;
      }
      y[static_cast<size_t>(i * n + j)] = acc;
    }
  return y;
}

TEST(OnnxQuant, MatMulIntegerWithPerRowAndPerColumnZeroPoints) {
  const I m = 4, k = 19, n = 6;
  for (DType dt : {DType::UInt8, DType::Int8}) {
    SCOPED_TRACE(te::dtypeName(dt));
    runtime::NDArray a = randomInts({m, k}, dt, 1), bw = randomInts({k, n}, dt, 2);
    std::vector<double> az = {3, 0, dt == DType::UInt8 ? 200.0 : -100.0, 7}, bz = {1, 2, 3, 4, 5, dt == DType::UInt8 ? 255.0 : -128.0};
    ModelBuilder b(13);
    b.input("a", {I(m), I(k)}, dt);
    b.initializer("b", bw);
    b.initializer("az", arrayOf({m}, dt, az));
    b.initializer("bz", arrayOf({n}, dt, bz));
    b.node("MatMulInteger", {"a", "b", "az", "bz"}, {"y"});
    b.output("y");
    std::vector<int64_t> acc = centeredProduct(a, bw, az, bz, m, k, n);
    checkModel(b, {a}, {arrayOf({m, n}, DType::Int32, std::vector<double>(acc.begin(), acc.end()))});
  }
}

// Long reductions of full-range values exceed float32's exact integers (2^24): the products
// split the activation into 16 hi + lo and stay exact.
TEST(OnnxQuant, MatMulIntegerStaysExactBeyondTwoToTheTwentyFour) {
  const I m = 2, k = 4096, n = 3;
  runtime::NDArray a = randomInts({m, k}, DType::UInt8, 21), bw = randomInts({k, n}, DType::UInt8, 22);
  for (I i = 0; i < k; ++i) a.as<uint8_t>()[i] = 255;  // row 0: the largest sums
  ModelBuilder b(13);
  b.input("a", {I(m), I(k)}, DType::UInt8);
  b.initializer("b", bw);
  b.node("MatMulInteger", {"a", "b"}, {"y"});
  b.output("y");
  std::vector<int64_t> acc = centeredProduct(a, bw, {0}, {0}, m, k, n);
  EXPECT_GT(acc[0], int64_t{1} << 24);
  checkModel(b, {a}, {arrayOf({m, n}, DType::Int32, std::vector<double>(acc.begin(), acc.end()))});
}

TEST(OnnxQuant, QLinearMatMulRescalesAndSaturates) {
  const I m = 5, k = 23, n = 7;
  for (DType dt : {DType::UInt8, DType::Int8}) {
    SCOPED_TRACE(te::dtypeName(dt));
    runtime::NDArray a = randomInts({m, k}, dt, 3), bw = randomInts({k, n}, dt, 4);
    double az = dt == DType::UInt8 ? 120.0 : -4.0, bz = dt == DType::UInt8 ? 130.0 : 2.0, yz = dt == DType::UInt8 ? 100.0 : -10.0;
    float as = 0.02f, bs = 0.015f, ys = 1.5f;
    ModelBuilder b(13);
    b.input("a", {I(m), I(k)}, dt);
    b.input("b", {I(k), I(n)}, dt);  // both operands activations
    b.floats("as", {}, {as});
    b.floats("bs", {}, {bs});
    b.floats("ys", {}, {ys});
    b.initializer("az", arrayOf({}, dt, {az}));
    b.initializer("bz", arrayOf({}, dt, {bz}));
    b.initializer("yz", arrayOf({}, dt, {yz}));
    b.node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"});
    b.output("y");
    std::vector<int64_t> acc = centeredProduct(a, bw, {az}, {bz}, m, k, n);
    float mult = as * bs / ys;
    std::vector<double> want;
    for (int64_t v : acc) want.push_back(saturate(static_cast<float>(v) * mult, yz, dt));
    checkModel(b, {a, bw}, {arrayOf({m, n}, dt, want)});
  }
}

// conv(x - xz, w - wz) over int64 with stride 1, padding `pad` and one group.
std::vector<int64_t> centeredConv(const runtime::NDArray& x, const runtime::NDArray& w, double xz,
                                  const std::vector<double>& wz, I n, I c, I h, I wd, I m, I r, I pad) {
  I oh = h + 2 * pad - r + 1, ow = wd + 2 * pad - r + 1;
  std::vector<int64_t> y(static_cast<size_t>(n * m * oh * ow));
  for (I b = 0; b < n; ++b)
    for (I o = 0; o < m; ++o)
      for (I i = 0; i < oh; ++i)
        for (I j = 0; j < ow; ++j) {
          int64_t acc = 0;
          for (I ci = 0; ci < c; ++ci)
            for (I p = 0; p < r; ++p)
              for (I q = 0; q < r; ++q) {
                I yy = i + p - pad, xx = j + q - pad;
                if (yy < 0 || yy >= h || xx < 0 || xx >= wd) continue;  // padding: 0 after centering
                int64_t xv = static_cast<int64_t>(get(x, ((b * c + ci) * h + yy) * wd + xx) - xz);
                int64_t wv = static_cast<int64_t>(get(w, ((o * c + ci) * r + p) * r + q) - wz[wz.size() == 1 ? 0 : o]);
                acc += xv * wv;
              }
          y[static_cast<size_t>(((b * m + o) * oh + i) * ow + j)] = acc;
        }
  return y;
}

TEST(OnnxQuant, ConvIntegerWithPaddingAndPerChannelWeightZeroPoints) {
  const I n = 1, c = 3, h = 6, wd = 7, m = 4, r = 3, pad = 1;
  for (DType dt : {DType::UInt8, DType::Int8}) {
    SCOPED_TRACE(te::dtypeName(dt));
    runtime::NDArray x = randomInts({n, c, h, wd}, dt, 5), w = randomInts({m, c, r, r}, dt, 6);
    // Padding contributes nothing after centering (ONNX's reference pads x - x_zero_point with 0).
    double xz = dt == DType::UInt8 ? 7.0 : -3.0;
    std::vector<double> wz = {1, 0, 3, dt == DType::UInt8 ? 250.0 : -7.0};
    ModelBuilder b(13);
    b.input("x", {I(n), I(c), I(h), I(wd)}, dt);
    b.initializer("w", w);
    b.initializer("xz", arrayOf({}, dt, {xz}));
    b.initializer("wz", arrayOf({m}, dt, wz));
    onnx::NodeProto& node = b.node("ConvInteger", {"x", "w", "xz", "wz"}, {"y"});
    setAttr(node, "pads", std::vector<int64_t>{pad, pad, pad, pad});
    b.output("y");
    std::vector<int64_t> acc = centeredConv(x, w, xz, wz, n, c, h, wd, m, r, pad);
    checkModel(b, {x}, {arrayOf({n, m, h, wd}, DType::Int32, std::vector<double>(acc.begin(), acc.end()))});
  }
}

// A 3x3 convolution over 64 channels of full-range values: long enough sums to need the split,
// and shaped for the Winograd rewrite.
TEST(OnnxQuant, ConvIntegerStaysExactOnLongReductions) {
  const I n = 1, c = 64, h = 6, wd = 6, m = 16, r = 3;
  runtime::NDArray x = randomInts({n, c, h, wd}, DType::UInt8, 23), w = randomInts({m, c, r, r}, DType::UInt8, 24);
  ModelBuilder b(13);
  b.input("x", {I(n), I(c), I(h), I(wd)}, DType::UInt8);
  b.initializer("w", w);
  onnx::NodeProto& node = b.node("ConvInteger", {"x", "w"}, {"y"});
  setAttr(node, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.output("y");
  std::vector<int64_t> acc = centeredConv(x, w, 0, {0}, n, c, h, wd, m, r, 1);
  checkModel(b, {x}, {arrayOf({n, m, h, wd}, DType::Int32, std::vector<double>(acc.begin(), acc.end()))});
}

TEST(OnnxQuant, QLinearConvWithBiasAndPerChannelScales) {
  const I n = 2, c = 5, h = 5, wd = 6, m = 3, r = 3;
  for (DType dt : {DType::UInt8, DType::Int8}) {
    SCOPED_TRACE(te::dtypeName(dt));
    runtime::NDArray x = randomInts({n, c, h, wd}, dt, 7), w = randomInts({m, c, r, r}, dt, 8);
    double xz = dt == DType::UInt8 ? 128.0 : 3.0, yz = dt == DType::UInt8 ? 90.0 : -20.0;
    std::vector<double> wz = {0, 2, 5};
    std::vector<double> ws = {0.01, 0.004, 0.02}, bias = {-3000, 0, 12345};
    float xs = 0.05f, ys = 0.7f;
    ModelBuilder b(13);
    b.input("x", {I(n), I(c), I(h), I(wd)}, dt);
    b.floats("xs", {}, {xs});
    b.initializer("xz", arrayOf({}, dt, {xz}));
    b.initializer("w", w);
    b.initializer("ws", arrayOf({m}, DType::Float32, ws));
    b.initializer("wz", arrayOf({m}, dt, wz));
    b.floats("ys", {}, {ys});
    b.initializer("yz", arrayOf({}, dt, {yz}));
    b.initializer("B", arrayOf({m}, DType::Int32, bias));
    b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "B"}, {"y"});
    b.output("y");
    std::vector<int64_t> acc = centeredConv(x, w, xz, wz, n, c, h, wd, m, r, 0);
    I oh = h - r + 1, ow = wd - r + 1;
    std::vector<double> want;
    for (size_t i = 0; i < acc.size(); ++i) {
      size_t o = (i / static_cast<size_t>(oh * ow)) % static_cast<size_t>(m);
      float mult = xs * static_cast<float>(ws[o]) / ys;
      want.push_back(saturate(static_cast<float>(acc[i] + static_cast<int64_t>(bias[o])) * mult, yz, dt));
    }
    checkModel(b, {x}, {arrayOf({n, m, oh, ow}, dt, want)});
  }
}

// ---- 8-bit inputs of ordinary operators ----------------------------------------------------------

TEST(OnnxQuant, EightBitArithmeticWrapsDividesTruncatingAndClips) {
  for (DType dt : {DType::UInt8, DType::Int8}) {
    SCOPED_TRACE(te::dtypeName(dt));
    te::Shape s = {2, 9};
    runtime::NDArray x = randomInts(s, dt, 9), y = randomInts(s, dt, 10);
    for (int64_t i = 0; i < 18; ++i)  // no zero divisors: ONNX leaves them undefined
      if (get(y, i) == 0) dt == DType::UInt8 ? void(y.as<uint8_t>()[i] = 7) : void(y.as<int8_t>()[i] = -7);
    ModelBuilder b(13);
    b.input("x", {I(2), I(9)}, dt);
    b.input("y", {I(2), I(9)}, dt);
    b.initializer("lo", arrayOf({}, dt, {dt == DType::UInt8 ? 20.0 : -50.0}));
    b.initializer("hi", arrayOf({}, dt, {dt == DType::UInt8 ? 200.0 : 60.0}));
    b.node("Add", {"x", "y"}, {"sum"});
    b.node("Div", {"x", "y"}, {"quot"});
    b.node("Max", {"x", "y"}, {"max"});
    b.node("Clip", {"x", "lo", "hi"}, {"clip"});
    for (const char* o : {"sum", "quot", "max", "clip"}) b.output(o);
    std::vector<double> sum, quot, mx, clip;
    for (int64_t i = 0; i < 18; ++i) {
      int64_t p = static_cast<int64_t>(get(x, i)), q = static_cast<int64_t>(get(y, i));
      sum.push_back(static_cast<double>(te::wrapInt(dt, p + q)));
      quot.push_back(static_cast<double>(te::wrapInt(dt, p / q)));  // C division truncates
      mx.push_back(static_cast<double>(std::max(p, q)));
      clip.push_back(std::clamp<double>(static_cast<double>(p), dt == DType::UInt8 ? 20.0 : -50.0, dt == DType::UInt8 ? 200.0 : 60.0));
    }
    checkModel(b, {x, y}, {arrayOf(s, dt, sum), arrayOf(s, dt, quot), arrayOf(s, dt, mx), arrayOf(s, dt, clip)});
  }
}

TEST(OnnxQuant, MaxPoolOfUint8) {
  runtime::NDArray x = randomInts({1, 2, 5, 5}, DType::UInt8, 12);
  ModelBuilder b(13);
  b.input("x", {I(1), I(2), I(5), I(5)}, DType::UInt8);
  onnx::NodeProto& n = b.node("MaxPool", {"x"}, {"y"});
  setAttr(n, "kernel_shape", std::vector<int64_t>{2, 2});
  setAttr(n, "strides", std::vector<int64_t>{2, 2});
  setAttr(n, "pads", std::vector<int64_t>{0, 0, 1, 1});
  b.output("y");
  std::vector<double> want;
  for (I ch = 0; ch < 2; ++ch)
    for (I i = 0; i < 3; ++i)
      for (I j = 0; j < 3; ++j) {
        double v = 0;
        for (I p = 0; p < 2; ++p)
          for (I q = 0; q < 2; ++q)
            if (2 * i + p < 5 && 2 * j + q < 5) v = std::max(v, get(x, (ch * 5 + 2 * i + p) * 5 + 2 * j + q));
        want.push_back(v);
      }
  checkModel(b, {x}, {arrayOf({1, 2, 3, 3}, DType::UInt8, want)});
}

TEST(OnnxQuant, BadScalesAndZeroPointsAreOneSentence) {
  {
    ModelBuilder b(13);
    b.input("x", {I(2), I(3)});
    b.floats("s", {2}, {0.1f, 0.2f});
    b.node("QuantizeLinear", {"x", "s"}, {"y"});
    b.output("y");
    try {
      importOnnxModel(b.model());
      ADD_FAILURE() << "imported";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "node #0 (QuantizeLinear): the y_scale input \"s\" has shape [2], but must be a "
                                       "scalar or hold 3 values (one per element of axis 1)");
    }
  }
  {
    ModelBuilder b(13);
    b.input("x", {I(4)}, DType::Int8);
    b.floats("s", {}, {0.1f});
    b.initializer("z", arrayOf({}, DType::UInt8, {3}));
    b.node("DequantizeLinear", {"x", "s", "z"}, {"y"});
    b.output("y");
    try {
      importOnnxModel(b.model());
      ADD_FAILURE() << "imported";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "node #0 (DequantizeLinear): the x_zero_point input \"z\" has dtype uint8, but "
                                       "the x input \"x\" has dtype int8");
    }
  }
}

}  // namespace
}  // namespace ttune::frontend
