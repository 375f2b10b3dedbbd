// Conversions between float32 / float64 and the 16-bit storage floats (IEEE binary16 and
// bfloat16), bit-exact with numpy's astype and the generated code (codegen/emitter_half.cc does
// the same integer operations): round to nearest even, overflow to infinity, subnormal float16
// values kept, NaN stays NaN (quiet, sign kept). float64 narrows through float32 rounded to odd,
// which cannot round twice (float32 has more than twice float16's and bfloat16's precision + 2).
#pragma once

#include <cstdint>
#include <cstring>

namespace ttune::te {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float bf16ToFloat(uint16_t h) { return bitsFloat(static_cast<uint32_t>(h) << 16); }

inline uint16_t floatToBf16(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  // Adding 0x7fff plus the kept part's lowest bit rounds to nearest, ties to even; a carry into
  // the exponent is right (it rounds up to the next binade or to infinity).
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return bitsFloat(sign | 0x7f800000u | (man << 13));  // inf / NaN
  if (exp == 0) {  // zero / subnormal: man * 2^-24, exact in float32
    float v = static_cast<float>(man) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return bitsFloat(sign | ((exp + 112) << 23) | (man << 13));
}

inline uint16_t floatToHalf(float f) {
  uint32_t u = floatBits(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));  // NaN
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);                        // rounds to >= 65520: inf
  if (a < 0x38800000u) {  // below 2^-14: a float16 subnormal, man * 2^-24 rounded to even
    // Adding 0.5 moves the value's bits below 2^-24 out of float32's 23-bit mantissa: the
    // float32 addition itself rounds to nearest even at the right place.
    float v = bitsFloat(a) + 0.5f;
    return static_cast<uint16_t>(sign | (floatBits(v) - 0x3f000000u));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to even.
  uint32_t r = a - 0x38000000u;
  r += 0xfffu + ((r >> 13) & 1u);
  return static_cast<uint16_t>(sign | (r >> 13));
}

// float64 -> float32 rounded to odd: the float32 nearest toward zero, with its lowest bit set
// when inexact. Narrowing that to 16 bits rounds as a direct float64 -> 16-bit conversion would.
inline float doubleToFloatOdd(double d) {
  float f = static_cast<float>(d);
  uint64_t db;
  std::memcpy(&db, &d, 8);
  // NaN tested on the bits (GCC 12.2 at -O3 miscompiles bit operations after `d != d`).
  if (static_cast<double>(f) == d || (db & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return f;
  uint32_t u = floatBits(f);
  // f rounded away from zero (|f| > |d|, including an overflow to inf): step one ulp back.
  if ((f > 0) == (static_cast<double>(f) > d)) --u;
  return bitsFloat(u | 1u);
}

}  // namespace ttune::te
