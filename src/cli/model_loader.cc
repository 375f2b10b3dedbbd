#include "cli/model_loader.h"

#include <algorithm>

#include <CLI/CLI.hpp>

#include "cli/enum_option.h"
#include "codegen/target.h"
#include "executor/staged_model.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"
#include "models/zoo.h"
#include "support/error.h"
#include "support/strings.h"

namespace ttune::cli {

namespace {

constexpr Spelling<graph::Layout> kLayouts[] = {{graph::Layout::NHWC, "nhwc"}, {graph::Layout::NCHW, "nchw"}};
constexpr Spelling<ConvAlgorithm> kConvs[] = {{ConvAlgorithm::Winograd, "winograd"}, {ConvAlgorithm::Direct, "direct"}};
constexpr Spelling<Precision> kPrecisions[] = {{Precision::Fp32, "fp32"}, {Precision::Bf16, "bf16"}};
constexpr Spelling<schedule::Baseline> kBaselines[] = {{schedule::Baseline::Strong, "strong"},
                                                       {schedule::Baseline::Basic, "basic"}};

}  // namespace

std::string precisionName(Precision p) { return spellingOf(kPrecisions, p); }
std::optional<Precision> precisionNamed(const std::string& name) { return spelledValue(kPrecisions, name); }
std::optional<graph::Layout> layoutNamed(const std::string& name) { return spelledValue(kLayouts, name); }

void addSourceOptions(CLI::App* cmd, ModelSource& src) {
  cmd->add_option("model", src.spec, "A zoo model name (see `ttune models`) or an .onnx file")->required();
  cmd->add_option("--input-shape", src.input_shapes, "ONNX: shape of an input, name=1x3x224x224 (repeatable)");
  cmd->add_option("--dim", src.dims, "ONNX: value of a symbolic dimension, name=value (repeatable)");
  addSpelledOption(cmd, "--layout", src.layout, kLayouts,
                   "Layout convolutions run in: nhwc (channels-last, default) or nchw (as the model is written)");
  addSpelledOption(cmd, "--conv", src.conv, kConvs,
                   "Stride-1 3x3 convolutions: winograd (F(4x4,3x3) or, on small images, F(2x2,3x3) transforms and a "
                   "batched matrix product; channels-last only) or direct");
  addDefaultsOption(
      cmd, src.defaults,
      "Untuned baseline: strong (ttune's default schedules, default) or basic (the transfer-tuning paper's "
      "conditions: schedules of the kind TVM falls back to without tuning logs, direct convolutions)");
  addSpelledOption(cmd, "--precision", src.precision, kPrecisions,
                   "Convolutions, dense layers and matrix products compute in fp32 (default) or with bf16 operands and "
                   "float32 sums (needs AVX512-BF16)");
}

void addDefaultsOption(CLI::App* cmd, schedule::Baseline& baseline, const std::string& help) {
  addSpelledOption(cmd, "--defaults", baseline, kBaselines, help);
}

schedule::Baseline baselineOf(const ModelSource& src) { return src.defaults; }

std::string modelName(const std::string& spec) {
  std::string n = spec.substr(spec.find_last_of('/') + 1);
  if (endsWith(n, ".onnx")) n = n.substr(0, n.size() - 5);
  return n;
}

std::string modelName(const ModelSource& src) {
  std::string name = modelName(src.spec) + (src.precision == Precision::Bf16 ? "_bf16" : "");
  std::vector<std::string> sizes = src.dims;
  sizes.insert(sizes.end(), src.input_shapes.begin(), src.input_shapes.end());
  if (sizes.empty()) return name;
  std::sort(sizes.begin(), sizes.end());
  name += '@';
  for (size_t i = 0; i < sizes.size(); ++i) name += (i ? "," : "") + sizes[i];
  return name;
}

bool isOnnxSource(const ModelSource& src) {
  return endsWith(src.spec, ".onnx") || src.spec.find('/') != std::string::npos;
}

frontend::OnnxOptions onnxOptions(const ModelSource& src) {
  frontend::OnnxOptions opt;
  for (const std::string& s : src.input_shapes) {
    size_t eq = s.find('=');
    if (eq == std::string::npos) fail("--input-shape takes name=shape, e.g. input=1x3x224x224, got '", s, "'");
    te::Shape shape;
    for (const std::string& d : split(s.substr(eq + 1), 'x')) {
      auto v = parseInt(d);
      if (!v || *v <= 0) fail("--input-shape ", s, " has a bad dimension '", d, "'");
      shape.push_back(*v);
    }
    opt.input_shapes[s.substr(0, eq)] = shape;
  }
  for (const std::string& s : src.dims) {
    size_t eq = s.find('=');
    auto v = eq == std::string::npos ? std::nullopt : parseInt(s.substr(eq + 1));
    if (!v) fail("--dim takes name=value, e.g. batch=1, got '", s, "'");
    opt.dim_values[s.substr(0, eq)] = *v;
  }
  return opt;
}

graph::GraphOptions graphOptions(const ModelSource& src, const schedule::Target& target) {
  if (src.precision == Precision::Bf16 && target.bf16_group < 2)
    fail("--precision bf16 needs bfloat16 dot products (AVX512-BF16), which target ", target.name, " (", target.cpu,
         ") does not have");
  return {.channels_last = src.layout == graph::Layout::NHWC,
          .winograd = src.conv == ConvAlgorithm::Winograd && baselineOf(src) == schedule::Baseline::Strong,
          .vector_lanes = target.lanes(),
          .flatten_pointwise = baselineOf(src) == schedule::Baseline::Strong ? graph::flattenByTileModel(target)
                                                                             : graph::FlattenDecision(),
          .bf16 = src.precision == Precision::Bf16};
}

graph::Graph loadModel(const ModelSource& src, const schedule::Target& target) {
  graph::Graph g;
  if (isOnnxSource(src)) {
    g = frontend::importOnnx(src.spec, onnxOptions(src));
  } else {
    if (!src.input_shapes.empty() || !src.dims.empty())
      fail("--input-shape and --dim apply to ONNX files; zoo model ", src.spec, " has fixed shapes");
    g = models::buildModel(src.spec);
  }
  graph::optimizeGraph(g, graphOptions(src, target));
  return g;
}

std::vector<graph::Kernel> stagedKernels(const ModelSource& src, const schedule::Target& target, uint64_t seed) {
  executor::ModelOptions opt;
  opt.target = target;
  opt.baseline = baselineOf(src);
  executor::StagedModel m(src.spec, onnxOptions(src), graphOptions(src, target), opt);
  std::map<const executor::CompiledModel*, std::vector<graph::Kernel>> of_stage;
  std::vector<graph::Kernel> kernels;
  m.run(m.sampleInputs(seed), [&](executor::CompiledModel& stage, const std::vector<runtime::NDArray>& ins) {
    auto it = of_stage.find(&stage);
    if (it == of_stage.end()) it = of_stage.emplace(&stage, graph::partition(stage.graph())).first;
    kernels.insert(kernels.end(), it->second.begin(), it->second.end());
    return stage.run(ins);
  });
  return kernels;
}

std::vector<graph::Kernel> modelKernels(const ModelSource& src, const schedule::Target& target, graph::Graph* g,
                                        bool* staged) {
  *staged = false;
  try {
    *g = loadModel(src, target);
    return graph::partition(*g);
  } catch (const frontend::RuntimeValueError&) {
    if (!isOnnxSource(src) || !codegen::runnable(target).ok()) throw;
  }
  *staged = true;
  return stagedKernels(src, target);
}

}  // namespace ttune::cli
