#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "graph_test_util.h"

#include "graph/fusion.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "te/dtype_io.h"
#include "te/evaluator.h"

namespace ttune::graph {
namespace {

using testing::randomArray;

// x -> conv -> [bias] -> bn -> relu(6) -> [residual add] -> out
Graph convBlock(int64_t c, int64_t hw, int64_t k, bool relu6, bool bias = false, bool pad = true) {
  Graph g;
  int x = g.addInput("x", {1, c, hw, hw});
  int w = g.addConstant("w", randomArray({k, c, 3, 3}, 1));
  Conv2dAttrs ca;
  if (pad) ca.pads = {1, 1, 1, 1};
  int y = g.addNode("conv", ca, {x, w});
  if (bias) y = g.addNode("bias", BinaryAttrs{BinaryKind::Add}, {y, g.addConstant("b", randomArray({1, k, 1, 1}, 2))});
  int bn =
      g.addNode("bn", BatchNormAttrs{1e-5},
                {y, g.addConstant("gamma", randomArray({k}, 3, 0.5, 1.5)), g.addConstant("beta", randomArray({k}, 4)),
                 g.addConstant("mean", randomArray({k}, 5)), g.addConstant("var", randomArray({k}, 6, 0.5, 1.5))});
  UnaryAttrs act{relu6 ? UnaryKind::Clip : UnaryKind::Relu, 0, 6};
  int r = g.addNode("act", act, {bn});
  g.markOutput(r);
  return g;
}

std::vector<runtime::NDArray> evalGraph(const Graph& g, const std::vector<runtime::NDArray>& in) {
  return evaluateGraph(g, in);
}

TEST(Passes, BatchNormFoldsIntoConvAndKeepsResults) {
  for (bool bias : {false, true}) {
    Graph g = convBlock(3, 6, 4, false, bias);
    runtime::NDArray x = randomArray({1, 3, 6, 6}, 9);
    auto before = evalGraph(g, {x});
    optimizeGraph(g);
    int bns = 0, adds = 0;
    for (const Node& n : g.nodes()) {
      bns += std::holds_alternative<BatchNormAttrs>(n.attrs);
      adds += std::holds_alternative<BinaryAttrs>(n.attrs);
    }
    EXPECT_EQ(bns, 0);
    EXPECT_EQ(adds, 1);
    auto after = evalGraph(g, {x});
    auto c = runtime::compare(after[0], before[0], 1e-4, 1e-4);
    EXPECT_TRUE(c.ok()) << c.max_abs_err;
  }
}

// The exporters' x * sigmoid(x) and x * hardsigmoid(x) (either operand order) become one
// activation, so the convolution before it fuses it; a gate that is read elsewhere, or a
// hard sigmoid with other coefficients, stays as written.
TEST(Passes, ExportedSwishBecomesOneActivation) {
  Graph g;
  int x = g.addInput("x", {1, 4, 5, 5});
  int w = g.addConstant("w", randomArray({4, 4, 1, 1}, 1));
  int y = g.addNode("conv", Conv2dAttrs{}, {x, w});
  int s = g.addNode("sig", UnaryAttrs{UnaryKind::Sigmoid}, {y});
  int silu = g.addNode("silu", BinaryAttrs{BinaryKind::Mul}, {y, s});
  int h = g.addNode("hsig", UnaryAttrs{UnaryKind::HardSigmoid, 1.0 / 6, 0.5}, {silu});
  int hswish = g.addNode("hswish", BinaryAttrs{BinaryKind::Mul}, {h, silu});
  int h2 = g.addNode("hsig2", UnaryAttrs{UnaryKind::HardSigmoid, 0.2, 0.5}, {hswish});
  int other = g.addNode("other", BinaryAttrs{BinaryKind::Mul}, {hswish, h2});
  int s3 = g.addNode("sig3", UnaryAttrs{UnaryKind::Sigmoid}, {other});
  int kept = g.addNode("kept", BinaryAttrs{BinaryKind::Mul}, {other, s3});
  g.markOutput(kept);
  g.markOutput(s3);  // the gate is an output too: it must stay
  runtime::NDArray in = randomArray({1, 4, 5, 5}, 7, -4, 4);
  auto before = evalGraph(g, {in});
  Graph fused = g;
  fuseActivations(fused);
  std::map<UnaryKind, int> unary;
  for (const Node& n : fused.nodes())
    if (const UnaryAttrs* u = std::get_if<UnaryAttrs>(&n.attrs)) unary[u->kind]++;
  EXPECT_EQ(unary[UnaryKind::Silu], 1);
  EXPECT_EQ(unary[UnaryKind::HardSwish], 1);
  EXPECT_EQ(unary[UnaryKind::HardSigmoid], 1);
  EXPECT_EQ(unary[UnaryKind::Sigmoid], 1);
  auto after = evalGraph(fused, {in});
  for (size_t i = 0; i < before.size(); ++i) {
    auto c = runtime::compare(after[i], before[i], 1e-5, 1e-5);
    EXPECT_TRUE(c.ok()) << "output " << i << " max abs err " << c.max_abs_err;
  }
  optimizeGraph(g);
  int kernels_with_conv = 0;
  for (const Kernel& k : partition(g))
    if (k.class_name.find("conv2d") != std::string::npos) {
      ++kernels_with_conv;
      EXPECT_NE(k.class_name.find("silu"), std::string::npos) << k.class_name;
    }
  EXPECT_EQ(kernels_with_conv, 1);
}

// A product of activations that reads its right operand transposed (Q K^T) reads it through a
// transpose node instead, fused into the operand's producer; the results are unchanged and a
// product with a constant operand keeps its attribute.
TEST(Passes, TransposedRightOperandIsMaterialized) {
  Graph g;
  int q = g.addInput("q", {2, 5, 3});
  int k = g.addNode("k", UnaryAttrs{UnaryKind::Relu}, {g.addInput("kin", {2, 7, 3})});
  MatMulAttrs tb;
  tb.transpose_b = true;
  int scores = g.addNode("scores", tb, {q, k});
  int w = g.addConstant("w", randomArray({4, 7}, 3));
  int proj = g.addNode("proj", tb, {scores, w});
  g.markOutput(proj);
  std::vector<runtime::NDArray> in{randomArray({2, 5, 3}, 1), randomArray({2, 7, 3}, 2)};
  auto before = evalGraph(g, in);
  transposeRightOperands(g);
  int transposed = 0, transposes = 0;
  for (const Node& n : g.nodes()) {
    if (const MatMulAttrs* m = std::get_if<MatMulAttrs>(&n.attrs)) transposed += m->transpose_b;
    transposes += std::holds_alternative<TransposeAttrs>(n.attrs);
  }
  EXPECT_EQ(transposed, 1);  // the constant operand's product
  EXPECT_EQ(transposes, 1);
  auto after = evalGraph(g, in);
  auto c = runtime::compare(after[0], before[0], 1e-5, 1e-5);
  EXPECT_TRUE(c.ok()) << c.max_abs_err;
  std::vector<std::string> classes;
  for (const Kernel& kern : partition(g)) classes.push_back(kern.class_name);
  EXPECT_NE(std::find(classes.begin(), classes.end(), "relu+transpose"), classes.end());
}

TEST(Passes, ConstantFoldingAndDeadCode) {
  Graph g;
  int x = g.addInput("x", {2, 3});
  int a = g.addConstant("a", randomArray({2, 3}, 1));
  int b = g.addConstant("b", randomArray({2, 3}, 2));
  int ab = g.addNode("ab", BinaryAttrs{BinaryKind::Mul}, {a, b});  // constant
  int dead = g.addNode("dead", UnaryAttrs{UnaryKind::Exp}, {x});
  (void)dead;
  int y = g.addNode("y", BinaryAttrs{BinaryKind::Add}, {x, ab});
  g.markOutput(y);
  optimizeGraph(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_TRUE(g.value(ab).isConstant());
}

// Evaluating a concatenation copies blocks instead of choosing the operand per element: the same
// values as the te evaluator computes for the op, on every axis, for 8-, 32- and 64-bit elements.
TEST(Passes, ConcatenationsMatchTheEvaluator) {
  for (te::DType dtype : {te::DType::Float32, te::DType::Int64, te::DType::Int8})
    for (int64_t axis : {0, 1, 2, -1}) {
      size_t ax = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
      std::vector<runtime::NDArray> parts;
      for (int64_t extent : {2, 3, 1}) {
        te::Shape s{2, 3, 4};
        s[ax] = extent;
        runtime::NDArray a(s, dtype);
        for (int64_t i = 0; i < a.numElements(); ++i)
          te::storeDouble(a.data(), dtype, i, static_cast<double>((i * 7 + extent * 13) % 101 - 50));
        parts.push_back(a);
      }
      Graph g;
      std::vector<int> consts;
      std::vector<te::Tensor> ph;
      std::vector<void*> args;
      for (size_t k = 0; k < parts.size(); ++k) {
        consts.push_back(g.addConstant("c" + std::to_string(k), parts[k]));
        ph.push_back(te::placeholder("x" + std::to_string(k), parts[k].shape(), dtype));
        args.push_back(parts[k].data());
      }
      int c = g.addNode("cat", ConcatAttrs{axis}, consts);
      runtime::NDArray fast = evaluateConstantNode(g, g.node(0));
      te::Tensor out = buildOp(ConcatAttrs{axis}, ph);
      runtime::NDArray want(out.shape(), dtype);
      args.push_back(want.data());
      te::evaluate(te::ComputeDAG(ph, {out}), args);
      ASSERT_EQ(fast.shape(), want.shape()) << "axis " << axis;
      ASSERT_EQ(fast.shape(), g.value(c).shape);
      for (int64_t i = 0; i < want.numElements(); ++i)
        ASSERT_EQ(te::loadDouble(fast.data(), dtype, i), te::loadDouble(want.data(), dtype, i))
            << te::dtypeName(dtype) << " axis " << axis << " element " << i;
    }
}

TEST(Fusion, ConvAbsorbsElementwiseChain) {
  Graph g = convBlock(3, 8, 4, false);
  optimizeGraph(g);
  auto ks = partition(g);
  // The input is transposed to NHWC once; the conv kernel absorbs the chain and the transpose of
  // the graph output back to NCHW.
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].class_name, "transpose");
  EXPECT_EQ(ks[1].class_name, "pad+conv2d_nhwc+add+relu+transpose");
  EXPECT_EQ(ks[1].dag->inputs().size(), 3u);  // x, folded weight, folded bias
  EXPECT_TRUE(ks[1].dag->inputs()[1].op().placeholder().is_constant);
}

TEST(Fusion, ClassesAcrossShapesAndStructures) {
  auto kernelOf = [](Graph g) {
    optimizeGraph(g, {.channels_last = true, .winograd = false});  // direct convolutions' classes
    return partition(g).at(1);                                     // after the input's transpose to NHWC
  };
  Kernel a = kernelOf(convBlock(3, 8, 4, false));
  Kernel b = kernelOf(convBlock(16, 14, 32, false));
  Kernel c = kernelOf(convBlock(3, 8, 4, true));
  Kernel d = kernelOf(convBlock(3, 8, 4, false, false, false));
  EXPECT_EQ(a.class_id, b.class_id);  // same structure, other shapes
  EXPECT_NE(a.workload_key, b.workload_key);
  EXPECT_NE(a.class_id, c.class_id);  // relu vs relu6
  EXPECT_EQ(c.class_name, "pad+conv2d_nhwc+add+clip+transpose");
  EXPECT_NE(a.class_id, d.class_id);  // no padding stage
  EXPECT_EQ(a.workload_key, kernelOf(convBlock(3, 8, 4, false)).workload_key);
}

TEST(Fusion, BranchesResidualsAndReductions) {
  // x -> conv1 -> relu --+--> conv2 -> add(residual) -> relu -> pool -> flatten -> dense -> softmax
  Graph g;
  int x = g.addInput("x", {1, 4, 8, 8});
  Conv2dAttrs ca;
  ca.pads = {1, 1, 1, 1};
  int c1 = g.addNode("c1", ca, {x, g.addConstant("w1", randomArray({4, 4, 3, 3}, 1))});
  int r1 = g.addNode("r1", UnaryAttrs{UnaryKind::Relu}, {c1});
  int c2 = g.addNode("c2", ca, {r1, g.addConstant("w2", randomArray({4, 4, 3, 3}, 2))});
  int add = g.addNode("add", BinaryAttrs{BinaryKind::Add}, {c2, r1});
  int r2 = g.addNode("r2", UnaryAttrs{UnaryKind::Relu}, {add});
  int p = g.addNode("pool", GlobalPool2dAttrs{PoolKind::Avg}, {r2});
  int f = g.addNode("flat", ReshapeAttrs{{1, 4}}, {p});
  int d = g.addNode("fc", DenseAttrs{}, {f, g.addConstant("wf", randomArray({10, 4}, 3))});
  int s = g.addNode("sm", SoftmaxAttrs{-1}, {d});
  g.markOutput(s);
  optimizeGraph(g);
  auto ks = partition(g);
  std::vector<std::string> names;
  for (const auto& k : ks) names.push_back(k.class_name);
  // NHWC from the input's transpose to the pooled [1, 1, 1, 4], which is NCHW order already.
  EXPECT_EQ(names, (std::vector<std::string>{"transpose", "pad+conv2d_nhwc+relu", "pad+conv2d_nhwc+add+relu",
                                             "global_pool_sum+global_pool_avg+reshape+reshape", "dense",
                                             "softmax_maxelem+softmax_exp+softmax_expsum+softmax_norm"}));
  // r1 feeds two kernels, so it is an output of the one computing it.
  EXPECT_EQ(ks[1].outputs.size(), 1u);
  EXPECT_EQ(ks[2].inputs.size(), 2u);  // r1 (read by the conv and the residual add) and w2
}

}  // namespace
}  // namespace ttune::graph

namespace ttune::graph {
namespace {

// A contiguous slice of a value with several readers is a view (an alias at an offset), so the
// kernels reading different slices are one workload; a slice that is its producer's only reader
// stays fused into the producer (computing only what it selects).
TEST(Fusion, ContiguousSlicesOfASharedValueAreViews) {
  Graph g;
  int x = g.addInput("x", {6, 2, 8});
  int y = g.addNode("sq", BinaryAttrs{BinaryKind::Mul}, {x, x});
  std::vector<int> outs;
  for (int64_t t = 0; t < 6; ++t) {
    int s = g.addNode("step" + std::to_string(t), SliceAttrs{{t}, {t + 1}, {0}, {1}}, {y});
    s = g.addNode("rows" + std::to_string(t), ReshapeAttrs{{2, 8}}, {s});
    outs.push_back(g.addNode("act" + std::to_string(t), UnaryAttrs{UnaryKind::Tanh}, {s}));
  }
  int strided = g.addNode("strided", SliceAttrs{{0}, {6}, {0}, {2}}, {y});  // every other step: a copy
  for (int o : outs) g.markOutput(o);
  g.markOutput(strided);
  std::vector<Kernel> ks = partition(g);
  int views = 0;
  std::map<std::string, int> tanh_workloads;
  for (const Kernel& k : ks) {
    if (k.alias_only) {
      EXPECT_EQ(k.alias_offset_bytes % (2 * 8 * 4), 0);
      ++views;
    }
    if (k.class_name.find("tanh") != std::string::npos) ++tanh_workloads[k.workload_key];
  }
  EXPECT_EQ(views, 6);
  EXPECT_EQ(tanh_workloads.size(), 1u) << "every step's kernel is one workload";
}

}  // namespace
}  // namespace ttune::graph
