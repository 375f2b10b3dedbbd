// upgradeToMinOpset (opset_upgrade.h): ONNX's version converter, its failures as one sentence.
#include "frontend/onnx/opset_upgrade.h"

#include <algorithm>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "frontend/onnx/onnx_importer.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "onnx/version_converter/convert.h"
#include "support/error.h"

namespace ttune::frontend {

namespace {

// The converter's reasons come as failed assertions ("<file>:<line>: <function>: Assertion `false`
// failed: No Adapter From Version $6 for Greater"); keep the reason.
std::string reasonOf(const std::exception& e) {
  std::string r = e.what();
  if (size_t p = r.find('\n'); p != std::string::npos) r.resize(p);  // the checker's context lines
  if (size_t p = r.find(" failed: "); p != std::string::npos) r = r.substr(p + 9);
  r.erase(std::remove(r.begin(), r.end(), '$'), r.end());
  for (char& ch : r)
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  while (!r.empty() && (r.back() == ' ' || r.back() == '.')) r.pop_back();
  return r;
}

// A value's declared element type and shape, e.g. "FLOAT [1, 2, n]".
std::string declaredType(const onnx::ValueInfoProto& v) {
  if (!v.type().has_tensor_type()) return "no declared tensor type";
  const onnx::TypeProto::Tensor& t = v.type().tensor_type();
  std::string s = onnxTypeName(t.elem_type());
  if (!t.has_shape()) return s;
  s += " [";
  for (int i = 0; i < t.shape().dim_size(); ++i) {
    const onnx::TensorShapeProto::Dimension& d = t.shape().dim(i);
    s += (i ? ", " : "") + (d.has_dim_value()   ? std::to_string(d.dim_value())
                            : d.has_dim_param() ? d.dim_param()
                                                : "?");
  }
  return s + "]";
}

// `after` still declares what `before` declared: the element type and every known size (the
// converter may add what the original left open).
bool sameDeclaration(const onnx::ValueInfoProto& before, const onnx::ValueInfoProto& after) {
  if (!before.type().has_tensor_type()) return true;
  if (!after.type().has_tensor_type()) return false;
  const onnx::TypeProto::Tensor &b = before.type().tensor_type(), &a = after.type().tensor_type();
  if (b.elem_type() != a.elem_type()) return false;
  if (!b.has_shape()) return true;
  if (!a.has_shape() || a.shape().dim_size() != b.shape().dim_size()) return false;
  for (int i = 0; i < b.shape().dim_size(); ++i)
    if (b.shape().dim(i).has_dim_value() &&
        (!a.shape().dim(i).has_dim_value() || a.shape().dim(i).dim_value() != b.shape().dim(i).dim_value()))
      return false;
  return true;
}

// Float values of a constant the graph names (an initializer or a Constant node's value), or
// nothing when the name is computed.
std::optional<std::vector<float>> constantFloats(const onnx::GraphProto& g, const std::string& name) {
  const onnx::TensorProto* t = nullptr;
  for (const onnx::TensorProto& i : g.initializer())
    if (i.name() == name) t = &i;
  for (const onnx::NodeProto& n : g.node())
    if (n.op_type() == "Constant" && n.output_size() == 1 && n.output(0) == name)
      for (const onnx::AttributeProto& a : n.attribute())
        if (a.name() == "value" && a.has_t()) t = &a.t();
  if (!t || t->data_type() != onnx::TensorProto::FLOAT) return std::nullopt;
  try {
    runtime::NDArray a = tensorFromProto(*t);
    return std::vector<float>(a.as<float>(), a.as<float>() + a.numElements());
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Upsample and Resize-10 map input coordinates asymmetrically (x_in = x_out / scale) and pick the
// nearest pixel as ONNX Runtime does (below the coordinate, or above it where an axis shrinks);
// ONNX 1.12's converter makes them opset-11 Resizes without saying so, which then default to
// half-pixel coordinates (a different bilinear result). Say it on every Resize it made: before
// opset 11 there is no other Resize.
void keepResizeTenSemantics(onnx::GraphProto& g) {
  for (onnx::NodeProto& n : *g.mutable_node()) {
    if (n.op_type() != "Resize" || !n.domain().empty()) continue;
    bool has_mode = false, nearest = true;
    for (const onnx::AttributeProto& a : n.attribute()) {
      has_mode = has_mode || a.name() == "coordinate_transformation_mode";
      if (a.name() == "mode") nearest = a.s() == "nearest";
    }
    if (has_mode) continue;
    auto set = [&](const char* name, const std::string& value) {
      onnx::AttributeProto* a = n.add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(value);
    };
    set("coordinate_transformation_mode", "asymmetric");
    if (!nearest) continue;
    bool shrinks_only = false;
    if (n.input_size() > 2)
      if (auto scales = constantFloats(g, n.input(2)); scales && !scales->empty()) {
        shrinks_only = true;
        bool any = false;
        for (float f : *scales) {
          if (f == 1.0f) continue;
          any = true;
          shrinks_only = shrinks_only && f < 1.0f;
        }
        shrinks_only = shrinks_only && any;
      }
    set("nearest_mode", shrinks_only ? "ceil" : "floor");
  }
}

// ONNX 1.12's converter dereferences the value of every graph output and value_info name without
// checking that the graph defines it (its checker does not look either). Outputs must be
// defined (in this graph or, for subgraphs, an enclosing one); value_info entries are hints,
// so the undefined ones are dropped.
void checkNamesDefined(onnx::GraphProto& g, std::set<std::string> defined, const std::string& what) {
  for (const onnx::ValueInfoProto& v : g.input()) defined.insert(v.name());
  for (const onnx::TensorProto& t : g.initializer()) defined.insert(t.name());
  for (onnx::NodeProto& n : *g.mutable_node()) {
    for (onnx::AttributeProto& a : *n.mutable_attribute()) {
      if (a.has_g()) checkNamesDefined(*a.mutable_g(), defined, what);
      for (onnx::GraphProto& sg : *a.mutable_graphs()) checkNamesDefined(sg, defined, what);
    }
    for (const std::string& o : n.output()) defined.insert(o);
  }
  for (const onnx::ValueInfoProto& o : g.output())
    if (!defined.count(o.name())) fail("output \"", o.name(), "\" of ", what, " is not produced by any node");
  auto* info = g.mutable_value_info();
  info->erase(std::remove_if(info->begin(), info->end(),
                             [&](const onnx::ValueInfoProto& v) { return !defined.count(v.name()); }),
              info->end());
}

// ONNX 1.12's converter loses where an externally stored tensor's data lives (the upgraded model
// would have an empty weight): such tensors are read into the model first.
void inlineExternalData(onnx::GraphProto& g, const std::string& base_dir) {
  auto inline_one = [&](onnx::TensorProto& t) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) return;
    runtime::NDArray a = tensorFromProto(t, base_dir);  // names the tensor and file on failure
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
    t.set_raw_data(a.data(), static_cast<size_t>(a.numElements() * te::dtypeBytes(a.dtype())));
  };
  for (onnx::TensorProto& t : *g.mutable_initializer()) inline_one(t);
  for (onnx::NodeProto& n : *g.mutable_node())
    for (onnx::AttributeProto& a : *n.mutable_attribute())
      if (a.has_t()) inline_one(*a.mutable_t());
}

}  // namespace

int defaultOnnxOpset(const onnx::ModelProto& m) {
  int opset = -1;
  for (const onnx::OperatorSetIdProto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = static_cast<int>(o.version());
  return opset;
}

bool upgradeToMinOpset(onnx::ModelProto& model, const std::string& what, const std::string& base_dir) {
  int opset = defaultOnnxOpset(model);
  if (opset < 1 || opset >= kMinOnnxOpset) return false;
  // Opset 10 deprecated Upsample for Resize with the same inputs and meaning; the converter has
  // no adapter for the deprecated form.
  if (opset == 10)
    for (onnx::NodeProto& n : *model.mutable_graph()->mutable_node())
      if (n.op_type() == "Upsample" && n.domain().empty()) n.set_op_type("Resize");
  // The converter's adapters trust the graph (an Upsample without its scales input would be read
  // out of bounds): ONNX's checker first, with the model's own opsets.
  try {
    onnx::checker::CheckerContext ctx;
    ctx.set_ir_version(static_cast<int>(model.ir_version()));
    std::unordered_map<std::string, int> opsets;
    for (const onnx::OperatorSetIdProto& o : model.opset_import())
      opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = static_cast<int>(o.version());
    ctx.set_opset_imports(opsets);
    ctx.set_model_dir(base_dir);
    ctx.set_is_main_graph(false);  // the inputs' and outputs' declarations are the importer's to judge
    onnx::checker::LexicalScopeContext scope;
    onnx::checker::check_graph(model.graph(), ctx, scope);
  } catch (const std::exception& e) {
    // The checker names the node only on its context lines ("... Name: up1 OpType: Upsample").
    std::string full = e.what(), node;
    size_t name = full.find("Name: "), op = full.find("OpType: ");
    if (name != std::string::npos && op != std::string::npos && op > name) {
      std::string n = full.substr(name + 6, op - name - 6), t = full.substr(op + 8);
      auto trim = [](std::string& x) {
        size_t end = x.find_first_of("\n");
        if (end != std::string::npos) x.resize(end);
        while (!x.empty() && x.back() == ' ') x.pop_back();
      };
      trim(n), trim(t);
      node = (n.empty() ? std::string("a node") : "node \"" + n + "\"") + " (" + t + "): ";
    }
    fail(what, " uses opset ", opset,
         " of the default ONNX domain and is not a valid model of it (ONNX's checker: ", node, reasonOf(e), ")");
  }
  checkNamesDefined(*model.mutable_graph(), {}, what);
  inlineExternalData(*model.mutable_graph(), base_dir);
  onnx::ModelProto upgraded;
  try {
    upgraded = onnx::version_conversion::ConvertVersion(model, kMinOnnxOpset);
  } catch (const std::exception& e) {
    fail(what, " uses opset ", opset,
         " of the default ONNX domain, and ONNX's version converter cannot upgrade it to opset ", kMinOnnxOpset, ": ",
         reasonOf(e));
  }
  // The converter may change a model's interface (opset 8's batched Scan loses its batch axis):
  // a model that would then take or give other shapes is not the user's model any more.
  auto keepsInterface = [&](const auto& before, const auto& after, const char* kind) {
    std::map<std::string, const onnx::ValueInfoProto*> now;
    for (const onnx::ValueInfoProto& v : after) now[v.name()] = &v;
    for (const onnx::ValueInfoProto& v : before) {
      auto it = now.find(v.name());
      if (it != now.end() && sameDeclaration(v, *it->second)) continue;
      std::string was = declaredType(v);
      std::string is = it == now.end() ? std::string("absent") : declaredType(*it->second);
      fail(what, " uses opset ", opset,
           " of the default ONNX domain, and ONNX's version converter cannot upgrade it to opset ", kMinOnnxOpset,
           " without changing its ", kind, " \"", v.name(), "\" from ", was, " to ", is);
    }
  };
  keepsInterface(model.graph().input(), upgraded.graph().input(), "input");
  keepsInterface(model.graph().output(), upgraded.graph().output(), "output");
  keepResizeTenSemantics(*upgraded.mutable_graph());
  model = std::move(upgraded);
  return true;
}

}  // namespace ttune::frontend
