// Manual check (disabled by default: it runs whole models through the slow reference
// interpreter, about a minute for the zoo): on a random input, every activation of every zoo model
// stays finite and in a sane range, so that outputs can be compared numerically. Run with
//   test_models --gtest_also_run_disabled_tests --gtest_filter='*ActivationRanges*'
#include <gtest/gtest.h>

#include <cmath>

#include "models/zoo.h"
#include "reference.h"

namespace ttune::models {
namespace {

class ActivationRanges : public ::testing::TestWithParam<std::string> {};

TEST_P(ActivationRanges, DISABLED_StayFiniteAndBounded) {
  const ModelInfo& info = modelInfo(GetParam());
  graph::Graph g = buildModel(info.name);
  runtime::NDArray x = runtime::NDArray::empty(info.input_shape, info.input_dtype);
  x.fillRandom(1, info.input_lo, info.input_hi);
  double worst = 0;
  std::string worst_node;
  auto observe = [&](int node, const runtime::NDArray& r) {
    if (r.dtype() != te::DType::Float32) return;
    for (int64_t i = 0; i < r.numElements(); ++i) {
      double v = std::fabs(r.as<float>()[i]);
      ASSERT_TRUE(std::isfinite(v)) << g.node(node).name;
      if (v > worst) {
        worst = v;
        worst_node = g.node(node).name;
      }
    }
  };
  std::vector<runtime::NDArray> out = testing::interpret(g, {x}, observe);
  double sum = 0, sq = 0, mx = 0;
  int64_t n = out[0].numElements();
  for (int64_t i = 0; i < n; ++i) {
    double v = out[0].as<float>()[i];
    sum += v;
    sq += v * v;
    mx = std::max(mx, std::fabs(v));
  }
  double mean = sum / static_cast<double>(n);
  std::cout << "[ ranges   ] " << info.name << ": output mean " << mean << " std "
            << std::sqrt(std::max(0.0, sq / static_cast<double>(n) - mean * mean)) << " max|.| " << mx
            << "; largest activation " << worst << " at " << worst_node << "\n";
  EXPECT_LT(worst, 1e4);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ActivationRanges,
                         ::testing::Values("resnet18", "resnet50", "alexnet", "vgg16", "mobilenet_v2",
                                           "efficientnet_b0", "efficientnet_b4", "googlenet", "mnasnet1_0", "bert_base",
                                           "mobilebert"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace ttune::models
