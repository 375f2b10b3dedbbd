// Deterministic 64-bit hashing, stable across runs and machines (unlike std::hash), used for
// structural hashes of compute DAGs and workload keys that are stored in the schedule bank.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ttune {

class Hasher {
 public:
  Hasher& add(uint64_t v) {
    state_ = mix(state_ ^ (v + 0x9e3779b97f4a7c15ULL + (state_ << 6) + (state_ >> 2)));
    return *this;
  }
  Hasher& add(int64_t v) { return add(static_cast<uint64_t>(v)); }
  Hasher& add(int v) { return add(static_cast<uint64_t>(static_cast<int64_t>(v))); }
  Hasher& add(double v);
  Hasher& add(std::string_view s);
  uint64_t value() const { return mix(state_); }

  static uint64_t mix(uint64_t x) {  // splitmix64 finalizer
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
  }

 private:
  uint64_t state_ = 0x84222325cbf29ce4ULL;
};

// Lower-case, 16 hex digits.
std::string toHex(uint64_t v);

}  // namespace ttune
