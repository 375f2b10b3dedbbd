#include "frontend/onnx/context.h"

#include "frontend/onnx/op_table.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "support/strings.h"
#include "te/compute_dag.h"
#include "te/dtype_io.h"

namespace ttune::frontend::detail {

namespace {

// Folding a node on constants is skipped when it would only materialize a large broadcast
// (e.g. Expand of a scalar to an activation-sized tensor) or when the reference evaluator would
// need long for it (a product of two large constant matrices): the node stays and reads the
// constants, and the compiled model computes it.
constexpr int64_t kFoldAlwaysElements = 1 << 16;
constexpr double kFoldMaxFlops = 1e8;

// Graph::addNode reports "node <name> (<op>): <message>"; the importer re-prefixes with the ONNX
// node, so the graph's own prefix is dropped.
std::string stripGraphPrefix(const std::string& msg, const std::string& node_name, const graph::OpAttrs& attrs) {
  std::string p = "node " + node_name + " (" + graph::opName(attrs) + "): ";
  return startsWith(msg, p) ? msg.substr(p.size()) : msg;
}

}  // namespace

std::string listStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  s += join(v, ", ", [](int64_t x) { return std::to_string(x); });
  s += ']';
  return s;
}

int64_t normAxis(const Ctx& c, int64_t axis, size_t rank, std::string_view what) {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) c.fail(what, " ", axis, " is out of range for a tensor of rank ", rank);
  return axis < 0 ? axis + r : axis;
}

void Ctx::beginNode(const onnx::NodeProto& node, int index) {
  node_ = &node;
  index_ = index;
  name_ = node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
  first_value_ = static_cast<int>(graph_.values().size());
}

const onnx::GraphProto& Ctx::attrGraph(std::string_view name) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a || a->type() != onnx::AttributeProto::GRAPH) fail("the graph attribute ", name, " is missing");
  return a->g();
}

int Ctx::named(const std::string& name) const {
  auto it = names_.find(name);
  if (it == names_.end()) fail("the value \"", name, "\" is not defined");
  return it->second;
}

namespace {
// Every name a graph's nodes (and nested graphs) read, and its outputs.
void namesRead(const onnx::GraphProto& g, std::set<std::string>& out) {
  for (const onnx::NodeProto& n : g.node()) {
    for (const std::string& i : n.input()) out.insert(i);
    for (const onnx::AttributeProto& a : n.attribute())
      if (a.type() == onnx::AttributeProto::GRAPH) namesRead(a.g(), out);
  }
  for (const onnx::ValueInfoProto& o : g.output()) out.insert(o.name());
}
}  // namespace

void Ctx::importSubgraph(const onnx::GraphProto& g) {
  const onnx::NodeProto* outer = node_;
  int outer_index = index_;
  namesRead(g, used_);
  for (const onnx::TensorProto& t : g.initializer())
    names_[t.name()] = graph_.addConstant(t.name(), tensorFromProto(t));
  const OpTable& table = opTable();
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    beginNode(n, i);
    auto it = table.find(opKey(n.domain(), n.op_type()));
    if (it == table.end()) fail("operator ", n.op_type(), " is not supported");
    it->second(*this);
    for (int k = 0; k < n.output_size(); ++k)
      if (outputUsed(k) && !names_.count(n.output(k))) fail("output ", k, " (\"", n.output(k), "\") is not supported");
  }
  node_ = outer;
  index_ = outer_index;
  name_ = outer->name().empty() ? outer->op_type() + "_" + std::to_string(outer_index) : outer->name();
}

std::string Ctx::prefix() const {
  std::string s = "node ";
  if (node_->name().empty()) {
    s += '#';
    s += std::to_string(index_);
  } else {
    s += '"';
    s += node_->name();
    s += '"';
  }
  s += " (";
  s += node_->op_type();
  s += "): ";
  return s;
}

std::string Ctx::inputLabel(int i, std::string_view role) const {
  std::string n = i < numInputs() ? node_->input(i) : std::string();
  if (!role.empty()) return cat("the ", role, " input", n.empty() ? "" : " \"" + n + "\"");
  return cat("input ", i, n.empty() ? "" : " \"" + n + "\"");
}

int Ctx::in(int i, std::string_view role) const {
  if (!has(i)) fail(role.empty() ? cat("input ", i) : cat("the ", role, " input"), " is missing");
  auto it = names_.find(node_->input(i));
  if (it == names_.end())
    fail(inputLabel(i, role), " is not defined before the node (the graph is malformed or not topologically sorted)");
  return it->second;
}

bool Ctx::present(int i) const { return has(i) && !isEmpty(i); }

runtime::NDArray Ctx::constant(int i, std::string_view role) const {
  const graph::Value& v = value(i);
  if (!v.isConstant()) {
    // Name the model inputs it is computed from: those are what a user binds to fix the shape.
    std::set<int> seen, sources;
    std::vector<int> stack{in(i)};
    while (!stack.empty()) {
      int id = stack.back();
      stack.pop_back();
      if (!seen.insert(id).second) continue;
      const graph::Value& x = graph_.value(id);
      if (x.isConstant()) continue;
      if (x.producer < 0)
        sources.insert(id);
      else
        for (int u : graph_.nodes()[x.producer].inputs)
          if (u >= 0) stack.push_back(u);
    }
    bool derived = !(sources.size() == 1 && *sources.begin() == in(i));
    std::string from;
    for (int id : sources) from += cat(from.empty() ? "" : ", ", "\"", graph_.value(id).name, "\"");
    if (derived && !sources.empty())
      from = cat(" (from the model input", sources.size() > 1 ? "s " : " ", from, ")");
    else
      from.clear();
    throw RuntimeValueError(cat(prefix(), inputLabel(i, role), " is computed at run time", from,
                                ", but ttune needs it as a constant at import"),
                            node_->input(i));
  }
  return *v.constant;
}

std::vector<int64_t> Ctx::ints(int i, std::string_view role) const {
  runtime::NDArray a = constant(i, role);
  if (te::isFloat(a.dtype())) fail(inputLabel(i, role), " must be an integer tensor, not ", te::dtypeName(a.dtype()));
  std::vector<int64_t> out(static_cast<size_t>(a.numElements()));
  for (size_t k = 0; k < out.size(); ++k) out[k] = te::loadInt(a.data(), a.dtype(), static_cast<int64_t>(k));
  if (te::isUnsigned64(a.dtype()))
    for (int64_t v : out)
      if (v < 0) fail(inputLabel(i, role), " holds a uint64 value beyond int64's range");
  return out;
}

double Ctx::scalar(int i, std::string_view role) const {
  runtime::NDArray a = constant(i, role);
  if (a.numElements() != 1)
    fail(inputLabel(i, role), " must hold one element, but has shape ", te::shapeToString(a.shape()));
  return te::loadDouble(a.data(), a.dtype(), 0);
}

const onnx::AttributeProto* Ctx::attr(std::string_view name) const {
  for (const onnx::AttributeProto& a : node_->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t Ctx::attrInt(std::string_view name, int64_t def) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::INT && !(a->type() == onnx::AttributeProto::UNDEFINED && a->has_i()))
    fail("attribute ", name, " must be an integer");
  return a->i();
}

double Ctx::attrFloat(std::string_view name, double def) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return def;
  if (a->type() == onnx::AttributeProto::INT) return static_cast<double>(a->i());
  if (a->type() != onnx::AttributeProto::FLOAT && !(a->type() == onnx::AttributeProto::UNDEFINED && a->has_f()))
    fail("attribute ", name, " must be a float");
  return a->f();
}

std::string Ctx::attrString(std::string_view name, std::string_view def) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return std::string(def);
  if (a->type() != onnx::AttributeProto::STRING && !(a->type() == onnx::AttributeProto::UNDEFINED && a->has_s()))
    fail("attribute ", name, " must be a string");
  return a->s();
}

std::vector<int64_t> Ctx::attrInts(std::string_view name) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return {};
  if (a->type() != onnx::AttributeProto::INTS && a->type() != onnx::AttributeProto::UNDEFINED)
    fail("attribute ", name, " must be a list of integers");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<float> Ctx::attrFloats(std::string_view name) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return {};
  if (a->type() != onnx::AttributeProto::FLOATS && a->type() != onnx::AttributeProto::UNDEFINED)
    fail("attribute ", name, " must be a list of floats");
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

const onnx::TensorProto* Ctx::attrTensor(std::string_view name) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return nullptr;
  if (a->type() != onnx::AttributeProto::TENSOR && !(a->type() == onnx::AttributeProto::UNDEFINED && a->has_t()))
    fail("attribute ", name, " must be a tensor");
  return &a->t();
}

void Ctx::checkAttrs(std::initializer_list<std::string_view> known) const {
  for (const onnx::AttributeProto& a : node_->attribute()) {
    bool ok = false;
    for (std::string_view k : known) ok = ok || a.name() == k;
    if (!ok) fail("attribute ", a.name(), " is not supported");
  }
}

bool Ctx::outputUsed(int i) const {
  return i < numOutputs() && !node_->output(i).empty() && used_.count(node_->output(i)) > 0;
}

void Ctx::setOutput(int i, int value) {
  if (i >= numOutputs() || node_->output(i).empty()) return;
  const std::string& n = node_->output(i);
  names_[n] = value;
  if (value >= first_value_) graph_.mutableValue(value).name = n;
}

std::string Ctx::nodeName(std::string_view tag) const { return tag.empty() ? name_ : name_ + "/" + std::string(tag); }

bool Ctx::folds(int64_t out_elems, int64_t in_elems) const {
  return fold_all_ || out_elems <= kFoldAlwaysElements || out_elems <= 2 * in_elems;
}

int Ctx::emit(graph::OpAttrs attrs, std::vector<int> inputs, std::string_view tag) {
  std::string nm = nodeName(tag);
  bool all_const = !inputs.empty();
  int64_t in_elems = 0;
  std::vector<te::Tensor> ph;
  for (size_t k = 0; k < inputs.size(); ++k) {
    int v = inputs[k];
    if (v < 0) {
      ph.emplace_back();
      continue;
    }
    const graph::Value& x = val(v);
    if (te::shapeElements(x.shape) == 0) return emitEmpty(attrs, inputs, x, tag);
    all_const = all_const && x.isConstant();
    in_elems += te::shapeElements(x.shape);
    ph.push_back(te::placeholder("in" + std::to_string(k), x.shape, x.dtype, x.isConstant()));
  }
  try {
    if (all_const) {
      te::Tensor out = graph::buildOp(attrs, ph);
      int64_t out_elems = te::shapeElements(out.shape());
      std::vector<te::Tensor> dag_inputs;
      for (const te::Tensor& t : ph)
        if (t.defined()) dag_inputs.push_back(t);
      bool cheap = fold_all_ || te::ComputeDAG(dag_inputs, {out}).flops() <= kFoldMaxFlops;
      if (cheap && folds(out_elems, in_elems)) {
        graph::Node n{nm, attrs, inputs, -1};
        return graph_.addConstant(nm, graph::evaluateConstantNode(graph_, n));
      }
    }
    int id = graph_.addNode(nm, attrs, std::move(inputs));
    checkSize(graph_.value(id).shape);  // every later shape computation stays within 64 bits
    return id;
  } catch (const Error& e) {
    fail(stripGraphPrefix(e.what(), nm, attrs));
  }
}

// An operand without elements (an empty selection at run time: no box left at some level, no
// non-zero): the result has no elements either and is an empty constant, whatever the operator.
// Its shape is found by building the operator with the empty extents set to 1 and to 2: the
// result's extents that follow them are the empty ones. An operator whose result does not shrink
// with its empty operand (a reduction over the empty axis) is refused.
int Ctx::emitEmpty(const graph::OpAttrs& attrs, const std::vector<int>& inputs, const graph::Value& empty,
                   std::string_view tag) {
  auto probe = [&](int64_t k) {
    std::vector<te::Tensor> ph;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] < 0) {
        ph.emplace_back();
        continue;
      }
      const graph::Value& x = val(inputs[i]);
      te::Shape s = x.shape;
      for (int64_t& d : s)
        if (d == 0) d = k;
      ph.push_back(te::placeholder("in" + std::to_string(i), s, x.dtype, x.isConstant()));
    }
    return graph::buildOp(attrs, ph);
  };
  auto refuse = [&] {
    fail("the operand \"", empty.name, "\" is empty (shape ", te::shapeToString(empty.shape),
         "), and this operation of an empty tensor is not supported");
  };
  te::Tensor one, two;
  try {
    one = probe(1), two = probe(2);
  } catch (const Error&) {
    refuse();
  }
  if (one.shape().size() != two.shape().size()) refuse();
  te::Shape out = one.shape();
  for (size_t d = 0; d < out.size(); ++d)
    if (two.shape()[d] != out[d]) out[d] = 0;
  const te::DType dtype = one.dtype();
  if (te::shapeElements(out) == 0) return addConstant(runtime::NDArray::empty(out, dtype), tag);
  const auto* reduce = std::get_if<graph::ReduceAttrs>(&attrs);
  if (!reduce) refuse();
  // A reduction over the empty axes: its identity (ONNX: sum 0, product 1, max the lowest
  // value, min the highest; a mean of nothing is NaN).
  double fill = 0;
  switch (reduce->kind) {
    case graph::ReduceKind::Sum:
      fill = 0;
      break;
    case graph::ReduceKind::Prod:
      fill = 1;
      break;
    case graph::ReduceKind::Max:
      fill = -std::numeric_limits<double>::infinity();
      break;
    case graph::ReduceKind::Min:
      fill = std::numeric_limits<double>::infinity();
      break;
    case graph::ReduceKind::Mean:
      fill = std::numeric_limits<double>::quiet_NaN();
      break;
  }
  runtime::NDArray a = runtime::NDArray::empty(out, dtype);
  for (int64_t i = 0; i < a.numElements(); ++i) {
    if (!te::isInt(dtype))
      te::storeDouble(a.data(), dtype, i, fill);
    else if (std::isinf(fill))
      te::storeInt(a.data(), dtype, i, fill > 0 ? te::intTypeMax(dtype) : te::intTypeMin(dtype));
    else
      te::storeInt(a.data(), dtype, i, static_cast<int64_t>(fill));
  }
  return addConstant(std::move(a), tag);
}

int Ctx::addConstant(runtime::NDArray data, std::string_view tag) {
  for (int64_t d : data.shape())
    if (d < 0) fail("the result has the invalid shape ", te::shapeToString(data.shape()));
  return graph_.addConstant(nodeName(tag), std::move(data));
}

int64_t Ctx::checkSize(const te::Shape& shape) const {
  constexpr int64_t kMax = int64_t(1) << 32;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) fail("the shape ", te::shapeToString(shape), " has a negative dimension");
    if (d > 0 && n > kMax / d) fail("the shape ", te::shapeToString(shape), " is too large (more than 2^32 elements)");
    n *= d;
  }
  return n;
}

int Ctx::scalarConstant(double v, te::DType dtype, std::string_view tag) {
  runtime::NDArray a({}, dtype);
  a.fill(v);
  return addConstant(std::move(a), tag);
}

int Ctx::reshape(int v, const te::Shape& shape, std::string_view tag) {
  const graph::Value& x = val(v);
  if (x.shape == shape) return v;
  for (int64_t d : shape)  // an empty value may take another empty shape
    if (d < 0 || (d == 0 && te::shapeElements(x.shape) != 0))
      fail("the target shape ", te::shapeToString(shape),
           " has an empty or negative dimension, which is not supported");
  if (te::shapeElements(shape) != te::shapeElements(x.shape))
    fail("cannot reshape ", te::shapeToString(x.shape), " to ", te::shapeToString(shape),
         " (the element counts differ)");
  if (x.isConstant()) {
    runtime::NDArray a = runtime::NDArray::empty(shape, x.dtype);
    copyBytes(a.data(), x.constant->data(), static_cast<size_t>(a.bytes()));
    return addConstant(std::move(a), tag);
  }
  return emit(graph::ReshapeAttrs{shape}, {v}, tag);
}

int Ctx::transpose(int v, const std::vector<int64_t>& perm, std::string_view tag) {
  bool identity = true;
  for (size_t k = 0; k < perm.size(); ++k) identity = identity && perm[k] == static_cast<int64_t>(k);
  const graph::Value& x = val(v);
  if (identity && perm.size() == x.shape.size()) return v;
  if (x.isConstant() && x.shape.size() == 2 && perm == std::vector<int64_t>{1, 0}) {
    // Weight transposes (Gemm, MatMul -> dense) on the host: large and common.
    int64_t rows = x.shape[0], cols = x.shape[1];
    size_t es = static_cast<size_t>(te::dtypeBytes(x.dtype));
    runtime::NDArray t = runtime::NDArray::empty({cols, rows}, x.dtype);
    const char* src = static_cast<const char*>(x.constant->data());
    char* dst = static_cast<char*>(t.data());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) std::memcpy(dst + (j * rows + i) * es, src + (i * cols + j) * es, es);
    return addConstant(std::move(t), tag);
  }
  return emit(graph::TransposeAttrs{perm}, {v}, tag);
}

int Ctx::unary(graph::UnaryKind kind, int v, std::string_view tag, double alpha, double beta) {
  return emit(graph::UnaryAttrs{kind, alpha, beta}, {v}, tag);
}

int Ctx::binary(graph::BinaryKind kind, int a, int b, std::string_view tag) {
  return emit(graph::BinaryAttrs{kind}, {a, b}, tag);
}

int Ctx::cast(int v, te::DType to, std::string_view tag) {
  if (val(v).dtype == to) return v;
  return emit(graph::CastAttrs{to}, {v}, tag);
}

int Ctx::logicalNot(int v, std::string_view tag) {
  // graph's unary "not" only takes float32, so not(x) = where(x, false, true).
  int f = scalarConstant(0, te::DType::Bool, std::string(tag) + "_false");
  int t = scalarConstant(1, te::DType::Bool, std::string(tag) + "_true");
  return emit(graph::WhereAttrs{}, {v, f, t}, tag);
}

runtime::NDArray int64Tensor(const std::vector<int64_t>& v) {
  runtime::NDArray a = runtime::NDArray::empty({static_cast<int64_t>(v.size())}, te::DType::Int64);
  copyBytes(a.data(), v.data(), v.size() * sizeof(int64_t));
  return a;
}

long double exactValue(const runtime::NDArray& a, int64_t i) {
  switch (a.dtype()) {
    case te::DType::Int64:
      return static_cast<long double>(a.as<int64_t>()[i]);
    case te::DType::UInt64:
      return static_cast<long double>(a.as<uint64_t>()[i]);
    default:
      return te::loadDouble(a.data(), a.dtype(), i);
  }
}

void copyBytes(void* dst, const void* src, size_t n) {
  if (n > 0) std::memcpy(dst, src, n);
}

}  // namespace ttune::frontend::detail
