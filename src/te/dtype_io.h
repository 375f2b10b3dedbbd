// Reading and writing one element of a buffer of any DType through a common carrier: double for
// values (what comparisons, fills and constant folding at import need) and int64 for integer
// values (exact for every integer type; UInt64 as its bit pattern, dtype.h).
#pragma once

#include <cstdint>

#include "te/dtype.h"
#include "te/float16.h"

namespace ttune::te {

inline int64_t loadInt(const void* p, DType t, int64_t i) {
  switch (t) {
    case DType::Int32:
      return static_cast<const int32_t*>(p)[i];
    case DType::Int64:
      return static_cast<const int64_t*>(p)[i];
    case DType::Bool:
      return static_cast<const uint8_t*>(p)[i] != 0;
    case DType::Int8:
      return static_cast<const int8_t*>(p)[i];
    case DType::UInt8:
      return static_cast<const uint8_t*>(p)[i];
    case DType::Int16:
      return static_cast<const int16_t*>(p)[i];
    case DType::UInt16:
      return static_cast<const uint16_t*>(p)[i];
    case DType::UInt32:
      return static_cast<const uint32_t*>(p)[i];
    case DType::UInt64:
      return static_cast<int64_t>(static_cast<const uint64_t*>(p)[i]);
    case DType::Float32:
      return static_cast<int64_t>(static_cast<const float*>(p)[i]);
    case DType::Float64:
      return static_cast<int64_t>(static_cast<const double*>(p)[i]);
    case DType::Float16:
      return static_cast<int64_t>(halfToFloat(static_cast<const uint16_t*>(p)[i]));
    case DType::BFloat16:
      return static_cast<int64_t>(bf16ToFloat(static_cast<const uint16_t*>(p)[i]));
  }
  return 0;
}

inline double loadDouble(const void* p, DType t, int64_t i) {
  switch (t) {
    case DType::Float32:
      return static_cast<const float*>(p)[i];
    case DType::Float64:
      return static_cast<const double*>(p)[i];
    case DType::Float16:
      return halfToFloat(static_cast<const uint16_t*>(p)[i]);
    case DType::BFloat16:
      return bf16ToFloat(static_cast<const uint16_t*>(p)[i]);
    case DType::UInt64:
      return static_cast<double>(static_cast<const uint64_t*>(p)[i]);
    default:
      return static_cast<double>(loadInt(p, t, i));
  }
}

// Stores an integer value (an int64 carrier) converted to `t`: integers wrap, floats round.
inline void storeInt(void* p, DType t, int64_t i, int64_t v) {
  switch (t) {
    case DType::Int32:
      static_cast<int32_t*>(p)[i] = static_cast<int32_t>(wrapInt(t, v));
      break;
    case DType::Int64:
      static_cast<int64_t*>(p)[i] = v;
      break;
    case DType::Bool:
      static_cast<uint8_t*>(p)[i] = v != 0;
      break;
    case DType::Int8:
      static_cast<int8_t*>(p)[i] = static_cast<int8_t>(wrapInt(t, v));
      break;
    case DType::UInt8:
      static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(wrapInt(t, v));
      break;
    case DType::Int16:
      static_cast<int16_t*>(p)[i] = static_cast<int16_t>(wrapInt(t, v));
      break;
    case DType::UInt16:
      static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(wrapInt(t, v));
      break;
    case DType::UInt32:
      static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(wrapInt(t, v));
      break;
    case DType::UInt64:
      static_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(v);
      break;
    case DType::Float32:
      static_cast<float*>(p)[i] = static_cast<float>(v);
      break;
    case DType::Float64:
      static_cast<double*>(p)[i] = static_cast<double>(v);
      break;
    case DType::Float16:
      static_cast<uint16_t*>(p)[i] = floatToHalf(static_cast<float>(v));
      break;
    case DType::BFloat16:
      static_cast<uint16_t*>(p)[i] = floatToBf16(static_cast<float>(v));
      break;
  }
}

// Stores a value converted to `t`: floats round to nearest even, integers truncate toward zero
// and wrap (a value beyond int64 saturates first).
inline void storeDouble(void* p, DType t, int64_t i, double v) {
  switch (t) {
    case DType::Float32:
      static_cast<float*>(p)[i] = static_cast<float>(v);
      break;
    case DType::Float64:
      static_cast<double*>(p)[i] = v;
      break;
    case DType::Float16:
      static_cast<uint16_t*>(p)[i] = floatToHalf(doubleToFloatOdd(v));
      break;
    case DType::BFloat16:
      static_cast<uint16_t*>(p)[i] = floatToBf16(doubleToFloatOdd(v));
      break;
    case DType::Bool:
      static_cast<uint8_t*>(p)[i] = v != 0;
      break;
    case DType::UInt64:
      if (v >= 9223372036854775808.0) {
        static_cast<uint64_t*>(p)[i] = v >= 18446744073709551616.0 ? UINT64_MAX : static_cast<uint64_t>(v);
        break;
      }
      [[fallthrough]];
    default: {
      int64_t x = v != v                        ? 0
                  : v <= -9223372036854775808.0 ? INT64_MIN
                  : v >= 9223372036854775808.0  ? INT64_MAX
                                                : static_cast<int64_t>(v);
      storeInt(p, t, i, x);
    }
  }
}

}  // namespace ttune::te
