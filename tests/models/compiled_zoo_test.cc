// Every zoo model builds, compiles and runs (each distinct kernel checked against the reference
// evaluator: small ones at every output point, big ones at sampled points), with a stable kernel
// list (stride-1 3x3 convolutions run as Winograd: an input-transform kernel and a matrix-product
// kernel each); small models also match, as a whole, an independent plain-loop implementation of
// their operators (tests/models/reference.h).
#include <gtest/gtest.h>

#include "executor/executor.h"
#include "graph/passes.h"
#include "models/zoo.h"
#include "reference.h"

namespace ttune::models {
namespace {

struct Expect {
  const char* model;
  size_t kernels, instances;
};

class CompiledZoo : public ::testing::TestWithParam<Expect> {};

TEST_P(CompiledZoo, CompilesRunsAndChecks) {
  const Expect& e = GetParam();
  graph::Graph g = buildModel(e.model);
  graph::optimizeGraph(g);
  executor::CompiledModel m = executor::CompiledModel::compile(g);
  EXPECT_EQ(m.kernels().size(), e.kernels);
  EXPECT_EQ(m.instances().size(), e.instances);
  auto inputs = executor::randomInputs(g, 1);
  const ModelInfo& info = modelInfo(e.model);
  if (!te::isFloat(info.input_dtype)) inputs[0].fillRandom(1, info.input_lo, info.input_hi);
  executor::CheckReport rep;
  // Every output point of kernels under ~1M elements and 100 MFLOP (the evaluator interprets:
  // bigger ones would take minutes), 4096 random points of the rest.
  executor::CheckOptions check;
  check.samples_per_output = 4096;
  check.whole_up_to_elements = int64_t(1) << 20;
  check.whole_up_to_flops = 1e8;
  auto out = m.runChecked(inputs, &rep, check);
  EXPECT_TRUE(rep.ok()) << rep.worst_kernel << " max abs err " << rep.max_abs_err;
  EXPECT_EQ(rep.kernels_checked, static_cast<int>(e.kernels));
  EXPECT_GE(rep.kernels_checked_whole, rep.kernels_checked / 3) << "most kernels are small enough to check whole";
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), info.output_shape);
}

INSTANTIATE_TEST_SUITE_P(Models, CompiledZoo,
                         ::testing::Values(Expect{"resnet18", 23, 37}, Expect{"resnet50", 32, 70},
                                           Expect{"alexnet", 16, 16}, Expect{"vgg16", 27, 35},
                                           Expect{"mobilenet_v2", 33, 55}, Expect{"efficientnet_b0", 62, 100},
                                           Expect{"efficientnet_b4", 73, 195}, Expect{"googlenet", 88, 101},
                                           Expect{"mnasnet1_0", 36, 55}, Expect{"bert_base", 13, 136},
                                           Expect{"mobilebert", 19, 440}, Expect{"resnext50_32x4d", 28, 57},
                                           Expect{"regnet_y_400mf", 44, 104}),
                         [](const ::testing::TestParamInfo<Expect>& i) { return std::string(i.param.model); });

// Whole-model outputs against the independent implementation (before graph optimization: it
// interprets batch norms as written).
TEST(CompiledZooWhole, MobileNetV2MatchesIndependentImplementation) {
  graph::Graph g = buildModel("mobilenet_v2");
  auto inputs = executor::randomInputs(g, 3);
  auto expected = testing::interpret(g, inputs);
  graph::optimizeGraph(g);
  executor::CompiledModel m = executor::CompiledModel::compile(g);
  auto out = m.run(inputs);
  EXPECT_TRUE(testing::near(out[0], expected[0], 1e-3, 1e-3));
}

}  // namespace
}  // namespace ttune::models
