#include "cli/model_loader.h"

#include <algorithm>
#include <cstring>

#include <CLI/CLI.hpp>

#include "cli/enum_option.h"
#include "codegen/target.h"
#include "executor/staged_model.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"
#include "models/zoo.h"
#include "support/assert.h"
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
  cmd->add_option("--dim", src.dims,
                  "ONNX: value of a symbolic dimension, name=value; `run` and `export` also take a range, "
                  "name=min..max (repeatable)");
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
    if (eq != std::string::npos && s.find("..", eq) != std::string::npos)
      fail("--dim ", s,
           " is a range: `ttune run` and `ttune export` compile one model for ranges of sizes and `ttune transfer` "
           "transfer-tunes their buckets; this command takes one size");
    auto v = eq == std::string::npos ? std::nullopt : parseInt(s.substr(eq + 1));
    if (!v) fail("--dim takes name=value, e.g. batch=1, got '", s, "'");
    opt.dim_values[s.substr(0, eq)] = *v;
  }
  return opt;
}

std::vector<graph::SizeRange> sizeRanges(const ModelSource& src) {
  std::vector<graph::SizeRange> out;
  for (const std::string& s : src.dims) {
    size_t eq = s.find('='), dots = s.find("..");
    if (eq == std::string::npos || dots == std::string::npos || dots < eq) continue;
    auto lo = parseInt(s.substr(eq + 1, dots - eq - 1));
    auto hi = parseInt(s.substr(dots + 2));
    if (!lo || !hi || *lo < 1 || *hi < *lo)
      fail("--dim ", s, " is not a range name=min..max with 1 <= min <= max, e.g. seq=1..512");
    out.push_back(graph::SizeRange{s.substr(0, eq), *lo, *hi});
  }
  return out;
}

ModelSource atSizes(const ModelSource& src, const std::vector<int64_t>& sizes) {
  ModelSource out = src;
  std::vector<graph::SizeRange> ranges = sizeRanges(src);
  TT_ASSERT(sizes.size() == ranges.size(), "sizes for another number of ranges");
  for (std::string& d : out.dims)
    for (size_t r = 0; r < ranges.size(); ++r)
      if (d.rfind(ranges[r].name + "=", 0) == 0) d = ranges[r].name + "=" + std::to_string(sizes[r]);
  return out;
}

graph::RangeModel loadRangeModel(const ModelSource& src, const std::vector<graph::SizeRange>& ranges,
                                 const schedule::Target& target) {
  TT_ASSERT(!ranges.empty(), "loadRangeModel without ranges");
  if (!isOnnxSource(src)) fail("--dim applies to ONNX files; zoo model ", src.spec, " has fixed shapes");
  std::vector<std::vector<int64_t>> probes = graph::probeSizes(ranges);
  for (size_t r = 0; r < ranges.size(); ++r) {
    int varying = 0;
    for (size_t p = 1; p < probes.size(); ++p) varying += probes[p][r] != ranges[r].max;
    if (varying < 2 && ranges[r].min != ranges[r].max)  // a bucket of one size binds it
      fail("the range ", ranges[r].name, "=", ranges[r].min, "..", ranges[r].max,
           " is too narrow to check (it needs two sizes of at least 2 below its largest); bind the size or widen "
           "the range");
  }
  std::vector<graph::ProbeGraph> graphs;
  for (const std::vector<int64_t>& sizes : probes) graphs.push_back({sizes, loadModel(atSizes(src, sizes), target)});
  auto m = graph::analyzeRanges(ranges, std::move(graphs));
  if (!m.ok()) fail("model ", src.spec, " cannot be compiled once for its ranges: ", m.error());
  return std::move(*m);
}

std::vector<std::vector<graph::SizeRange>> bucketCombinations(const std::vector<graph::SizeRange>& ranges) {
  std::vector<std::vector<graph::SizeRange>> combos{{}};
  for (const graph::SizeRange& r : ranges) {
    std::vector<std::vector<graph::SizeRange>> next;
    for (const auto& c : combos)
      for (const graph::SizeRange& b : graph::rangeBuckets(r)) {
        next.push_back(c);
        next.back().push_back(b);
      }
    combos = std::move(next);
  }
  return combos;
}

std::vector<graph::RangeModel> loadRangeBuckets(const ModelSource& src, const schedule::Target& target) {
  std::vector<graph::RangeModel> out;
  for (const auto& ranges : bucketCombinations(sizeRanges(src))) {
    out.push_back(loadRangeModel(src, ranges, target));
    if (out.size() == 1) continue;
    // Weights do not depend on the sizes: one copy serves every bucket (and their packed forms,
    // keyed by the copy's address, are shared through the kernel cache).
    graph::Graph& g = out.back().graph;
    const graph::Graph& first = out.front().graph;
    for (size_t v = 0; v < g.values().size() && v < first.values().size(); ++v) {
      const graph::Value& a = g.value(static_cast<int>(v));
      const graph::Value& b = first.value(static_cast<int>(v));
      if (a.isConstant() && b.isConstant() && a.constant->shape() == b.constant->shape() &&
          a.constant->dtype() == b.constant->dtype() &&
          std::memcmp(a.constant->data(), b.constant->data(), static_cast<size_t>(a.constant->bytes())) == 0)
        g.mutableValue(static_cast<int>(v)).constant = *b.constant;
    }
  }
  return out;
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
