// Compute-heavy and normalization ONNX operators: Gemm, MatMul, pooling (1-D and 3-D through
// 2-D; LpPool, GlobalLpPool and LpNormalization from |x|^p through an average pooling or a sum),
// BatchNormalization, LayerNormalization, Softmax and LogSoftmax (convolutions are in
// ops_conv.cc).
//
// Lowering conventions: Gemm and MatMul with a constant 2-D weight become dense with the
// weight in [N, K] layout (alpha folded into it), the bias a separate add; a MatMul whose left
// side has rank >= 3 with only the row dimension not 1 is reshape, dense, reshape; anything else
// is a (batched) matmul.
#include <algorithm>

#include "frontend/onnx/int8_products.h"
#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using graph::Hw;
using graph::Pad4;
using te::DType;

void importPool3d(Ctx& c, graph::PoolKind kind);

bool isConstFloat2d(const Ctx& c, int v) {
  const graph::Value& x = c.val(v);
  return x.isConstant() && x.shape.size() == 2 && x.dtype == DType::Float32;
}

// ---- windows (conv and pooling) ---------------------------------------------------------------

struct Window {
  Hw kernel{1, 1}, strides{1, 1}, dilation{1, 1};
  Pad4 pads{0, 0, 0, 0};
};

// The 2-D window of a 1-D or 2-D operator (a 1-D window is the width of a height-1 window).
Window readWindow(const Ctx& c, const std::vector<int64_t>& kernel, const std::vector<int64_t>& in,
                  bool has_dilations) {
  WindowNd n = readWindowNd(c, kernel, in, has_dilations);
  Window w;
  if (kernel.size() == 2) {
    w.kernel = {kernel[0], kernel[1]};
    w.strides = {n.strides[0], n.strides[1]};
    w.dilation = {n.dilation[0], n.dilation[1]};
    w.pads = {n.pads[0], n.pads[1], n.pads[2], n.pads[3]};
  } else {
    w.kernel = {1, kernel[0]};
    w.strides = {1, n.strides[0]};
    w.dilation = {1, n.dilation[0]};
    w.pads = {0, n.pads[0], 0, n.pads[1]};
  }
  return w;
}

// 1-D ops run as 2-D ops on [N, C, 1, L]; other ranks than 3 and 4 are rejected.
void checkSpatialRank(const Ctx& c, const char* what) {
  size_t r = c.rank(0);
  if (r != 3 && r != 4) c.fail("the input has rank ", r, ", but ", what, " needs rank 3, 4 or 5 (N, C, spatial...)");
}

te::Shape to4d(const te::Shape& s) { return s.size() == 4 ? s : te::Shape{s[0], s[1], 1, s[2]}; }

int back3d(Ctx& c, int y, bool one_d) {
  if (!one_d) return y;
  te::Shape s = c.val(y).shape;
  return c.reshape(y, {s[0], s[1], s[3]}, {});
}

// ---- Gemm / MatMul ----------------------------------------------------------------------------

void importMatMul(Ctx& c) {
  c.checkAttrs({});
  requireFloat(c, 0);
  requireFloat(c, 1);
  int a = c.in(0), b = c.in(1);
  size_t ra = c.rank(0), rb = c.rank(1);
  if (ra == 0 || rb == 0) c.fail("MatMul does not take scalars");
  if (ra >= 2 && rb >= 2) {
    c.setOutput(0, matmul(c, a, b, {}));
    return;
  }
  // 1-D operands: promote ([K] -> [1, K] on the left, [K, 1] on the right), then drop that dim.
  if (ra == 1) a = c.reshape(a, {1, c.shape(0)[0]}, "lhs_2d");
  if (rb == 1) b = c.reshape(b, {c.shape(1)[0], 1}, "rhs_2d");
  int y = matmul(c, a, b, "product");
  te::Shape out = c.val(y).shape;
  if (rb == 1) out.erase(out.end() - 1);
  if (ra == 1) out.erase(out.end() - 1 - (rb == 1 ? 0 : 1));
  c.setOutput(0, c.reshape(y, out, {}));
}

// Gemm of dequantized 8-bit operands with a constant B (QDQ's linear layers): the integer product
// with the bias C folded into it when C is the layer's int32 bias; -1 when it does not apply.
int integerGemm(Ctx& c, int a, int b, bool ta, bool tb, double alpha, double beta) {
  const Dequantized *da = c.dequantized(a), *db = c.dequantized(b);
  if (!da || !db || ta || alpha != 1.0 || (c.present(2) && beta != 1.0)) return -1;
  Dequantized qa = *da, qb = *db;
  const int64_t n = c.shape(1)[tb ? 0 : 1];
  int bias = c.present(2) ? c.in(2, "C") : -1;
  std::optional<std::vector<int64_t>> ib;
  if (bias >= 0 && c.val(bias).shape == te::Shape{n}) ib = integerBias(c, bias, qa, qb, n);
  std::optional<IntegerProduct> p = integerDense(c, qa, qb, tb, ib ? &*ib : nullptr);
  if (!p) return -1;
  int y = scaledToFloat(c, *p, 1, 1.0);
  if (bias >= 0 && !ib) {
    y = c.binary(BinaryKind::Add, y, bias, "bias");
    if (c.val(y).shape != c.val(p->acc).shape)
      c.fail("C of shape ", te::shapeToString(c.shape(2)), " does not broadcast to the result ",
             te::shapeToString(c.val(p->acc).shape));
  }
  return y;
}

void importGemm(Ctx& c) {
  c.checkAttrs({"alpha", "beta", "transA", "transB"});
  requireFloat(c, 0);
  requireFloat(c, 1);
  if (c.rank(0) != 2 || c.rank(1) != 2) c.fail("A and B must be matrices");
  bool ta = c.attrInt("transA", 0) != 0, tb = c.attrInt("transB", 0) != 0;
  double alpha = c.attrFloat("alpha", 1.0), beta = c.attrFloat("beta", 1.0);
  int a = c.in(0), b = c.in(1);
  int64_t m = c.shape(0)[ta ? 1 : 0], n = c.shape(1)[tb ? 0 : 1];
  if (int y = integerGemm(c, a, b, ta, tb, alpha, beta); y >= 0) {
    c.setOutput(0, y);
    return;
  }
  int y;
  if (isConstFloat2d(c, b)) {
    int w = tb ? b : c.transpose(b, {1, 0}, "weight");
    if (alpha != 1.0)
      w = c.binary(BinaryKind::Mul, w, c.scalarConstant(alpha, DType::Float32, "alpha"), "scaled_weight");
    if (ta) a = c.transpose(a, {1, 0}, "transpose_a");
    y = c.emit(graph::DenseAttrs{}, {a, w});
  } else {
    y = c.emit(graph::MatMulAttrs{ta, tb}, {a, b});
    if (alpha != 1.0) y = c.binary(BinaryKind::Mul, y, c.scalarConstant(alpha, DType::Float32, "alpha"), "scaled");
  }
  if (c.present(2) && beta != 0.0) {
    int bias = c.in(2, "C");
    if (beta != 1.0)
      bias = c.binary(BinaryKind::Mul, bias, c.scalarConstant(beta, DType::Float32, "beta"), "scaled_bias");
    y = c.binary(BinaryKind::Add, y, bias, "bias");
    if (c.val(y).shape != te::Shape{m, n})
      c.fail("C of shape ", te::shapeToString(c.shape(2)), " does not broadcast to the result [", m, ", ", n, "]");
  }
  c.setOutput(0, y);
}

// ---- pooling ----------------------------------------------------------------------------------

// |x|^p for the Lp operators (p = 1, 2 without a pow).
int absPow(Ctx& c, int x, int64_t p) {
  if (p == 2) return c.binary(BinaryKind::Mul, x, x, "square");
  int a = c.unary(graph::UnaryKind::Abs, x, "abs");
  if (p == 1) return a;
  return c.binary(BinaryKind::Pow, a, c.scalarConstant(static_cast<double>(p), c.val(x).dtype, "p"), "abs_pow");
}

// s^(1/p), the inverse of absPow.
int rootP(Ctx& c, int s, int64_t p, std::string_view tag) {
  if (p == 1) return s;
  if (p == 2) return c.unary(graph::UnaryKind::Sqrt, s, tag);
  return c.binary(BinaryKind::Pow, s, c.scalarConstant(1.0 / static_cast<double>(p), c.val(s).dtype, "inverse_p"), tag);
}

int64_t lpOrder(const Ctx& c) {
  int64_t p = c.attrInt("p", 2);
  if (p < 1) c.fail("p = ", p, " is not supported (a positive integer order is)");
  return p;
}

// `lp` > 0: LpPool of that order, an average pooling of |x|^p with the padding counted, times
// the window's size, then the p-th root.
void importPool(Ctx& c, graph::PoolKind kind, int64_t lp = 0) {
  bool is_max = kind == graph::PoolKind::Max;
  if (lp > 0)
    c.checkAttrs({"auto_pad", "kernel_shape", "p", "pads", "strides"});
  else if (is_max)
    c.checkAttrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  else
    c.checkAttrs({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  bool indices = is_max && c.outputUsed(1);
  if (c.rank(0) == 5) {
    if (indices) c.fail("the Indices output of a 3-D max pooling is not supported");
    if (lp > 0) c.fail("3-D LpPool is not supported");
    return importPool3d(c, kind);
  }
  checkSpatialRank(c, "pooling");
  // Max pooling of 8-bit values pools the integers. So does max pooling of dequantized values
  // (QDQ): max commutes with the increasing (q - zero point) * scale, so the window's maximum
  // is found on the integers, and the result is the dequantized pooled value, which a following
  // QuantizeLinear of the same parameters returns to the integers without a float round trip.
  te::DType dt = c.dtype(0);
  const Dequantized* dq = c.dequantized(c.in(0));
  std::optional<Dequantized> pooled_from;
  if (is_max && !indices && lp == 0 && dq && dq->scale.size() == 1 && dq->scale[0] > 0 &&
      te::is8BitInt(c.val(dq->q).dtype))
    pooled_from = *dq;
  int src = pooled_from ? pooled_from->q : c.in(0);
  if (pooled_from) dt = c.val(src).dtype;
  bool quantized = is_max && te::is8BitInt(dt);
  if (!quantized) requireFloat(c, 0);
  bool one_d = c.rank(0) == 3;
  std::vector<int64_t> kernel = c.attrInts("kernel_shape");
  if (kernel.size() != c.rank(0) - 2) c.fail("kernel_shape ", listStr(kernel), " does not match the input rank");
  te::Shape xs = c.shape(0);
  Window w = readWindow(c, kernel, std::vector<int64_t>(xs.begin() + 2, xs.end()), is_max);
  graph::Pool2dAttrs a;
  a.kind = kind;
  a.kernel = w.kernel;
  a.strides = w.strides;
  a.pads = w.pads;
  a.dilation = w.dilation;
  a.ceil_mode = c.attrInt("ceil_mode", 0) != 0;
  a.count_include_pad = lp > 0 || c.attrInt("count_include_pad", 0) != 0;
  int x0 = lp > 0 ? absPow(c, c.in(0), lp) : src;
  int x = c.reshape(x0, to4d(xs), "input_2d");
  int y = c.emit(a, {x}, one_d || pooled_from || lp > 0 ? "pool_2d" : "");
  if (pooled_from) {
    int q = back3d(c, y, one_d);
    y = dequantizedFrom(c, q, *pooled_from);
    c.setOutput(0, y);
    return;
  }
  if (lp > 0) {
    double area = static_cast<double>(a.kernel[0] * a.kernel[1]);
    y = rootP(c, c.binary(BinaryKind::Mul, y, c.scalarConstant(area, c.val(y).dtype, "window"), "window_sum"), lp,
              one_d ? "pool_2d_root" : "");
  }
  c.setOutput(0, back3d(c, y, one_d));
  if (indices) {
    graph::MaxPoolIndicesAttrs ia{a};
    ia.column_major = c.attrInt("storage_order", 0) != 0;
    c.setOutput(1, back3d(c, c.emit(ia, {x}, "indices"), one_d));
  }
}

// 3-D pooling as two 2-D poolings: the (H, W) window on [N, C*D, H, W], then the depth window
// on [N, C, D, H'*W']. Exact for max and average alike: a window is the product of its
// per-axis ranges, so is the valid-element count that count_include_pad=0 divides by.
void importPool3d(Ctx& c, graph::PoolKind kind) {
  requireFloat(c, 0);
  bool is_max = kind == graph::PoolKind::Max;
  std::vector<int64_t> kernel = c.attrInts("kernel_shape");
  if (kernel.size() != 3) c.fail("kernel_shape ", listStr(kernel), " does not match the input rank");
  te::Shape xs = c.shape(0);
  WindowNd w = readWindowNd(c, kernel, {xs[2], xs[3], xs[4]}, is_max);
  graph::Pool2dAttrs hw;
  hw.kind = kind;
  hw.kernel = {kernel[1], kernel[2]};
  hw.strides = {w.strides[1], w.strides[2]};
  hw.dilation = {w.dilation[1], w.dilation[2]};
  hw.pads = {w.pads[1], w.pads[2], w.pads[4], w.pads[5]};
  hw.ceil_mode = c.attrInt("ceil_mode", 0) != 0;
  hw.count_include_pad = c.attrInt("count_include_pad", 0) != 0;
  int x = c.reshape(c.in(0), {xs[0], xs[1] * xs[2], xs[3], xs[4]}, "input_2d");
  int y = c.emit(hw, {x}, "pool_hw");
  te::Shape ys = c.val(y).shape;
  y = c.reshape(y, {xs[0], xs[1], xs[2], ys[2] * ys[3]}, "depth_rows");
  graph::Pool2dAttrs d = hw;
  d.kernel = {kernel[0], 1};
  d.strides = {w.strides[0], 1};
  d.dilation = {w.dilation[0], 1};
  d.pads = {w.pads[0], 0, w.pads[3], 0};
  y = c.emit(d, {y}, "pool_d");
  int64_t od = c.val(y).shape[2];
  c.setOutput(0, c.reshape(y, {xs[0], xs[1], od, ys[2], ys[3]}, "output_3d"));
}

void importMaxPool(Ctx& c) { importPool(c, graph::PoolKind::Max); }
void importAveragePool(Ctx& c) { importPool(c, graph::PoolKind::Avg); }

void importGlobalPool(Ctx& c, graph::PoolKind kind) {
  c.checkAttrs({});
  requireFloat(c, 0);
  size_t r = c.rank(0);
  if (r < 3) c.fail("the input has rank ", r, ", but global pooling needs N, C and spatial dimensions");
  // The average of a dequantized 8-bit value sums its integers (int8_products.h).
  if (kind == graph::PoolKind::Avg)
    if (int y = integerGlobalAverage(c, c.in(0)); y >= 0) {
      c.setOutput(0, y);
      return;
    }
  if (r == 4) {
    c.setOutput(0, c.emit(graph::GlobalPool2dAttrs{kind}, {c.in(0)}));
    return;
  }
  std::vector<int64_t> axes;
  for (size_t d = 2; d < r; ++d) axes.push_back(static_cast<int64_t>(d));
  graph::ReduceKind rk = kind == graph::PoolKind::Max ? graph::ReduceKind::Max : graph::ReduceKind::Mean;
  c.setOutput(0, c.emit(graph::ReduceAttrs{rk, axes, true}, {c.in(0)}));
}

void importGlobalAveragePool(Ctx& c) { importGlobalPool(c, graph::PoolKind::Avg); }
void importLpPool(Ctx& c) { importPool(c, graph::PoolKind::Avg, lpOrder(c)); }

// GlobalLpPool: (sum over the spatial axes of |x|^p)^(1/p).
void importGlobalLpPool(Ctx& c) {
  c.checkAttrs({"p"});
  requireFloat(c, 0);
  int64_t p = lpOrder(c);
  size_t r = c.rank(0);
  if (r < 3) c.fail("the input has rank ", r, ", but global pooling needs N, C and spatial dimensions");
  std::vector<int64_t> axes;
  for (size_t d = 2; d < r; ++d) axes.push_back(static_cast<int64_t>(d));
  int s = c.emit(graph::ReduceAttrs{graph::ReduceKind::Sum, axes, true}, {absPow(c, c.in(0), p)}, "sum");
  c.setOutput(0, rootP(c, s, p, {}));
}

// LpNormalization: x divided by its L1 or L2 norm along `axis`.
void importLpNormalization(Ctx& c) {
  c.checkAttrs({"axis", "p"});
  requireFloat(c, 0);
  int64_t p = lpOrder(c);
  if (p > 2) c.fail("p = ", p, " is not supported (ONNX defines 1 and 2)");
  int64_t axis = normAxis(c, c.attrInt("axis", -1), c.rank(0));
  int s = c.emit(graph::ReduceAttrs{graph::ReduceKind::Sum, {axis}, true}, {absPow(c, c.in(0), p)}, "sum");
  c.setOutput(0, c.binary(BinaryKind::Div, c.in(0), rootP(c, s, p, "norm"), {}));
}
void importGlobalMaxPool(Ctx& c) { importGlobalPool(c, graph::PoolKind::Max); }

// ---- normalization ----------------------------------------------------------------------------

void importBatchNorm(Ctx& c) {
  c.checkAttrs({"epsilon", "momentum", "training_mode", "spatial"});
  if (c.attrInt("training_mode", 0) != 0) c.fail("training mode is not supported (inference only)");
  if (c.attrInt("spatial", 1) != 1) c.fail("spatial=0 is not supported");
  for (int k = 1; k < c.numOutputs(); ++k)
    if (c.outputUsed(k)) c.fail("output ", k, " (running statistics) exists only in training mode");
  requireFloat(c, 0);
  if (c.rank(0) < 2) c.fail("the input must have rank >= 2");
  int64_t ch = c.shape(0)[1];
  std::vector<int> ins{c.in(0)};
  const char* roles[] = {"scale", "B", "mean", "var"};
  for (int i = 1; i <= 4; ++i) {
    if (c.shape(i) != te::Shape{ch})
      c.fail("the ", roles[i - 1], " input has shape ", te::shapeToString(c.shape(i)), " for ", ch, " channels");
    ins.push_back(c.in(i, roles[i - 1]));
  }
  c.setOutput(0, c.emit(graph::BatchNormAttrs{c.attrFloat("epsilon", 1e-5)}, ins));
}

void importLayerNorm(Ctx& c) {
  c.checkAttrs({"axis", "epsilon", "stash_type"});
  requireFloat(c, 0);
  te::Shape xs = c.shape(0);
  int64_t axis = normAxis(c, c.attrInt("axis", -1), xs.size());
  double eps = c.attrFloat("epsilon", 1e-5);
  te::Shape norm(xs.begin() + axis, xs.end());
  auto param = [&](int i, const char* role) {
    if (!c.has(i)) return -1;
    int v = c.in(i, role);
    if (c.shape(i) == norm) return v;
    int e = c.emit(graph::ExpandAttrs{norm}, {v}, std::string(role) + "_expanded");
    if (c.val(e).shape != norm)
      c.fail("the ", role, " input of shape ", te::shapeToString(c.shape(i)), " does not broadcast to ",
             te::shapeToString(norm));
    return e;
  };
  int scale = param(1, "scale"), bias = param(2, "B");
  int x = c.in(0);
  c.setOutput(0, c.emit(graph::LayerNormAttrs{axis, eps}, {x, scale, bias}));
  if (c.outputUsed(1) || c.outputUsed(2)) {  // Mean and InvStdDev, with the reduced dims kept
    std::vector<int64_t> axes;
    for (size_t d = static_cast<size_t>(axis); d < xs.size(); ++d) axes.push_back(static_cast<int64_t>(d));
    int mean = c.emit(graph::ReduceAttrs{graph::ReduceKind::Mean, axes, true}, {x}, "mean");
    c.setOutput(1, mean);
    if (c.outputUsed(2)) {
      int d = c.binary(BinaryKind::Sub, x, mean, "centered");
      int sq = c.binary(BinaryKind::Mul, d, d, "squared");
      int var = c.emit(graph::ReduceAttrs{graph::ReduceKind::Mean, axes, true}, {sq}, "variance");
      int ve = c.binary(BinaryKind::Add, var, c.scalarConstant(eps, DType::Float32, "epsilon"), "variance_eps");
      int sd = c.unary(graph::UnaryKind::Sqrt, ve, "stddev");
      c.setOutput(2, c.unary(graph::UnaryKind::Reciprocal, sd, "inv_stddev"));
    }
  }
}

// ---- softmax ----------------------------------------------------------------------------------

// log(softmax(x)) along one axis, computed stably as (x - max) - log(sum(exp(x - max))).
void importSoftmaxLike(Ctx& c, bool log) {
  c.checkAttrs({"axis"});
  requireFloat(c, 0);
  te::Shape xs = c.shape(0);
  if (xs.empty()) c.fail("the input must have rank >= 1");
  bool coerce = c.opset() < 13;  // opsets 11/12: softmax over the flattened dims from `axis` on
  int64_t axis = normAxis(c, c.attrInt("axis", coerce ? 1 : -1), xs.size());
  int x = c.in(0);
  auto apply = [&](int v, int64_t ax, std::string_view tag) {
    return log ? logSoftmax(c, v, ax, tag) : c.emit(graph::SoftmaxAttrs{ax}, {v}, tag);
  };
  if (!coerce || axis == static_cast<int64_t>(xs.size()) - 1) {
    c.setOutput(0, apply(x, axis, {}));
    return;
  }
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < xs.size(); ++d) (static_cast<int64_t>(d) < axis ? outer : inner) *= xs[d];
  int x2 = c.reshape(x, {outer, inner}, "flatten");
  int y2 = apply(x2, 1, "2d");
  c.setOutput(0, c.reshape(y2, xs, {}));
}

void importSoftmax(Ctx& c) { importSoftmaxLike(c, false); }
void importLogSoftmax(Ctx& c) { importSoftmaxLike(c, true); }

}  // namespace

// See nn_common.h.
int logSoftmax(Ctx& c, int x, int64_t axis, std::string_view tag) {
  std::string t(tag);
  int mx = c.emit(graph::ReduceAttrs{graph::ReduceKind::Max, {axis}, true}, {x}, t + "max");
  int d = c.binary(BinaryKind::Sub, x, mx, t + "shifted");
  int e = c.unary(graph::UnaryKind::Exp, d, t + "exp");
  int s = c.emit(graph::ReduceAttrs{graph::ReduceKind::Sum, {axis}, true}, {e}, t + "sum");
  int l = c.unary(graph::UnaryKind::Log, s, t + "log_sum");
  return c.binary(BinaryKind::Sub, d, l, tag);
}

// See nn_common.h and the conventions above.
int matmul(Ctx& c, int a, int b, std::string_view tag) {
  te::Shape as = c.val(a).shape;
  te::Shape bs = c.val(b).shape;
  // Dequantized 8-bit operands with a constant right side: an integer product (int8_products.h).
  if (const Dequantized* da = c.dequantized(a), *db = c.dequantized(b); da && db && bs.size() == 2) {
    Dequantized qa = *da, qb = *db;
    if (std::optional<IntegerProduct> p = integerDense(c, qa, qb, false, nullptr))
      return scaledToFloat(c, *p, static_cast<int64_t>(as.size()) - 1, 1.0);
  }
  if (isConstFloat2d(c, b) && c.val(a).dtype == DType::Float32) {
    bool lead_ones = true;
    for (size_t d = 0; d + 2 < as.size(); ++d) lead_ones = lead_ones && as[d] == 1;
    if (lead_ones) {
      int64_t m = as[as.size() - 2], k = as.back(), n = bs[1];
      if (bs[0] != k) c.fail("cannot multiply ", te::shapeToString(as), " by ", te::shapeToString(bs));
      int w = c.transpose(b, {1, 0}, "weight");
      int a2 = c.reshape(a, {m, k}, "rows");
      bool reshaped = as.size() != 2;
      std::string dense_tag = !reshaped ? std::string(tag) : tag.empty() ? "dense" : std::string(tag) + "_dense";
      int y = c.emit(graph::DenseAttrs{}, {a2, w}, dense_tag);
      if (!reshaped) return y;
      te::Shape out = as;
      out.back() = n;
      return c.reshape(y, out, tag);
    }
  }
  return c.emit(graph::MatMulAttrs{}, {a, b}, tag);
}

void addNnOps(OpTable& t) {
  t["MatMul"] = importMatMul;
  t["Gemm"] = importGemm;
  t["MaxPool"] = importMaxPool;
  t["AveragePool"] = importAveragePool;
  t["GlobalAveragePool"] = importGlobalAveragePool;
  t["GlobalMaxPool"] = importGlobalMaxPool;
  t["LpPool"] = importLpPool;
  t["GlobalLpPool"] = importGlobalLpPool;
  t["LpNormalization"] = importLpNormalization;
  t["BatchNormalization"] = importBatchNorm;
  t["LayerNormalization"] = importLayerNorm;
  t["Softmax"] = importSoftmax;
  t["LogSoftmax"] = importLogSoftmax;
}

}  // namespace ttune::frontend::detail
