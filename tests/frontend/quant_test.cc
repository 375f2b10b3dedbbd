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
#include "graph/fusion.h"
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
      case DType::Float32:
        a.as<float>()[i] = static_cast<float>(v[i]);
        break;
      case DType::Int32:
        a.as<int32_t>()[i] = static_cast<int32_t>(v[i]);
        break;
      case DType::Int8:
        a.as<int8_t>()[i] = static_cast<int8_t>(v[i]);
        break;
      case DType::UInt8:
        a.as<uint8_t>()[i] = static_cast<uint8_t>(v[i]);
        break;
      default:
        ADD_FAILURE() << "arrayOf: dtype";
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
    case DType::Float32:
      return a.as<float>()[i];
    case DType::Int32:
      return a.as<int32_t>()[i];
    case DType::Int8:
      return a.as<int8_t>()[i];
    case DType::UInt8:
      return a.as<uint8_t>()[i];
    default:
      return static_cast<double>(a.as<int64_t>()[i]);
  }
}

// saturate(round_half_even(y) + zp) in the range of `dtype`.
double saturate(float y, double zp, DType dtype) {
  double r = std::nearbyint(y) + zp;
  return std::clamp(r, static_cast<double>(te::intTypeMin(dtype)), static_cast<double>(te::intTypeMax(dtype)));
}

// Imports the model, then checks every output of the reference evaluator and of the compiled
// graph against `want` (exactly for integer outputs).
void checkModel(ModelBuilder& b, const std::vector<runtime::NDArray>& inputs,
                const std::vector<runtime::NDArray>& want) {
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
      runtime::NDArray x = dt == DType::Int32
                               ? arrayOf(xs, dt, {-70000, -5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 90000})
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
    checkModel(
        b, {x},
        {arrayOf(xs, DType::UInt8, want), arrayOf({}, DType::Float32, {scale}), arrayOf({}, DType::UInt8, {zp})});
  }
}

// ---- integer and quantized products ------------------------------------------------------------

// (a - az) x (b - bz) over int64, az per row or scalar, bz per column or scalar.
std::vector<int64_t> centeredProduct(const runtime::NDArray& a, const runtime::NDArray& b,
                                     const std::vector<double>& az, const std::vector<double>& bz, I m, I k, I n) {
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
    std::vector<double> az = {3, 0, dt == DType::UInt8 ? 200.0 : -100.0, 7},
                        bz = {1, 2, 3, 4, 5, dt == DType::UInt8 ? 255.0 : -128.0};
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
    double az = dt == DType::UInt8 ? 120.0 : -4.0, bz = dt == DType::UInt8 ? 130.0 : 2.0,
           yz = dt == DType::UInt8 ? 100.0 : -10.0;
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
      clip.push_back(std::clamp<double>(static_cast<double>(p), dt == DType::UInt8 ? 20.0 : -50.0,
                                        dt == DType::UInt8 ? 200.0 : 60.0));
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

// ---- QDQ: DequantizeLinear -> Conv / Gemm -> QuantizeLinear runs on integer kernels -------------

// The kernels of the imported, optimized graph whose class says they compute in `precision`.
int kernelsOf(const graph::Graph& imported, const std::string& precision) {
  graph::Graph g = imported;
  graph::optimizeGraph(g);
  int n = 0;
  for (const graph::Kernel& k : graph::partition(g)) n += k.class_name.find("_" + precision) != std::string::npos;
  return n;
}

// Float x quantized, then the layer as PyTorch exports a quantized one: per-channel int8 weights
// and an int32 bias in units of x_scale * w_scale, all dequantized into a float Conv / Gemm, relu,
// and quantized again. ttune computes it on the integers; against ONNX's float semantics every
// output is within one quantization step (the float rounding of the scales differs).
TEST(OnnxQuant, QdqConvolutionAndGemmRunOnIntegerKernels) {
  const float sx = 0.02f, ys = 0.05f;
  const double zx = 110, yz = 3;
  for (bool gemm : {false, true})
    for (I c : {I(8), I(3)}) {
      SCOPED_TRACE(std::string(gemm ? "Gemm" : "Conv") + " with " + std::to_string(c) + " input channels");
      const I m = 6, h = gemm ? 1 : 6, wd = gemm ? 1 : 5, r = gemm ? 1 : 3, pad = gemm ? 0 : 1;
      runtime::NDArray x(gemm ? te::Shape{2, c} : te::Shape{1, c, h, wd}, DType::Float32);
      x.fillRandom(31, -2.0, 2.0);
      runtime::NDArray w = randomInts(gemm ? te::Shape{m, c} : te::Shape{m, c, r, r}, DType::Int8, 32);
      std::vector<double> ws = {0.01, 0.02, 0.005, 0.03, 0.015, 0.008}, bias = {-40, 0, 900, 5, -1234, 77}, bscale;
      for (double v : ws) bscale.push_back(static_cast<float>(sx) * static_cast<float>(v));
      ModelBuilder b(13);
      b.input("x", gemm ? std::vector<Dim>{I(2), I(c)} : std::vector<Dim>{I(1), I(c), I(h), I(wd)});
      b.floats("sx", {}, {sx});
      b.initializer("zx", arrayOf({}, DType::UInt8, {zx}));
      b.initializer("wq", w);
      b.initializer("ws", arrayOf({m}, DType::Float32, ws));
      b.initializer("wz", arrayOf({m}, DType::Int8, std::vector<double>(m, 0)));
      b.initializer("bq", arrayOf({m}, DType::Int32, bias));
      b.initializer("bs", arrayOf({m}, DType::Float32, bscale));
      b.initializer("bz", arrayOf({m}, DType::Int32, std::vector<double>(m, 0)));
      b.floats("ys", {}, {ys});
      b.initializer("yz", arrayOf({}, DType::UInt8, {yz}));
      b.node("QuantizeLinear", {"x", "sx", "zx"}, {"xq"});
      b.node("DequantizeLinear", {"xq", "sx", "zx"}, {"xf"});
      setAttr(b.node("DequantizeLinear", {"wq", "ws", "wz"}, {"wf"}), "axis", int64_t{0});
      setAttr(b.node("DequantizeLinear", {"bq", "bs", "bz"}, {"bf"}), "axis", int64_t{0});
      if (gemm) {
        setAttr(b.node("Gemm", {"xf", "wf", "bf"}, {"acc"}), "transB", int64_t{1});
      } else {
        setAttr(b.node("Conv", {"xf", "wf", "bf"}, {"acc"}), "pads", std::vector<int64_t>{pad, pad, pad, pad});
      }
      b.node("Relu", {"acc"}, {"act"});
      b.node("QuantizeLinear", {"act", "ys", "yz"}, {"y"});
      b.output("y");
      // ONNX's semantics in double: quantize x, then the float layer on the dequantized values.
      const I rows = gemm ? 2 : 1, oh = gemm ? 1 : h, ow = gemm ? 1 : wd;
      std::vector<double> xq;
      for (I i = 0; i < x.numElements(); ++i) xq.push_back(saturate(x.as<float>()[i] / sx, zx, DType::UInt8));
      std::vector<double> want;
      for (I n = 0; n < rows; ++n)
        for (I o = 0; o < m; ++o)
          for (I i = 0; i < oh; ++i)
            for (I j = 0; j < ow; ++j) {
              double acc = bias[o] * bscale[o];
              for (I ci = 0; ci < c; ++ci)
                for (I p = 0; p < r; ++p)
                  for (I q = 0; q < r; ++q) {
                    I yy = i + p - pad, xx = j + q - pad;
                    if (yy < 0 || yy >= h || xx < 0 || xx >= wd) continue;
                    double xv = (xq[static_cast<size_t>(((n * c + ci) * h + yy) * wd + xx)] - zx) * sx;
                    acc += xv * get(w, ((o * c + ci) * r + p) * r + q) * ws[o];
                  }
              want.push_back(std::clamp(std::nearbyint(std::max(acc, 0.0) / ys) + yz, 0.0, 255.0));
            }
      graph::Graph g = importOnnxModel(b.model());
      EXPECT_EQ(kernelsOf(g, "u8s8"), 1);
      graph::optimizeGraph(g);
      std::vector<runtime::NDArray> got = executor::CompiledModel::compile(g).run({x});
      ASSERT_EQ(got[0].numElements(), static_cast<I>(want.size()));
      ASSERT_EQ(got[0].dtype(), DType::UInt8);
      for (size_t i = 0; i < want.size(); ++i) EXPECT_LE(std::fabs(get(got[0], static_cast<I>(i)) - want[i]), 1.0) << i;
    }
}

// GlobalAveragePool of a dequantized value, quantized again (QDQ's squeeze-excitation and
// classifier pooling): summed on the integers and requantized with scale / (y_scale * count) as
// ONNX Runtime's QLinearGlobalAveragePool does, within one step of ONNX's float semantics.
TEST(OnnxQuant, QdqGlobalAveragePoolSumsTheIntegers) {
  const I n = 2, c = 5, h = 7, wd = 6;
  const float sx = 0.03f, sy = 0.01f;
  const double zx = 37, zy = 12;
  runtime::NDArray q = randomInts({n, c, h, wd}, DType::UInt8, 41);
  ModelBuilder b(13);
  b.input("q", {I(n), I(c), I(h), I(wd)}, DType::UInt8);
  b.floats("sx", {}, {sx});
  b.initializer("zx", arrayOf({}, DType::UInt8, {zx}));
  b.floats("sy", {}, {sy});
  b.initializer("zy", arrayOf({}, DType::UInt8, {zy}));
  b.node("DequantizeLinear", {"q", "sx", "zx"}, {"x"});
  b.node("GlobalAveragePool", {"x"}, {"avg"});
  b.node("QuantizeLinear", {"avg", "sy", "zy"}, {"y"});
  b.output("y");
  std::vector<double> ort_like, onnx;
  const float mult = sx / (sy * static_cast<float>(h * wd));
  for (I p = 0; p < n * c; ++p) {
    int64_t sum = 0;
    for (I e = 0; e < h * wd; ++e) sum += static_cast<int64_t>(get(q, p * h * wd + e)) - static_cast<int64_t>(zx);
    ort_like.push_back(saturate(static_cast<float>(sum) * mult, zy, DType::UInt8));
    onnx.push_back(std::clamp(std::nearbyint(static_cast<double>(sum) * sx / (h * wd) / sy) + zy, 0.0, 255.0));
  }
  graph::Graph g = importOnnxModel(b.model());
  graph::optimizeGraph(g);
  for (const graph::Kernel& k : graph::partition(g))
    EXPECT_EQ(k.class_name.find("global_pool_avg"), std::string::npos) << k.class_name;  // no float average
  checkModel(b, {q}, {arrayOf({n, c, 1, 1}, DType::UInt8, ort_like)});
  for (size_t i = 0; i < onnx.size(); ++i) EXPECT_LE(std::fabs(ort_like[i] - onnx[i]), 1.0);
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
      EXPECT_EQ(std::string(e.what()),
                "node #0 (QuantizeLinear): the y_scale input \"s\" has shape [2], but must be a "
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
      EXPECT_EQ(std::string(e.what()),
                "node #0 (DequantizeLinear): the x_zero_point input \"z\" has dtype uint8, but "
                "the x input \"x\" has dtype int8");
    }
  }
}

}  // namespace
}  // namespace ttune::frontend
