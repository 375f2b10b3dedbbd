// The table of ONNX operator importers, keyed by op type ("Conv") for the default domain and by
// "<domain>:<op type>" for other domains ("com.microsoft:Gelu"). Each importer reads its node
// through the Ctx, emits graph nodes and binds every used output; it fails (through the Ctx)
// on attribute values it cannot represent.
#pragma once

#include <map>
#include <string>

#include "frontend/onnx/context.h"

namespace ttune::frontend::detail {

using OpImporter = void (*)(Ctx&);
using OpTable = std::map<std::string, OpImporter>;

// One registration function per operator family (ops_*.cc).
void addElementwiseOps(OpTable& t);
void addNnOps(OpTable& t);
void addConvOps(OpTable& t);
void addEinsumOps(OpTable& t);
void addRecurrentOps(OpTable& t);
void addLossOps(OpTable& t);
void addQuantOps(OpTable& t);
void addShapeOps(OpTable& t);
void addTensorOps(OpTable& t);
void addReduceOps(OpTable& t);
void addResizeOps(OpTable& t);
void addIndexingOps(OpTable& t);
void addSampleOps(OpTable& t);
void addSignalOps(OpTable& t);
void addLinalgOps(OpTable& t);
void addTextOps(OpTable& t);
void addDynamicOps(OpTable& t);
void addControlOps(OpTable& t);

const OpTable& opTable();
// Key of an op in the table ("" and "ai.onnx" are the default domain).
std::string opKey(const std::string& domain, const std::string& op_type);

}  // namespace ttune::frontend::detail
