// Compute-heavy anchor operators: 2-D convolution (NCHW data with OIHW weights, NHWC data with HWIO
// weights; grouped and depthwise), dense, matmul and batch matmul. Fusion makes these the anchors of
// their kernels, so their op and axis names are what most schedules refer to.
//
// Operands are float (float32 / float64), 8-bit integers (int8 / uint8, any mix) or bfloat16: an
// integer product widens each operand to int32 and sums in int32 (the int8 kernels; scales, zero
// points and requantization are element-wise ops around it, see frontend/onnx/int8_products.h);
// a bfloat16 one widens to float32 and sums in float32 (graph/bf16.h). An integer
// convolution pads with `pad_value` (its input's zero point, so padded taps add nothing after
// the zero-point compensation); float ones pad with 0.
//
// Invariants: non-zero padding becomes a separate "pad" op read by the convolution;
// the convolution reads only in-bounds indices. Names: conv2d NCHW axes nn, ff, yy, xx with reduce
// rc, ry, rx (NHWC: nn, yy, xx, ff / ry, rx, rc); a convolution with one input channel per group
// (depthwise, any channel multiplier) is a "depthwise_conv2d_<layout>" op without rc; dense and
// matmul axes i, j / k; batch_matmul axes b0, b1, ..., i, j / k.
#pragma once

#include <cstdint>

#include "ops/op_utils.h"
#include "te/tensor.h"

namespace ttune::ops {

using te::Tensor;

// floor((in + pad_before + pad_after - dilation * (kernel - 1) - 1) / stride) + 1; <= 0 when the
// dilated kernel does not fit the padded input.
int64_t convOutputSize(int64_t in, int64_t pad_before, int64_t pad_after, int64_t kernel, int64_t stride,
                       int64_t dilation);

// data [N, C, H, W], weight [K, C/groups, R, S] -> [N, K, OH, OW]. padding = {top, left, bottom, right}.
Tensor conv2d_nchw(const Tensor& data, const Tensor& weight, Hw strides = {1, 1}, Pad4 padding = {0, 0, 0, 0},
                   Hw dilation = {1, 1}, int64_t groups = 1, int64_t pad_value = 0);
// data [N, H, W, C], weight [R, S, C/groups, K] -> [N, OH, OW, K].
Tensor conv2d_nhwc(const Tensor& data, const Tensor& weight, Hw strides = {1, 1}, Pad4 padding = {0, 0, 0, 0},
                   Hw dilation = {1, 1}, int64_t groups = 1, int64_t pad_value = 0);
// Depthwise (groups = C): weight [C*m, 1, R, S] (NCHW) or [R, S, 1, C*m] (NHWC); output channel f
// reads input channel f / m.
Tensor depthwise_conv2d_nchw(const Tensor& data, const Tensor& weight, Hw strides = {1, 1}, Pad4 padding = {0, 0, 0, 0},
                             Hw dilation = {1, 1}, int64_t pad_value = 0);
Tensor depthwise_conv2d_nhwc(const Tensor& data, const Tensor& weight, Hw strides = {1, 1}, Pad4 padding = {0, 0, 0, 0},
                             Hw dilation = {1, 1}, int64_t pad_value = 0);

// x [M, K], w [N, K] -> [M, N] (out = x w^T, like Gemm with transB = 1).
Tensor dense(const Tensor& x, const Tensor& w);
// a [M, K] (or [K, M] when transpose_a), b [K, N] (or [N, K] when transpose_b) -> [M, N].
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);
// a [..., M, K], b [..., K, N] (last two dimensions swapped by the transpose flags), both of rank
// >= 2; the leading (batch) dimensions broadcast numpy-style -> [batch..., M, N].
Tensor batch_matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

}  // namespace ttune::ops
