// Importing a model whose later shapes depend on run-time values, one stage at a time.
//
// A stage is the part of the model from node `start_node` up to (not including) the first node
// that needs a value computed at run time as a constant (Reshape's shape, TopK's K, NonZero's or
// Unique's input, ...): that value is known only once the stage has run. The stage's graph takes
// as inputs the run-time values of earlier stages it reads (with their actual shapes) and outputs
// every value it computes that a later node or the model's outputs read. The caller (executor's
// StagedModel) compiles and runs the stage, then either binds the needed value as a constant and
// imports the next stage from the stopping node, or evaluates the stopping node on the host
// (evaluateNodeOnHost: outputs whose shape depends on values) and resumes after it.
//
// Contract: importStage throws the importer's one-sentence errors for everything but the stop;
// stages are deterministic functions of (start_node, the shapes and dtypes of runtime_values,
// the contents of constants), which is what a cache of compiled stages keys on.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/onnx/onnx_importer.h"

namespace onnx {
class GraphProto;
class NodeProto;
}  // namespace onnx

namespace ttune::frontend {

struct StageRequest {
  int start_node = 0;
  // Values computed at run time by earlier stages (or the model inputs): only their shapes and
  // dtypes matter here. For the first stage the model's inputs are read from the model.
  std::map<std::string, runtime::NDArray> runtime_values;
  // Values known as constants (bound run-time values and constants folded by earlier stages).
  std::map<std::string, runtime::NDArray> constants;
};

struct ImportStage {
  graph::Graph graph;
  std::vector<std::string> input_names;               // ONNX names of graph.inputs(), in order
  std::vector<std::string> output_names;              // ONNX names of graph.outputs(), in order
  int stop_node = -1;                                 // -1: this stage computes the model's outputs
  std::string stop_op;                                // op type of the stopping node
  std::string needed;                                 // ONNX name the stopping node needs as a constant
  std::map<std::string, runtime::NDArray> constants;  // folded here and read after the stop
};

ImportStage importStage(const onnx::ModelProto& model, const OnnxOptions& options, const StageRequest& request,
                        const std::string& base_dir = "");

// Node `index` of the model evaluated alone with every input, and every value its bodies read
// from the model (Loop, Scan), given as a constant: its outputs by ONNX name. The import folds
// every operation, whatever its size (throws the importer's errors).
std::map<std::string, runtime::NDArray> evaluateNodeOnHost(const onnx::ModelProto& model, int index,
                                                           const std::map<std::string, runtime::NDArray>& values);

// Names a subgraph reads from its enclosing scopes (at any depth), in first-use order.
std::vector<std::string> capturedNames(const onnx::GraphProto& graph);
// What the bodies of node `n` (If branches, Loop and Scan bodies) read from the enclosing graph:
// capturedNames of each, in attribute order.
std::vector<std::string> capturedByNode(const onnx::NodeProto& n);

// A stage that stops inside an If (a node of the selected branch needs a run-time value) cannot
// resume in the middle of the enclosing graph's node: the branch is run as a model of its own,
// staged in turn, and its outputs become the If's outputs.
struct BranchModel {
  std::shared_ptr<onnx::ModelProto> model;  // the branch; the enclosing model's opsets
  std::vector<std::string> inputs;          // the run-time values of the enclosing graph it reads, in order
  OnnxOptions options;                      // shapes of those inputs; bound constants it reads
};

// The branch of If node `index` that `cond` selects. `runtime_values` and `constants` are the
// values of the enclosing graph known so far; the enclosing graph's initializers that the branch
// reads are copied into it.
BranchModel ifBranchModel(const onnx::ModelProto& model, int index, bool cond,
                          const std::map<std::string, runtime::NDArray>& runtime_values,
                          const std::map<std::string, runtime::NDArray>& constants);

}  // namespace ttune::frontend
