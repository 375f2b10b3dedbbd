#include "frontend/onnx/int8_products.h"

#include <cmath>
#include <cstring>
#include <string>

#include "te/dtype_io.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using te::DType;

// The per-output-channel values of a per-tensor or per-channel parameter list.
template <class T>
T along(const std::vector<T>& v, int64_t m) {
  return v.size() == 1 ? v[0] : v[static_cast<size_t>(m)];
}

// Scales and zero points either per tensor or one per output channel along `out_axis`.
bool perTensorOrAlong(const Dequantized& d, int64_t out_axis, int64_t outputs) {
  if (d.scale.size() != d.zero_point.size()) return false;
  return d.scale.size() == 1 || (d.axis == out_axis && static_cast<int64_t>(d.scale.size()) == outputs);
}

// The constant weight q - zero_point[m] as int8, laid out as q is, with the sum of each output
// channel's centered values; nullopt when a centered value does not fit int8. Output channel m
// of element e is (e / inner) % outputs.
struct CenteredWeight {
  runtime::NDArray w;
  std::vector<int64_t> sums;
};
std::optional<CenteredWeight> centerWeight(const runtime::NDArray& q, const std::vector<int64_t>& zero_point,
                                           int64_t outputs, int64_t inner) {
  CenteredWeight r{runtime::NDArray(q.shape(), DType::Int8), std::vector<int64_t>(static_cast<size_t>(outputs), 0)};
  int8_t* out = r.w.as<int8_t>();
  for (int64_t e = 0; e < q.numElements(); ++e) {
    int64_t m = (e / inner) % outputs;
    int64_t v = te::loadInt(q.data(), q.dtype(), e) - along(zero_point, m);
    if (v < -128 || v > 127) return std::nullopt;
    out[e] = static_cast<int8_t>(v);
    r.sums[static_cast<size_t>(m)] += v;
  }
  return r;
}

// acc + (compensation - zx * sums[m] + bias[m]) along `channel_axis` of acc, in int32; nothing
// when every term is zero.
int compensate(Ctx& c, int acc, int64_t channel_axis, int64_t zx, const std::vector<int64_t>& sums,
               const std::vector<int64_t>* int_bias) {
  const int64_t outputs = static_cast<int64_t>(sums.size());
  runtime::NDArray k({outputs}, DType::Int32);
  bool any = false;
  for (int64_t m = 0; m < outputs; ++m) {
    int64_t v = -zx * sums[static_cast<size_t>(m)] + (int_bias ? (*int_bias)[static_cast<size_t>(m)] : 0);
    k.as<int32_t>()[m] = static_cast<int32_t>(te::wrapInt(DType::Int32, v));
    any = any || v != 0;
  }
  if (!any) return acc;
  te::Shape s(c.val(acc).shape.size(), 1);
  s[static_cast<size_t>(channel_axis)] = outputs;
  int kv = c.reshape(c.addConstant(std::move(k), "zero_point_compensation"), s, "zero_point_compensation_nd");
  return c.binary(BinaryKind::Add, acc, kv, "compensated");
}

bool isInteger8(const Ctx& c, int v) { return te::is8BitInt(c.val(v).dtype); }

constexpr int64_t kChannelGroup = 4;

// The scales multiply and divide in float32, one rounding per operation, as ONNX Runtime's
// QLinearConv computes its multipliers (x_scale * w_scale / y_scale): a multiplier one ulp off
// decides some rounding ties the other way.
double floatProduct(double a, double b) { return static_cast<double>(static_cast<float>(a) * static_cast<float>(b)); }

}  // namespace

std::optional<Dequantized> quantizedInput(const Ctx& c, int i, int s, int z, int64_t axis) {
  if (!c.isConst(s) || (c.present(z) && !c.isConst(z))) return std::nullopt;
  Dequantized d;
  d.q = c.in(i);
  runtime::NDArray sc = c.constant(s, "scale");
  for (int64_t e = 0; e < sc.numElements(); ++e) d.scale.push_back(te::loadDouble(sc.data(), sc.dtype(), e));
  if (c.present(z))
    d.zero_point = c.ints(z, "zero point");
  else
    d.zero_point.assign(d.scale.size(), 0);
  if (d.scale.empty() || d.scale.size() != d.zero_point.size()) return std::nullopt;
  d.axis = d.scale.size() == 1 && c.val(c.in(s)).shape.size() <= 1 ? -1 : axis;
  return d;
}

int dequantizedFrom(Ctx& c, int q, const Dequantized& like) {
  int x = c.cast(q, DType::Float32, "dequantized_float");
  x = c.binary(BinaryKind::Sub, x,
               c.scalarConstant(static_cast<double>(like.zero_point[0]), DType::Float32, "zero_point"),
               "dequantized_centered");
  x = c.binary(BinaryKind::Mul, x,
               c.scalarConstant(static_cast<double>(static_cast<float>(like.scale[0])), DType::Float32, "scale"),
               "dequantized");
  Dequantized d = like;
  d.q = q;
  c.noteDequantized(x, std::move(d));
  return x;
}

std::optional<std::vector<int64_t>> integerBias(const Ctx& c, int bias, const Dequantized& x, const Dequantized& w,
                                                int64_t outputs) {
  const Dequantized* b = c.dequantized(bias);
  if (!b || c.val(b->q).dtype != DType::Int32 || !c.val(b->q).isConstant() || c.val(b->q).shape != te::Shape{outputs})
    return std::nullopt;
  for (int64_t z : b->zero_point)
    if (z != 0) return std::nullopt;
  for (int64_t m = 0; m < outputs; ++m) {
    double want = x.scale[0] * along(w.scale, m), have = along(b->scale, m);
    if (std::fabs(have - want) > 1e-6 * std::fabs(want)) return std::nullopt;
  }
  const runtime::NDArray& q = *c.val(b->q).constant;
  std::vector<int64_t> v(static_cast<size_t>(outputs));
  for (int64_t m = 0; m < outputs; ++m) v[static_cast<size_t>(m)] = te::loadInt(q.data(), q.dtype(), m);
  return v;
}

std::optional<IntegerProduct> integerConv(Ctx& c, const Dequantized& x, const Dequantized& w, const WindowNd& window,
                                          int64_t groups, const std::vector<int64_t>* int_bias) {
  if (x.scale.size() != 1 || x.zero_point.size() != 1 || !isInteger8(c, x.q) || !isInteger8(c, w.q) ||
      !c.val(w.q).isConstant())
    return std::nullopt;
  const te::Shape ws = c.val(w.q).shape;
  const int64_t outputs = ws[0];
  if (!perTensorOrAlong(w, 0, outputs)) return std::nullopt;
  std::optional<CenteredWeight> cw =
      centerWeight(*c.val(w.q).constant, w.zero_point, outputs, te::shapeElements(ws) / outputs);
  if (!cw) return std::nullopt;
  const int64_t zx = x.zero_point[0];
  int xq = x.q;
  // Input channels in whole dot-product groups (four: the widest unit, codegen/emitter_dot.cc):
  // an RGB image's 3 channels become 4, the extra one reading the zero point against zero
  // weights, so the layer runs on the dot-product units instead of widened multiplies (4x).
  const int64_t channels = ws[1], padded = (channels + kChannelGroup - 1) / kChannelGroup * kChannelGroup;
  if (groups == 1 && padded != channels) {
    const size_t rank = ws.size();
    std::vector<int64_t> before(rank, 0), after(rank, 0);
    after[1] = padded - channels;
    xq = c.emit(graph::PadAttrs{before, after, static_cast<double>(zx), ops::PadMode::Constant}, {xq}, "int8_channels");
    te::Shape pws = ws;
    pws[1] = padded;
    runtime::NDArray pw(pws, DType::Int8);
    const int64_t taps = te::shapeElements(ws) / (outputs * channels);
    for (int64_t m = 0; m < outputs; ++m)
      for (int64_t ch = 0; ch < channels; ++ch)
        std::memcpy(pw.as<int8_t>() + (m * padded + ch) * taps, cw->w.as<int8_t>() + (m * channels + ch) * taps,
                    static_cast<size_t>(taps));
    cw->w = std::move(pw);
  }
  int wq = c.addConstant(std::move(cw->w), "weight_int8");
  IntegerProduct p;
  p.acc = emitConvNd(c, xq, wq, window, groups, "int8", -1, zx);
  p.acc = compensate(c, p.acc, 1, zx, cw->sums, int_bias);
  for (int64_t m = 0; m < (w.scale.size() == 1 ? 1 : outputs); ++m)
    p.scale.push_back(floatProduct(x.scale[0], along(w.scale, m)));
  p.weight_sums = std::move(cw->sums);
  return p;
}

std::optional<IntegerProduct> integerDense(Ctx& c, const Dequantized& a, const Dequantized& b, bool b_rows_are_outputs,
                                           const std::vector<int64_t>* int_bias) {
  if (a.scale.size() != 1 || a.zero_point.size() != 1 || !isInteger8(c, a.q) || !isInteger8(c, b.q) ||
      !c.val(b.q).isConstant() || c.val(b.q).shape.size() != 2 || c.val(a.q).shape.size() < 2)
    return std::nullopt;
  const te::Shape as = c.val(a.q).shape, bs = c.val(b.q).shape;
  const int64_t k = as.back(), n = b_rows_are_outputs ? bs[0] : bs[1];
  if ((b_rows_are_outputs ? bs[1] : bs[0]) != k) return std::nullopt;
  if (!perTensorOrAlong(b, b_rows_are_outputs ? 0 : 1, n)) return std::nullopt;
  // dense takes its weight as [N, K]: a [K, N] weight is transposed here, once, at import.
  runtime::NDArray q = *c.val(b.q).constant;
  if (!b_rows_are_outputs) {
    runtime::NDArray t({n, k}, q.dtype());
    const int bytes = te::dtypeBytes(q.dtype());
    for (int64_t r = 0; r < k; ++r)
      for (int64_t col = 0; col < n; ++col)
        std::memcpy(t.as<char>() + (col * k + r) * bytes, q.as<char>() + (r * n + col) * bytes,
                    static_cast<size_t>(bytes));
    q = std::move(t);
  }
  std::optional<CenteredWeight> cw = centerWeight(q, b.zero_point, n, k);
  if (!cw) return std::nullopt;
  const int64_t za = a.zero_point[0];
  int64_t rows = te::shapeElements(as) / k;
  int a2 = c.reshape(a.q, {rows, k}, "rows");
  int wq = c.addConstant(std::move(cw->w), "weight_int8");
  IntegerProduct p;
  p.acc = c.emit(graph::DenseAttrs{}, {a2, wq}, "int8");
  p.acc = compensate(c, p.acc, 1, za, cw->sums, int_bias);
  te::Shape out = as;
  out.back() = n;
  p.acc = c.reshape(p.acc, out, "int8_nd");
  for (int64_t m = 0; m < (b.scale.size() == 1 ? 1 : n); ++m)
    p.scale.push_back(floatProduct(a.scale[0], along(b.scale, m)));
  p.weight_sums = std::move(cw->sums);
  return p;
}

int scaledToFloat(Ctx& c, const IntegerProduct& p, int64_t channel_axis, double divide_by) {
  return scaledToFloat(c, ScaledInteger{p.acc, p.scale, channel_axis}, divide_by);
}

int scaledToFloat(Ctx& c, const ScaledInteger& si, double divide_by) {
  int y = c.cast(si.acc, DType::Float32, "dequantized");
  const te::Shape ys = c.val(y).shape;
  const int64_t n = static_cast<int64_t>(si.scale.size());
  runtime::NDArray s({n}, DType::Float32);
  // float32 as ONNX Runtime rounds it: scale / (y_scale * window).
  const float denominator = static_cast<float>(divide_by) * static_cast<float>(si.divisor);
  for (int64_t m = 0; m < n; ++m) s.as<float>()[m] = static_cast<float>(si.scale[static_cast<size_t>(m)]) / denominator;
  int sv = c.addConstant(std::move(s), "output_scale");
  if (n > 1) {
    te::Shape b(ys.size(), 1);
    b[static_cast<size_t>(si.channel_axis)] = n;
    sv = c.reshape(sv, b, "output_scale_nd");
  } else {
    sv = c.reshape(sv, {}, "output_scale_scalar");
  }
  int out = c.binary(BinaryKind::Mul, y, sv, "scaled");
  if (divide_by == 1.0) c.noteScaledInteger(out, si);
  return out;
}

int integerGlobalAverage(Ctx& c, int x) {
  const Dequantized* d = c.dequantized(x);
  if (!d || d->scale.size() != 1 || !(d->scale[0] > 0) || !isInteger8(c, d->q)) return -1;
  Dequantized dq = *d;
  const te::Shape s = c.val(dq.q).shape;
  if (s.size() < 3) return -1;
  std::vector<int64_t> axes;
  int64_t count = 1;
  for (size_t a = 2; a < s.size(); ++a) {
    axes.push_back(static_cast<int64_t>(a));
    count *= s[a];
  }
  int wide = c.cast(dq.q, DType::Int32, "pool_int32");
  int sum = c.emit(graph::ReduceAttrs{graph::ReduceKind::Sum, axes, true}, {wide}, "pool_sum");
  if (int64_t zp = dq.zero_point[0]; zp != 0)
    sum =
        c.binary(BinaryKind::Add, sum,
                 c.scalarConstant(static_cast<double>(-zp * count), DType::Int32, "pool_zero_points"), "pool_centered");
  return scaledToFloat(c, ScaledInteger{sum, {dq.scale[0]}, 1, static_cast<double>(count)}, 1.0);
}

int integerRelu(Ctx& c, const ScaledInteger& s) {
  for (double v : s.scale)
    if (!(v > 0)) return -1;
  ScaledInteger r = s;
  r.acc = c.binary(BinaryKind::Max, s.acc, c.scalarConstant(0, DType::Int32, "zero"), "relu_int32");
  return scaledToFloat(c, r, 1.0);
}

}  // namespace ttune::frontend::detail
