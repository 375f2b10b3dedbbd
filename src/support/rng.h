// Deterministic seeded randomness. Rng wraps mt19937_64 (whose output is fixed by the standard)
// and derives its own uniform draws, so a seed gives the same sequence with any standard library.
// Parallel work takes one child Rng per task (fork), never a shared one.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "support/assert.h"

namespace ttune {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : gen_(seed) {}

  uint64_t next() { return gen_(); }
  // Uniform integer in [lo, hi] (inclusive).
  int64_t uniformInt(int64_t lo, int64_t hi) {
    TT_ASSERT(lo <= hi, "uniformInt: empty range");
    // In unsigned arithmetic: hi - lo overflows int64 for wide ranges (the full range's span wraps to 0).
    uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    if (span == 0) return static_cast<int64_t>(next());
    uint64_t limit = UINT64_MAX - UINT64_MAX % span;
    uint64_t x;
    do {
      x = next();
    } while (x >= limit);
    return lo + static_cast<int64_t>(x % span);
  }
  // Uniform index in [0, n).
  size_t index(size_t n) { return static_cast<size_t>(uniformInt(0, static_cast<int64_t>(n) - 1)); }
  // Uniform double in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  bool bernoulli(double p) { return uniform() < p; }
  // A child generator for an independent stream (e.g. one per parallel task).
  Rng fork() { return Rng(next() ^ 0x5851f42d4c957f2dULL); }

  template <class T>
  const T& choice(const std::vector<T>& v) {
    TT_ASSERT(!v.empty(), "choice from an empty vector");
    return v[index(v.size())];
  }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[index(i)]);
  }

 private:
  std::mt19937_64 gen_;
};

}  // namespace ttune
