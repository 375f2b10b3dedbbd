#include "graph/graph.h"

#include <cstring>

#include "support/assert.h"
#include "support/error.h"
#include "te/compute_dag.h"
#include "te/evaluator.h"

namespace ttune::graph {

int Graph::addInput(const std::string& name, te::Shape shape, te::DType dtype) {
  for (int64_t d : shape)
    TT_CHECK_ARG(d > 0, "input ", name, " has the shape ", te::shapeToString(shape),
                 "; every dimension must be positive");
  values_.push_back(Value{name, std::move(shape), dtype, std::nullopt, -1});
  inputs_.push_back(static_cast<int>(values_.size()) - 1);
  return inputs_.back();
}

int Graph::addConstant(const std::string& name, runtime::NDArray data) {
  Value v{name, data.shape(), data.dtype(), data, -1};
  values_.push_back(std::move(v));
  return static_cast<int>(values_.size()) - 1;
}

te::Tensor Graph::buildNode(int i, const std::vector<te::Tensor>& inputs) const {
  return buildOp(nodes_[i].attrs, inputs);
}

int Graph::addNode(const std::string& name, OpAttrs attrs, std::vector<int> inputs) {
  std::vector<te::Tensor> ph;
  for (size_t k = 0; k < inputs.size(); ++k) {
    int id = inputs[k];
    if (id < 0) {
      ph.emplace_back();
      continue;
    }
    TT_ASSERT(id < static_cast<int>(values_.size()), "node " + name + " reads an unknown value");
    const Value& v = values_[id];
    ph.push_back(te::placeholder("in" + std::to_string(k), v.shape, v.dtype, v.isConstant()));
  }
  te::Tensor out;
  try {
    out = buildOp(attrs, ph);
  } catch (const Error& e) {
    fail("node ", name, " (", opName(attrs), "): ", e.what());
  }
  Node n{name, std::move(attrs), std::move(inputs), -1};
  values_.push_back(Value{name, out.shape(), out.dtype(), std::nullopt, static_cast<int>(nodes_.size())});
  n.output = static_cast<int>(values_.size()) - 1;
  nodes_.push_back(std::move(n));
  return nodes_.back().output;
}

void Graph::markOutput(int value) { outputs_.push_back(value); }

std::vector<std::vector<int>> Graph::consumers() const {
  std::vector<std::vector<int>> c(values_.size());
  for (size_t i = 0; i < nodes_.size(); ++i)
    for (int v : nodes_[i].inputs)
      if (v >= 0) c[v].push_back(static_cast<int>(i));
  return c;
}

void Graph::setNodes(std::vector<Node> nodes) {
  nodes_ = std::move(nodes);
  for (Value& v : values_) v.producer = -1;
  for (size_t i = 0; i < nodes_.size(); ++i) values_[nodes_[i].output].producer = static_cast<int>(i);
}

void Graph::redirectOutputs(const std::function<int(int)>& replacement, const std::string& superseded_suffix) {
  for (int& o : outputs_) {
    int r = replacement(o);
    if (r == o) continue;
    std::string name = values_[o].name;
    values_[o].name = name + superseded_suffix;
    values_[r].name = name;
    o = r;
  }
}

std::string Graph::toString() const {
  std::string s;
  for (int i : inputs_) s += "input " + values_[i].name + " " + te::shapeToString(values_[i].shape) + "\n";
  for (const Node& n : nodes_) {
    s += values_[n.output].name + " " + te::shapeToString(values_[n.output].shape) + " = " + opName(n.attrs) + "(";
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (k) s += ", ";
      s += n.inputs[k] < 0 ? "-" : values_[n.inputs[k]].name;
    }
    std::string a = attrsToString(n.attrs);
    s += ")" + (a.empty() ? "" : " " + a) + "\n";
  }
  for (int o : outputs_) s += "output " + values_[o].name + "\n";
  return s;
}

namespace {

// A concatenation copies blocks. Folding a loop that appends to a carried tensor each iteration
// (a detector's masks pasted one by one) took seconds in the evaluator, milliseconds this way.
runtime::NDArray concatBlocks(const std::vector<const runtime::NDArray*>& operands, const te::Tensor& out,
                              int64_t axis) {
  runtime::NDArray result(out.shape(), out.dtype());
  const te::Shape& shape = out.shape();
  if (axis < 0) axis += static_cast<int64_t>(shape.size());
  TT_ASSERT(axis >= 0 && axis < static_cast<int64_t>(shape.size()), "a concatenation's axis is out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const size_t bytes = static_cast<size_t>(te::dtypeBytes(out.dtype()));
  auto* dst = static_cast<char*>(result.data());
  for (int64_t o = 0; o < outer; ++o)
    for (const runtime::NDArray* x : operands) {
      TT_ASSERT(x && x->dtype() == out.dtype(), "a concatenation's operand is missing or of another dtype");
      size_t block = static_cast<size_t>(x->shape()[static_cast<size_t>(axis)] * inner) * bytes;
      std::memcpy(dst, static_cast<const char*>(x->data()) + static_cast<size_t>(o) * block, block);
      dst += block;
    }
  return result;
}

}  // namespace

runtime::NDArray evaluateNode(const Graph& g, const Node& n, const std::vector<const runtime::NDArray*>& operands) {
  TT_ASSERT(operands.size() == n.inputs.size(), "a node evaluated with another number of operands");
  std::vector<te::Tensor> ph;
  std::vector<te::Tensor> inputs;
  std::vector<void*> args;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    if (n.inputs[k] < 0) {
      ph.emplace_back();
      continue;
    }
    const Value& v = g.value(n.inputs[k]);
    TT_ASSERT(operands[k], "a node's operand has no data");
    te::Tensor t = te::placeholder("c" + std::to_string(k), v.shape, v.dtype, v.isConstant());
    ph.push_back(t);
    inputs.push_back(t);
    args.push_back(operands[k]->data());
  }
  te::Tensor out = buildOp(n.attrs, ph);
  if (const auto* concat = std::get_if<ConcatAttrs>(&n.attrs); concat) {
    std::vector<const runtime::NDArray*> present;
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (n.inputs[k] >= 0) present.push_back(operands[k]);
    return concatBlocks(present, out, concat->axis);
  }
  te::ComputeDAG dag(inputs, {out});
  runtime::NDArray result(out.shape(), out.dtype());
  args.push_back(result.data());
  te::evaluate(dag, args);
  return result;
}

runtime::NDArray evaluateConstantNode(const Graph& g, const Node& n) {
  std::vector<const runtime::NDArray*> operands;
  for (int v : n.inputs) {
    TT_ASSERT(v < 0 || g.value(v).isConstant(), "evaluateConstantNode on a non-constant input");
    operands.push_back(v < 0 ? nullptr : &*g.value(v).constant);
  }
  return evaluateNode(g, n, operands);
}

}  // namespace ttune::graph
