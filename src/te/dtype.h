// Element types of tensors and scalar expressions. Index arithmetic is always Int64; models compute
// in Float32; Int32/Int64 appear as tensor element types (token ids, shapes); Int8/UInt8 are the
// element types of quantized tensors; Bool is the type of comparisons and is stored as one byte.
//
// Integer arithmetic wraps in the operands' type (numpy's semantics): an Int8/UInt8/Int32 result
// is the exact result reduced modulo 2^bits into the type's range (wrapInt). Conversions to Int8
// and UInt8 also wrap; saturation is always explicit (a clip before the cast).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ttune::te {

// New types go at the end: the numeric codes are part of the measurement worker's protocol.
enum class DType : uint8_t { Float32, Int32, Int64, Bool, Int8, UInt8 };

inline bool isFloat(DType t) { return t == DType::Float32; }
inline bool isInt(DType t) {
  return t == DType::Int32 || t == DType::Int64 || t == DType::Int8 || t == DType::UInt8;
}
inline bool isUnsigned(DType t) { return t == DType::UInt8; }
inline int dtypeBytes(DType t) {
  switch (t) {
    case DType::Float32: return 4;
    case DType::Int32: return 4;
    case DType::Int64: return 8;
    case DType::Bool: return 1;
    case DType::Int8: return 1;
    case DType::UInt8: return 1;
  }
  return 0;
}
inline const char* dtypeName(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
    case DType::Int8: return "int8";
    case DType::UInt8: return "uint8";
  }
  return "?";
}
inline std::optional<DType> parseDType(std::string_view s) {
  if (s == "float32") return DType::Float32;
  if (s == "int32") return DType::Int32;
  if (s == "int64") return DType::Int64;
  if (s == "bool") return DType::Bool;
  if (s == "int8") return DType::Int8;
  if (s == "uint8") return DType::UInt8;
  return std::nullopt;
}
// Reduces an integer to the range of `t` (two's complement wrap-around); Int64 and Bool values
// pass unchanged.
inline int64_t wrapInt(DType t, int64_t v) {
  switch (t) {
    case DType::Int32: return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
    case DType::Int8: return static_cast<int8_t>(static_cast<uint8_t>(static_cast<uint64_t>(v)));
    case DType::UInt8: return static_cast<uint8_t>(static_cast<uint64_t>(v));
    default: return v;
  }
}
// The smallest and largest values of an integer type (Bool: 0 and 1).
inline int64_t intTypeMin(DType t) {
  switch (t) {
    case DType::Int32: return INT32_MIN;
    case DType::Int8: return INT8_MIN;
    case DType::UInt8: return 0;
    case DType::Bool: return 0;
    default: return INT64_MIN;
  }
}
inline int64_t intTypeMax(DType t) {
  switch (t) {
    case DType::Int32: return INT32_MAX;
    case DType::Int8: return INT8_MAX;
    case DType::UInt8: return UINT8_MAX;
    case DType::Bool: return 1;
    default: return INT64_MAX;
  }
}

}  // namespace ttune::te
