// Structural rules of ONNX graphs (the IR spec's "Graphs" section) that the importer relies on
// and that the protobuf parser cannot enforce: every value has one definition site — a graph
// input, an initializer or one output of one node — so node outputs are unique within a graph and
// never redefine its inputs or initializers (an initializer may also be listed as an input, the
// IR < 4 convention). Each subgraph (If / Loop / Scan bodies) is checked in its own scope.
// A model that breaks a rule is refused in one sentence naming the value and both definitions.
#pragma once

#include <string>

namespace onnx {
class GraphProto;
}

namespace ttune::frontend {

// Throws Error ("<what> is not a valid ONNX model: value "v" is produced by both node ... and ...").
void checkSingleAssignment(const onnx::GraphProto& graph, const std::string& what);

}  // namespace ttune::frontend
