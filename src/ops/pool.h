// 2-D pooling on NCHW (or, with nhwc = true, NHWC) tensors with exactly ONNX / PyTorch semantics: kernel, strides,
// explicit padding {top, left, bottom, right}, dilation (max pool), ceil_mode and count_include_pad.
//
// Invariants: padding (and, in ceil mode, the overhang of the last window past the padded input)
// is a separate "pad" op filled with -inf (max) or 0 (avg), so window reads are always in bounds.
// Max pooling also takes 8-bit integers (quantized activations), padded with their type's minimum.
// In ceil mode a window that would start inside the right padding is dropped. For avg pooling the
// divisor counts input elements plus, with count_include_pad, explicit padding — never the
// ceil-mode overhang. Ops: "pool_max"; "pool_sum" then "pool_avg"; global pooling
// "global_pool_sum" then "global_pool_avg" (or "global_pool_max"). Axes nn, cc, yy, xx (NHWC: nn, yy,
// xx, cc); reduce
// axes ry, rx. Each explicit pad must be smaller than the (dilated) kernel so that every window
// overlaps the input.
#pragma once

#include <cstdint>

#include "ops/op_utils.h"
#include "te/tensor.h"

namespace ttune::ops {

using te::Tensor;

// Number of windows along one dimension (ONNX / PyTorch rule, including the ceil-mode drop).
// Returns <= 0 when the dilated kernel does not fit the padded input.
int64_t poolOutputSize(int64_t in, int64_t pad_before, int64_t pad_after, int64_t kernel, int64_t stride,
                       int64_t dilation, bool ceil_mode);

Tensor max_pool2d(const Tensor& data, Hw kernel, Hw strides = {1, 1}, Pad4 padding = {0, 0, 0, 0}, Hw dilation = {1, 1},
                  bool ceil_mode = false, bool nhwc = false);
Tensor avg_pool2d(const Tensor& data, Hw kernel, Hw strides = {1, 1}, Pad4 padding = {0, 0, 0, 0},
                  bool ceil_mode = false, bool count_include_pad = false, bool nhwc = false);
// [N, C, H, W] -> [N, C, 1, 1] (NHWC: [N, H, W, C] -> [N, 1, 1, C]).
Tensor global_avg_pool2d(const Tensor& data, bool nhwc = false);
Tensor global_max_pool2d(const Tensor& data, bool nhwc = false);

}  // namespace ttune::ops
