#include "frontend/onnx/graph_rules.h"

#include "onnx/onnx_pb.h"

#include <map>

#include "support/error.h"
#include "support/strings.h"

namespace ttune::frontend {

namespace {

std::string nodeLabel(const onnx::NodeProto& n, int index) {
  return n.name().empty() ? strFormat("#%d (%s)", index, n.op_type().c_str())
                          : "\"" + n.name() + "\" (" + n.op_type() + ")";
}

void checkGraph(const onnx::GraphProto& g, const std::string& what, const std::string& scope) {
  // Where each name is defined, as it reads in a message.
  std::map<std::string, std::string> defined;
  for (const onnx::TensorProto& t : g.initializer()) {
    auto [it, fresh] = defined.emplace(t.name(), "an initializer");
    if (!fresh) fail(what, " is not a valid ONNX model: ", scope, "initializer \"", t.name(), "\" is given twice");
  }
  for (const onnx::ValueInfoProto& v : g.input()) {
    auto [it, fresh] = defined.emplace(v.name(), "a graph input");
    if (!fresh && it->second != "an initializer")
      fail(what, " is not a valid ONNX model: ", scope, "input \"", v.name(), "\" is listed twice");
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    for (const std::string& o : n.output()) {
      if (o.empty()) continue;  // an optional output left out
      auto [it, fresh] = defined.emplace(o, "node " + nodeLabel(n, i));
      if (!fresh)
        fail(what, " is not a valid ONNX model: ", scope, "value \"", o, "\" is produced by node ", nodeLabel(n, i),
             " and already by ", it->second, " (every value has one definition)");
    }
    for (const onnx::AttributeProto& a : n.attribute()) {
      const std::string inner = scope + "in attribute " + a.name() + " of node " + nodeLabel(n, i) + ", ";
      if (a.has_g()) checkGraph(a.g(), what, inner);
      for (const onnx::GraphProto& sg : a.graphs()) checkGraph(sg, what, inner);
    }
  }
}

}  // namespace

void checkSingleAssignment(const onnx::GraphProto& graph, const std::string& what) { checkGraph(graph, what, ""); }

}  // namespace ttune::frontend
