// Export patterns of torchvision CNNs, rebuilt as small ONNX models: a MobileNetV2 inverted
// residual (ReLU6 as Clip with constant min/max), an EfficientNet squeeze-excitation block with
// SiLU, a ShuffleNet channel shuffle whose shapes come from Shape/Gather/Div/Concat, and
// GoogLeNet's transform_input (per-channel Gather / Unsqueeze / affine / Concat), torchvision's
// multi-scale RoIAlign row scatter. Values are checked against ops:: expressions or loops on the
// reference evaluator (and the row scatter compiled too).
#include <gtest/gtest.h>

#include "executor/executor.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "onnx_builder.h"
#include "ops/ops.h"
#include "test_util.h"

namespace ttune::frontend {
namespace {

using namespace testing;
using I = int64_t;

runtime::NDArray scalarInt(int64_t v) {
  runtime::NDArray a({}, te::DType::Int64);
  a.as<int64_t>()[0] = v;
  return a;
}

TEST(OnnxPatterns, MobileNetV2InvertedResidual) {
  ModelBuilder b(13);
  b.input("x", {I(1), I(8), I(6), I(6)});
  struct Bn {
    runtime::NDArray s, t, m, v;
  };
  std::vector<Bn> bns;
  auto convBn = [&](const std::string& in, const std::string& out, int cin, int cout, int k, int groups, bool relu6,
                    uint64_t seed) {
    runtime::NDArray w = b.random(out + "_w", {cout, cin / groups, k, k}, seed);
    onnx::NodeProto& c = b.node("Conv", {in, out + "_w"}, {out + "_c"}, out + "_conv");
    setAttr(c, "group", I(groups));
    setAttr(c, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    Bn bn{b.random(out + "_s", {cout}, seed + 1, 0.5, 1.5), b.random(out + "_t", {cout}, seed + 2),
          b.random(out + "_m", {cout}, seed + 3), b.random(out + "_v", {cout}, seed + 4, 0.5, 2)};
    bns.push_back(bn);
    std::string bn_out = relu6 ? out + "_bn" : out;
    b.node("BatchNormalization", {out + "_c", out + "_s", out + "_t", out + "_m", out + "_v"}, {bn_out});
    if (relu6) b.node("Clip", {bn_out, "six_min", "six_max"}, {out});
    return w;
  };
  setAttr(b.node("Constant", {}, {"six_min"}), "value", floatArray({}, {0.0f}));
  setAttr(b.node("Constant", {}, {"six_max"}), "value", floatArray({}, {6.0f}));
  runtime::NDArray w1 = convBn("x", "expand", 8, 16, 1, 1, true, 10);
  runtime::NDArray w2 = convBn("expand", "dw", 16, 16, 3, 16, true, 20);
  runtime::NDArray w3 = convBn("dw", "project", 16, 8, 1, 1, false, 30);
  b.node("Add", {"x", "project"}, {"y"});
  b.output("y");

  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(countOp(g, "clip"), 2);
  EXPECT_EQ(countOp(g, "group_conv2d_nchw"), 1);
  EXPECT_EQ(countOp(g, "batch_norm"), 3);

  runtime::NDArray x = randomArray({1, 8, 6, 6}, 1);
  te::Tensor X = ph("x", {1, 8, 6, 6});
  std::vector<te::Tensor> ins{X};
  std::vector<runtime::NDArray> arrays{x};
  auto param = [&](const runtime::NDArray& a, const std::string& n) {
    te::Tensor t = ph(n, a.shape());
    ins.push_back(t);
    arrays.push_back(a);
    return t;
  };
  auto bn = [&](te::Tensor t, int i) {
    const Bn& p = bns[i];
    std::string n = "bn" + std::to_string(i);
    return ops::batch_norm_inference(t, param(p.s, n + "s"), param(p.t, n + "t"), param(p.m, n + "m"),
                                     param(p.v, n + "v"));
  };
  te::Tensor t = ops::relu6(bn(ops::conv2d_nchw(X, param(w1, "w1")), 0));
  t = ops::relu6(bn(ops::depthwise_conv2d_nchw(t, param(w2, "w2"), {1, 1}, {1, 1, 1, 1}), 1));
  t = ops::add(X, bn(ops::conv2d_nchw(t, param(w3, "w3")), 2));
  expectClose(graph::evaluateGraph(g, {x})[0], evalTe(ins, t, arrays));
}

TEST(OnnxPatterns, EfficientNetSqueezeExcitationWithSilu) {
  ModelBuilder b(13);
  b.input("x", {I(1), I(4), I(5), I(5)});
  runtime::NDArray w1 = b.random("w1", {2, 4, 1, 1}, 1), b1 = b.random("b1", {2}, 2);
  runtime::NDArray w2 = b.random("w2", {4, 2, 1, 1}, 3), b2 = b.random("b2", {4}, 4);
  b.node("GlobalAveragePool", {"x"}, {"pooled"});
  b.node("Conv", {"pooled", "w1", "b1"}, {"reduced"});
  b.node("Sigmoid", {"reduced"}, {"gate0"});
  b.node("Mul", {"reduced", "gate0"}, {"silu"});
  b.node("Conv", {"silu", "w2", "b2"}, {"expanded"});
  b.node("Sigmoid", {"expanded"}, {"scale"});
  b.node("Mul", {"x", "scale"}, {"y"});
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(countOp(g, "global_avg_pool2d"), 1);
  EXPECT_EQ(countOp(g, "conv2d_nchw"), 2);

  runtime::NDArray x = randomArray({1, 4, 5, 5}, 5);
  te::Tensor X = ph("x", {1, 4, 5, 5}), W1 = ph("w1", {2, 4, 1, 1}), B1 = ph("b1", {2}), W2 = ph("w2", {4, 2, 1, 1}),
             B2 = ph("b2", {4});
  te::Tensor t = ops::add(ops::conv2d_nchw(ops::global_avg_pool2d(X), W1), ops::reshape(B1, {1, 2, 1, 1}));
  t = ops::silu(t);
  t = ops::sigmoid(ops::add(ops::conv2d_nchw(t, W2), ops::reshape(B2, {1, 4, 1, 1})));
  expectClose(graph::evaluateGraph(g, {x})[0], evalTe({X, W1, B1, W2, B2}, ops::mul(X, t), {x, w1, b1, w2, b2}));
}

TEST(OnnxPatterns, ShuffleNetChannelShuffleAndChunk) {
  const int C = 8, H = 3, W = 2, G = 2;
  ModelBuilder b(13);
  b.input("x", {I(1), I(C), I(H), I(W)});
  b.node("Shape", {"x"}, {"s"});
  const char* dims[] = {"n", "c", "h", "w"};
  for (int i = 0; i < 4; ++i) {
    setAttr(b.node("Constant", {}, {std::string("i") + dims[i]}), "value", scalarInt(i));
    b.node("Gather", {"s", std::string("i") + dims[i]}, {dims[i]});
  }
  setAttr(b.node("Constant", {}, {"groups"}), "value", scalarInt(G));
  b.node("Div", {"c", "groups"}, {"cpg"});  // integer division of shape values
  b.ints("axes0", {0});
  for (std::string d : {"n", "cpg", "h", "w"}) b.node("Unsqueeze", {d, "axes0"}, {d + "_1d"});
  b.ints("g_1d", {G});
  b.ints("minus1", {-1});
  setAttr(b.node("Concat", {"n_1d", "g_1d", "cpg_1d", "h_1d", "w_1d"}, {"shape5"}), "axis", I(0));
  b.node("Reshape", {"x", "shape5"}, {"r5"});
  setAttr(b.node("Transpose", {"r5"}, {"t5"}), "perm", std::vector<int64_t>{0, 2, 1, 3, 4});
  setAttr(b.node("Concat", {"n_1d", "minus1", "h_1d", "w_1d"}, {"shape4"}), "axis", I(0));
  b.node("Reshape", {"t5", "shape4"}, {"shuffled"});
  setAttr(b.node("Split", {"shuffled"}, {"lo", "hi"}), "axis", I(1));
  setAttr(b.node("Concat", {"hi", "lo"}, {"y"}), "axis", I(1));
  b.output("y");

  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(countOp(g, "gather"), 0);  // all shape arithmetic folded
  EXPECT_EQ(countOp(g, "transpose"), 1);
  EXPECT_EQ(countOp(g, "slice"), 2);

  runtime::NDArray x = randomArray({1, C, H, W}, 1);
  std::vector<float> shuffled(C * H * W), want(C * H * W);
  for (int c = 0; c < C; ++c) {  // out channel c reads channel (c % G) * (C / G) + c / G
    int src = (c % G) * (C / G) + c / G;
    for (int p = 0; p < H * W; ++p) shuffled[c * H * W + p] = x.as<float>()[src * H * W + p];
  }
  for (int c = 0; c < C; ++c)
    for (int p = 0; p < H * W; ++p) want[c * H * W + p] = shuffled[((c + C / 2) % C) * H * W + p];
  expectClose(graph::evaluateGraph(g, {x})[0], floatArray({1, C, H, W}, want));
}

TEST(OnnxPatterns, GoogLeNetTransformInput) {
  ModelBuilder b(13);
  b.input("x", {I(1), I(3), I(4), I(4)});
  const float scale[] = {0.229f / 0.5f, 0.224f / 0.5f, 0.225f / 0.5f};
  const float shift[] = {(0.485f - 0.5f) / 0.5f, (0.456f - 0.5f) / 0.5f, (0.406f - 0.5f) / 0.5f};
  b.ints("axes1", {1});
  for (int i = 0; i < 3; ++i) {
    std::string n = std::to_string(i);
    setAttr(b.node("Constant", {}, {"idx" + n}), "value", scalarInt(i));
    setAttr(b.node("Gather", {"x", "idx" + n}, {"ch" + n}), "axis", I(1));
    b.node("Unsqueeze", {"ch" + n, "axes1"}, {"u" + n});
    b.floats("a" + n, {}, {scale[i]});
    b.floats("b" + n, {}, {shift[i]});
    b.node("Mul", {"u" + n, "a" + n}, {"m" + n});
    b.node("Add", {"m" + n, "b" + n}, {"t" + n});
  }
  setAttr(b.node("Concat", {"t0", "t1", "t2"}, {"y"}), "axis", I(1));
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(countOp(g, "gather"), 3);
  EXPECT_EQ(countOp(g, "concat"), 1);
  runtime::NDArray x = randomArray({1, 3, 4, 4}, 2);
  std::vector<float> want(48);
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < 16; ++p) want[c * 16 + p] = x.as<float>()[c * 16 + p] * scale[c] + shift[c];
  expectClose(graph::evaluateGraph(g, {x})[0], floatArray({1, 3, 4, 4}, want));
}

// torchvision's MultiScaleRoIAlign writes each level's rows into the result with
// result[idx] = rows, exported as ScatterElements(result, idx.view(-1, 1, 1, 1).expand_as(rows),
// rows, axis 0): the scatter takes the Expand's input as its indices, so its search for each
// output row's source runs once per row (not once per element), and the values are unchanged.
TEST(OnnxPatterns, TorchvisionRowScatterSearchesOncePerRow) {
  const I N = 7, R = 4, C = 5, H = 3, W = 2;
  ModelBuilder b(13);
  b.input("result", {N, C, H, W});
  b.input("idx", {R}, te::DType::Int64);
  b.input("rows", {R, C, H, W});
  b.ints("view", {-1, 1, 1, 1});
  b.ints("full", {R, C, H, W});
  b.node("Reshape", {"idx", "view"}, {"idx4"});
  b.node("Expand", {"idx4", "full"}, {"idx_full"});
  setAttr(b.node("ScatterElements", {"result", "idx_full", "rows"}, {"y"}), "axis", I(0));
  b.output("y");

  graph::Graph g = importOnnxModel(b.model());
  const graph::Node* scatter = nullptr;
  for (const graph::Node& n : g.nodes())
    if (graph::opName(n.attrs) == "scatter_elements") scatter = &n;
  ASSERT_NE(scatter, nullptr);
  EXPECT_EQ(g.value(scatter->inputs[1]).shape, (te::Shape{R, 1, 1, 1}));

  runtime::NDArray result = randomArray({N, C, H, W}, 2), rows = randomArray({R, C, H, W}, 3);
  runtime::NDArray idx({R}, te::DType::Int64);
  const std::vector<int64_t> where = {5, 0, -4, 6};  // -4 is row 3
  std::copy(where.begin(), where.end(), idx.as<int64_t>());
  std::vector<float> want(result.as<float>(), result.as<float>() + N * C * H * W);
  for (I r = 0; r < R; ++r) {
    I row = where[static_cast<size_t>(r)] < 0 ? where[static_cast<size_t>(r)] + N : where[static_cast<size_t>(r)];
    std::copy(rows.as<float>() + r * C * H * W, rows.as<float>() + (r + 1) * C * H * W, want.begin() + row * C * H * W);
  }
  expectClose(graph::evaluateGraph(g, {result, idx, rows})[0], floatArray({N, C, H, W}, want), 0, 0);
  graph::optimizeGraph(g, {});
  executor::CompiledModel m = executor::CompiledModel::compile(g, {});
  expectClose(m.run({result, idx, rows})[0], floatArray({N, C, H, W}, want), 0, 0);
}

// Top-p sampling's cumulative sum over a sorted vocabulary: a long axis, summed in blocks (not
// every output over its whole prefix), compiled and checked against a running sum.
TEST(OnnxPatterns, CumSumOverAVocabularyCompiles) {
  const I V = 3000;
  ModelBuilder b(13);
  b.input("p", {I(1), V});
  b.ints("axis", {1});
  b.node("CumSum", {"p", "axis"}, {"c"});
  b.output("c");
  graph::Graph g = importOnnxModel(b.model());
  graph::optimizeGraph(g, {});
  executor::CompiledModel m = executor::CompiledModel::compile(g, {});
  runtime::NDArray p = randomArray({1, V}, 4, 0, 1);
  std::vector<float> want(static_cast<size_t>(V));
  double acc = 0;
  for (I i = 0; i < V; ++i) want[static_cast<size_t>(i)] = static_cast<float>(acc += p.as<float>()[i]);
  expectClose(m.run({p})[0], floatArray({1, V}, want), 1e-2, 1e-4);
}

}  // namespace
}  // namespace ttune::frontend
