// TensorProto -> NDArray conversion and ONNX element type names.
#include <cstring>
#include <fstream>

#include "frontend/onnx/onnx_importer.h"
#include "onnx/onnx_pb.h"
#include "support/error.h"
#include "te/dtype_io.h"

namespace ttune::frontend {

std::string onnxTypeName(int t) {
  switch (t) {
    case onnx::TensorProto::FLOAT:
      return "FLOAT";
    case onnx::TensorProto::UINT8:
      return "UINT8";
    case onnx::TensorProto::INT8:
      return "INT8";
    case onnx::TensorProto::UINT16:
      return "UINT16";
    case onnx::TensorProto::INT16:
      return "INT16";
    case onnx::TensorProto::INT32:
      return "INT32";
    case onnx::TensorProto::INT64:
      return "INT64";
    case onnx::TensorProto::STRING:
      return "STRING";
    case onnx::TensorProto::BOOL:
      return "BOOL";
    case onnx::TensorProto::FLOAT16:
      return "FLOAT16";
    case onnx::TensorProto::DOUBLE:
      return "DOUBLE";
    case onnx::TensorProto::UINT32:
      return "UINT32";
    case onnx::TensorProto::UINT64:
      return "UINT64";
    case onnx::TensorProto::COMPLEX64:
      return "COMPLEX64";
    case onnx::TensorProto::COMPLEX128:
      return "COMPLEX128";
    case onnx::TensorProto::BFLOAT16:
      return "BFLOAT16";
    case onnx::TensorProto::UNDEFINED:
      return "UNDEFINED";
  }
  return "type " + std::to_string(t);
}

te::DType dtypeFromOnnx(int t, const std::string& what) {
  switch (t) {
    case onnx::TensorProto::FLOAT:
      return te::DType::Float32;
    case onnx::TensorProto::INT32:
      return te::DType::Int32;
    case onnx::TensorProto::INT64:
      return te::DType::Int64;
    case onnx::TensorProto::BOOL:
      return te::DType::Bool;
    case onnx::TensorProto::INT8:
      return te::DType::Int8;
    case onnx::TensorProto::UINT8:
      return te::DType::UInt8;
    case onnx::TensorProto::INT16:
      return te::DType::Int16;
    case onnx::TensorProto::UINT16:
      return te::DType::UInt16;
    case onnx::TensorProto::UINT32:
      return te::DType::UInt32;
    case onnx::TensorProto::UINT64:
      return te::DType::UInt64;
    case onnx::TensorProto::DOUBLE:
      return te::DType::Float64;
    case onnx::TensorProto::FLOAT16:
      return te::DType::Float16;
    case onnx::TensorProto::BFLOAT16:
      return te::DType::BFloat16;
    default:
      break;
  }
  fail(what, " has element type ", onnxTypeName(t),
       ", which ttune does not support (only the real number types and BOOL are: no STRING or COMPLEX)");
}

int dtypeToOnnx(te::DType dtype) {
  for (int t = onnx::TensorProto::FLOAT; t <= onnx::TensorProto::BFLOAT16; ++t) {
    if (t == onnx::TensorProto::STRING || t == onnx::TensorProto::COMPLEX64 || t == onnx::TensorProto::COMPLEX128)
      continue;
    if (dtypeFromOnnx(t, "") == dtype) return t;
  }
  fail("the element type ", te::dtypeName(dtype), " has no ONNX element type");
}

namespace {

constexpr int64_t kMaxTensorElements = int64_t(1) << 40;

std::string readExternal(const onnx::TensorProto& t, const std::string& what, const std::string& base_dir,
                         int64_t expected_bytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto& e : t.external_data()) {
    try {
      if (e.key() == "location")
        location = e.value();
      else if (e.key() == "offset")
        offset = std::stoll(e.value());
      else if (e.key() == "length")
        length = std::stoll(e.value());
    } catch (const std::exception&) {
      fail(what, " has a malformed external-data entry ", e.key(), "=", e.value());
    }
  }
  if (location.empty()) fail(what, " is stored externally but names no location");
  std::string path = base_dir.empty() || location.front() == '/' ? location : base_dir + "/" + location;
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(what, " is stored in the external file ", path, ", which cannot be opened");
  f.seekg(0, std::ios::end);
  int64_t size = static_cast<int64_t>(f.tellg());
  if (length < 0) length = size - offset;
  if (length != expected_bytes) fail(what, " stores ", length, " external bytes but its shape needs ", expected_bytes);
  if (offset < 0 || offset + length > size)
    fail(what, " reads bytes ", offset, " to ", offset + length, " of ", path, ", which has only ", size);
  std::string data(static_cast<size_t>(length), '\0');
  f.seekg(offset);
  f.read(data.data(), length);
  return data;
}

}  // namespace

runtime::NDArray tensorFromProto(const onnx::TensorProto& t, const std::string& base_dir) {
  std::string what = t.name().empty() ? std::string("a tensor") : "tensor \"" + t.name() + "\"";
  te::DType dtype = dtypeFromOnnx(t.data_type(), what);
  te::Shape shape;
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) fail(what, " has the negative dimension ", d);
    if (d > 0 && n > kMaxTensorElements / d) fail(what, " has more than 2^40 elements");
    n *= d;
    shape.push_back(d);
  }
  if (t.has_segment()) fail(what, " is segmented, which is not supported");
  // The data size is checked before anything is allocated, so a corrupt shape cannot exhaust memory.
  const int64_t bytes = n * te::dtypeBytes(dtype);
  const std::string* raw = nullptr;
  std::string external;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    external = readExternal(t, what, base_dir, bytes);
    raw = &external;
  } else if (t.has_raw_data()) {
    raw = &t.raw_data();
  }
  if (raw) {
    if (static_cast<int64_t>(raw->size()) != bytes)
      fail(what, " has ", raw->size(), " bytes of data but its shape ", te::shapeToString(shape), " needs ", bytes);
    runtime::NDArray a = runtime::NDArray::empty(shape, dtype);
    if (!raw->empty()) std::memcpy(a.data(), raw->data(), raw->size());  // little-endian, as the host
    if (dtype == te::DType::Bool)
      for (int64_t i = 0; i < n; ++i) a.as<uint8_t>()[i] = a.as<uint8_t>()[i] != 0;
    return a;
  }
  // The typed field each element type is stored in (onnx.proto): 8- and 16-bit integers, bool
  // and the 16-bit floats' bits one per int32_data entry; uint32 / uint64 in uint64_data.
  runtime::NDArray a = runtime::NDArray::empty(shape, dtype);
  auto check = [&](int64_t count, const char* field) {
    if (count != n) fail(what, " has ", count, " values in ", field, " but its shape needs ", n);
  };
  switch (dtype) {
    case te::DType::Float32:
      check(t.float_data_size(), "float_data");
      for (int64_t i = 0; i < n; ++i) a.as<float>()[i] = t.float_data(static_cast<int>(i));
      break;
    case te::DType::Float64:
      check(t.double_data_size(), "double_data");
      for (int64_t i = 0; i < n; ++i) a.as<double>()[i] = t.double_data(static_cast<int>(i));
      break;
    case te::DType::Int64:
      check(t.int64_data_size(), "int64_data");
      for (int64_t i = 0; i < n; ++i) a.as<int64_t>()[i] = t.int64_data(static_cast<int>(i));
      break;
    case te::DType::UInt32:
    case te::DType::UInt64:
      check(t.uint64_data_size(), "uint64_data");
      for (int64_t i = 0; i < n; ++i)
        te::storeInt(a.data(), dtype, i, static_cast<int64_t>(t.uint64_data(static_cast<int>(i))));
      break;
    case te::DType::Float16:
    case te::DType::BFloat16:
      check(t.int32_data_size(), "int32_data");
      for (int64_t i = 0; i < n; ++i) a.as<uint16_t>()[i] = static_cast<uint16_t>(t.int32_data(static_cast<int>(i)));
      break;
    case te::DType::Int32:
    case te::DType::Bool:
    case te::DType::Int8:
    case te::DType::UInt8:
    case te::DType::Int16:
    case te::DType::UInt16:
      check(t.int32_data_size(), "int32_data");
      for (int64_t i = 0; i < n; ++i) te::storeInt(a.data(), dtype, i, t.int32_data(static_cast<int>(i)));
      break;
  }
  return a;
}

}  // namespace ttune::frontend
