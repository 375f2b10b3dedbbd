#include "onnx_builder.h"

#include <cstring>

namespace ttune::frontend::testing {

int onnxType(te::DType t) {
  switch (t) {
    case te::DType::Float32:
      return onnx::TensorProto::FLOAT;
    case te::DType::Int32:
      return onnx::TensorProto::INT32;
    case te::DType::Int64:
      return onnx::TensorProto::INT64;
    case te::DType::Bool:
      return onnx::TensorProto::BOOL;
    case te::DType::Int8:
      return onnx::TensorProto::INT8;
    case te::DType::UInt8:
      return onnx::TensorProto::UINT8;
    case te::DType::Int16:
      return onnx::TensorProto::INT16;
    case te::DType::UInt16:
      return onnx::TensorProto::UINT16;
    case te::DType::UInt32:
      return onnx::TensorProto::UINT32;
    case te::DType::UInt64:
      return onnx::TensorProto::UINT64;
    case te::DType::Float64:
      return onnx::TensorProto::DOUBLE;
    case te::DType::Float16:
      return onnx::TensorProto::FLOAT16;
    case te::DType::BFloat16:
      return onnx::TensorProto::BFLOAT16;
  }
  return onnx::TensorProto::UNDEFINED;
}

onnx::TensorProto toProto(const std::string& name, const runtime::NDArray& a) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnxType(a.dtype()));
  for (int64_t d : a.shape()) t.add_dims(d);
  t.set_raw_data(std::string(static_cast<const char*>(a.data()), static_cast<size_t>(a.bytes())));
  return t;
}

runtime::NDArray randomArray(const te::Shape& shape, uint64_t seed, double lo, double hi) {
  runtime::NDArray a(shape, te::DType::Float32);
  a.fillRandom(seed, lo, hi);
  return a;
}

ModelBuilder::ModelBuilder(int opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("ttune-tests");
  onnx::OperatorSetIdProto* o = model_.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

void ModelBuilder::input(const std::string& name, const std::vector<Dim>& dims, te::DType dtype) {
  onnx::ValueInfoProto* v = model_.mutable_graph()->add_input();
  v->set_name(name);
  onnx::TypeProto_Tensor* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnxType(dtype));
  onnx::TensorShapeProto* s = tt->mutable_shape();
  for (const Dim& d : dims) {
    onnx::TensorShapeProto_Dimension* dim = s->add_dim();
    if (std::holds_alternative<int64_t>(d))
      dim->set_dim_value(std::get<int64_t>(d));
    else
      dim->set_dim_param(std::get<std::string>(d));
  }
}

void ModelBuilder::output(const std::string& name) { model_.mutable_graph()->add_output()->set_name(name); }

void ModelBuilder::initializer(const std::string& name, const runtime::NDArray& a) {
  *model_.mutable_graph()->add_initializer() = toProto(name, a);
}

void ModelBuilder::floats(const std::string& name, const te::Shape& shape, const std::vector<float>& v) {
  runtime::NDArray a(shape, te::DType::Float32);
  std::memcpy(a.data(), v.data(), v.size() * sizeof(float));
  initializer(name, a);
}

void ModelBuilder::ints(const std::string& name, const std::vector<int64_t>& v) {
  runtime::NDArray a({static_cast<int64_t>(v.size())}, te::DType::Int64);
  std::memcpy(a.data(), v.data(), v.size() * sizeof(int64_t));
  initializer(name, a);
}

runtime::NDArray ModelBuilder::random(const std::string& name, const te::Shape& shape, uint64_t seed, double lo,
                                      double hi) {
  runtime::NDArray a = randomArray(shape, seed, lo, hi);
  initializer(name, a);
  return a;
}

onnx::NodeProto& ModelBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& outputs, const std::string& name) {
  onnx::NodeProto* n = model_.mutable_graph()->add_node();
  n->set_op_type(op);
  if (!name.empty()) n->set_name(name);
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) n->add_output(o);
  return *n;
}

std::string ModelBuilder::bytes() const {
  std::string s;
  model_.SerializeToString(&s);
  return s;
}

void setAttr(onnx::NodeProto& n, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void setAttr(onnx::NodeProto& n, const std::string& name, float v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void setAttr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

void setAttr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void setAttr(onnx::NodeProto& n, const std::string& name, const runtime::NDArray& t) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = toProto("", t);
}

void setAttr(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
}

void setAttr(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}

}  // namespace ttune::frontend::testing
