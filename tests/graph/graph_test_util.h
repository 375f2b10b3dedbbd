// Helpers shared by the graph tests.
#pragma once

#include "runtime/ndarray.h"

namespace ttune::graph::testing {

// Seeded uniform float array in [lo, hi).
inline runtime::NDArray randomArray(te::Shape shape, uint64_t seed, double lo = -1, double hi = 1) {
  runtime::NDArray a(shape, te::DType::Float32);
  a.fillRandom(seed, lo, hi);
  return a;
}

}  // namespace ttune::graph::testing
