// Model-level import: opset check, graph inputs (with symbolic dimensions resolved), initializers,
// the node loop over the op table, graph outputs, and a final compaction that keeps only live
// nodes and values.
#include <fstream>

#include "frontend/onnx/context.h"
#include "frontend/onnx/graph_rules.h"
#include "frontend/onnx/onnx_importer.h"
#include "frontend/onnx/op_table.h"
#include "frontend/onnx/opset_upgrade.h"
#include "frontend/onnx/staged_import.h"
#include "support/strings.h"

namespace ttune::frontend {

using detail::Ctx;

namespace detail {

std::string opKey(const std::string& domain, const std::string& op_type) {
  if (domain.empty() || domain == "ai.onnx") return op_type;
  return domain + ":" + op_type;
}

const OpTable& opTable() {
  static const OpTable table = [] {
    OpTable t;
    addElementwiseOps(t);
    addNnOps(t);
    addConvOps(t);
    addEinsumOps(t);
    addRecurrentOps(t);
    addLossOps(t);
    addQuantOps(t);
    addShapeOps(t);
    addTensorOps(t);
    addReduceOps(t);
    addResizeOps(t);
    addIndexingOps(t);
    addSampleOps(t);
    addSignalOps(t);
    addLinalgOps(t);
    addTextOps(t);
    addDynamicOps(t);
    addControlOps(t);
    return t;
  }();
  return table;
}

}  // namespace detail

bool isSupportedOnnxOp(const std::string& op_type, const std::string& domain) {
  return detail::opTable().count(detail::opKey(domain, op_type)) > 0;
}

std::vector<std::string> supportedOnnxOps() {
  std::vector<std::string> out;
  for (const auto& [k, fn] : detail::opTable()) out.push_back(k);
  return out;
}

namespace {

te::Shape inputShape(const onnx::ValueInfoProto& vi, const OnnxOptions& opt) {
  const std::string& n = vi.name();
  auto it = opt.input_shapes.find(n);
  if (it != opt.input_shapes.end()) {
    const onnx::TypeProto_Tensor& declared = vi.type().tensor_type();
    if (declared.has_shape() && declared.shape().dim_size() != static_cast<int>(it->second.size()))
      fail("OnnxOptions::input_shapes gives input \"", n, "\" the shape ", te::shapeToString(it->second),
           ", but the model declares rank ", declared.shape().dim_size());
    for (int64_t d : it->second)
      if (d <= 0)
        fail("OnnxOptions::input_shapes gives input \"", n, "\" the shape ", te::shapeToString(it->second),
             "; every dimension must be positive");
    return it->second;
  }
  const onnx::TypeProto_Tensor& tt = vi.type().tensor_type();
  if (!tt.has_shape())
    fail("input \"", n, "\" has no declared shape; give it with OnnxOptions::input_shapes[\"", n, "\"]");
  te::Shape shape;
  int64_t elements = 1;
  auto push = [&](int64_t v) {
    if (elements > (int64_t(1) << 40) / v) fail("input \"", n, "\" has more than 2^40 elements");
    elements *= v;
    shape.push_back(v);
  };
  for (int d = 0; d < tt.shape().dim_size(); ++d) {
    const onnx::TensorShapeProto_Dimension& dim = tt.shape().dim(d);
    if (dim.has_dim_value() && dim.dim_value() > 0) {
      push(dim.dim_value());
    } else if (dim.has_dim_value() && dim.dim_value() == 0) {
      fail("input \"", n, "\" has an empty dimension ", d, " (extent 0), and empty tensors are not supported");
    } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
      auto v = opt.dim_values.find(dim.dim_param());
      if (v == opt.dim_values.end())
        fail("input \"", n, "\" dimension ", d, " is the symbolic \"", dim.dim_param(),
             "\"; set it with OnnxOptions::dim_values[\"", dim.dim_param(), "\"] or OnnxOptions::input_shapes[\"", n,
             "\"]");
      if (v->second <= 0)
        fail("OnnxOptions::dim_values sets \"", dim.dim_param(), "\" to ", v->second, "; it must be positive");
      push(v->second);
    } else {
      fail("input \"", n, "\" dimension ", d, " is unknown; set the full shape with OnnxOptions::input_shapes[\"", n,
           "\"]");
    }
  }
  return shape;
}

// A value bound to a graph input must have the declared element type and static dimensions.
runtime::NDArray checkBound(const onnx::ValueInfoProto& vi, const runtime::NDArray& a) {
  const std::string& n = vi.name();
  const onnx::TypeProto_Tensor& tt = vi.type().tensor_type();
  if (!a.defined()) fail("OnnxOptions::constant_inputs binds input \"", n, "\" to an undefined array");
  te::DType dt = dtypeFromOnnx(tt.elem_type(), "input \"" + n + "\"");
  if (dt != a.dtype())
    fail("OnnxOptions::constant_inputs binds input \"", n, "\" (", te::dtypeName(dt), ") to a ",
         te::dtypeName(a.dtype()), " array");
  bool ok = !tt.has_shape() || tt.shape().dim_size() == static_cast<int>(a.shape().size());
  for (int d = 0; ok && tt.has_shape() && d < tt.shape().dim_size(); ++d)
    ok = !tt.shape().dim(d).has_dim_value() || tt.shape().dim(d).dim_value() == a.shape()[d];
  if (!ok)
    fail("OnnxOptions::constant_inputs binds input \"", n, "\" to an array of shape ", te::shapeToString(a.shape()),
         ", which does not match its declared shape");
  return a;
}

// Makes the value of every graph output carry the ONNX output name: a node output is renamed; an
// input, a constant or a value that is already an output gets an explicit copy.
void bindOutput(graph::Graph& g, const std::string& name, int v) {
  const graph::Value& x = g.value(v);
  if (te::shapeElements(x.shape) == 0)
    fail("output \"", name, "\" is empty (shape ", te::shapeToString(x.shape),
         "), and empty tensors are not supported");
  bool taken = false;
  for (int o : g.outputs()) taken = taken || o == v;
  if (x.name == name && !taken) {
    g.markOutput(v);
    return;
  }
  if (x.producer >= 0 && !taken) {
    g.mutableValue(v).name = name;
    g.markOutput(v);
    return;
  }
  if (x.isConstant()) {
    g.markOutput(g.addConstant(name, *x.constant));
    return;
  }
  int c = g.addNode(name, graph::ReshapeAttrs{x.shape}, {v});
  g.markOutput(c);
}

// Operators that see float16 / bfloat16 values as they are: conversions and pure data movement.
// Every other operator reads them widened to float32 and its float32 results are rounded back
// (te/dtype.h: the 16-bit floats are storage types), so no operator lowering needs to know them.
bool movesHalfFloats(const std::string& op) {
  static const std::set<std::string> ops = {"Cast",      "CastLike",  "Identity", "Reshape", "Flatten", "Squeeze",
                                            "Unsqueeze", "Transpose", "Concat",   "Split",   "Slice",   "Gather",
                                            "Expand",    "Tile",      "Shape",    "Size"};
  return ops.count(op) > 0;
}

// Imports one node; with 16-bit float inputs, the node's ops see them widened to float32 (see
// movesHalfFloats).
void importNode(Ctx& ctx, const onnx::NodeProto& n, detail::OpImporter fn, std::map<std::string, int>& names) {
  std::map<std::string, int> saved;
  te::DType half = te::DType::Float32;
  if ((n.domain().empty() || n.domain() == "ai.onnx") && !movesHalfFloats(n.op_type())) {
    for (int k = 0; k < n.input_size(); ++k) {
      auto it = names.find(n.input(k));
      if (n.input(k).empty() || it == names.end() || saved.count(n.input(k))) continue;
      te::DType t = ctx.val(it->second).dtype;
      if (!te::isHalfFloat(t)) continue;
      half = t;
      saved[n.input(k)] = it->second;
      it->second = ctx.cast(it->second, te::DType::Float32, "widen" + std::to_string(k));
    }
  }
  fn(ctx);
  if (saved.empty()) return;
  for (const auto& [name, v] : saved) names[name] = v;
  for (int k = 0; k < n.output_size(); ++k) {
    auto it = names.find(n.output(k));
    if (it != names.end() && ctx.val(it->second).dtype == te::DType::Float32)
      it->second = ctx.cast(it->second, half, "narrow" + std::to_string(k));
  }
}

// Rebuilds the graph with only the nodes the outputs depend on and the constants they read (all
// graph inputs are kept: callers feed them by position). Value names are made unique: inputs and
// outputs keep their ONNX names, a clashing helper value gets a ".1", ".2", ... suffix.
graph::Graph compact(const graph::Graph& g) {
  std::vector<bool> live(g.nodes().size(), false), live_value(g.values().size(), false);
  for (int o : g.outputs()) live_value[o] = true;
  for (size_t i = g.nodes().size(); i-- > 0;) {
    const graph::Node& n = g.node(static_cast<int>(i));
    if (!live_value[n.output]) continue;
    live[i] = true;
    for (int v : n.inputs)
      if (v >= 0) live_value[v] = true;
  }
  graph::Graph out;
  std::vector<int> map(g.values().size(), -1);
  std::set<std::string> used;
  std::set<int> outputs(g.outputs().begin(), g.outputs().end());
  for (int v : g.inputs()) used.insert(g.value(v).name);
  for (int o : g.outputs()) used.insert(g.value(o).name);
  auto unique = [&](int v) {
    const std::string& n = g.value(v).name;
    if (outputs.count(v)) return n;
    std::string u = n;
    for (int k = 1; used.count(u); ++k) u = n + "." + std::to_string(k);
    used.insert(u);
    return u;
  };
  for (int v : g.inputs()) map[v] = out.addInput(g.value(v).name, g.value(v).shape, g.value(v).dtype);
  auto get = [&](int v) {
    if (v < 0) return -1;
    if (map[v] < 0) {
      const graph::Value& x = g.value(v);
      if (!x.isConstant()) fail("internal: value ", x.name, " is read before it is defined");
      map[v] = out.addConstant(unique(v), *x.constant);
    }
    return map[v];
  };
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    if (!live[i]) continue;
    const graph::Node& n = g.node(static_cast<int>(i));
    std::vector<int> ins;
    for (int v : n.inputs) ins.push_back(get(v));
    int id = out.addNode(n.name, n.attrs, ins);
    out.mutableValue(id).name = unique(n.output);
    map[n.output] = id;
  }
  for (int o : g.outputs()) out.markOutput(get(o));
  return out;
}

// Names read by node `from` and later, and the model's outputs.
std::set<std::string> readFrom(const onnx::GraphProto& gp, int from) {
  std::set<std::string> r;
  for (int i = from; i < gp.node_size(); ++i) {
    for (const std::string& n : gp.node(i).input())
      if (!n.empty()) r.insert(n);
    for (const std::string& n : capturedByNode(gp.node(i))) r.insert(n);  // values an If or Loop body captures
  }
  for (const onnx::ValueInfoProto& o : gp.output()) r.insert(o.name());
  return r;
}

// The whole model (req == nullptr), or one stage of it (see staged_import.h) into *stage.
graph::Graph importModel(const onnx::ModelProto& m, const OnnxOptions& opt, const std::string& base_dir,
                         const std::string& what, const StageRequest* req = nullptr, ImportStage* stage = nullptr) {
  if (!m.has_graph() || (m.graph().node_size() == 0 && m.graph().output_size() == 0))
    fail(what, " is not a valid ONNX model (it has no graph)");
  int opset = defaultOnnxOpset(m);
  if (opset < 0) fail(what, " does not import the default ONNX operator set (opset_import is missing)");
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset)
    fail(what, " uses opset ", opset, " of the default ONNX domain, but ttune supports opsets ", kMinOnnxOpset, " to ",
         kMaxOnnxOpset, " (convert the model, e.g. with onnx.version_converter)");
  const onnx::GraphProto& gp = m.graph();
  if (gp.sparse_initializer_size() > 0) fail(what, " has sparse initializers, which are not supported");
  if (!req || req->start_node == 0) checkSingleAssignment(gp, what);  // once per model: its first import

  graph::Graph g;
  std::map<std::string, int> names;
  for (const onnx::TensorProto& t : gp.initializer()) {
    if (t.name().empty()) fail(what, " has an initializer without a name");
    names[t.name()] = g.addConstant(t.name(), tensorFromProto(t, base_dir));
  }
  std::set<std::string> input_names;
  for (const onnx::ValueInfoProto& vi : gp.input())
    if (!names.count(vi.name())) input_names.insert(vi.name());
  for (const auto& [n, s] : opt.input_shapes)
    if (!input_names.count(n)) fail("OnnxOptions::input_shapes names \"", n, "\", which is not an input of the model");
  for (const auto& [n, a] : opt.constant_inputs)
    if (!input_names.count(n))
      fail("OnnxOptions::constant_inputs names \"", n, "\", which is not an input of the model");
  int start = req ? req->start_node : 0;
  if (req)
    for (const auto& [n, a] : req->constants) names[n] = g.addConstant(n, a);
  if (start == 0) {
    for (const onnx::ValueInfoProto& vi : gp.input()) {
      if (names.count(vi.name())) continue;  // an initializer listed as an input (IR < 4): a constant
      if (!vi.type().has_tensor_type())
        fail("input \"", vi.name(), "\" is not a tensor (sequence, map and optional inputs are not supported)");
      auto bound = opt.constant_inputs.find(vi.name());
      if (bound != opt.constant_inputs.end()) {
        names[vi.name()] = g.addConstant(vi.name(), checkBound(vi, bound->second));
        continue;
      }
      te::DType dt = dtypeFromOnnx(vi.type().tensor_type().elem_type(), "input \"" + vi.name() + "\"");
      names[vi.name()] = g.addInput(vi.name(), inputShape(vi, opt), dt);
      if (stage) stage->input_names.push_back(vi.name());
    }
  } else {  // a later stage: the earlier stages' run-time values it reads are its inputs
    std::set<std::string> later = readFrom(gp, start);
    for (const auto& [n, a] : req->runtime_values) {
      if (!later.count(n) || req->constants.count(n)) continue;
      if (a.numElements() == 0) {
        names[n] = g.addConstant(n, a);  // nothing to compute with: an empty constant
        continue;
      }
      names[n] = g.addInput(n, a.shape(), a.dtype());
      stage->input_names.push_back(n);
    }
  }

  std::set<std::string> used;
  for (const onnx::NodeProto& n : gp.node())
    for (const std::string& i : n.input()) used.insert(i);
  for (const onnx::ValueInfoProto& o : gp.output()) used.insert(o.name());

  Ctx ctx(g, names, used, opset);
  ctx.setStaged(stage != nullptr);
  const detail::OpTable& table = detail::opTable();
  for (int i = start; i < gp.node_size(); ++i) {
    const onnx::NodeProto& n = gp.node(i);
    ctx.beginNode(n, i);
    auto it = table.find(detail::opKey(n.domain(), n.op_type()));
    if (it == table.end()) {
      bool dflt = n.domain().empty() || n.domain() == "ai.onnx";
      ctx.fail("operator ", dflt ? "" : n.domain() + ".", n.op_type(), " is not supported");
    }
    if (stage) {
      std::map<std::string, int> before = names;
      try {
        importNode(ctx, n, it->second, names);
      } catch (const RuntimeValueError& e) {
        // Stop here: what this node began to emit is dead; what later nodes read is output.
        names = before;
        stage->stop_node = i;
        stage->stop_op = n.op_type();
        stage->needed = e.value;
        std::set<std::string> inputs(stage->input_names.begin(), stage->input_names.end());
        for (const std::string& name : readFrom(gp, i)) {
          auto v = names.find(name);
          if (v == names.end()) continue;
          const graph::Value& x = g.value(v->second);
          if (x.isConstant()) {
            if (!req->constants.count(name)) stage->constants[name] = *x.constant;
          } else if (!inputs.count(name)) {
            bindOutput(g, name, v->second);
            stage->output_names.push_back(name);
          }
        }
        return compact(g);
      }
    } else {
      importNode(ctx, n, it->second, names);
    }
    for (int k = 0; k < n.output_size(); ++k)
      if (ctx.outputUsed(k) && !names.count(n.output(k)))
        ctx.fail("output ", k, " (\"", n.output(k), "\") is not supported");
  }
  for (const onnx::ValueInfoProto& o : gp.output()) {
    auto it = names.find(o.name());
    if (it == names.end()) fail("output \"", o.name(), "\" of ", what, " is not produced by any node");
    const graph::Value& x = g.value(it->second);
    if (stage && x.isConstant() && x.constant->numElements() == 0) {  // e.g. no detection: returned as is
      stage->constants[o.name()] = *x.constant;
      continue;
    }
    if (stage) stage->output_names.push_back(o.name());
    bindOutput(g, o.name(), it->second);
  }
  return compact(g);
}

// Errors are one line: control characters of (possibly corrupt) names in messages become '?'.
std::string oneLine(std::string msg) {
  for (char& ch : msg)
    if (static_cast<unsigned char>(ch) < 0x20) ch = '?';
  return msg;
}

graph::Graph importChecked(const onnx::ModelProto& m, const OnnxOptions& opt, const std::string& base_dir,
                           const std::string& what) {
  try {
    return importModel(m, opt, base_dir, what);
  } catch (const RuntimeValueError& e) {
    throw RuntimeValueError(oneLine(e.what()), e.value);
  } catch (const Error& e) {
    throw Error(oneLine(e.what()));
  }
}

std::string dirName(const std::string& path) {
  size_t p = path.find_last_of('/');
  return p == std::string::npos ? std::string(".") : path.substr(0, p == 0 ? 1 : p);
}

}  // namespace

ImportStage importStage(const onnx::ModelProto& model, const OnnxOptions& options, const StageRequest& request,
                        const std::string& base_dir) {
  ImportStage stage;
  try {
    stage.graph = importModel(model, options, base_dir, "the model", &request, &stage);
  } catch (const Error& e) {
    throw Error(oneLine(e.what()));
  }
  return stage;
}

std::map<std::string, runtime::NDArray> evaluateNodeOnHost(const onnx::ModelProto& model, int index,
                                                           const std::map<std::string, runtime::NDArray>& values) {
  const onnx::NodeProto& n = model.graph().node(index);
  graph::Graph g;
  std::map<std::string, int> names;
  for (const std::string& i : n.input()) {
    if (i.empty() || names.count(i)) continue;
    auto v = values.find(i);
    if (v == values.end()) fail("node #", index, " (", n.op_type(), "): input \"", i, "\" has no value");
    names[i] = g.addConstant(i, v->second);
  }
  // What a body (Loop, Scan, If) reads from the enclosing graph is given too; a name without a
  // value fails in the body's import, naming it.
  for (const std::string& c : capturedByNode(n))
    if (auto v = values.find(c); v != values.end() && !names.count(c)) names[c] = g.addConstant(c, v->second);
  std::set<std::string> used(n.output().begin(), n.output().end());
  Ctx ctx(g, names, used, defaultOnnxOpset(model));
  ctx.foldEverything();
  ctx.beginNode(n, index);
  auto it = detail::opTable().find(detail::opKey(n.domain(), n.op_type()));
  if (it == detail::opTable().end()) ctx.fail("operator ", n.op_type(), " is not supported");
  it->second(ctx);
  // Every input is a constant and every operation of constants folds (foldEverything), so the
  // outputs are constants.
  std::map<std::string, runtime::NDArray> out;
  for (const std::string& o : n.output()) {
    if (o.empty()) continue;
    auto v = names.find(o);
    if (v == names.end() || !g.value(v->second).isConstant())
      ctx.fail("output \"", o, "\" could not be evaluated on the host");
    out[o] = *g.value(v->second).constant;
  }
  return out;
}

graph::Graph importOnnxModel(const onnx::ModelProto& model, const OnnxOptions& options) {
  int opset = defaultOnnxOpset(model);
  if (opset < 1 || opset >= kMinOnnxOpset) return importChecked(model, options, "", "the model");
  onnx::ModelProto upgraded = model;
  upgradeToMinOpset(upgraded, "the model");
  return importChecked(upgraded, options, "", "the model");
}

graph::Graph importOnnxBytes(const std::string& bytes, const OnnxOptions& options) {
  onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) fail("the data is not a valid ONNX model (protobuf parsing failed)");
  upgradeToMinOpset(m, "the model");
  return importChecked(m, options, "", "the model");
}

graph::Graph importOnnx(const std::string& path, const OnnxOptions& options) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open the ONNX file \"", path, "\"");
  onnx::ModelProto m;
  std::string what = "the ONNX file \"" + path + "\"";
  if (!m.ParseFromIstream(&f)) fail(what, " is not a valid ONNX model (protobuf parsing failed)");
  upgradeToMinOpset(m, what, dirName(path));
  return importChecked(m, options, dirName(path), what);
}

}  // namespace ttune::frontend
