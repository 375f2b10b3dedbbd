#include "models/zoo.h"

#include <functional>

#include "models/bert.h"
#include "models/efficientnet.h"
#include "models/googlenet.h"
#include "models/mnasnet.h"
#include "models/mobilebert.h"
#include "models/mobilenet.h"
#include "models/regnet.h"
#include "models/resnet.h"
#include "models/vgg_alexnet.h"
#include "support/error.h"
#include "te/compute_dag.h"

namespace ttune::models {

namespace {

struct Entry {
  ModelInfo info;
  std::function<graph::Graph(uint64_t)> build;
};

ModelInfo cnn(std::string name, std::string summary) {
  ModelInfo m;
  m.name = std::move(name);
  m.summary = std::move(summary);
  m.input_name = "input0";
  m.input_shape = {1, 3, 224, 224};
  m.input_dtype = te::DType::Float32;
  m.input_lo = -1.0;
  m.input_hi = 1.0;
  m.output_shape = {1, 1000};
  return m;
}

ModelInfo bert(std::string name, std::string summary) {
  ModelInfo m;
  m.name = std::move(name);
  m.summary = std::move(summary);
  m.input_name = "input_ids";
  m.input_shape = {1, 256};
  m.input_dtype = te::DType::Int64;
  m.input_lo = 0;
  m.input_hi = 30522;
  m.output_shape = {1, 2};
  return m;
}

ModelInfo extra(ModelInfo m) {
  m.paper = false;
  return m;
}

const std::vector<Entry>& entries() {
  static const std::vector<Entry> e = {
      {cnn("resnet18", "torchvision ResNet-18: BasicBlock x [2,2,2,2], 11.7M parameters"),
       [](uint64_t s) { return buildResNet(resnet18Config(), s); }},
      {cnn("resnet50", "torchvision ResNet-50 (v1.5): Bottleneck x [3,4,6,3], 25.6M parameters"),
       [](uint64_t s) { return buildResNet(resnet50Config(), s); }},
      {cnn("alexnet", "torchvision AlexNet: 5 convs, 3 fully-connected layers, 61.1M parameters"),
       [](uint64_t s) { return buildAlexNet(s); }},
      {cnn("vgg16", "torchvision VGG-16 (no BN): 13 3x3 convs, 3 fully-connected layers, 138.4M parameters"),
       [](uint64_t s) { return buildVgg16(s); }},
      {cnn("mobilenet_v2", "torchvision MobileNetV2 1.0: inverted residuals with ReLU6, 3.5M parameters"),
       [](uint64_t s) { return buildMobileNetV2(s); }},
      {cnn("efficientnet_b0", "torchvision EfficientNet-B0: MBConv + squeeze-excitation, SiLU, 5.3M parameters"),
       [](uint64_t s) { return buildEfficientNet({}, s); }},
      {cnn("efficientnet_b4", "torchvision EfficientNet-B4 (width 1.4, depth 1.8) at 224x224, 19.3M parameters"),
       [](uint64_t s) { return buildEfficientNet({.width_mult = 1.4, .depth_mult = 1.8}, s); }},
      {cnn("googlenet", "torchvision GoogLeNet (eval, no aux heads): 9 inception blocks, 6.6M parameters"),
       [](uint64_t s) { return buildGoogLeNet(s); }},
      {cnn("mnasnet1_0", "torchvision MNASNet 1.0: inverted residuals with ReLU, 4.4M parameters"),
       [](uint64_t s) { return buildMnasNet(s); }},
      {bert("bert_base", "HuggingFace bert-base-uncased for sequence classification, seq 256, 109.5M parameters"),
       [](uint64_t s) { return buildBert({}, s); }},
      {bert("mobilebert",
            "HuggingFace google/mobilebert-uncased for sequence classification, seq 256, 24.6M parameters"),
       [](uint64_t s) { return buildMobileBert({}, s); }},
      {extra(cnn("resnext50_32x4d",
                 "torchvision ResNeXt-50 32x4d: ResNet-50 with 32-group 3x3 convolutions, 25.0M parameters")),
       [](uint64_t s) { return buildResNet(resnext50Config(), s); }},
      {extra(cnn("regnet_y_400mf",
                 "torchvision RegNetY-400MF: grouped 3x3 convolutions (8 channels a group) + SE, 4.3M parameters")),
       [](uint64_t s) { return buildRegNetY({}, s); }},
  };
  return e;
}

const Entry& entry(const std::string& name) {
  for (const Entry& e : entries())
    if (e.info.name == name) return e;
  fail("unknown model '", name, "'; run `ttune models` to list the built-in models, or pass the path of an .onnx file");
}

}  // namespace

const std::vector<ModelInfo>& zoo() {
  static const std::vector<ModelInfo> infos = [] {
    std::vector<ModelInfo> v;
    for (const Entry& e : entries()) v.push_back(e.info);
    return v;
  }();
  return infos;
}

std::vector<std::string> paperModels() {
  std::vector<std::string> out;
  for (const ModelInfo& m : zoo())
    if (m.paper) out.push_back(m.name);
  return out;
}

bool isZooModel(const std::string& name) {
  for (const Entry& e : entries())
    if (e.info.name == name) return true;
  return false;
}

const ModelInfo& modelInfo(const std::string& name) { return entry(name).info; }

graph::Graph buildModel(const std::string& name, uint64_t seed) { return entry(name).build(seed); }

int64_t parameterCount(const graph::Graph& g) {
  std::vector<bool> running_stat(g.values().size(), false);
  for (const graph::Node& n : g.nodes())
    if (std::holds_alternative<graph::BatchNormAttrs>(n.attrs))
      for (size_t k = 3; k < n.inputs.size(); ++k)
        if (n.inputs[k] >= 0) running_stat[n.inputs[k]] = true;
  int64_t count = 0;
  for (size_t i = 0; i < g.values().size(); ++i) {
    const graph::Value& v = g.values()[i];
    if (!v.isConstant() || v.dtype != te::DType::Float32 || running_stat[i]) continue;
    int64_t n = te::shapeElements(v.shape);
    if (n > 1) count += n;
  }
  return count;
}

std::map<std::string, int> opHistogram(const graph::Graph& g) {
  std::map<std::string, int> h;
  for (const graph::Node& n : g.nodes()) ++h[graph::opName(n.attrs)];
  return h;
}

int convCount(const graph::Graph& g) {
  int c = 0;
  for (const graph::Node& n : g.nodes()) c += std::holds_alternative<graph::Conv2dAttrs>(n.attrs);
  return c;
}

double graphFlops(const graph::Graph& g) {
  double flops = 0;
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const graph::Node& n = g.node(static_cast<int>(i));
    std::vector<te::Tensor> ins, placeholders;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (n.inputs[k] < 0) {
        ins.emplace_back();
        continue;
      }
      const graph::Value& v = g.value(n.inputs[k]);
      te::Tensor t = te::placeholder("in" + std::to_string(k), v.shape, v.dtype, v.isConstant());
      ins.push_back(t);
      placeholders.push_back(t);
    }
    te::Tensor out = g.buildNode(static_cast<int>(i), ins);
    flops += te::ComputeDAG(placeholders, {out}).flops();
  }
  return flops;
}

}  // namespace ttune::models
