// WeightLayout: how a layout-rewrite step re-lays-out a constant weight (kept apart from
// dag_rewrite.h so that state.h can hold layouts without the rewrite machinery).
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace ttune::schedule {

// packed[p0, p1, ...] = original[i0, i1, ...] where original index d is the sum over the packed
// dims p with source_dim[p] == d of (index of p) * source_stride[p]; zero where that sum leaves
// the original tensor (a split that does not divide pads the layout).
struct WeightLayout {
  std::string original, packed;  // tensor names
  te::Shape original_shape, packed_shape;
  std::vector<int> source_dim;
  std::vector<int64_t> source_stride;
};

}  // namespace ttune::schedule
