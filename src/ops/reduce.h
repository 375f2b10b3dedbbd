// Reductions and normalizations: reduce_sum / mean / max / min over a set of axes, softmax,
// layer normalization and inference-mode batch normalization.
//
// Invariants: a reduction is always the whole body of its own compute op (te requires it), so a
// mean is a sum op followed by a division op and softmax is four ops (softmax_maxelem,
// softmax_exp, softmax_expsum, softmax_norm). Spatial axes use the te default names (i, j, ...);
// reduction axes are named r0, r1, ... in input-axis order. Inputs are float32.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op_utils.h"
#include "te/tensor.h"

namespace ttune::ops {

using te::Tensor;

// Reduce over `axes` (negative count from the end; empty = all axes, as ONNX). keepdims keeps the
// reduced axes with extent 1. Ops: "reduce_sum", "reduce_max", "reduce_min", "reduce_prod"; reduce_mean is
// "reduce_sum" followed by "reduce_mean".
Tensor reduce_sum(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdims = true);
Tensor reduce_mean(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdims = true);
Tensor reduce_max(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdims = true);
Tensor reduce_min(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdims = true);
Tensor reduce_prod(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdims = true);

// exp(x - max) / sum(exp(x - max)) along `axis`. The max and sum ops drop `axis` from the shape.
Tensor softmax(const Tensor& x, int64_t axis = -1);

// Normalizes over the trailing dimensions x.shape[axis:] with two passes ("layer_norm_mean", then
// "layer_norm_var" = mean of squared deviations), then "layer_norm" = (x - mean) / sqrt(var + eps)
// * gamma + beta. gamma and beta have shape x.shape[axis:]; either may be undefined (omitted).
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t axis = -1, double epsilon = 1e-5);

// (x - mean[c]) / sqrt(var[c] + eps) * gamma[c] + beta[c] with c the axis-1 index of x (rank >= 2);
// the four parameters have shape [C]. One op, "batch_norm".
Tensor batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                            const Tensor& var, double epsilon = 1e-5);

}  // namespace ttune::ops
