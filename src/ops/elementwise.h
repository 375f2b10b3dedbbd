// Elementwise operators: unary activations and math functions on float32 tensors, and binary
// arithmetic / comparisons / where with numpy broadcasting.
//
// Invariants: each call makes one compute op named "T_<op>" whose axes are the te defaults
// (i, j, k, ...). Unary ops are tagged OpTag::Elementwise; binary ops Elementwise when both operands have
// the output's shape and Broadcast otherwise. Broadcast reads use index 0 on stretched axes.
#pragma once

#include <functional>
#include <string>

#include "ops/op_utils.h"
#include "te/tensor.h"

namespace ttune::ops {

using te::Tensor;

// Generic builders (the graph layer uses them for ops without a dedicated function). The op is
// named "T_" + label; `label` also prefixes error messages.
Tensor unaryOp(const std::string& label, const Tensor& x, const std::function<te::Expr(const te::Expr&)>& fn);
Tensor binaryOp(const std::string& label, const Tensor& a, const Tensor& b,
                const std::function<te::Expr(const te::Expr&, const te::Expr&)>& fn);

// ---- Unary (float32) ----------------------------------------------------------------------------
Tensor relu(const Tensor& x);
Tensor leaky_relu(const Tensor& x, double alpha = 0.01);
// min(max(x, min_value), max_value): when min_value > max_value every element becomes max_value (ONNX).
Tensor clip(const Tensor& x, double min_value, double max_value);
Tensor relu6(const Tensor& x);  // clip(x, 0, 6)
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor gelu(const Tensor& x);                                                // 0.5 x (1 + erf(x / sqrt(2)))
Tensor silu(const Tensor& x);                                                // x sigmoid(x)
Tensor hardswish(const Tensor& x);                                           // x clip(x / 6 + 1/2, 0, 1) (ONNX)
Tensor hardsigmoid(const Tensor& x, double alpha = 0.2, double beta = 0.5);  // clip(alpha x + beta, 0, 1)
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor scale_shift(const Tensor& x, double scale, double shift);  // x * scale + shift

// ---- Binary with broadcasting (same dtype on both sides) ------------------------------------------
// add/sub/mul/maximum/minimum accept float32, int32 and int64; div and pow float32 only.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
// Comparisons produce bool tensors.
Tensor greater(const Tensor& a, const Tensor& b);
Tensor less(const Tensor& a, const Tensor& b);
Tensor equal(const Tensor& a, const Tensor& b);

// cond ? a : b elementwise, the three shapes broadcast together; cond is bool, a and b share a dtype.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

}  // namespace ttune::ops
