// Element types of tensors and scalar expressions. Index arithmetic is always Int64; models compute
// in Float32 (Float64 where a model asks for it); Int32/Int64 appear as tensor element types (token
// ids, shapes); Int8/UInt8 are the element types of quantized tensors; the other integer types come
// from models that use them; Bool is the type of comparisons and is stored as one byte.
//
// Integer arithmetic wraps in the operands' type (numpy's semantics): an integer result is the
// exact result reduced modulo 2^bits into the type's range (wrapInt). Conversions to integer
// types also wrap; saturation is always explicit (a clip before the cast). Integer values are
// carried as int64 everywhere (constants, the evaluator, bounds); a UInt64 value is carried as its
// bit pattern, so it is the one type whose int64 carrier does not order like its values
// (isUnsigned64: compares, division and min/max must reinterpret it).
//
// Float16 and BFloat16 are storage types: arithmetic on them computes in float32 and rounds to the
// storage type (round to nearest even, NaN kept) when the result is a 16-bit value (float16.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ttune::te {

// New types go at the end: the numeric codes are part of the measurement worker's protocol and
// of the C API (runtime::ElemType, ttune_dtype).
enum class DType : uint8_t {
  Float32,
  Int32,
  Int64,
  Bool,
  Int8,
  UInt8,
  Int16,
  UInt16,
  UInt32,
  UInt64,
  Float64,
  Float16,
  BFloat16
};
// The last code, for range checks of serialized types.
inline constexpr DType kLastDType = DType::BFloat16;

inline bool isFloat(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::Float16 || t == DType::BFloat16;
}
// The 16-bit storage floats: values widen to float32 for arithmetic.
inline bool isHalfFloat(DType t) { return t == DType::Float16 || t == DType::BFloat16; }
// The float types operators compute in (float16 / bfloat16 values are widened to float32 first).
inline bool isComputeFloat(DType t) { return t == DType::Float32 || t == DType::Float64; }
inline bool isInt(DType t) { return t != DType::Bool && !isFloat(t); }
inline bool isUnsigned(DType t) {
  return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}
inline bool isUnsigned64(DType t) { return t == DType::UInt64; }
// The operand types of int8 kernels (quantized tensors).
inline bool is8BitInt(DType t) { return t == DType::Int8 || t == DType::UInt8; }
inline int dtypeBytes(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8:
      return 1;
    case DType::Int16:
    case DType::UInt16:
    case DType::Float16:
    case DType::BFloat16:
      return 2;
    case DType::Float32:
    case DType::Int32:
    case DType::UInt32:
      return 4;
    case DType::Int64:
    case DType::UInt64:
    case DType::Float64:
      return 8;
  }
  return 0;
}
inline const char* dtypeName(DType t) {
  switch (t) {
    case DType::Float32:
      return "float32";
    case DType::Int32:
      return "int32";
    case DType::Int64:
      return "int64";
    case DType::Bool:
      return "bool";
    case DType::Int8:
      return "int8";
    case DType::UInt8:
      return "uint8";
    case DType::Int16:
      return "int16";
    case DType::UInt16:
      return "uint16";
    case DType::UInt32:
      return "uint32";
    case DType::UInt64:
      return "uint64";
    case DType::Float64:
      return "float64";
    case DType::Float16:
      return "float16";
    case DType::BFloat16:
      return "bfloat16";
  }
  return "?";
}
inline std::optional<DType> parseDType(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(kLastDType); ++i)
    if (s == dtypeName(static_cast<DType>(i))) return static_cast<DType>(i);
  return std::nullopt;
}
// Reduces an integer to the range of `t` (two's complement wrap-around); Int64, UInt64 (bit
// pattern) and Bool values pass unchanged.
inline int64_t wrapInt(DType t, int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  switch (t) {
    case DType::Int32:
      return static_cast<int32_t>(static_cast<uint32_t>(u));
    case DType::Int8:
      return static_cast<int8_t>(static_cast<uint8_t>(u));
    case DType::UInt8:
      return static_cast<uint8_t>(u);
    case DType::Int16:
      return static_cast<int16_t>(static_cast<uint16_t>(u));
    case DType::UInt16:
      return static_cast<uint16_t>(u);
    case DType::UInt32:
      return static_cast<uint32_t>(u);
    default:
      return v;
  }
}
// The smallest and largest values of an integer type whose values all fit int64 (Bool: 0 and 1).
// UInt64's range does not: its maximum is given as the largest value that does (INT64_MAX).
inline int64_t intTypeMin(DType t) {
  switch (t) {
    case DType::Int32:
      return INT32_MIN;
    case DType::Int8:
      return INT8_MIN;
    case DType::Int16:
      return INT16_MIN;
    case DType::UInt8:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64:
    case DType::Bool:
      return 0;
    default:
      return INT64_MIN;
  }
}
inline int64_t intTypeMax(DType t) {
  switch (t) {
    case DType::Int32:
      return INT32_MAX;
    case DType::Int8:
      return INT8_MAX;
    case DType::UInt8:
      return UINT8_MAX;
    case DType::Int16:
      return INT16_MAX;
    case DType::UInt16:
      return UINT16_MAX;
    case DType::UInt32:
      return UINT32_MAX;
    case DType::Bool:
      return 1;
    default:
      return INT64_MAX;
  }
}
// Types whose arithmetic wraps within the range the simplifier reasons about: everything but the
// index types Int32 / Int64 and Bool. Their additive chains, div/mod and bounds are left alone.
inline bool wrapsInAnalysis(DType t) { return isInt(t) && t != DType::Int32 && t != DType::Int64; }

}  // namespace ttune::te
