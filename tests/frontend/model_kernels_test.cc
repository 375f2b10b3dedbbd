// Property test on the kernels real operator mixes fuse into: small ONNX models (a bilinear
// Resize of a convolution's output, as in fcn_resnet50 and lraspp; a transposed convolution with
// its phase interleave; a 3-D convolution with its depth-tap gather; an LSTM step; attention
// through Einsum with a causal mask) are imported, optimized and partitioned as `ttune run` does,
// and every kernel is compiled under its default schedule and under random valid schedules, each
// checked against the reference evaluator. The code generator thus sees the operator mixes that
// once produced invalid IR (a masked load over a vector of pointers in the Resize) under many
// loop structures, not only the default one.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "common/check.h"
#include "common/random_schedule.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/fusion.h"
#include "graph/passes.h"
#include "measure/builder.h"
#include "onnx_builder.h"
#include "schedule/record.h"
#include "test_util.h"

namespace ttune::frontend {
namespace {

using namespace testing;
using I = int64_t;

struct ModelCase {
  const char* name;
  std::function<void(ModelBuilder&)> build;
};

const std::vector<ModelCase>& models() {
  static const std::vector<ModelCase> m = {
      {"conv_resize_bilinear",
       [](ModelBuilder& b) {
         // Rows of 28 (a vector and a masked tail on AVX-512 and AVX2), as fcn_resnet50's 28 -> 224.
         b.input("x", {I(1), I(3), I(28), I(28)});
         b.random("w", {2, 3, 1, 1}, 1);
         b.ints("sizes", {1, 2, 32, 32});
         b.node("Conv", {"x", "w"}, {"c"});
         onnx::NodeProto& r = b.node("Resize", {"c", "", "", "sizes"}, {"r"});
         setAttr(r, "mode", std::string("linear"));
         setAttr(r, "coordinate_transformation_mode", std::string("half_pixel"));
         b.node("Sigmoid", {"r"}, {"s"});
         b.node("Mul", {"s", "r"}, {"y"});
         b.output("y");
       }},
      {"conv_transpose",
       [](ModelBuilder& b) {
         b.input("x", {I(1), I(6), I(5), I(4)});
         b.random("w", {6, 3, 4, 4}, 2);
         b.random("bias", {3}, 3);
         onnx::NodeProto& n = b.node("ConvTranspose", {"x", "w", "bias"}, {"t"});
         setAttr(n, "strides", std::vector<int64_t>{2, 2});
         setAttr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
         b.node("Tanh", {"t"}, {"y"});
         b.output("y");
       }},
      {"conv3d",
       [](ModelBuilder& b) {
         b.input("x", {I(1), I(3), I(5), I(6), I(6)});
         b.random("w", {4, 3, 3, 3, 3}, 4);
         onnx::NodeProto& n = b.node("Conv", {"x", "w"}, {"c"});
         setAttr(n, "pads", std::vector<int64_t>{1, 1, 1, 1, 1, 1});
         setAttr(n, "strides", std::vector<int64_t>{2, 1, 1});
         b.node("Relu", {"c"}, {"y"});
         b.output("y");
       }},
      {"lstm",
       [](ModelBuilder& b) {
         b.input("x", {I(4), I(1), I(6)});
         b.random("W", {1, 20, 6}, 5, -0.5, 0.5);
         b.random("R", {1, 20, 5}, 6, -0.5, 0.5);
         b.random("B", {1, 40}, 7);
         setAttr(b.node("LSTM", {"x", "W", "R", "B"}, {"y", "h"}), "hidden_size", I(5));
         b.output("y");
       }},
      {"causal_attention_einsum",
       [](ModelBuilder& b) {
         b.input("q", {I(2), I(7), I(8)});
         b.input("k", {I(2), I(7), I(8)});
         runtime::NDArray mask({7, 7}, te::DType::Bool);
         for (int i = 0; i < 7; ++i)
           for (int j = 0; j <= i; ++j) mask.as<uint8_t>()[i * 7 + j] = 1;
         b.initializer("mask", mask);
         b.floats("ninf", {}, {-1e9f});
         setAttr(b.node("Einsum", {"q", "k"}, {"s"}), "equation", std::string("bqd,bkd->bqk"));
         b.node("Where", {"mask", "s", "ninf"}, {"m"});
         setAttr(b.node("Softmax", {"m"}, {"y"}), "axis", I(-1));
         b.output("y");
       }},
      {"channel_shuffle",  // ShuffleNet v2's unit: split, a branch, concat, shuffle, split again
       [](ModelBuilder& b) {
         b.input("x", {I(1), I(16), I(5), I(19)});
         b.ints("split", {8, 8});
         setAttr(b.node("Split", {"x", "split"}, {"x1", "x2"}), "axis", I(1));
         b.random("w", {8, 8, 1, 1}, 8);
         b.node("Relu", {b.node("Conv", {"x2", "w"}, {"c"}).output(0)}, {"r"});
         setAttr(b.node("Concat", {"x1", "r"}, {"cat"}), "axis", I(1));
         b.ints("shape5", {1, 2, 8, 5, 19});
         b.node("Reshape", {"cat", "shape5"}, {"v"});
         setAttr(b.node("Transpose", {"v"}, {"t"}), "perm", std::vector<int64_t>{0, 2, 1, 3, 4});
         b.ints("shape4", {1, 16, 5, 19});
         b.node("Reshape", {"t", "shape4"}, {"s"});
         setAttr(b.node("Split", {"s", "split"}, {"y1", "y2"}), "axis", I(1));
         b.random("w2", {8, 8, 3, 3}, 9);
         setAttr(b.node("Conv", {"y2", "w2"}, {"c2"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
         b.node("Add", {"y1", "c2"}, {"y"});
         b.output("y");
       }},
      {"instance_norm_rgb_head",  // a style-transfer network's last layers: NHWC norm, NCHW head
       [](ModelBuilder& b) {
         b.input("x", {I(1), I(4), I(6), I(37)});
         b.random("w", {8, 4, 3, 3}, 10);
         setAttr(b.node("Conv", {"x", "w"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
         b.random("scale", {8}, 11);
         b.random("bias", {8}, 12);
         b.node("InstanceNormalization", {"c", "scale", "bias"}, {"n"});
         b.node("Relu", {"n"}, {"r"});
         b.random("wh", {3, 8, 5, 5}, 13);
         setAttr(b.node("Conv", {"r", "wh"}, {"h"}), "pads", std::vector<int64_t>{2, 2, 2, 2});
         b.node("Tanh", {"h"}, {"y"});
         b.output("y");
       }},
  };
  return m;
}

constexpr int kSchedulesPerKernel = 10;

class ModelKernels : public ::testing::TestWithParam<size_t> {};

TEST_P(ModelKernels, DefaultAndRandomSchedulesMatchTheReference) {
  const ModelCase& mc = models()[GetParam()];
  ModelBuilder b(13);
  mc.build(b);
  graph::Graph g = importOnnxModel(b.model());
  graph::optimizeGraph(g, {.vector_lanes = codegen::hostTarget().lanes()});
  std::set<std::string> seen;
  int kernels = 0;
  for (const graph::Kernel& k : graph::partition(g)) {
    if (k.alias_only || !seen.insert(k.workload_key).second) continue;
    ++kernels;
    ttune::testing::Checker checker(k.dag, 11);
    std::vector<schedule::State> states;
    auto def = schedule::State::replay(k.dag, measure::defaultScheduleFor(*k.dag, codegen::hostTarget()));
    ASSERT_TRUE(def.ok()) << k.class_name << ": " << def.error();
    states.push_back(*def);
    for (int i = 0; i < kSchedulesPerKernel; ++i)
      states.push_back(ttune::testing::randomSchedule(k.dag, 100 * GetParam() + i));
    for (size_t i = 0; i < states.size(); ++i) {
      auto r = checker.check(states[i], i % 2 == 0 ? 3 : 1);
      std::string steps;
      for (const auto& st : states[i].steps()) steps += "  " + schedule::stepToString(st) + "\n";
      ASSERT_TRUE(r.built) << mc.name << " kernel " << k.class_name << " schedule " << i << ": " << r.error << "\n"
                           << steps;
      ASSERT_TRUE(r.cmp.ok()) << mc.name << " kernel " << k.class_name << " schedule " << i << " max abs err "
                              << r.cmp.max_abs_err << "\n"
                              << steps << r.lowered;
    }
  }
  EXPECT_GT(kernels, 0);
}

INSTANTIATE_TEST_SUITE_P(Mixes, ModelKernels, ::testing::Range<size_t>(0, models().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return std::string(models()[info.param].name);
                         });

}  // namespace
}  // namespace ttune::frontend
