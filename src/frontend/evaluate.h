// Whole-graph reference evaluation: runs every node of a graph::Graph in order with te's naive
// reference evaluator (each node built on placeholders, one ComputeDAG per node). It is the
// correctness oracle for imported models (ONNX conformance tests, model tests); slow by design.
//
// Contract: `inputs` match graph.inputs() in order, shape and dtype (throws Error otherwise);
// the result holds one array per graph.outputs() entry. Constants are read from the graph.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "runtime/ndarray.h"

namespace ttune::frontend {

std::vector<runtime::NDArray> evaluateGraph(const graph::Graph& graph, const std::vector<runtime::NDArray>& inputs);

}  // namespace ttune::frontend
