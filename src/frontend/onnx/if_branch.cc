// ifBranchModel (staged_import.h): an If's selected branch as a model of its own.
#include <set>

#include "frontend/onnx/staged_import.h"
#include "onnx/onnx_pb.h"
#include "support/error.h"

namespace ttune::frontend {

namespace {

// Names a graph reads that it does not define itself (at any depth of its subgraphs): the values
// of enclosing scopes it captures. `defined` holds what enclosing parts of this graph define.
void freeNames(const onnx::GraphProto& g, std::set<std::string> defined, std::vector<std::string>& out,
               std::set<std::string>& seen) {
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  auto use = [&](const std::string& n) {
    if (!n.empty() && !defined.count(n) && seen.insert(n).second) out.push_back(n);
  };
  for (const auto& n : g.node()) {
    for (const std::string& i : n.input()) use(i);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) freeNames(a.g(), defined, out, seen);
      for (const auto& sg : a.graphs()) freeNames(sg, defined, out, seen);
    }
    for (const std::string& o : n.output()) defined.insert(o);
  }
  for (const auto& o : g.output()) use(o.name());
}

}  // namespace

std::vector<std::string> capturedNames(const onnx::GraphProto& g) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  freeNames(g, {}, out, seen);
  return out;
}

std::vector<std::string> capturedByNode(const onnx::NodeProto& n) {
  std::vector<std::string> out;
  for (const auto& a : n.attribute()) {
    if (a.has_g())
      for (std::string& c : capturedNames(a.g())) out.push_back(std::move(c));
    for (const auto& g : a.graphs())
      for (std::string& c : capturedNames(g)) out.push_back(std::move(c));
  }
  return out;
}

BranchModel ifBranchModel(const onnx::ModelProto& model, int index, bool cond,
                          const std::map<std::string, runtime::NDArray>& runtime_values,
                          const std::map<std::string, runtime::NDArray>& constants) {
  const onnx::NodeProto& node = model.graph().node(index);
  const char* which = cond ? "then_branch" : "else_branch";
  const onnx::GraphProto* branch = nullptr;
  for (const auto& a : node.attribute())
    if (a.name() == which && a.has_g()) branch = &a.g();
  if (!branch) fail("node #", index, " (If): the attribute ", which, " is missing");

  BranchModel b;
  b.model = std::make_shared<onnx::ModelProto>();
  b.model->set_ir_version(model.ir_version());
  *b.model->mutable_opset_import() = model.opset_import();
  onnx::GraphProto& g = *b.model->mutable_graph();
  g = *branch;
  g.set_name(node.name().empty() ? "if_branch" : node.name() + "_" + which);

  std::map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& t : model.graph().initializer()) initializers[t.name()] = &t;
  for (const std::string& n : capturedNames(*branch)) {
    const runtime::NDArray* v = nullptr;
    if (auto c = constants.find(n); c != constants.end()) {
      v = &(b.options.constant_inputs[n] = c->second);
    } else if (auto r = runtime_values.find(n); r != runtime_values.end()) {
      v = &r->second;
      b.options.input_shapes[n] = v->shape();
      b.inputs.push_back(n);
    } else if (auto t = initializers.find(n); t != initializers.end()) {
      *g.add_initializer() = *t->second;
      continue;
    } else {
      fail("node #", index, " (If): the ", cond ? "then" : "else", " branch reads \"", n,
           "\", which has no value when the branch runs");
    }
    onnx::ValueInfoProto& vi = *g.add_input();
    vi.set_name(n);
    auto* tt = vi.mutable_type()->mutable_tensor_type();
    tt->set_elem_type(dtypeToOnnx(v->dtype()));
    for (int64_t d : v->shape()) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  return b;
}

}  // namespace ttune::frontend
