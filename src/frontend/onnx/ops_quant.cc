// Quantization operators (opsets 10-13 forms): QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv.
//
// All are composed from ordinary graph ops, so they fuse into ordinary float32 kernels: a
// quantized operand is cast to float32 and its zero point subtracted (exact: small integers),
// the product or convolution runs through the float MatMul / Conv lowering on those
// integer-valued floats, and a quantized result is round-half-to-even(acc * multiplier) + zero
// point, clipped to the 8-bit range and cast (ONNX's saturation). Integer accumulation in
// float32 is exact while every partial sum stays below 2^24 in magnitude (e.g. up to ~250 terms
// of full-range 8-bit products); MatMulInteger / ConvInteger bound their sums at import (from
// the constant weights) and beyond 2^24 split the activation into 16 hi + lo, two products
// combined in int32, so their int32 results stay exact (results are rounded before the int32
// cast, which absorbs the small error of a Winograd convolution). The QLinear operators rescale
// in float32 anyway: there a long reduction can move a result only where it lies within float
// error of a rounding tie.
//
// Scales and zero points may be constants or computed values (DynamicQuantizeLinear's outputs);
// per-axis ones are 1-D and reshaped to broadcast along their axis.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "frontend/onnx/int8_products.h"
#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using graph::UnaryKind;
using te::DType;

bool is8Bit(DType t) { return t == DType::Int8 || t == DType::UInt8; }

// Input i, a scale or zero point, shaped to broadcast against a tensor of rank `rank` whose axis
// `axis` has `extent` elements: a scalar (one element) stays as it is, a 1-D tensor of `extent`
// elements is reshaped to [1, .., extent, .., 1].
int alongAxis(Ctx& c, int i, std::string_view role, size_t rank, int64_t axis, int64_t extent) {
  int v = c.in(i, role);
  te::Shape s = c.shape(i);
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  if (n == 1 && s.size() <= 1) return v;
  if (s.size() != 1 || s[0] != extent)
    c.fail(c.inputLabel(i, role), " has shape ", te::shapeToString(s), ", but must be a scalar or hold ", extent,
           " values (one per element of axis ", axis, ")");
  te::Shape b(rank, 1);
  b[static_cast<size_t>(axis)] = extent;
  return c.reshape(v, b, std::string(role) + "_along_axis");
}

void requireScale(const Ctx& c, int i, std::string_view role) {
  if (c.dtype(i) != DType::Float32)
    c.fail(c.inputLabel(i, role), " has dtype ", te::dtypeName(c.dtype(i)), ", but a scale must be float32");
}

void requireQuantized(const Ctx& c, int i, std::string_view role) {
  if (!is8Bit(c.dtype(i)))
    c.fail(c.inputLabel(i, role), " has dtype ", te::dtypeName(c.dtype(i)), ", but must be int8 or uint8");
}

// Input i (quantized, or int32) as float32 minus its zero point (input zp, absent when < 0 or
// not given), the zero point shaped by alongAxis.
int centered(Ctx& c, int i, std::string_view role, int zp, std::string_view zp_role, int64_t axis) {
  te::Shape s = c.shape(i);
  int x = c.cast(c.in(i, role), DType::Float32, std::string(role) + "_float");
  if (zp < 0 || !c.present(zp)) return x;
  if (c.dtype(zp) != c.dtype(i))
    c.fail(c.inputLabel(zp, zp_role), " has dtype ", te::dtypeName(c.dtype(zp)), ", but ", c.inputLabel(i, role),
           " has dtype ", te::dtypeName(c.dtype(i)));
  int64_t extent = s.empty() ? 1 : s[static_cast<size_t>(axis)];
  int z = alongAxis(c, zp, zp_role, s.size(), axis, extent);
  z = c.cast(z, DType::Float32, std::string(zp_role) + "_float");
  return c.binary(BinaryKind::Sub, x, z, std::string(role) + "_centered");
}

// saturate(round_half_even(y) + zero point) cast to `to`; y is float32, the zero point a
// float32 value broadcasting against y (or < 0 for none). The last node carries `tag`.
int saturateTo(Ctx& c, int y, int zp_float, DType to, std::string_view tag) {
  int r = c.unary(UnaryKind::Round, y, "rounded");
  if (zp_float >= 0) r = c.binary(BinaryKind::Add, r, zp_float, "shifted");
  double lo = to == DType::UInt8 ? 0 : -128, hi = to == DType::UInt8 ? 255 : 127;
  r = c.unary(UnaryKind::Clip, r, "saturated", lo, hi);
  return c.cast(r, to, tag);
}

// The output type and float32 zero point of a quantized result whose zero point is input zp
// (uint8 and none when absent), shaped by alongAxis.
std::pair<DType, int> outputZeroPoint(Ctx& c, int zp, std::string_view role, size_t rank, int64_t axis,
                                      int64_t extent) {
  if (!c.present(zp)) return {DType::UInt8, -1};
  requireQuantized(c, zp, role);
  int z = alongAxis(c, zp, role, rank, axis, extent);
  return {c.dtype(zp), c.cast(z, DType::Float32, std::string(role) + "_float")};
}

// The axis of per-axis quantization for an input of `rank` whose scale is input `scale`; only a
// 1-D scale needs it (the default axis 1 is meaningless for a per-tensor scale of a vector).
int64_t axisAttr(const Ctx& c, size_t rank, int scale) {
  te::Shape s = c.shape(scale);
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  if (rank == 0 || (n == 1 && s.size() <= 1)) return 0;
  return normAxis(c, c.attrInt("axis", 1), rank);
}

// ---- QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear ----------------------------

// y = saturate(round(x / y_scale) + y_zero_point)
void importQuantizeLinear(Ctx& c) {
  c.checkAttrs({"axis"});
  te::Shape s = c.shape(0);
  if (c.dtype(0) != DType::Float32 && c.dtype(0) != DType::Int32)
    c.fail(c.inputLabel(0), " has dtype ", te::dtypeName(c.dtype(0)), ", but QuantizeLinear takes float32 or int32");
  requireScale(c, 1, "y_scale");
  int64_t axis = axisAttr(c, s.size(), 1);
  int64_t extent = s.empty() ? 1 : s[static_cast<size_t>(axis)];
  // Quantizing a dequantized value with its own parameters returns its integers (exactly:
  // (q - z) * s / s rounds back to q - z): QDQ's pooling and reshapes need no float round trip.
  if (const Dequantized* d = c.dequantized(c.in(0));
      d && d->scale.size() == 1 && c.isConst(1) && te::shapeElements(c.shape(1)) == 1) {
    const DType to = c.present(2) ? c.dtype(2) : DType::UInt8;
    const int64_t zp = c.present(2) && c.isConst(2) ? c.ints(2, "y_zero_point")[0] : 0;
    if ((!c.present(2) || c.isConst(2)) && c.val(d->q).dtype == to && d->zero_point[0] == zp &&
        static_cast<float>(d->scale[0]) == static_cast<float>(c.scalar(1, "y_scale"))) {
      c.setOutput(0, d->q);
      return;
    }
  }
  // An int8 layer's scaled sums: one multiplier per channel, scale / y_scale, as int8 runtimes
  // requantize (and without a division per element).
  if (const ScaledInteger* si = c.scaledInteger(c.in(0)); si && c.isConst(1) && te::shapeElements(c.shape(1)) == 1) {
    ScaledInteger copy = *si;
    int y = scaledToFloat(c, copy, c.scalar(1, "y_scale"));
    auto [to, zp] = outputZeroPoint(c, 2, "y_zero_point", s.size(), axis, extent);
    c.setOutput(0, saturateTo(c, y, zp, to, {}));
    return;
  }
  int x = c.cast(c.in(0), DType::Float32, "input_float");
  int scale = alongAxis(c, 1, "y_scale", s.size(), axis, extent);
  auto [to, zp] = outputZeroPoint(c, 2, "y_zero_point", s.size(), axis, extent);
  int y = c.binary(BinaryKind::Div, x, scale, "scaled");
  c.setOutput(0, saturateTo(c, y, zp, to, {}));
}

// y = (x - x_zero_point) * x_scale
void importDequantizeLinear(Ctx& c) {
  c.checkAttrs({"axis"});
  te::Shape s = c.shape(0);
  if (!is8Bit(c.dtype(0)) && c.dtype(0) != DType::Int32)
    c.fail(c.inputLabel(0), " has dtype ", te::dtypeName(c.dtype(0)),
           ", but DequantizeLinear takes int8, uint8 or int32");
  requireScale(c, 1, "x_scale");
  int64_t axis = axisAttr(c, s.size(), 1);
  int64_t extent = s.empty() ? 1 : s[static_cast<size_t>(axis)];
  int x = centered(c, 0, "x", 2, "x_zero_point", axis);
  int scale = alongAxis(c, 1, "x_scale", s.size(), axis, extent);
  int y = c.binary(BinaryKind::Mul, x, scale, {});
  // Convolutions and products reading y compute on the integers instead (int8_products.h).
  if (std::optional<Dequantized> d = quantizedInput(c, 0, 1, 2, axis)) c.noteDequantized(y, std::move(*d));
  c.setOutput(0, y);
}

// uint8 quantization with a scale and zero point from the data's range (including 0):
// scale = (max(0, max x) - min(0, min x)) / 255, zero point = saturate(round(-min / scale)).
void importDynamicQuantizeLinear(Ctx& c) {
  c.checkAttrs({});
  if (c.dtype(0) != DType::Float32)
    c.fail(c.inputLabel(0), " has dtype ", te::dtypeName(c.dtype(0)), ", but DynamicQuantizeLinear takes float32");
  if (c.rank(0) == 0) c.fail(c.inputLabel(0), " is a scalar, which DynamicQuantizeLinear does not take");
  int x = c.in(0);
  int zero = c.scalarConstant(0, DType::Float32, "zero");
  int mn = c.emit(graph::ReduceAttrs{graph::ReduceKind::Min, {}, false}, {x}, "data_min");
  int mx = c.emit(graph::ReduceAttrs{graph::ReduceKind::Max, {}, false}, {x}, "data_max");
  mn = c.binary(BinaryKind::Min, mn, zero, "range_min");
  mx = c.binary(BinaryKind::Max, mx, zero, "range_max");
  int width = c.binary(BinaryKind::Sub, mx, mn, "range");
  int scale = c.binary(BinaryKind::Div, width, c.scalarConstant(255, DType::Float32, "levels"), "y_scale");
  int zp_real = c.binary(BinaryKind::Sub, zero, c.binary(BinaryKind::Div, mn, scale, "min_scaled"), "zero_point_real");
  int zp_float =
      c.unary(UnaryKind::Clip, c.unary(UnaryKind::Round, zp_real, "zero_point_rounded"), "zero_point_float", 0, 255);
  int y = c.binary(BinaryKind::Div, x, scale, "scaled");
  c.setOutput(0, saturateTo(c, y, zp_float, DType::UInt8, {}));
  c.setOutput(1, scale);
  c.setOutput(2, c.cast(zp_float, DType::UInt8, "y_zero_point"));
}

// ---- integer products ------------------------------------------------------------------------

// An integer-valued float32 result as int32: rounded first, so a product computed with rounding
// error (a Winograd convolution) still lands on its integer instead of truncating below it.
int toInt32(Ctx& c, int y, std::string_view tag) {
  std::string t(tag);
  return c.cast(c.unary(UnaryKind::Round, y, t.empty() ? "rounded" : t + "_rounded"), DType::Int32, tag);
}

// Largest |v - zero point| over the values v of input i's 8-bit type (any zero point when it is
// computed at run time).
double maxCentered(const Ctx& c, int i, int zp) {
  double lo = static_cast<double>(te::intTypeMin(c.dtype(i))), hi = static_cast<double>(te::intTypeMax(c.dtype(i)));
  if (!c.present(zp)) return std::max(-lo, hi);
  if (!c.isConst(zp)) return hi - lo;
  double m = 0;
  for (int64_t z : c.ints(zp, "zero point"))
    m = std::max({m, std::fabs(lo - static_cast<double>(z)), std::fabs(hi - static_cast<double>(z))});
  return m;
}

// Both operands of an integer product, cast to float32 and centered on their zero points, and a
// bound of the magnitude of any partial sum of the product.
struct Centered {
  int a = -1, b = -1;
  double bound = 0;
};

// Largest sum of |w| over the elements one output reads of the centered weight `wf`, which is
// [outputs, reduced...] (a convolution's) or [..., reduced, outputs] (a matrix product's right
// side). Without a constant weight: the reduction length times the largest centered weight.
double weightSum(const Ctx& c, int wf, bool outputs_first, double max_weight) {
  const graph::Value& v = c.val(wf);
  const te::Shape& s = v.shape;
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  int64_t reduced = outputs_first ? n / s[0] : s[s.size() - 2];
  if (!v.isConstant()) return static_cast<double>(reduced) * max_weight;
  const float* w = v.constant->as<float>();
  double best = 0;
  if (outputs_first) {
    for (int64_t o = 0; o < s[0]; ++o) {
      double sum = 0;
      for (int64_t k = 0; k < reduced; ++k) sum += std::fabs(w[o * reduced + k]);
      best = std::max(best, sum);
    }
    return best;
  }
  int64_t cols = s.back(), batch = n / (reduced * cols);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < cols; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < reduced; ++k) sum += std::fabs(w[(b * reduced + k) * cols + j]);
      best = std::max(best, sum);
    }
  return best;
}

// The integer product `product(a)` of centered operands as exact int32. float32 sums integers
// exactly below 2^24; when the bound allows more, a is split into 16 hi + lo (hi = floor(a / 16),
// lo in [0, 16)), whose two products are each about 16x smaller, and they are combined in int32.
int exactInt32(Ctx& c, const Centered& op, const std::function<int(int, std::string_view)>& product) {
  constexpr double kExactFloat = 16777216.0;  // 2^24
  if (op.bound < kExactFloat) return toInt32(c, product(op.a, "product"), {});
  int hi = c.unary(
      UnaryKind::Floor,
      c.binary(BinaryKind::Mul, op.a, c.scalarConstant(1.0 / 16, DType::Float32, "sixteenth"), "a_over_16"), "a_high");
  int lo =
      c.binary(BinaryKind::Sub, op.a,
               c.binary(BinaryKind::Mul, hi, c.scalarConstant(16, DType::Float32, "sixteen"), "a_high_16"), "a_low");
  int ph = toInt32(c, product(hi, "product_high"), "product_high_int");
  int pl = toInt32(c, product(lo, "product_low"), "product_low_int");
  int shifted = c.binary(BinaryKind::Mul, ph, c.scalarConstant(16, DType::Int32, "sixteen_int"), "product_high_16");
  return c.binary(BinaryKind::Add, shifted, pl, {});
}

// A - a_zero_point and B - b_zero_point as float32 (integer-valued): a's zero point is a scalar
// or one per row of a (its second-last axis), b's a scalar or one per column of b.
Centered centeredProduct(Ctx& c, int a, int azp, int b, int bzp) {
  requireQuantized(c, a, "A");
  requireQuantized(c, b, "B");
  if (c.rank(a) < 2 || c.rank(b) < 2)
    c.fail("the operands have shapes ", te::shapeToString(c.shape(a)), " and ", te::shapeToString(c.shape(b)),
           ", but ttune needs both of rank 2 or more");
  Centered op;
  op.a = centered(c, a, "A", azp, "a_zero_point", static_cast<int64_t>(c.rank(a)) - 2);
  op.b = centered(c, b, "B", bzp, "b_zero_point", static_cast<int64_t>(c.rank(b)) - 1);
  op.bound = maxCentered(c, a, azp) * weightSum(c, op.b, false, maxCentered(c, b, bzp));
  return op;
}

// MatMulInteger with a constant B (ORT's dynamically quantized layers): the integer product, the
// zero point of A compensated in int32 whether it is a constant or computed at run time
// (DynamicQuantizeLinear's); -1 when it does not apply.
int integerMatMulInteger(Ctx& c) {
  if (!c.isConst(1) || c.rank(1) != 2 || c.rank(0) < 2 || !is8Bit(c.dtype(0)) || !is8Bit(c.dtype(1))) return -1;
  if (c.present(3) && !c.isConst(3)) return -1;
  const int64_t n = c.shape(1)[1];
  Dequantized a{c.in(0), {1.0}, {0}, -1}, b{c.in(1), {1.0}, {0}, -1};
  int runtime_zp = -1;
  if (c.present(2)) {
    if (te::shapeElements(c.shape(2)) != 1 || c.dtype(2) != c.dtype(0)) return -1;
    if (c.isConst(2))
      a.zero_point = c.ints(2, "a_zero_point");
    else
      runtime_zp = c.in(2, "a_zero_point");
  }
  if (c.present(3)) {
    b.zero_point = c.ints(3, "b_zero_point");
    if (static_cast<int64_t>(b.zero_point.size()) == n && n > 1) {
      b.scale.assign(static_cast<size_t>(n), 1.0);
      b.axis = 1;
    } else if (b.zero_point.size() != 1) {
      return -1;
    }
  }
  std::optional<IntegerProduct> p = integerDense(c, a, b, false, nullptr);
  if (!p) return -1;
  if (runtime_zp < 0) return p->acc;
  runtime::NDArray sums({n}, DType::Int32);
  for (int64_t m = 0; m < n; ++m)
    sums.as<int32_t>()[m] = static_cast<int32_t>(te::wrapInt(DType::Int32, p->weight_sums[static_cast<size_t>(m)]));
  int zp = c.reshape(c.cast(runtime_zp, DType::Int32, "a_zero_point_int32"), {}, "a_zero_point_scalar");
  int comp = c.binary(BinaryKind::Mul, zp, c.addConstant(std::move(sums), "weight_sums"), "zero_point_compensation");
  return c.binary(BinaryKind::Sub, p->acc, comp, {});
}

// int32 (A - a_zero_point) x (B - b_zero_point)
void importMatMulInteger(Ctx& c) {
  c.checkAttrs({});
  if (int y = integerMatMulInteger(c); y >= 0) {
    c.setOutput(0, y);
    return;
  }
  Centered op = centeredProduct(c, 0, 2, 1, 3);
  c.setOutput(0, exactInt32(c, op, [&](int a, std::string_view tag) { return matmul(c, a, op.b, tag); }));
}

// Quantized matrix product: saturate(round(acc * a_scale * b_scale / y_scale) + y_zero_point)
// with acc the integer product of the centered operands.
void importQLinearMatMul(Ctx& c) {
  c.checkAttrs({});
  for (int i : {1, 4, 6}) requireScale(c, i, i == 1 ? "a_scale" : i == 4 ? "b_scale" : "y_scale");
  // Constant scales and a constant B: the integer product, rescaled once (int8_products.h).
  std::optional<Dequantized> qa = quantizedInput(c, 0, 1, 2, static_cast<int64_t>(c.rank(0)) - 2);
  std::optional<Dequantized> qb = quantizedInput(c, 3, 4, 5, static_cast<int64_t>(c.rank(3)) - 1);
  if (qa && qb && c.isConst(6) && te::shapeElements(c.shape(6)) == 1) {
    if (std::optional<IntegerProduct> p = integerDense(c, *qa, *qb, false, nullptr)) {
      te::Shape ys = c.val(p->acc).shape;
      int64_t last = static_cast<int64_t>(ys.size()) - 1;
      int y = scaledToFloat(c, *p, last, c.scalar(6, "y_scale"));
      auto [to, zp] = outputZeroPoint(c, 7, "y_zero_point", ys.size(), last, ys.back());
      c.setOutput(0, saturateTo(c, y, zp, to, {}));
      return;
    }
  }
  Centered op = centeredProduct(c, 0, 2, 3, 5);
  int acc = matmul(c, op.a, op.b, "product");
  te::Shape ys = c.val(acc).shape;
  int64_t last = static_cast<int64_t>(ys.size()) - 1;
  int as = alongAxis(c, 1, "a_scale", ys.size(), last - 1, ys[ys.size() - 2]);
  int bs = alongAxis(c, 4, "b_scale", ys.size(), last, ys.back());
  int scale = c.binary(BinaryKind::Mul, as, bs, "input_scale");
  int mult = c.binary(BinaryKind::Div, scale, c.in(6, "y_scale"), "multiplier");
  auto [to, zp] = outputZeroPoint(c, 7, "y_zero_point", ys.size(), last, ys.back());
  int y = c.binary(BinaryKind::Mul, acc, mult, "rescaled");
  c.setOutput(0, saturateTo(c, y, zp, to, {}));
}

// ---- integer convolutions --------------------------------------------------------------------

struct ConvShape {
  WindowNd window;
  int64_t groups = 1;
};

// Conv's attributes for input x and weight w (as importConv reads them).
ConvShape readConv(const Ctx& c, int x, int w) {
  c.checkAttrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  te::Shape xs = c.shape(x), ws = c.shape(w);
  if (xs.size() < 3 || xs.size() > 5)
    c.fail("the input has rank ", xs.size(), ", but a convolution needs rank 3, 4 or 5 (N, C, spatial...)");
  if (ws.size() != xs.size()) c.fail("the weight has rank ", ws.size(), " but the input has rank ", xs.size());
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  std::vector<int64_t> ks = c.attrInts("kernel_shape");
  if (!ks.empty() && ks != kernel)
    c.fail("kernel_shape ", listStr(ks), " does not match the weight shape ", te::shapeToString(ws));
  ConvShape s;
  s.window = readWindowNd(c, kernel, std::vector<int64_t>(xs.begin() + 2, xs.end()), true);
  s.groups = c.attrInt("group", 1);
  if (s.groups <= 0) c.fail("group ", s.groups, " must be positive");
  return s;
}

// x - x_zero_point and w - w_zero_point as float32 (integer-valued) and the convolution's
// attributes; x's zero point is a scalar, w's a scalar or one per output channel.
struct CenteredConv {
  Centered op;
  ConvShape shape;
  int emit(Ctx& c, int x, std::string_view tag) const {
    return emitConvNd(c, x, op.b, shape.window, shape.groups, tag);
  }
};

CenteredConv centeredConv(Ctx& c, int x, int xzp, int w, int wzp) {
  requireQuantized(c, x, "x");
  requireQuantized(c, w, "w");
  ConvShape s = readConv(c, x, w);
  if (c.present(xzp)) {
    te::Shape zs = c.shape(xzp);
    int64_t n = 1;
    for (int64_t d : zs) n *= d;
    if (n != 1)
      c.fail(c.inputLabel(xzp, "x_zero_point"), " has shape ", te::shapeToString(zs), ", but must be a scalar");
  }
  CenteredConv r;
  r.shape = s;
  r.op.a = centered(c, x, "x", xzp, "x_zero_point", 1);
  r.op.b = centered(c, w, "w", wzp, "w_zero_point", 0);
  r.op.bound = maxCentered(c, x, xzp) * weightSum(c, r.op.b, true, maxCentered(c, w, wzp));
  return r;
}

// int32 conv(x - x_zero_point, w - w_zero_point)
void importConvInteger(Ctx& c) {
  // A constant weight and zero points: the integer convolution (int8_products.h).
  if (c.isConst(1) && is8Bit(c.dtype(0)) && is8Bit(c.dtype(1)) && (!c.present(2) || c.isConst(2)) &&
      (!c.present(3) || c.isConst(3))) {
    ConvShape s = readConv(c, 0, 1);
    Dequantized x{c.in(0), {1.0}, {0}, -1}, w{c.in(1), {1.0}, {0}, -1};
    if (c.present(2)) x.zero_point = c.ints(2, "x_zero_point");
    if (c.present(3)) w.zero_point = c.ints(3, "w_zero_point");
    w.scale.assign(w.zero_point.size(), 1.0);
    w.axis = w.zero_point.size() > 1 ? 0 : -1;
    if (x.zero_point.size() == 1)
      if (std::optional<IntegerProduct> p = integerConv(c, x, w, s.window, s.groups, nullptr)) {
        c.setOutput(0, p->acc);
        return;
      }
  }
  CenteredConv conv = centeredConv(c, 0, 2, 1, 3);
  c.setOutput(0, exactInt32(c, conv.op, [&](int x, std::string_view tag) {
                return conv.emit(c, x, tag == "product" ? "conv" : tag == "product_high" ? "conv_high" : "conv_low");
              }));
}

// Quantized convolution: saturate(round((acc + B) * x_scale * w_scale / y_scale) + y_zero_point)
// with acc the integer convolution of the centered operands and B an int32 bias in units of
// x_scale * w_scale.
void importQLinearConv(Ctx& c) {
  for (int i : {1, 4, 6}) requireScale(c, i, i == 1 ? "x_scale" : i == 4 ? "w_scale" : "y_scale");
  // Constant scales, zero points, weight and bias: the integer convolution (int8_products.h).
  std::optional<Dequantized> qx = quantizedInput(c, 0, 1, 2, 1), qw = quantizedInput(c, 3, 4, 5, 0);
  if (qx && qw && c.isConst(6) && te::shapeElements(c.shape(6)) == 1 &&
      (!c.present(8) || (c.isConst(8) && c.dtype(8) == DType::Int32))) {
    ConvShape s = readConv(c, 0, 3);
    std::optional<std::vector<int64_t>> bias;
    if (c.present(8)) bias = c.ints(8, "B");
    if (!bias || static_cast<int64_t>(bias->size()) == c.shape(3)[0])
      if (std::optional<IntegerProduct> p = integerConv(c, *qx, *qw, s.window, s.groups, bias ? &*bias : nullptr)) {
        int y = scaledToFloat(c, *p, 1, c.scalar(6, "y_scale"));
        te::Shape ys = c.val(y).shape;
        auto [to, zp] = outputZeroPoint(c, 7, "y_zero_point", ys.size(), 1, 1);
        c.setOutput(0, saturateTo(c, y, zp, to, {}));
        return;
      }
  }
  CenteredConv conv = centeredConv(c, 0, 2, 3, 5);
  int acc = conv.emit(c, conv.op.a, "conv");
  te::Shape ys = c.val(acc).shape;
  int64_t m = ys[1];
  if (c.present(8)) {
    if (c.dtype(8) != DType::Int32)
      c.fail(c.inputLabel(8, "B"), " has dtype ", te::dtypeName(c.dtype(8)), ", but the bias must be int32");
    acc = addBias(c, acc, c.cast(c.in(8, "B"), DType::Float32, "bias_float"), "bias");
  }
  int xs = alongAxis(c, 1, "x_scale", ys.size(), 1, 1);
  int ws = alongAxis(c, 4, "w_scale", ys.size(), 1, m);
  int scale = c.binary(BinaryKind::Mul, xs, ws, "input_scale");
  int mult = c.binary(BinaryKind::Div, scale, c.in(6, "y_scale"), "multiplier");
  auto [to, zp] = outputZeroPoint(c, 7, "y_zero_point", ys.size(), 1, 1);
  int y = c.binary(BinaryKind::Mul, acc, mult, "rescaled");
  c.setOutput(0, saturateTo(c, y, zp, to, {}));
}

}  // namespace

void addQuantOps(OpTable& t) {
  t["QuantizeLinear"] = importQuantizeLinear;
  t["DequantizeLinear"] = importDequantizeLinear;
  t["DynamicQuantizeLinear"] = importDynamicQuantizeLinear;
  t["MatMulInteger"] = importMatMulInteger;
  t["QLinearMatMul"] = importQLinearMatMul;
  t["ConvInteger"] = importConvInteger;
  t["QLinearConv"] = importQLinearConv;
}

}  // namespace ttune::frontend::detail
