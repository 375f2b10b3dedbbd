// The Lp operators (LpPool, GlobalLpPool, LpNormalization), composed from |x|^p, an average
// pooling or a sum and the p-th root: checked against plain loops through the reference
// evaluator and compiled.
#include <gtest/gtest.h>

#include <cmath>

#include "frontend/onnx/onnx_importer.h"
#include "onnx_builder.h"
#include "test_util.h"

namespace ttune::frontend {
namespace {

using namespace testing;
using I = int64_t;

// (sum over the window of |x|^p)^(1/p), zero padding counted as zeros.
float lpWindow(const float* plane, int h, int w, int top, int left, int kh, int kw, int p) {
  double s = 0;
  for (int i = 0; i < kh; ++i)
    for (int j = 0; j < kw; ++j) {
      int y = top + i, x = left + j;
      if (y < 0 || y >= h || x < 0 || x >= w) continue;
      s += std::pow(std::abs(static_cast<double>(plane[y * w + x])), p);
    }
  return static_cast<float>(std::pow(s, 1.0 / p));
}

TEST(OnnxLp, LpPoolTwoDAndOneD) {
  for (int p : {1, 2, 3}) {
    SCOPED_TRACE("p = " + std::to_string(p));
    ModelBuilder b(13);
    b.input("x", {I(1), I(2), I(5), I(6)});
    b.input("s", {I(1), I(3), I(7)});
    onnx::NodeProto& two = b.node("LpPool", {"x"}, {"y"});
    setAttr(two, "kernel_shape", std::vector<int64_t>{3, 2});
    setAttr(two, "strides", std::vector<int64_t>{2, 2});
    setAttr(two, "pads", std::vector<int64_t>{1, 0, 1, 1});
    setAttr(two, "p", I(p));
    onnx::NodeProto& one = b.node("LpPool", {"s"}, {"z"});
    setAttr(one, "kernel_shape", std::vector<int64_t>{3});
    setAttr(one, "p", I(p));
    b.output("y");
    b.output("z");
    graph::Graph g = importOnnxModel(b.model());
    runtime::NDArray x = randomArray({1, 2, 5, 6}, 1), s = randomArray({1, 3, 7}, 2);
    // Output [1, 2, 3, 3]: (5 + 2 - 3) / 2 + 1 rows, (6 + 1 - 2) / 2 + 1 columns.
    runtime::NDArray y({1, 2, 3, 3}, te::DType::Float32), z({1, 3, 5}, te::DType::Float32);
    for (int c = 0; c < 2; ++c)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          y.as<float>()[(c * 3 + i) * 3 + j] = lpWindow(x.as<float>() + c * 30, 5, 6, i * 2 - 1, j * 2, 3, 2, p);
    for (int c = 0; c < 3; ++c)
      for (int j = 0; j < 5; ++j) z.as<float>()[c * 5 + j] = lpWindow(s.as<float>() + c * 7, 1, 7, 0, j, 1, 3, p);
    expectOutputs(g, {x, s}, {y, z});
  }
}

TEST(OnnxLp, GlobalLpPoolAndLpNormalization) {
  for (int p : {1, 2}) {
    SCOPED_TRACE("p = " + std::to_string(p));
    ModelBuilder b(13);
    b.input("x", {I(2), I(3), I(4), I(5)});
    setAttr(b.node("GlobalLpPool", {"x"}, {"g"}), "p", I(p));
    onnx::NodeProto& n = b.node("LpNormalization", {"x"}, {"n"});
    setAttr(n, "p", I(p));
    setAttr(n, "axis", I(1));
    b.output("g");
    b.output("n");
    graph::Graph gr = importOnnxModel(b.model());
    runtime::NDArray x = randomArray({2, 3, 4, 5}, 3);
    const float* xv = x.as<float>();
    runtime::NDArray g({2, 3, 1, 1}, te::DType::Float32), nrm({2, 3, 4, 5}, te::DType::Float32);
    for (int b0 = 0; b0 < 2; ++b0)
      for (int c = 0; c < 3; ++c) g.as<float>()[b0 * 3 + c] = lpWindow(xv + (b0 * 3 + c) * 20, 4, 5, 0, 0, 4, 5, p);
    for (int b0 = 0; b0 < 2; ++b0)
      for (int k = 0; k < 20; ++k) {
        double s = 0;
        for (int c = 0; c < 3; ++c) s += std::pow(std::abs(static_cast<double>(xv[(b0 * 3 + c) * 20 + k])), p);
        double norm = std::pow(s, 1.0 / p);
        for (int c = 0; c < 3; ++c)
          nrm.as<float>()[(b0 * 3 + c) * 20 + k] = static_cast<float>(xv[(b0 * 3 + c) * 20 + k] / norm);
      }
    expectOutputs(gr, {x}, {g, nrm});
  }
}

TEST(OnnxLp, UnsupportedOrdersAreOneSentence) {
  ModelBuilder b(13);
  b.input("x", {I(2), I(3)});
  setAttr(b.node("LpNormalization", {"x"}, {"y"}, "norm"), "p", I(3));
  b.output("y");
  EXPECT_EQ(importError(b.model()), "node \"norm\" (LpNormalization): p = 3 is not supported (ONNX defines 1 and 2)");
}

}  // namespace
}  // namespace ttune::frontend
