// Graph: a model as operators over values with static shapes. A value is a graph input, a
// constant (weights, with data) or the output of one node; nodes are kept in topological order
// (a node only reads values defined before it). Shapes and dtypes are inferred when a node is
// added, by building the operator's tensor expression on placeholders, so a graph that exists is
// shape-correct and every error names the node and operator.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graph/op_attrs.h"
#include "runtime/ndarray.h"

namespace ttune::graph {

struct Value {
  std::string name;
  te::Shape shape;
  te::DType dtype = te::DType::Float32;
  std::optional<runtime::NDArray> constant;  // set for weights and folded constants
  int producer = -1;                         // node index, -1 for inputs and constants
  bool isConstant() const { return constant.has_value(); }
};

struct Node {
  std::string name;  // from the model file, or generated
  OpAttrs attrs;
  std::vector<int> inputs;  // value ids (a -1 entry is an absent optional input)
  int output = -1;          // value id
};

class Graph {
 public:
  int addInput(const std::string& name, te::Shape shape, te::DType dtype = te::DType::Float32);
  int addConstant(const std::string& name, runtime::NDArray data);
  // Adds a node and infers its output; throws Error naming the node on bad shapes or attributes.
  int addNode(const std::string& name, OpAttrs attrs, std::vector<int> inputs);
  void markOutput(int value);

  const std::vector<Value>& values() const { return values_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<int>& inputs() const { return inputs_; }
  const std::vector<int>& outputs() const { return outputs_; }
  const Value& value(int id) const { return values_[id]; }
  Value& mutableValue(int id) { return values_[id]; }
  const Node& node(int i) const { return nodes_[i]; }
  // Nodes reading each value.
  std::vector<std::vector<int>> consumers() const;
  // Builds the op of node i on the given input tensors (constants must be passed as tensors too).
  te::Tensor buildNode(int i, const std::vector<te::Tensor>& inputs) const;

  // Replaces the node list (passes): `nodes` must read only values defined before them.
  void setNodes(std::vector<Node> nodes);
  void setOutputs(std::vector<int> outputs) { outputs_ = std::move(outputs); }
  // Makes `replacement(o)` the graph output in place of each output o (passes that rewrite an
  // output's producer). The replacement takes the output's name, so outputs keep their names;
  // the superseded value is renamed with `superseded_suffix`.
  void redirectOutputs(const std::function<int(int)>& replacement, const std::string& superseded_suffix);
  std::string toString() const;

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<int> inputs_, outputs_;
};

// Evaluates node `n` of `g` on `operands` (one per input, null for an absent optional one) with
// the reference evaluator; concatenations are block copies (the evaluator chooses the operand per
// element: O(elements x operands)).
runtime::NDArray evaluateNode(const Graph& g, const Node& n, const std::vector<const runtime::NDArray*>& operands);
// Evaluates a node whose inputs are all constants.
runtime::NDArray evaluateConstantNode(const Graph& g, const Node& n);

}  // namespace ttune::graph
