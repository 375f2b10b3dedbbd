// Import state shared by the ONNX operator importers: the graph under construction, the map from
// ONNX value names to graph values, and the ONNX node currently being imported.
//
// Invariants: every value id in the name map is a value of `graph()`; emit() folds a node whose
// inputs are all constants into a constant (unless that would only materialize a large
// broadcast); every error raised through fail() is one sentence prefixed with the node, e.g.
// `node "Conv_12" (Conv): ...`. Op importers read inputs and attributes through the context,
// emit graph nodes through it and bind each used ONNX output with setOutput().
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/onnx/onnx_importer.h"
#include "graph/graph.h"
#include "onnx/onnx_pb.h"
#include "support/error.h"

namespace ttune::frontend::detail {

// A value that is a dequantized 8-bit (or int32) tensor, real = (q - zero_point) * scale, with
// constant scales and zero points: what DequantizeLinear produced it from. Convolutions and
// matrix products whose operands are such values compute on `q` in integer arithmetic
// (ops_quant.cc) instead of on the float values.
struct Dequantized {
  int q = -1;                       // the quantized value
  std::vector<double> scale;        // one, or one per element of `axis`
  std::vector<int64_t> zero_point;  // as many as scale (zeros when absent)
  int64_t axis = -1;                // -1: per tensor
};

// A float value that is an int32 product scaled per channel, real = acc * scale[m] along
// `channel_axis` (one scale: per tensor): what an integer convolution or product produced. A
// following relu runs on the integers and a QuantizeLinear folds its scale into one multiplier
// per channel, as int8 runtimes requantize (int8_products.h).
struct ScaledInteger {
  int acc = -1;
  std::vector<double> scale;
  int64_t channel_axis = 1;
  double divisor = 1;  // real = acc * scale[m] / divisor (a pooled average: the window's size)
};

class Ctx {
 public:
  Ctx(graph::Graph& graph, std::map<std::string, int>& names, std::set<std::string>& used, int opset)
      : graph_(graph), names_(names), used_(used), opset_(opset) {}

  // Selects the node to import next (index = position in the ONNX graph).
  void beginNode(const onnx::NodeProto& node, int index);

  graph::Graph& graph() { return graph_; }
  const onnx::NodeProto& proto() const { return *node_; }
  const std::string& opType() const { return node_->op_type(); }
  int opset() const { return opset_; }
  // Name for the graph nodes of this ONNX node: its ONNX name or "<OpType>_<index>".
  const std::string& name() const { return name_; }
  // `node "Conv_12" (Conv): ` or `node #12 (Conv): `.
  std::string prefix() const;
  template <class... Args>
  [[noreturn]] void fail(const Args&... args) const {
    throw Error(cat(prefix(), args...));
  }

  // ---- inputs --------------------------------------------------------------------------------
  int numInputs() const { return node_->input_size(); }
  // Input i is given (present and not the empty name).
  bool has(int i) const { return i < numInputs() && !node_->input(i).empty(); }
  // Value id of input i (fails when absent; `role` names it in the message).
  int in(int i, std::string_view role = {}) const;
  const graph::Value& value(int i) const { return graph_.value(in(i)); }
  // Copies: graph storage moves when nodes are added.
  te::Shape shape(int i) const { return value(i).shape; }
  size_t rank(int i) const { return shape(i).size(); }
  te::DType dtype(int i) const { return value(i).dtype; }
  bool isConst(int i) const { return has(i) && value(i).isConstant(); }
  // Input i is given and is not an empty constant (ONNX exporters pass empty tensors for absent
  // optional inputs, e.g. Resize's roi and scales).
  bool present(int i) const;
  bool isEmpty(int i) const { return isConst(i) && value(i).constant->numElements() == 0; }
  // Input i as a constant: throws RuntimeValueError naming the input (and the model inputs it is
  // computed from) when it is not one after folding.
  runtime::NDArray constant(int i, std::string_view role) const;
  // Integer (or bool) constant input as int64 values.
  std::vector<int64_t> ints(int i, std::string_view role) const;
  // Single-element constant input (any dtype) as a double.
  double scalar(int i, std::string_view role) const;
  // Describes input i for messages: `input 1 ("shape")`.
  std::string inputLabel(int i, std::string_view role = {}) const;

  // ---- attributes ----------------------------------------------------------------------------
  const onnx::AttributeProto* attr(std::string_view name) const;
  bool hasAttr(std::string_view name) const { return attr(name) != nullptr; }
  int64_t attrInt(std::string_view name, int64_t def) const;
  double attrFloat(std::string_view name, double def) const;
  std::string attrString(std::string_view name, std::string_view def) const;
  std::vector<int64_t> attrInts(std::string_view name) const;  // empty when absent
  std::vector<float> attrFloats(std::string_view name) const;
  const onnx::TensorProto* attrTensor(std::string_view name) const;  // null when absent
  // Fails unless every attribute of the node is in `known` (catches unsupported attributes).
  void checkAttrs(std::initializer_list<std::string_view> known) const;

  // ---- subgraphs (If branches, Loop bodies) ----------------------------------------------------
  // A graph attribute (fails naming it when absent).
  const onnx::GraphProto& attrGraph(std::string_view name) const;
  // Binds an ONNX name (a subgraph's input) to a graph value.
  void bindName(const std::string& name, int value) { names_[name] = value; }
  // The value an ONNX name is bound to (fails naming it when unbound).
  int named(const std::string& name) const;
  // Imports the nodes of `g` in the current scope (they read outer values and the bound inputs by
  // name; their outputs are bound by name), then makes the current node current again.
  void importSubgraph(const onnx::GraphProto& g);

  // ---- outputs -------------------------------------------------------------------------------
  int numOutputs() const { return node_->output_size(); }
  // Output i exists and a later node or the graph output reads it.
  bool outputUsed(int i) const;
  // A stage of a staged run (staged_import.h): operators that are cheaper on the host than as
  // kernels for run-time data (TopK, a sort) ask for their input as a constant and so end the stage.
  bool staged() const { return staged_; }
  void setStaged(bool s) { staged_ = s; }
  void setOutput(int i, int value);

  // ---- emitting ------------------------------------------------------------------------------
  // Adds a graph node (or, when every input is a constant, its folded value; when an input has no
  // elements, the empty result as a constant). An empty `tag` names the node like the ONNX node;
  // otherwise "<name>/<tag>".
  int emit(graph::OpAttrs attrs, std::vector<int> inputs, std::string_view tag = {});
  int addConstant(runtime::NDArray data, std::string_view tag);
  // Every value this import computes is evaluated on the host anyway (evaluateNodeOnHost): an
  // operation of constants folds whatever its size.
  void foldEverything() { fold_all_ = true; }
  // Whether an operation of constants with `out_elems` elements computed from `in_elems` folds at
  // import instead of becoming run-time code (small results, or at most twice the inputs).
  bool folds(int64_t out_elems, int64_t in_elems) const;
  // Fails when a tensor of `shape` would be unreasonably large to create at import (> 2^32
  // elements), e.g. from a corrupt shape; returns the element count.
  int64_t checkSize(const te::Shape& shape) const;
  int scalarConstant(double v, te::DType dtype, std::string_view tag);
  // Common one-node helpers; reshape/transpose return `v` when nothing changes.
  int reshape(int v, const te::Shape& shape, std::string_view tag);
  int transpose(int v, const std::vector<int64_t>& perm, std::string_view tag);
  int unary(graph::UnaryKind kind, int v, std::string_view tag, double alpha = 0, double beta = 0);
  int binary(graph::BinaryKind kind, int a, int b, std::string_view tag);
  int cast(int v, te::DType to, std::string_view tag);
  // Bool helpers built from where(): not(x), and select with bool constants.
  int logicalNot(int v, std::string_view tag);

  // References into the graph stay valid only until the next node or constant is added.
  const graph::Value& val(int id) const { return graph_.value(id); }

  // ---- quantized values ------------------------------------------------------------------------
  void noteDequantized(int value, Dequantized d) { dequantized_[value] = std::move(d); }
  // What `value` was dequantized from, or null.
  const Dequantized* dequantized(int value) const {
    auto it = dequantized_.find(value);
    return it == dequantized_.end() ? nullptr : &it->second;
  }
  void noteScaledInteger(int value, ScaledInteger s) { scaled_[value] = std::move(s); }
  // The scaled int32 product `value` is, or null.
  const ScaledInteger* scaledInteger(int value) const {
    auto it = scaled_.find(value);
    return it == scaled_.end() ? nullptr : &it->second;
  }

 private:
  bool staged_ = false;
  bool fold_all_ = false;
  int emitEmpty(const graph::OpAttrs& attrs, const std::vector<int>& inputs, const graph::Value& empty,
                std::string_view tag);
  std::string nodeName(std::string_view tag) const;

  graph::Graph& graph_;
  std::map<std::string, int>& names_;
  std::set<std::string>& used_;
  int opset_;
  const onnx::NodeProto* node_ = nullptr;
  int index_ = 0;
  std::string name_;
  int first_value_ = 0;  // values created for the current node have ids >= first_value_
  std::map<int, Dequantized> dequantized_;
  std::map<int, ScaledInteger> scaled_;
};

// Normalizes an ONNX axis in [-rank, rank) (fails through `c` otherwise).
int64_t normAxis(const Ctx& c, int64_t axis, size_t rank, std::string_view what = "axis");
// "[1, 2, 3]".
std::string listStr(const std::vector<int64_t>& v);
// A rank-1 int64 tensor holding `v` (may be empty).
runtime::NDArray int64Tensor(const std::vector<int64_t>& v);
// Element i of a constant, exact for every element type (long double holds int64 and uint64
// exactly: 64 mantissa bits on x86-64, 113 on AArch64).
long double exactValue(const runtime::NDArray& a, int64_t i);
// memcpy that accepts n == 0 with null pointers (empty tensors have no storage).
void copyBytes(void* dst, const void* src, size_t n);

}  // namespace ttune::frontend::detail
