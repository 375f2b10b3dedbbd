// The ONNX importer: reads an ONNX model (opsets 11 to 17 of the default domain, plus the
// com.microsoft Gelu; older opsets upgraded first, opset_upgrade.h) into a graph::Graph in which
// every value has a static shape.
//
// Contract: the result is shape-correct and uses the graph lowering conventions (Conv is conv2d
// plus a separate bias add, Gemm/MatMul with a constant 2-D weight are dense with an [N, K]
// weight, BatchNormalization is batch_norm, ...; see src/frontend/README.md). Shape-computing
// subgraphs (Shape, Gather, Concat, ConstantOfShape, Range, Cast on shapes, ...) are folded to
// constants during import; inputs that shape the computation (Reshape's shape, Slice's starts,
// Pad's pads, ...) must fold to constants. Only live nodes and values are kept. Every problem
// with the model (malformed file, unsupported operator, attribute value or element type,
// unresolvable symbolic dimension, opset out of range) throws ttune::Error with one sentence
// naming the node (`node "Conv_12" (Conv): ...`, or `node #12 (Conv): ...` when unnamed), input
// or tensor at fault.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "runtime/ndarray.h"
#include "support/error.h"

namespace onnx {
class ModelProto;
class TensorProto;
}  // namespace onnx

namespace ttune::frontend {

// Thrown by the importer when a node needs, as a constant, a value the model computes at run time
// (a shape, a count, the input of NonZero / Unique / NonMaxSuppression). The message names the
// node, the value and the model inputs it is computed from; executor::StagedModel runs such
// models stage by stage instead.
class RuntimeValueError : public Error {
 public:
  RuntimeValueError(const std::string& message, std::string value_name)
      : Error(message), value(std::move(value_name)) {}
  std::string value;  // the ONNX name of the value needed
};

struct OnnxOptions {
  // Full shapes for graph inputs; they override the shapes declared in the file.
  std::map<std::string, te::Shape> input_shapes;
  // Values for symbolic input dimensions by name, e.g. {"batch", 1}.
  std::map<std::string, int64_t> dim_values;
  // Graph inputs bound to fixed values: they become constants (and stop being inputs), e.g. a
  // shape or an axes tensor that the model takes at run time but ttune needs at compile time.
  std::map<std::string, runtime::NDArray> constant_inputs;
};

constexpr int kMinOnnxOpset = 11;
constexpr int kMaxOnnxOpset = 17;

graph::Graph importOnnx(const std::string& path, const OnnxOptions& options = {});
graph::Graph importOnnxModel(const onnx::ModelProto& model, const OnnxOptions& options = {});
// Parses serialized ModelProto bytes (throws Error when they are not a valid model).
graph::Graph importOnnxBytes(const std::string& bytes, const OnnxOptions& options = {});

// Converts a TensorProto (float, int32, int64 or bool; raw_data or the typed fields; external
// data resolved relative to `base_dir`) into an NDArray. Throws Error naming the tensor for other
// element types or inconsistent data. Empty tensors (a 0 dimension) convert to arrays without
// elements: the importer accepts them as constants (e.g. an absent optional input, an empty
// shape prefix) but never as operands of a graph node or as a graph output.
runtime::NDArray tensorFromProto(const onnx::TensorProto& tensor, const std::string& base_dir = "");

// ONNX element type (TensorProto::DataType) -> ttune dtype, or throws Error naming `what`.
te::DType dtypeFromOnnx(int onnx_type, const std::string& what);
// ttune dtype -> ONNX element type (every ttune dtype has one).
int dtypeToOnnx(te::DType dtype);
// "FLOAT", "INT64", ... for messages.
std::string onnxTypeName(int onnx_type);

// Operators the importer knows (default domain unless `domain` is given), e.g. for tools that
// report coverage before importing.
bool isSupportedOnnxOp(const std::string& op_type, const std::string& domain = "");
std::vector<std::string> supportedOnnxOps();

}  // namespace ttune::frontend
