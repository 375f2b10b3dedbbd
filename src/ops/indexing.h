// Indexing, generation and argument-reduction operators with ONNX semantics: argmax / argmin,
// cumsum, hardmax, local response normalization, gather_elements / gather_nd, scatter_elements /
// scatter_nd, trilu, one_hot, top-k indices, reverse_sequence and max_unpool.
//
// Invariants: every index read from a tensor is wrapped (negative indices count from the end, as
// ONNX; out-of-range ones wrap modulo the extent) or clamped, so no data-dependent read can leave
// its tensor. Scatters and top-k are written as reductions over the candidate sources of each
// output element (a search, quadratic in the scattered axis), which keeps every op a pure TE
// compute op; they are meant for the small tensors that models index, not for hot loops.
// Outputs are new tensors; indices outputs are int64.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op_utils.h"
#include "te/tensor.h"

namespace ttune::ops {

using te::Tensor;

// How a scatter combines an update with what is there: replace (the last update in index order
// wins among duplicates), add or multiply (duplicates accumulate).
enum class ScatterReduction : uint8_t { None, Add, Mul };

// Index of the largest (smallest) element along `axis` (int64): the first such index, or the last
// with select_last. keepdims keeps `axis` with extent 1. Two ops: the extreme value, then a
// min (max) reduction over the positions that hold it.
Tensor argmax(const Tensor& x, int64_t axis = 0, bool keepdims = true, bool select_last = false);
Tensor argmin(const Tensor& x, int64_t axis = 0, bool keepdims = true, bool select_last = false);

// Running sum along `axis`; exclusive leaves the current element out, reverse sums from the end.
Tensor cumsum(const Tensor& x, int64_t axis, bool exclusive = false, bool reverse = false);

// 1 at the first maximum along `axis`, 0 elsewhere (x's dtype).
Tensor hardmax(const Tensor& x, int64_t axis = -1);

// x / (bias + alpha / size * sum of x^2 over the channels c - (size-1)/2 .. c + size/2) ^ beta,
// channels on axis 1 (rank >= 2, float32).
Tensor lrn(const Tensor& x, int64_t size, double alpha = 1e-4, double beta = 0.75, double bias = 1.0);

// out[p] = data[p with p[axis] replaced by indices[p]]; the output has the indices' shape (same
// rank as data, no larger than data on the other axes).
Tensor gather_elements(const Tensor& data, const Tensor& indices, int64_t axis = 0);

// ONNX GatherND: indices [b..., q..., m] pick slices data[b..., i_0, .., i_{m-1}, ...]; the first
// batch_dims axes of data and indices are shared.
Tensor gather_nd(const Tensor& data, const Tensor& indices, int64_t batch_dims = 0);

// ONNX ScatterElements: a copy of data where updates[u] lands at u with u[axis] replaced by
// indices[u] (indices and updates share a shape).
Tensor scatter_elements(const Tensor& data, const Tensor& indices, const Tensor& updates, int64_t axis = 0,
                        ScatterReduction reduction = ScatterReduction::None);

// ONNX ScatterND: indices [u..., m] address slices data[i_0, .., i_{m-1}, ...], replaced by (or
// combined with) updates[u..., ...].
Tensor scatter_nd(const Tensor& data, const Tensor& indices, const Tensor& updates,
                  ScatterReduction reduction = ScatterReduction::None);

// Keeps x[..., i, j] where j - i >= k (upper) or j - i <= k (lower), zero elsewhere (rank >= 2).
Tensor trilu(const Tensor& x, int64_t k = 0, bool upper = true);

// ONNX OneHot: a new axis of extent `depth` at `axis` (in [-rank-1, rank]) holding values[1]
// where it equals the (truncated, wrapped if negative) index and values[0] elsewhere; indices
// outside [-depth, depth) give values[0] everywhere. values has two elements.
Tensor one_hot(const Tensor& indices, const Tensor& values, int64_t depth, int64_t axis = -1);

// Indices (int64) of the k largest (smallest) elements along `axis`, in order, ties broken by
// lower index; `axis` has extent k in the result. Two ops: each element's rank, then the position
// of each rank.
Tensor topk_indices(const Tensor& x, int64_t k, int64_t axis = -1, bool largest = true);

// ONNX ReverseSequence: for each batch entry b, the first lens[b] steps along time_axis reversed,
// the rest copied.
Tensor reverse_sequence(const Tensor& x, const Tensor& lens, int64_t batch_axis = 1, int64_t time_axis = 0);

// ONNX MaxUnpool: zeros of output_shape with x[u] at the flat position indices[u] (x and indices
// share a shape). A search over all of x per output element.
Tensor max_unpool(const Tensor& x, const Tensor& indices, const Shape& output_shape);

}  // namespace ttune::ops
