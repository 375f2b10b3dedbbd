#include "support/hash.h"

#include <cstring>

namespace ttune {

Hasher& Hasher::add(double v) {
  uint64_t bits;
  if (v == 0.0) v = 0.0;  // +0 and -0 hash alike
  std::memcpy(&bits, &v, sizeof bits);
  return add(bits);
}

Hasher& Hasher::add(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the bytes, then mixed in
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  add(static_cast<uint64_t>(s.size()));
  return add(h);
}

std::string toHex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[i] = digits[v & 15];
    v >>= 4;
  }
  return s;
}

}  // namespace ttune
