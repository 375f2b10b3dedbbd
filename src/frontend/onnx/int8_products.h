// Convolutions and matrix products of 8-bit operands computed in integer arithmetic: the int8
// kernels' anchors, for every form in which ONNX models carry them (QDQ: DequantizeLinear ->
// Conv / Gemm / MatMul; QLinearConv / QLinearMatMul; ConvInteger / MatMulInteger).
//
// With x = (qx - zx) * sx (per tensor) and w = (qw - zw[m]) * sw[m] (per output channel m, or
// per tensor), each output is
//     sum x * w = sx * sw[m] * (sum qx * w' - zx * sum w'),      w' = qw - zw[m].
// The first sum is the anchor (conv2d / dense on qx and w', int32; ops/nn.h); w' is folded here
// and must fit int8, because the dot-product units (VNNI, Arm dotprod) take signed 8-bit
// weights. zx * sum w' is a constant per output channel, added in int32 with an integer bias
// when there is one; padded taps read zx, so they add nothing. What follows -- the float scale,
// a float bias, requantization -- are element-wise ops that fusion puts into the anchor's
// epilogue. Weights whose centered values do not fit int8 (asymmetric uint8 weights) take the
// float composition of ops_quant.cc instead.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "frontend/onnx/nn_common.h"

namespace ttune::frontend::detail {

// An int32 product and what turns it into real values: real = acc * scale[m] along the output
// channels (one scale: per tensor). weight_sums[m] = sum of the centered weights of channel m,
// for compensating a zero point only known at run time.
struct IntegerProduct {
  int acc = -1;
  std::vector<double> scale;
  std::vector<int64_t> weight_sums;
};

// Integer convolution of x (8-bit, per-tensor zero point) by the constant w ([M, C/groups,
// kernel...], zero points per tensor or along axis 0): acc is [N, M, spatial...]. `int_bias`
// (one int32 per output channel, in units of sx * sw[m]) is added in the integer domain.
// nullopt when the operands do not qualify (not 8-bit, w not constant, centered w beyond int8,
// zero points or scales not per tensor / per output channel).
std::optional<IntegerProduct> integerConv(Ctx& c, const Dequantized& x, const Dequantized& w, const WindowNd& window,
                                          int64_t groups, const std::vector<int64_t>* int_bias);

// Integer product of a (8-bit, [..., K], per-tensor zero point) with the constant b ([K, N], or
// [N, K] when `b_rows_are_outputs`; zero points per tensor or per output column): acc is
// [..., N]. nullopt as for integerConv.
std::optional<IntegerProduct> integerDense(Ctx& c, const Dequantized& a, const Dequantized& b, bool b_rows_are_outputs,
                                           const std::vector<int64_t>* int_bias);

// acc as float32 scaled per output channel (`channel_axis` of acc: 1 for a convolution, the last
// for a product) and divided by `divide_by` (1: none), for the epilogue. Without a divisor the
// result is noted as a ScaledInteger (context.h).
int scaledToFloat(Ctx& c, const IntegerProduct& p, int64_t channel_axis, double divide_by);
// The same for a noted ScaledInteger.
int scaledToFloat(Ctx& c, const ScaledInteger& s, double divide_by);
// The average over axes [2, rank) of a dequantized 8-bit value (per tensor): the int32 sum of
// the integers minus zero point x count, scaled by scale / count, noted as a ScaledInteger so a
// following QuantizeLinear requantizes the sums as ONNX Runtime's QLinearGlobalAveragePool
// does; -1 when x is not such a value.
int integerGlobalAverage(Ctx& c, int x);
// relu of a ScaledInteger with positive scales, computed on the integers (max(acc, 0) scales
// to max(acc * scale, 0)); -1 when a scale is not positive.
int integerRelu(Ctx& c, const ScaledInteger& s);

// The operand view of a Dequantized value: input `i` quantized with constant scale input `s`
// and zero point input `z` (absent: 0) along `axis` (for a 1-D scale), or nullopt when the scale
// or zero point is computed at run time.
std::optional<Dequantized> quantizedInput(const Ctx& c, int i, int s, int z, int64_t axis);

// (q - zero point) * scale as float32, per tensor, noted as dequantized from q with `like`'s
// scale and zero point: the value of an operator that commutes with dequantization (max pooling).
int dequantizedFrom(Ctx& c, int q, const Dequantized& like);

// int32 bias values of `bias` when it is a dequantized int32 constant with zero point 0 whose
// scale is sx * sw[m] (the QDQ convention for a quantized layer's bias), else nullopt.
std::optional<std::vector<int64_t>> integerBias(const Ctx& c, int bias, const Dequantized& x, const Dequantized& w,
                                                int64_t outputs);

}  // namespace ttune::frontend::detail
