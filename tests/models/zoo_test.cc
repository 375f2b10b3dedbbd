// Zoo-level checks: every model builds with the published structure (output shape, parameter
// count, operator counts, FLOPs), follows the graph conventions the passes rely on, and builds
// deterministically. Each model is built once (VGG-16 and BERT allocate hundreds of MB).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "models/zoo.h"
#include "reference.h"
#include "support/error.h"

namespace ttune::models {
namespace {

struct Expect {
  std::string name;
  int64_t params;  // torchvision / HuggingFace parameter count (BERTs: + the 2-class classifier)
  int convs, dense, batch_norms, nodes;
  double gflops_lo, gflops_hi;  // multiply-add = 2 FLOPs
};

void PrintTo(const Expect& e, std::ostream* os) { *os << e.name; }

const std::vector<Expect>& expectations() {
  static const std::vector<Expect> e = {
      {"resnet18", 11689512, 20, 1, 20, 70, 3.6, 3.7},
      {"resnet50", 25557032, 53, 1, 53, 176, 8.2, 8.3},
      {"alexnet", 61100840, 5, 3, 0, 28, 1.4, 1.5},
      {"vgg16", 138357544, 13, 3, 0, 54, 30.9, 31.1},
      {"mobilenet_v2", 3504872, 52, 1, 52, 153, 0.62, 0.68},
      {"efficientnet_b0", 5288548, 81, 1, 49, 272, 0.8, 0.86},
      {"efficientnet_b4", 19341616, 160, 1, 96, 541, 3.1, 3.2},
      {"googlenet", 6624904, 57, 1, 57, 197, 3.0, 3.1},
      {"mnasnet1_0", 4383312, 52, 1, 52, 152, 0.64, 0.7},
      {"bert_base", 109483778, 0, 74, 0, 361, 45.5, 46.5},
      {"mobilebert", 24582914, 0, 362, 0, 1650, 11.0, 11.5},
      {"resnext50_32x4d", 25028904, 53, 1, 53, 176, 8.4, 8.6},
      {"regnet_y_400mf", 4344144, 85, 1, 53, 303, 0.80, 0.84},
  };
  return e;
}

class ZooModel : public ::testing::TestWithParam<Expect> {};

TEST_P(ZooModel, BuildsWithThePublishedStructure) {
  const Expect& want = GetParam();
  ASSERT_TRUE(isZooModel(want.name));
  const ModelInfo& info = modelInfo(want.name);
  graph::Graph g = buildModel(want.name);

  // One input as described, one output of the expected shape.
  ASSERT_EQ(g.inputs().size(), 1u);
  const graph::Value& in = g.value(g.inputs()[0]);
  EXPECT_EQ(in.name, info.input_name);
  EXPECT_EQ(in.shape, info.input_shape);
  EXPECT_EQ(in.dtype, info.input_dtype);
  ASSERT_EQ(g.outputs().size(), 1u);
  EXPECT_EQ(g.value(g.outputs()[0]).shape, info.output_shape);
  EXPECT_EQ(g.value(g.outputs()[0]).dtype, te::DType::Float32);

  EXPECT_EQ(parameterCount(g), want.params);
  std::map<std::string, int> ops = opHistogram(g);
  EXPECT_EQ(convCount(g), want.convs);
  EXPECT_EQ(ops["dense"], want.dense);
  EXPECT_EQ(ops["batch_norm"], want.batch_norms);
  EXPECT_EQ(static_cast<int>(g.nodes().size()), want.nodes);
  double gflops = graphFlops(g) / 1e9;
  EXPECT_GE(gflops, want.gflops_lo);
  EXPECT_LE(gflops, want.gflops_hi);
  std::cout << "[ zoo      ] " << want.name << ": " << g.nodes().size() << " nodes, " << parameterCount(g)
            << " parameters, " << gflops << " GFLOPs, " << convCount(g) << " conv, " << ops["dense"] << " dense, "
            << ops["matmul"] << " matmul\n";

  // At 224x224 torchvision's AdaptiveAvgPool2d (6x6 in AlexNet, 7x7 in VGG) sees a map of that
  // size already: torch.onnx exports it as a 1x1 average pool, and so do we.
  if (want.name == "alexnet" || want.name == "vgg16") {
    auto pool =
        std::find_if(g.nodes().begin(), g.nodes().end(), [](const graph::Node& n) { return n.name == "avgpool"; });
    ASSERT_NE(pool, g.nodes().end());
    const auto& p = std::get<graph::Pool2dAttrs>(pool->attrs);
    EXPECT_EQ(p.kind, graph::PoolKind::Avg);
    EXPECT_EQ(p.kernel, (graph::Hw{1, 1}));
    EXPECT_EQ(g.value(pool->output).shape, g.value(pool->inputs[0]).shape);
  }

  // Conventions: conv = (data, constant weight) only, dense weights constant, BN follows a conv,
  // value names unique, every constant finite.
  std::set<std::string> names;
  for (const graph::Value& v : g.values()) EXPECT_TRUE(names.insert(v.name).second) << "duplicate name " << v.name;
  for (const graph::Node& n : g.nodes()) {
    if (std::holds_alternative<graph::Conv2dAttrs>(n.attrs)) {
      EXPECT_EQ(n.inputs.size(), 2u) << n.name;
      EXPECT_TRUE(g.value(n.inputs[1]).isConstant()) << n.name;
    }
    if (std::holds_alternative<graph::DenseAttrs>(n.attrs)) {
      EXPECT_TRUE(g.value(n.inputs[1]).isConstant()) << n.name;
    }
    if (std::holds_alternative<graph::BatchNormAttrs>(n.attrs)) {
      int p = g.value(n.inputs[0]).producer;
      ASSERT_GE(p, 0) << n.name;
      EXPECT_TRUE(std::holds_alternative<graph::Conv2dAttrs>(g.node(p).attrs)) << n.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooModel, ::testing::ValuesIn(expectations()),
                         [](const ::testing::TestParamInfo<Expect>& i) { return i.param.name; });

TEST(Zoo, ListsTheElevenModelsInThePapersOrderThenTheOthers) {
  std::vector<std::string> names;
  for (const ModelInfo& m : zoo()) names.push_back(m.name);
  const std::vector<std::string> paper{"resnet18",     "resnet50",        "alexnet",         "vgg16",
                                       "mobilenet_v2", "efficientnet_b0", "efficientnet_b4", "googlenet",
                                       "mnasnet1_0",   "bert_base",       "mobilebert"};
  EXPECT_EQ(paperModels(), paper);
  std::vector<std::string> all = paper;
  all.insert(all.end(), {"resnext50_32x4d", "regnet_y_400mf"});
  EXPECT_EQ(names, all);
  for (const ModelInfo& m : zoo()) EXPECT_FALSE(m.summary.empty());
  EXPECT_FALSE(isZooModel("resnet"));
}

TEST(Zoo, UnknownModelIsAClearError) {
  try {
    buildModel("resnet51");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown model 'resnet51'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ttune models"), std::string::npos) << e.what();
  }
  EXPECT_THROW(modelInfo(""), Error);
}

bool sameConstants(const graph::Graph& a, const graph::Graph& b) {
  if (a.values().size() != b.values().size()) return false;
  for (size_t i = 0; i < a.values().size(); ++i) {
    const graph::Value& x = a.values()[i];
    const graph::Value& y = b.values()[i];
    if (x.name != y.name || x.isConstant() != y.isConstant()) return false;
    if (x.isConstant() &&
        (x.constant->shape() != y.constant->shape() ||
         std::memcmp(x.constant->data(), y.constant->data(), static_cast<size_t>(x.constant->bytes())) != 0))
      return false;
  }
  return true;
}

TEST(Zoo, BuildsAreDeterministicPerSeed) {
  for (const char* name : {"resnet18", "mobilebert"}) {
    graph::Graph a = buildModel(name, 7), b = buildModel(name, 7), c = buildModel(name, 8);
    EXPECT_EQ(a.toString(), b.toString()) << name;
    EXPECT_TRUE(sameConstants(a, b)) << name;
    EXPECT_EQ(a.toString(), c.toString()) << name;
    EXPECT_FALSE(sameConstants(a, c)) << name << ": another seed must change the weights";
  }
}

TEST(Zoo, WeightScalesAreRealistic) {
  graph::Graph g = buildModel("resnet18");
  using testing::constantOf;
  const runtime::NDArray& var = constantOf(g, "layer1.0.bn1.running_var");
  const runtime::NDArray& gamma = constantOf(g, "layer1.0.bn1.weight");
  for (int64_t i = 0; i < var.numElements(); ++i) {
    EXPECT_GE(var.as<float>()[i], 0.5f);
    EXPECT_LE(var.as<float>()[i], 1.5f);
    EXPECT_GE(gamma.as<float>()[i], 0.5f);
    EXPECT_LE(gamma.as<float>()[i], 1.5f);
  }
  // He scale: variance 2 / fan_in for a conv followed by ReLU.
  const runtime::NDArray& w = constantOf(g, "layer1.0.conv1.weight");
  double sq = 0;
  for (int64_t i = 0; i < w.numElements(); ++i) sq += static_cast<double>(w.as<float>()[i]) * w.as<float>()[i];
  EXPECT_NEAR(sq / static_cast<double>(w.numElements()), 2.0 / (64 * 9), 0.1 * 2.0 / (64 * 9));
}

}  // namespace
}  // namespace ttune::models
