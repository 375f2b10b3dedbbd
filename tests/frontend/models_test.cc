// Small models built in C++ (the shapes of what PyTorch exports): a CNN block, Gemm forms, a
// shape-computing subgraph, an attention block, layer normalization (op and decomposition),
// symbolic batch dimensions. Each checks the imported structure (lowering conventions) and the
// values against an independent computation (ops:: expressions or plain loops) evaluated by the
// reference evaluator.
#include <gtest/gtest.h>

#include <cmath>

#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "onnx_builder.h"
#include "ops/ops.h"
#include "support/error.h"
#include "test_util.h"

namespace ttune::frontend {
namespace {

using namespace testing;
using I = int64_t;

TEST(OnnxModels, ConvBatchNormReluPoolGemm) {
  ModelBuilder b(13);
  b.input("x", {I(1), I(3), I(8), I(8)});
  runtime::NDArray w = b.random("w", {4, 3, 3, 3}, 1), bias = b.random("b", {4}, 2);
  runtime::NDArray scale = b.random("scale", {4}, 3, 0.5, 1.5), shift = b.random("shift", {4}, 4);
  runtime::NDArray mean = b.random("mean", {4}, 5), var = b.random("var", {4}, 6, 0.5, 2.0);
  runtime::NDArray fw = b.random("fc_w", {10, 64}, 7), fb = b.random("fc_b", {10}, 8);
  onnx::NodeProto& conv = b.node("Conv", {"x", "w", "b"}, {"c"}, "conv1");
  setAttr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  setAttr(conv, "kernel_shape", std::vector<int64_t>{3, 3});
  setAttr(b.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"bn"}, "bn1"), "epsilon", 1e-3f);
  b.node("Relu", {"bn"}, {"r"});
  onnx::NodeProto& pool = b.node("MaxPool", {"r"}, {"p"});
  setAttr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
  setAttr(pool, "strides", std::vector<int64_t>{2, 2});
  b.node("Flatten", {"p"}, {"f"});
  setAttr(b.node("Gemm", {"f", "fc_w", "fc_b"}, {"y"}, "fc"), "transB", I(1));
  b.output("y");

  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"conv2d_nchw", "add", "batch_norm", "relu", "max_pool2d", "reshape",
                                                  "dense", "add"}));
  const graph::Node* c = findNode(g, "conv1");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->inputs.size(), 2u);  // data, weight: the bias is a separate add
  const graph::Node* add = findNode(g, "conv1/bias");
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(g.value(add->inputs[1]).isConstant());
  EXPECT_EQ(g.value(add->inputs[1]).shape, (te::Shape{1, 4, 1, 1}));
  const graph::Node* fc = findNode(g, "fc");
  ASSERT_NE(fc, nullptr);
  EXPECT_EQ(g.value(fc->inputs[1]).shape, (te::Shape{10, 64}));
  EXPECT_EQ(g.value(g.outputs()[0]).name, "y");
  EXPECT_EQ(std::get<graph::BatchNormAttrs>(findNode(g, "bn1")->attrs).epsilon, static_cast<double>(1e-3f));

  runtime::NDArray x = randomArray({1, 3, 8, 8}, 9);
  runtime::NDArray got = graph::evaluateGraph(g, {x})[0];
  te::Tensor X = ph("x", {1, 3, 8, 8}), W = ph("w", {4, 3, 3, 3}), B = ph("b", {4}), S = ph("s", {4}), T = ph("t", {4}),
             M = ph("m", {4}), V = ph("v", {4}), FW = ph("fw", {10, 64}), FB = ph("fb", {10});
  te::Tensor t = ops::add(ops::conv2d_nchw(X, W, {1, 1}, {1, 1, 1, 1}), ops::reshape(B, {1, 4, 1, 1}));
  t = ops::relu(ops::batch_norm_inference(t, S, T, M, V, static_cast<double>(1e-3f)));
  t = ops::reshape(ops::max_pool2d(t, {2, 2}, {2, 2}), {1, 64});
  t = ops::add(ops::dense(t, FW), FB);
  runtime::NDArray want = evalTe({X, W, B, S, T, M, V, FW, FB}, t, {x, w, bias, scale, shift, mean, var, fw, fb});
  expectClose(got, want);

  // The graph passes recognize the conventions: batch norm folds into the convolution.
  graph::optimizeGraph(g);
  EXPECT_EQ(countOp(g, "batch_norm"), 0);
  expectClose(graph::evaluateGraph(g, {x})[0], want, 1e-4, 1e-4);
}

// Gemm with transB = 0, alpha and beta: dense with a transposed, alpha-scaled [N, K] weight.
TEST(OnnxModels, GemmAlphaBetaTransposedWeight) {
  ModelBuilder b(13);
  b.input("a", {I(3), I(5)});
  runtime::NDArray w = b.random("w", {5, 4}, 1), bias = b.random("c", {4}, 2);
  onnx::NodeProto& n = b.node("Gemm", {"a", "w", "c"}, {"y"});
  setAttr(n, "alpha", 0.5f);
  setAttr(n, "beta", 2.0f);
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"dense", "add"}));
  EXPECT_EQ(g.value(g.node(0).inputs[1]).shape, (te::Shape{4, 5}));
  runtime::NDArray a = randomArray({3, 5}, 3);
  runtime::NDArray want({3, 4}, te::DType::Float32);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      float s = 0;
      for (int k = 0; k < 5; ++k) s += a.as<float>()[i * 5 + k] * w.as<float>()[k * 4 + j];
      want.as<float>()[i * 4 + j] = 0.5f * s + 2.0f * bias.as<float>()[j];
    }
  expectClose(graph::evaluateGraph(g, {a})[0], want);
}

// Gemm whose B is an activation: a matmul with the transpose flags.
TEST(OnnxModels, GemmOfTwoActivations) {
  ModelBuilder b(13);
  b.input("a", {I(5), I(3)});
  b.input("b", {I(4), I(5)});
  onnx::NodeProto& n = b.node("Gemm", {"a", "b"}, {"y"});
  setAttr(n, "transA", I(1));
  setAttr(n, "transB", I(1));
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  ASSERT_EQ(opNames(g), (std::vector<std::string>{"matmul"}));
  auto attrs = std::get<graph::MatMulAttrs>(g.node(0).attrs);
  EXPECT_TRUE(attrs.transpose_a && attrs.transpose_b);
  runtime::NDArray a = randomArray({5, 3}, 1), bb = randomArray({4, 5}, 2);
  te::Tensor A = ph("a", {5, 3}), B = ph("b", {4, 5});
  expectClose(graph::evaluateGraph(g, {a, bb})[0], evalTe({A, B}, ops::matmul(A, B, true, true), {a, bb}));
}

// PyTorch's x.view(x.size(0), -1) and friends: Shape -> Gather -> Unsqueeze -> Concat -> Reshape,
// ConstantOfShape, Range and Casts on shapes all fold away at import.
TEST(OnnxModels, ShapeSubgraphsFold) {
  ModelBuilder b(13);
  b.input("x", {I(2), I(3), I(4), I(5)});
  b.node("Shape", {"x"}, {"s"});
  runtime::NDArray zero({}, te::DType::Int64);
  setAttr(b.node("Constant", {}, {"i0"}), "value", zero);
  b.node("Gather", {"s", "i0"}, {"d0"});
  b.ints("axes0", {0});
  b.node("Unsqueeze", {"d0", "axes0"}, {"u"});
  onnx::NodeProto& m1 = b.node("Constant", {}, {"minus1"});
  setAttr(m1, "value_ints", std::vector<int64_t>{-1});
  setAttr(b.node("Concat", {"u", "minus1"}, {"shape"}), "axis", I(0));
  b.node("Reshape", {"x", "shape"}, {"flat"});
  // ones of the flat shape, through ConstantOfShape(Shape(flat)) with a float value
  b.node("Shape", {"flat"}, {"fs"});
  onnx::NodeProto& cos = b.node("ConstantOfShape", {"fs"}, {"ones"});
  setAttr(cos, "value", floatArray({1}, {2.0f}));
  b.node("Mul", {"flat", "ones"}, {"scaled"});
  // indices Range(0, Cast(Cast(d0, float), int64), 1) gathering rows
  setAttr(b.node("Cast", {"d0"}, {"d0f"}), "to", I(onnx::TensorProto::FLOAT));
  setAttr(b.node("Cast", {"d0f"}, {"d0i"}), "to", I(onnx::TensorProto::INT64));
  setAttr(b.node("Constant", {}, {"start"}), "value", zero);
  runtime::NDArray one({}, te::DType::Int64);
  one.as<int64_t>()[0] = 1;
  setAttr(b.node("Constant", {}, {"delta"}), "value", one);
  b.node("Range", {"start", "d0i", "delta"}, {"rows"});
  b.node("Gather", {"scaled", "rows"}, {"y"});
  b.output("y");

  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"reshape", "mul", "gather"}));
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (te::Shape{2, 60}));
  runtime::NDArray x = randomArray({2, 3, 4, 5}, 1);
  runtime::NDArray want({2, 60}, te::DType::Float32);
  for (int i = 0; i < 120; ++i) want.as<float>()[i] = 2.0f * x.as<float>()[i];
  expectClose(graph::evaluateGraph(g, {x})[0], want);
}

// A BERT-style self-attention block: projections become reshape-dense-reshape, the score and
// context products batched matmuls.
TEST(OnnxModels, AttentionBlock) {
  const int S = 4, H = 8, NH = 2, D = 4;
  ModelBuilder b(13);
  b.input("x", {I(1), I(S), I(H)});
  runtime::NDArray wq = b.random("wq", {H, H}, 1), wk = b.random("wk", {H, H}, 2), wv = b.random("wv", {H, H}, 3);
  runtime::NDArray wo = b.random("wo", {H, H}, 4), bq = b.random("bq", {H}, 5), bo = b.random("bo", {H}, 6);
  b.ints("heads_shape", {1, S, NH, D});
  b.ints("merged_shape", {1, S, H});
  b.floats("scale", {}, {2.0f});
  b.node("MatMul", {"x", "wq"}, {"q0"}, "q_proj");
  b.node("Add", {"q0", "bq"}, {"q1"});
  b.node("MatMul", {"x", "wk"}, {"k0"});
  b.node("MatMul", {"x", "wv"}, {"v0"});
  for (std::string t : {"q", "k", "v"}) {
    std::string src = t == "q" ? "q1" : t + "0";
    b.node("Reshape", {src, "heads_shape"}, {t + "h"});
    setAttr(b.node("Transpose", {t + "h"}, {t + "t"}), "perm",
            t == "k" ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3});
  }
  b.node("MatMul", {"qt", "kt"}, {"scores0"}, "scores");
  b.node("Div", {"scores0", "scale"}, {"scores1"});
  setAttr(b.node("Softmax", {"scores1"}, {"probs"}), "axis", I(-1));
  b.node("MatMul", {"probs", "vt"}, {"ctx"});
  setAttr(b.node("Transpose", {"ctx"}, {"ctx_t"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
  b.node("Reshape", {"ctx_t", "merged_shape"}, {"merged"});
  b.node("MatMul", {"merged", "wo"}, {"o0"});
  b.node("Add", {"o0", "bo"}, {"y"});
  b.output("y");

  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(countOp(g, "dense"), 4);
  EXPECT_EQ(countOp(g, "matmul"), 2);
  EXPECT_EQ(countOp(g, "softmax"), 1);
  const graph::Node* q = findNode(g, "q_proj/dense");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(g.value(q->inputs[0]).shape, (te::Shape{S, H}));

  runtime::NDArray x = randomArray({1, S, H}, 7);
  auto proj = [&](const runtime::NDArray& w, const runtime::NDArray* bias, const std::vector<float>& in) {
    std::vector<float> out(S * H, 0);
    for (int s = 0; s < S; ++s)
      for (int j = 0; j < H; ++j) {
        float acc = bias ? bias->as<float>()[j] : 0.0f;
        for (int k = 0; k < H; ++k) acc += in[s * H + k] * w.as<float>()[k * H + j];
        out[s * H + j] = acc;
      }
    return out;
  };
  std::vector<float> xv(x.as<float>(), x.as<float>() + S * H);
  std::vector<float> qv = proj(wq, &bq, xv), kv = proj(wk, nullptr, xv), vv = proj(wv, nullptr, xv);
  std::vector<float> ctx(S * H, 0);
  for (int h = 0; h < NH; ++h)
    for (int i = 0; i < S; ++i) {
      std::vector<float> p(S);
      float mx = -1e30f, sum = 0;
      for (int j = 0; j < S; ++j) {
        float acc = 0;
        for (int d = 0; d < D; ++d) acc += qv[i * H + h * D + d] * kv[j * H + h * D + d];
        p[j] = acc / 2.0f;
        mx = std::max(mx, p[j]);
      }
      for (int j = 0; j < S; ++j) sum += (p[j] = std::exp(p[j] - mx));
      for (int d = 0; d < D; ++d) {
        float acc = 0;
        for (int j = 0; j < S; ++j) acc += p[j] / sum * vv[j * H + h * D + d];
        ctx[i * H + h * D + d] = acc;
      }
    }
  std::vector<float> yv = proj(wo, &bo, ctx);
  expectClose(graph::evaluateGraph(g, {x})[0], floatArray({1, S, H}, yv));
}

std::vector<float> layerNormRef(const runtime::NDArray& x, const runtime::NDArray& gamma, const runtime::NDArray& beta,
                                int rows, int cols, float eps) {
  std::vector<float> out(rows * cols);
  for (int r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c) mean += x.as<float>()[r * cols + c];
    mean /= cols;
    for (int c = 0; c < cols; ++c) var += std::pow(x.as<float>()[r * cols + c] - mean, 2);
    var /= cols;
    for (int c = 0; c < cols; ++c)
      out[r * cols + c] = static_cast<float>(
          (x.as<float>()[r * cols + c] - mean) / std::sqrt(var + eps) * gamma.as<float>()[c] + beta.as<float>()[c]);
  }
  return out;
}

TEST(OnnxModels, LayerNormalizationOp) {
  ModelBuilder b(17);
  b.input("x", {I(2), I(3), I(8)});
  runtime::NDArray gamma = b.random("gamma", {8}, 1), beta = b.random("beta", {8}, 2);
  onnx::NodeProto& n = b.node("LayerNormalization", {"x", "gamma", "beta"}, {"y"});
  setAttr(n, "axis", I(-1));
  setAttr(n, "epsilon", 1e-5f);
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  ASSERT_EQ(opNames(g), (std::vector<std::string>{"layer_norm"}));
  EXPECT_EQ(std::get<graph::LayerNormAttrs>(g.node(0).attrs).axis, 2);
  runtime::NDArray x = randomArray({2, 3, 8}, 3);
  expectClose(graph::evaluateGraph(g, {x})[0], floatArray({2, 3, 8}, layerNormRef(x, gamma, beta, 6, 8, 1e-5f)));
}

// The opset < 17 export of LayerNorm: ReduceMean / Sub / Pow / Sqrt / Div imported as separate ops.
TEST(OnnxModels, LayerNormalizationDecomposition) {
  ModelBuilder b(13);
  b.input("x", {I(2), I(3), I(8)});
  runtime::NDArray gamma = b.random("gamma", {8}, 1), beta = b.random("beta", {8}, 2);
  b.floats("two", {}, {2.0f});
  b.floats("eps", {}, {1e-5f});
  setAttr(b.node("ReduceMean", {"x"}, {"mean"}), "axes", std::vector<int64_t>{-1});
  b.node("Sub", {"x", "mean"}, {"d"});
  b.node("Pow", {"d", "two"}, {"sq"});
  setAttr(b.node("ReduceMean", {"sq"}, {"var"}), "axes", std::vector<int64_t>{-1});
  b.node("Add", {"var", "eps"}, {"ve"});
  b.node("Sqrt", {"ve"}, {"sd"});
  b.node("Div", {"d", "sd"}, {"n"});
  b.node("Mul", {"n", "gamma"}, {"ng"});
  b.node("Add", {"ng", "beta"}, {"y"});
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(opNames(g),
            (std::vector<std::string>{"reduce_mean", "sub", "pow", "reduce_mean", "add", "sqrt", "div", "mul", "add"}));
  runtime::NDArray x = randomArray({2, 3, 8}, 3);
  expectClose(graph::evaluateGraph(g, {x})[0], floatArray({2, 3, 8}, layerNormRef(x, gamma, beta, 6, 8, 1e-5f)));
}

// A symbolic batch dimension resolved through options, including a dynamic flatten on top.
TEST(OnnxModels, SymbolicBatchResolvedByOptions) {
  ModelBuilder b(13);
  b.input("x", {std::string("batch"), I(3), I(4), I(4)});
  b.node("Relu", {"x"}, {"r"});
  b.node("Shape", {"r"}, {"s"});
  b.ints("idx", {0});
  b.node("Gather", {"s", "idx"}, {"n"});
  b.ints("rest", {-1});
  setAttr(b.node("Concat", {"n", "rest"}, {"shape"}), "axis", I(0));
  b.node("Reshape", {"r", "shape"}, {"y"});
  b.output("y");

  try {
    importOnnxModel(b.model());
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "input \"x\" dimension 0 is the symbolic \"batch\"; set it with OnnxOptions::dim_values[\"batch\"] or "
              "OnnxOptions::input_shapes[\"x\"]");
  }
  OnnxOptions opt;
  opt.dim_values["batch"] = 3;
  graph::Graph g = importOnnxModel(b.model(), opt);
  EXPECT_EQ(g.value(g.inputs()[0]).shape, (te::Shape{3, 3, 4, 4}));
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (te::Shape{3, 48}));
  runtime::NDArray x = randomArray({3, 3, 4, 4}, 1);
  runtime::NDArray want({3, 48}, te::DType::Float32);
  for (int i = 0; i < 144; ++i) want.as<float>()[i] = std::max(0.0f, x.as<float>()[i]);
  expectClose(graph::evaluateGraph(g, {x})[0], want);

  OnnxOptions shapes;
  shapes.input_shapes["x"] = {2, 3, 4, 4};
  EXPECT_EQ(importOnnxModel(b.model(), shapes).value(0).shape, (te::Shape{2, 3, 4, 4}));
}

}  // namespace
}  // namespace ttune::frontend
