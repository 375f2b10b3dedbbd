// Injective operators: every output element copies (or casts) one input element, chosen by index
// arithmetic alone (gather: by an index tensor). pad, concat, reshape, flatten, transpose, slice,
// gather, expand/broadcast_to and cast follow ONNX semantics where the two differ from numpy.
//
// Invariants: one compute op per call, tagged OpTag::Injective (cast: OpTag::Elementwise); reads that could
// leave the input (padding, concat) sit under a select whose condition guarantees bounds; every
// other index expression is in bounds for every output point.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ops/op_utils.h"
#include "te/tensor.h"

namespace ttune::ops {

using te::Tensor;

enum class PadMode { Constant, Edge, Reflect };

// Pads each axis d by before[d] / after[d] (non-negative) elements. Constant mode fills with
// `value` (the op is named "pad"); Edge repeats the border element; Reflect mirrors without
// repeating the border (ONNX "reflect"; needs pads smaller than the axis).
Tensor pad(const Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after, double value = 0.0,
           PadMode mode = PadMode::Constant);

// Joins tensors of equal rank and dtype along `axis` (negative counts from the end); all other
// dimensions must agree.
Tensor concat(const std::vector<Tensor>& xs, int64_t axis);

// Row-major reinterpretation to `shape` (every dimension positive, same element count).
Tensor reshape(const Tensor& x, const Shape& shape);

// ONNX Flatten: [prod(shape[:axis]), prod(shape[axis:])], axis in [-rank, rank].
Tensor flatten(const Tensor& x, int64_t axis = 1);

// Output dimension d is input dimension perm[d]; an empty perm reverses the axes (ONNX default).
Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm = {});

// ONNX Slice: negative starts/ends count from the end, out-of-range values clamp, negative steps
// walk backwards; axes default to 0..n-1 and steps to 1. An empty result is an error (tensors
// have positive extents).
Tensor slice(const Tensor& x, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
             const std::vector<int64_t>& axes = {}, const std::vector<int64_t>& steps = {});

// The box a slice selects: per input axis its first index, step and extent (the normalization
// of slice(), which throws the same errors).
struct SliceBox {
  std::vector<int64_t> first, step;
  Shape out;
};
SliceBox sliceBox(const Shape& in, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                  const std::vector<int64_t>& axes = {}, const std::vector<int64_t>& steps = {});
// The element offset of the box when it is one contiguous run of the row-major input (the slice
// is then a view of its input), else nullopt.
std::optional<int64_t> contiguousSliceOffset(const Shape& in, const SliceBox& box);

// ONNX Gather: output shape data.shape[:axis] + indices.shape + data.shape[axis+1:]. Indices are
// int32 or int64; negative ones wrap (i + dim). Indices outside [-dim, dim) are invalid in ONNX;
// here they wrap modulo dim so that a bad index can never read out of bounds.
Tensor gather(const Tensor& data, const Tensor& indices, int64_t axis = 0);

// ONNX Expand: broadcasts x and `shape` against each other (so the result may be larger than
// `shape`). broadcast_to requires the result to be exactly `shape` (numpy).
Tensor expand(const Tensor& x, const Shape& shape);
Tensor broadcast_to(const Tensor& x, const Shape& shape);

// Elementwise conversion (float to integer truncates toward zero; to bool tests != 0).
Tensor cast(const Tensor& x, te::DType dtype);

}  // namespace ttune::ops
