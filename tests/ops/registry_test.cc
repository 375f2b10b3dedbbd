// The operator registry: every entry builds with its defaults and evaluates on its small example;
// parameter parsing rejects bad input with messages naming the operator and the key.
#include "ops/registry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "test_util.h"

namespace ttune::ops {
namespace {

using namespace ttune::ops::testing;

// Inputs filled with values that keep every registered op finite: floats in [0.5, 1.5] (sqrt,
// log, pow, variances), integers in [0, 2] (valid gather indices), alternating bools.
std::vector<Buffer> positiveInputs(const OpInstance& inst, Rng& rng) {
  std::vector<Buffer> data;
  for (const te::Tensor& t : inst.inputs) {
    if (t.dtype() == te::DType::Float32)
      data.push_back(randomBuffer(t.shape(), rng, 0.5, 1.5));
    else if (t.dtype() == te::DType::Bool)
      data.push_back(randomBuffer(t.shape(), rng, 0, 1, t.dtype()));
    else
      data.push_back(randomBuffer(t.shape(), rng, 0, 2, t.dtype()));
  }
  return data;
}

void expectFinite(const std::vector<Buffer>& outs) {
  for (const Buffer& b : outs)
    for (int64_t i = 0; i < b.size(); ++i) ASSERT_TRUE(std::isfinite(b.get(i))) << "element " << i;
}

TEST(Registry, HasTheRequiredOperatorsSortedAndUnique) {
  std::set<std::string> names;
  std::string prev;
  for (const OpEntry& e : allOps()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_LT(prev, e.name);
    prev = e.name;
    EXPECT_FALSE(e.summary.empty()) << e.name;
    EXPECT_FALSE(e.example.empty()) << e.name;
  }
  for (const char* n : {"conv2d",       "depthwise_conv2d",
                        "dense",        "matmul",
                        "batch_matmul", "max_pool2d",
                        "avg_pool2d",   "global_avg_pool2d",
                        "relu",         "clip",
                        "relu6",        "sigmoid",
                        "tanh",         "exp",
                        "sqrt",         "erf",
                        "gelu",         "silu",
                        "hardswish",    "hardsigmoid",
                        "neg",          "abs",
                        "leaky_relu",   "add",
                        "sub",          "mul",
                        "div",          "maximum",
                        "minimum",      "pow",
                        "softmax",      "layer_norm",
                        "reduce_sum",   "reduce_mean",
                        "reduce_max",   "batch_norm",
                        "pad",          "concat",
                        "reshape",      "flatten",
                        "transpose",    "slice",
                        "gather",       "conv2d_bias_relu",
                        "dense_gelu"})
    EXPECT_TRUE(names.count(n)) << n;
}

TEST(Registry, EveryOpBuildsWithDefaultsAndEvaluatesItsExample) {
  Rng rng(50);
  for (const OpEntry& e : allOps()) {
    SCOPED_TRACE(e.name);
    OpInstance def = e.build(Params::defaults(e));
    te::ComputeDAG dag = def.dag();
    EXPECT_GE(dag.numOps(), 2);
    EXPECT_FALSE(def.outputs.empty());
    // Activations come before weights.
    bool seen_constant = false;
    for (const te::Tensor& t : def.inputs) {
      bool c = t.op().placeholder().is_constant;
      EXPECT_FALSE(seen_constant && !c) << "activation " << t.name() << " after a weight";
      seen_constant |= c;
    }
    // Defaults are realistic sizes; evaluate them only when that is cheap.
    int64_t elems = 0;
    for (const te::Tensor& t : dag.tensors()) elems += t.op().numElements();
    if (elems < 600000 && dag.flops() < 4e6) expectFinite(run(def.inputs, positiveInputs(def, rng), def.outputs));

    OpInstance small = buildOp(e.name, e.example);
    expectFinite(run(small.inputs, positiveInputs(small, rng), small.outputs));
  }
}

TEST(Registry, IssueExampleConv) {
  OpInstance inst = buildOp("conv2d", {"N=1", "C=64", "H=56", "W=56", "K=64", "R=3", "S=3", "stride=1", "pad=1"});
  ASSERT_EQ(inst.outputs.size(), 1u);
  EXPECT_EQ(inst.outputs[0].shape(), (Shape{1, 64, 56, 56}));
  EXPECT_EQ(inst.inputs[0].name(), "data");
  EXPECT_TRUE(inst.inputs[1].op().placeholder().is_constant);
  te::ComputeDAG dag = inst.dag();
  EXPECT_GE(dag.opIndex("pad"), 0);
  EXPECT_GE(dag.opIndex("conv2d_nchw"), 0);
  EXPECT_DOUBLE_EQ(dag.flops(), 2.0 * 64 * 56 * 56 * 64 * 9);
  OpInstance nhwc = buildOp("conv2d", {"layout=NHWC", "H=14", "W=14", "stride=2,1", "pad=0,1,1,1"});
  EXPECT_EQ(nhwc.outputs[0].shape(), (Shape{1, 7, 14, 64}));
  EXPECT_EQ(nhwc.outputs[0].name(), "conv2d_nhwc");
}

TEST(Registry, FusedConvBiasReluMatchesReference) {
  Rng rng(51);
  OpInstance inst = buildOp("conv2d_bias_relu", {"C=3", "H=5", "W=6", "K=4", "pad=1"});
  te::ComputeDAG dag = inst.dag();
  std::vector<std::string> names;
  for (const te::Tensor& t : dag.ops()) names.push_back(t.name());
  EXPECT_EQ(names, (std::vector<std::string>{"data", "weight", "bias", "pad", "conv2d_nchw", "T_add", "T_relu"}));
  std::vector<Buffer> data = {randomBuffer({1, 3, 5, 6}, rng), randomBuffer({4, 3, 3, 3}, rng),
                              randomBuffer({4, 1, 1}, rng)};
  std::vector<double> want;
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t y = 0; y < 5; ++y)
      for (int64_t x = 0; x < 6; ++x) {
        double s = data[2].get(k);
        for (int64_t c = 0; c < 3; ++c)
          for (int64_t r = 0; r < 3; ++r)
            for (int64_t q = 0; q < 3; ++q) {
              int64_t iy = y + r - 1, ix = x + q - 1;
              if (iy >= 0 && iy < 5 && ix >= 0 && ix < 6) s += data[0].at({0, c, iy, ix}) * data[1].at({k, c, r, q});
            }
        want.push_back(std::max(s, 0.0));
      }
  EXPECT_TRUE(allClose(run(inst.inputs, data, inst.outputs)[0], {1, 4, 5, 6}, want));
}

TEST(Registry, FusedDenseGeluMatchesReference) {
  Rng rng(52);
  OpInstance inst = buildOp("dense_gelu", {"M=3", "N=5", "K=7"});
  std::vector<Buffer> data = {randomBuffer({3, 7}, rng), randomBuffer({5, 7}, rng), randomBuffer({5}, rng)};
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      double s = data[2].get(j);
      for (int64_t k = 0; k < 7; ++k) s += data[0].at({i, k}) * data[1].at({j, k});
      want.push_back(0.5 * s * (1 + std::erf(s / std::sqrt(2.0))));
    }
  EXPECT_TRUE(allClose(run(inst.inputs, data, inst.outputs)[0], {3, 5}, want));
}

TEST(Params, ParsesTypedValues) {
  const OpEntry& e = findOp("max_pool2d");
  Params p = Params::parse(e, {"C=3", "kernel=2,3", "ceil_mode=true", "shape="});
  EXPECT_EQ(p.opName(), "max_pool2d");
  EXPECT_EQ(p.integer("C"), 3);
  EXPECT_TRUE(p.isSet("C"));
  EXPECT_FALSE(p.isSet("N"));
  EXPECT_EQ(p.integer("N"), 1);
  EXPECT_TRUE(p.flag("ceil_mode"));
  EXPECT_EQ(p.ints("kernel"), (std::vector<int64_t>{2, 3}));
  EXPECT_DOUBLE_EQ(p.real("C"), 3.0);
  EXPECT_NE(p.toString().find("kernel=2,3"), std::string::npos);
  Params q = Params::parse(findOp("clip"), {"min=-1.5", "max=2"});
  EXPECT_DOUBLE_EQ(q.real("min"), -1.5);
  EXPECT_DOUBLE_EQ(q.real("max"), 2.0);
  Params s = Params::parse(findOp("concat"), {"shapes=1x2x3,4x5"});
  EXPECT_EQ(s.shapes("shapes"), (std::vector<Shape>{{1, 2, 3}, {4, 5}}));
  Params t = Params::parse(findOp("relu"), {" shape = 2x3 "});
  EXPECT_EQ(t.shape("shape"), (Shape{2, 3}));
  EXPECT_NE(usage(findOp("conv2d")).find("layout=NCHW"), std::string::npos);
}

TEST(Params, RejectsBadInput) {
  EXPECT_OP_ERROR(findOp("conv3d"), "unknown operator 'conv3d'; run `ttune ops` to list them");
  EXPECT_OP_ERROR(buildOp("conv3d", {}), "unknown operator 'conv3d'");
  EXPECT_OP_ERROR(buildOp("conv2d", {"Q=3"}), "conv2d: unknown parameter 'Q'", "known: N, C");
  EXPECT_OP_ERROR(buildOp("conv2d", {"N=abc"}), "conv2d: parameter 'N' expects an integer, got 'abc'");
  EXPECT_OP_ERROR(buildOp("conv2d", {"N=1.5"}), "conv2d", "'N' expects an integer");
  EXPECT_OP_ERROR(buildOp("clip", {"min=low"}), "clip: parameter 'min' expects a number, got 'low'");
  EXPECT_OP_ERROR(buildOp("conv2d", {"N"}), "conv2d: expected key=value, got 'N'");
  EXPECT_OP_ERROR(buildOp("conv2d", {"=3"}), "conv2d: expected key=value");
  EXPECT_OP_ERROR(buildOp("conv2d", {"N=1", "N=2"}), "conv2d: parameter 'N' is given twice");
  EXPECT_OP_ERROR(buildOp("conv2d", {"layout=NCWH"}), "conv2d", "layout", "NCWH");
  EXPECT_OP_ERROR(buildOp("conv2d", {"stride=1,2,3"}), "conv2d", "stride");
  EXPECT_OP_ERROR(buildOp("conv2d", {"pad=a"}), "conv2d", "'pad' expects a comma-separated list of integers");
  EXPECT_OP_ERROR(buildOp("conv2d", {"groups=5"}), "conv2d", "groups=5");
  EXPECT_OP_ERROR(buildOp("conv2d", {"C=0"}), "conv2d", "every dimension must be positive");
  EXPECT_OP_ERROR(buildOp("conv2d", {"H=2", "W=2"}), "conv2d_nchw", "kernel height 3");
  EXPECT_OP_ERROR(buildOp("relu", {"shape=2x0"}), "relu", "'shape' expects a shape");
  EXPECT_OP_ERROR(buildOp("add", {"a_shape=2x3", "b_shape=4"}), "add: shapes [2, 3] and [4] do not broadcast");
  EXPECT_OP_ERROR(buildOp("pad", {"pads=1,1"}), "pad", "needs 8 integers");
  EXPECT_OP_ERROR(buildOp("pad", {"mode=wrap"}), "pad", "mode", "wrap");
  EXPECT_OP_ERROR(buildOp("cast", {"dtype=float8"}), "cast", "float8");
  EXPECT_OP_ERROR(buildOp("gather", {"index_dtype=float32"}), "gather", "int32 or int64");
  EXPECT_OP_ERROR(buildOp("layer_norm", {"axis=5"}), "layer_norm", "axis 5 is out of range");
}

}  // namespace
}  // namespace ttune::ops
