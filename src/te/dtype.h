// Element types of tensors and scalar expressions. Index arithmetic is always Int64; models compute
// in Float32; Int32/Int64 appear as tensor element types (token ids, shapes); Bool is the type of
// comparisons and is stored as one byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ttune::te {

enum class DType : uint8_t { Float32, Int32, Int64, Bool };

inline bool isFloat(DType t) { return t == DType::Float32; }
inline bool isInt(DType t) { return t == DType::Int32 || t == DType::Int64; }
inline int dtypeBytes(DType t) {
  switch (t) {
    case DType::Float32: return 4;
    case DType::Int32: return 4;
    case DType::Int64: return 8;
    case DType::Bool: return 1;
  }
  return 0;
}
inline const char* dtypeName(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
  }
  return "?";
}
inline std::optional<DType> parseDType(std::string_view s) {
  if (s == "float32") return DType::Float32;
  if (s == "int32") return DType::Int32;
  if (s == "int64") return DType::Int64;
  if (s == "bool") return DType::Bool;
  return std::nullopt;
}

}  // namespace ttune::te
