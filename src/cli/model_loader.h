// Loading a MODEL argument: a built-in zoo name or a path to an .onnx file (with optional input
// shapes for symbolic dimensions), optimized and ready to partition.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/onnx/onnx_importer.h"
#include "graph/fusion.h"
#include "graph/graph.h"
#include "graph/passes.h"
#include "graph/size_ranges.h"
#include "schedule/baseline.h"
#include "schedule/target.h"

namespace CLI {
class App;
}

namespace ttune::cli {

// --conv: how stride-1 3x3 convolutions compute.
enum class ConvAlgorithm { Winograd, Direct };
// --precision: what convolutions, dense layers and matrix products compute in.
enum class Precision { Fp32, Bf16 };
// The spelling of a precision ("fp32", "bf16": the option's, an export's).
std::string precisionName(Precision p);
// The value a --precision or --layout spelling names.
std::optional<Precision> precisionNamed(const std::string& name);
std::optional<graph::Layout> layoutNamed(const std::string& name);

struct ModelSource {
  std::string spec;                              // zoo name or .onnx path
  std::vector<std::string> input_shapes;         // "name=1x3x224x224"
  std::vector<std::string> dims;                 // "batch=1"
  graph::Layout layout = graph::Layout::NHWC;    // convolution layout: --layout nhwc, or nchw (as imported)
  ConvAlgorithm conv = ConvAlgorithm::Winograd;  // --conv winograd | direct
  // The untuned baseline (schedule/baseline.h; --defaults strong | basic): Strong, or Basic (the
  // paper's conditions: basic default schedules and direct convolutions whatever --conv says).
  schedule::Baseline defaults = schedule::Baseline::Strong;
  // Convolutions, dense layers and matrix products compute in fp32 or with bf16 operands
  // (graph/bf16.h; needs AVX512-BF16).
  Precision precision = Precision::Fp32;
};

// The baseline the source names.
schedule::Baseline baselineOf(const ModelSource& source);

// The MODEL positional and the ONNX shape options every model command takes.
void addSourceOptions(CLI::App* cmd, ModelSource& src);
// A --defaults option (strong | basic) parsed into `baseline`.
void addDefaultsOption(CLI::App* cmd, schedule::Baseline& baseline, const std::string& help);

// Throws Error naming the model, file or option at fault; frontend::RuntimeValueError when the
// ONNX model's later shapes depend on run-time values (run it with executor::StagedModel). The
// graph depends on the target the code is for (its vector width picks some layouts).
graph::Graph loadModel(const ModelSource& source, const schedule::Target& target);
bool isOnnxSource(const ModelSource& source);

// The ranges among the source's --dim options ("seq=1..512", graph/size_ranges.h), in option
// order; empty when every size is bound. Throws Error for a malformed or empty range.
std::vector<graph::SizeRange> sizeRanges(const ModelSource& source);
// The source with every range bound to one size (sizes in sizeRanges order).
ModelSource atSizes(const ModelSource& source, const std::vector<int64_t>& sizes);
// The model compiled for `ranges` of its sizes: imported at the probe sizes and checked
// (graph::analyzeRanges). Throws Error naming the model and what does not follow the sizes.
graph::RangeModel loadRangeModel(const ModelSource& source, const std::vector<graph::SizeRange>& ranges,
                                 const schedule::Target& target);
// The buckets of several ranges: every combination of each range's (graph::rangeBuckets).
std::vector<std::vector<graph::SizeRange>> bucketCombinations(const std::vector<graph::SizeRange>& ranges);
// The model for the source's ranges, one per bucket (graph::rangeBuckets; several ranges: every
// combination of their buckets), the buckets' constants that are equal sharing one copy.
std::vector<graph::RangeModel> loadRangeBuckets(const ModelSource& source, const schedule::Target& target);
// The kernels of an ONNX model whose later shapes depend on run-time values (loadModel threw
// frontend::RuntimeValueError): those of every stage that one run on seeded sample inputs runs,
// once per stage run (so a stage run 90 times weighs 90 times), for code of `target`, which must
// run here. A run on other data may give other shapes and so other kernels.
std::vector<graph::Kernel> stagedKernels(const ModelSource& source, const schedule::Target& target, uint64_t seed = 1);
// A model's kernels: its graph's (the graph is stored in *graph), or, for an ONNX model that runs
// in stages, stagedKernels (*staged set; the graph left empty). A staged model's kernels need code
// that runs here: for other code its import sentence is thrown.
std::vector<graph::Kernel> modelKernels(const ModelSource& source, const schedule::Target& target, graph::Graph* graph,
                                        bool* staged);
// The import options (--input-shape, --dim) and graph passes (--layout, --conv, --defaults) the
// source asks for, for code of `target`.
frontend::OnnxOptions onnxOptions(const ModelSource& source);
graph::GraphOptions graphOptions(const ModelSource& source, const schedule::Target& target);
// The display name of a model spec (zoo name, or file name without directory and extension).
std::string modelName(const std::string& spec);
// The name a model's runs and choices go under in the bank: the spec's, with "_bf16" for a
// bfloat16 build, and with the sizes the command bound (--dim, --input-shape, sorted) after an
// "@": "bert@seq=384". Each build has kernels, schedules and a choice of its own; a model tuned at
// one size is then a source for transfer-tuning it at another ("bert@seq=128" -> "bert@seq=384").
std::string modelName(const ModelSource& source);

}  // namespace ttune::cli
