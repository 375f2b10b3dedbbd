// The bf16 pass: anchors take bfloat16 operands (constant weights converted once, activations
// through cast nodes), compute in float32, keep their output type and stay close to float32;
// fusion puts an activation's cast into its producer's kernel; depthwise convolutions and
// everything else keep float32.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/bf16.h"
#include "graph/fusion.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "graph_test_util.h"

namespace ttune::graph {
namespace {

using testing::randomArray;

// conv 3x3 -> relu -> depthwise 3x3 -> conv 1x1 -> flatten -> dense
Graph smallNet() {
  Graph g;
  int x = g.addInput("x", {1, 8, 6, 6});
  Conv2dAttrs c3;
  c3.pads = {1, 1, 1, 1};
  int y = g.addNode("conv", c3, {x, g.addConstant("w1", randomArray({16, 8, 3, 3}, 1, -0.3, 0.3))});
  y = g.addNode("relu", UnaryAttrs{UnaryKind::Relu}, {y});
  Conv2dAttrs dw = c3;
  dw.groups = 16;
  y = g.addNode("dw", dw, {y, g.addConstant("w2", randomArray({16, 1, 3, 3}, 2, -0.3, 0.3))});
  y = g.addNode("pw", Conv2dAttrs{}, {y, g.addConstant("w3", randomArray({12, 16, 1, 1}, 3, -0.3, 0.3))});
  y = g.addNode("flat", ReshapeAttrs{{1, 12 * 36}}, {y});
  y = g.addNode("fc", DenseAttrs{}, {y, g.addConstant("w4", randomArray({10, 12 * 36}, 4, -0.1, 0.1))});
  g.markOutput(y);
  return g;
}

TEST(Bf16, AnchorsTakeBfloat16OperandsAndStayCloseToFloat32) {
  Graph ref = smallNet();
  Graph g = smallNet();
  EXPECT_EQ(useBf16(g), 3);  // the 3x3 and 1x1 convolutions and the dense layer; not the depthwise one
  runtime::NDArray x = randomArray({1, 8, 6, 6}, 9);
  std::vector<runtime::NDArray> want = evaluateGraph(ref, {x}), got = evaluateGraph(g, {x});
  ASSERT_EQ(got[0].dtype(), te::DType::Float32);
  double max_abs = 0, max_ref = 0;
  for (int64_t i = 0; i < want[0].numElements(); ++i) {
    max_abs = std::max(max_abs, std::fabs(static_cast<double>(got[0].as<float>()[i]) - want[0].as<float>()[i]));
    max_ref = std::max(max_ref, std::fabs(static_cast<double>(want[0].as<float>()[i])));
  }
  EXPECT_GT(max_abs, 0.0);             // bfloat16 operands round
  EXPECT_LT(max_abs, 2e-2 * max_ref);  // ... by about 2^-8 relative each
}

TEST(Bf16, KernelsCarryThePrecisionAndTheCastFusesIntoTheProducer) {
  Graph g = smallNet();
  GraphOptions o;
  o.bf16 = true;
  o.winograd = false;
  optimizeGraph(g, o);
  int bf16 = 0, depthwise_writes_bf16 = 0;
  for (const Kernel& k : partition(g)) {
    bf16 += k.class_name.find("_bf16") != std::string::npos;
    depthwise_writes_bf16 +=
        k.class_name.find("depthwise") != std::string::npos && k.class_name.find("+cast") != std::string::npos;
  }
  EXPECT_EQ(bf16, 3);
  EXPECT_EQ(depthwise_writes_bf16, 1);  // the 1x1 convolution's operand, cast in its producer's epilogue
}

}  // namespace
}  // namespace ttune::graph
