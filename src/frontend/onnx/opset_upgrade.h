// Models of ONNX opsets below 11 (older exporters; many files of the ONNX model zoo are opset 7
// to 10) are upgraded to opset 11 with ONNX's own version converter before import, so the
// operator importers only ever see opsets 11 to 17.
//
// Contract: upgradeToMinOpset leaves a model of opset >= kMinOnnxOpset untouched and returns
// false; otherwise it replaces the model by the converter's opset-11 model (Upsample becomes
// Resize, Slice / TopK / Clip / Pad take their inputs instead of attributes, Scatter becomes
// ScatterElements, BatchNormalization loses `spatial`, Scan gains its input axes ...) and
// returns true. Before converting, the model must pass ONNX's checker and define every output
// it declares (the converter trusts both); externally stored tensors are read into it (the
// converter would lose their location, `base_dir` is where they are). The Resizes it makes of Upsample and Resize-10
// keep their asymmetric coordinates and ONNX Runtime's nearest pixel (ONNX 1.12's converter leaves them at opset 11's
// half-pixel default, a different bilinear result). A model it cannot upgrade faithfully (a malformed graph, an
// operator version without an adapter, an upgrade that would change the declared inputs or outputs) throws ttune::Error
// with one sentence naming `what`, its opset and the reason. Subgraphs (If / Loop / Scan bodies) are not converted by
// ONNX 1.12's converter: their nodes are imported with opset-11 semantics.
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace ttune::frontend {

// The opset of the default ONNX domain the model imports, or -1 when it imports none.
int defaultOnnxOpset(const onnx::ModelProto& model);

// `base_dir`: where the model's external data files are (the model file's folder).
bool upgradeToMinOpset(onnx::ModelProto& model, const std::string& what, const std::string& base_dir = "");

}  // namespace ttune::frontend
