// Whole-graph reference evaluation: every node evaluated in order by the te reference evaluator.
// The oracle for small graphs (ONNX conformance cases, executor tests); far too slow for real
// models (use CompiledModel::runChecked, which samples each kernel).
#pragma once

#include <vector>

#include "graph/graph.h"

namespace ttune::graph {

std::vector<runtime::NDArray> evaluateGraph(const Graph& g, const std::vector<runtime::NDArray>& inputs);

}  // namespace ttune::graph
