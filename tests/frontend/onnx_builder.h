// Test helper: builds small ONNX ModelProtos in C++ (inputs with static or symbolic dims,
// initializers from NDArrays, nodes with attributes), so that importer tests need no files.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "onnx/onnx_pb.h"
#include "runtime/ndarray.h"

namespace ttune::frontend::testing {

using Dim = std::variant<int64_t, std::string>;  // a size or a symbolic name

onnx::TensorProto toProto(const std::string& name, const runtime::NDArray& a);
int onnxType(te::DType t);

class ModelBuilder {
 public:
  explicit ModelBuilder(int opset = 13);

  void input(const std::string& name, const std::vector<Dim>& dims, te::DType dtype = te::DType::Float32);
  void output(const std::string& name);
  void initializer(const std::string& name, const runtime::NDArray& a);
  // Float / int64 initializers from values.
  void floats(const std::string& name, const te::Shape& shape, const std::vector<float>& v);
  void ints(const std::string& name, const std::vector<int64_t>& v);
  // Seeded random float initializer in [lo, hi).
  runtime::NDArray random(const std::string& name, const te::Shape& shape, uint64_t seed, double lo = -1,
                          double hi = 1);

  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "");

  onnx::ModelProto& model() { return model_; }
  std::string bytes() const;

 private:
  onnx::ModelProto model_;
};

// Attributes.
void setAttr(onnx::NodeProto& n, const std::string& name, int64_t v);
void setAttr(onnx::NodeProto& n, const std::string& name, float v);
void setAttr(onnx::NodeProto& n, const std::string& name, const std::string& v);
void setAttr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);
void setAttr(onnx::NodeProto& n, const std::string& name, const runtime::NDArray& t);
void setAttr(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v);
// A graph attribute (If branches, Loop / Scan bodies): e.g. another builder's model().graph().
void setAttr(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g);

// Random float array.
runtime::NDArray randomArray(const te::Shape& shape, uint64_t seed, double lo = -1, double hi = 1);

}  // namespace ttune::frontend::testing
