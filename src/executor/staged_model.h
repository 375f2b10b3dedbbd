// A model whose later shapes depend on run-time data (NonZero, NonMaxSuppression, Unique,
// Compress, TopK with a computed K, Reshape to a computed shape, ...), run in stages.
//
// What is compiled when: the model is imported up to the first node that needs a run-time value
// as a constant (frontend/onnx/staged_import.h); that stage is optimized and compiled like any
// model and run; then either the needed value is bound as a constant and the next stage is
// imported from that node (shape arguments: small values, part of the next stage's cache key),
// or — for the operators whose output shape depends on values (NonZero, Unique,
// NonMaxSuppression) — the node is evaluated on the host and the next stage starts after it with
// its outputs as run-time inputs, so that stage is compiled per output *shape* only. Compiled
// stages are cached by (start node, input shapes and dtypes, bound constants), so a second run
// with the same shapes compiles nothing; kernels are shared through the KernelCache.
//
// A model without such nodes is one stage: the same compiled model `run` would build.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "executor/executor.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"

namespace onnx {
class ModelProto;
}

namespace ttune::executor {

struct StagedStats {
  int stages_run = 0;       // over all runs
  int stages_compiled = 0;  // cache misses
  int host_nodes = 0;       // nodes evaluated on the host
  double host_s = 0;        // the time they took
  double compile_s = 0;
};

class StagedModel {
 public:
  // `path` is an .onnx file; `options` its import options (shapes, dims); graph passes and model
  // options as for a static model.
  StagedModel(const std::string& path, frontend::OnnxOptions options, graph::GraphOptions passes, ModelOptions model);
  // A model already parsed; external data is resolved relative to base_dir.
  StagedModel(const onnx::ModelProto& proto, const std::string& base_dir, frontend::OnnxOptions options,
              graph::GraphOptions passes, ModelOptions model);
  ~StagedModel();

  // The model's inputs in the model's input order (their shapes may differ between runs);
  // returns its outputs in its output order.
  std::vector<runtime::NDArray> run(const std::vector<runtime::NDArray>& inputs);
  // The same, each compiled stage run by `stage_run` (e.g. CompiledModel::runChecked, or a
  // profiler) instead of CompiledModel::run; it must return the stage's outputs.
  using StageRunner =
      std::function<std::vector<runtime::NDArray>(CompiledModel&, const std::vector<runtime::NDArray>&)>;
  std::vector<runtime::NDArray> run(const std::vector<runtime::NDArray>& inputs, const StageRunner& stage_run);

  // Seeded random inputs of the shapes the model declares (or the import options set).
  std::vector<runtime::NDArray> sampleInputs(uint64_t seed) const;

  const std::vector<std::string>& inputNames() const;
  const StagedStats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttune::executor
