#include "ops/pool.h"

#include <algorithm>
#include <limits>

#include "ops/transform.h"
#include "support/error.h"

namespace ttune::ops {

using te::DType;
using te::Expr;
using te::IterVar;
using te::Var;

namespace {

// Geometry of one pooled dimension.
struct PoolDim {
  int64_t in, pad_before, pad_after, kernel, stride, dilation;
  int64_t out;    // number of windows
  int64_t extra;  // ceil-mode overhang past the padded input (read as padding, never counted)
  int64_t extent() const { return dilation * (kernel - 1) + 1; }
};

PoolDim poolDim(std::string_view op, const char* dim, int64_t in, int64_t pb, int64_t pa, int64_t k, int64_t s,
                int64_t d, bool ceil_mode) {
  PoolDim p{in, pb, pa, k, s, d, 0, 0};
  TT_CHECK_ARG(pb < p.extent() && pa < p.extent(), op, ": the ", dim, " padding (", pb, ", ", pa,
               ") must be smaller than the kernel extent ", p.extent());
  p.out = poolOutputSize(in, pb, pa, k, s, d, ceil_mode);
  TT_CHECK_ARG(p.out > 0, op, ": the kernel ", dim, " ", k, " (dilation ", d, ") spans ", p.extent(),
               " but the padded input ", dim, " is only ", in + pb + pa);
  p.extra = std::max<int64_t>(0, (p.out - 1) * s + p.extent() - (in + pb + pa));
  return p;
}

void checkPoolArgs(std::string_view op, const Tensor& data, const Hw& kernel, const Hw& strides, const Pad4& padding,
                   const Hw& dilation, bool bytes_too = false) {
  checkRank(op, data, 4, "input");
  if (!bytes_too || !te::is8BitInt(data.dtype())) checkDType(op, data, DType::Float32, "input");
  TT_CHECK_ARG(kernel[0] > 0 && kernel[1] > 0, op, ": the kernel must be positive, got ", listToString(kernel));
  TT_CHECK_ARG(strides[0] > 0 && strides[1] > 0, op, ": strides must be positive, got ", listToString(strides));
  TT_CHECK_ARG(dilation[0] > 0 && dilation[1] > 0, op, ": dilations must be positive, got ", listToString(dilation));
  for (int64_t p : padding) TT_CHECK_ARG(p >= 0, op, ": padding must be non-negative, got ", listToString(padding));
}

// The input padded for the windows of h and w (explicit padding plus overhang), or data itself.
Tensor padForWindows(const Tensor& data, const PoolDim& h, const PoolDim& w, double fill, bool nhwc) {
  int64_t top = h.pad_before, left = w.pad_before;
  int64_t bottom = h.pad_after + h.extra, right = w.pad_after + w.extra;
  if (!top && !left && !bottom && !right) return data;
  if (nhwc) return pad(data, {0, top, left, 0}, {0, bottom, right, 0}, fill);
  return pad(data, {0, 0, top, left}, {0, 0, bottom, right}, fill);
}

// Where batch, channel, height and width sit in a 4-D tensor of either layout.
struct Axes {
  bool nhwc;
  int c() const { return nhwc ? 3 : 1; }
  int h() const { return nhwc ? 1 : 2; }
  int w() const { return nhwc ? 2 : 3; }
  Shape shape(int64_t n, int64_t c, int64_t h, int64_t w) const { return nhwc ? Shape{n, h, w, c} : Shape{n, c, h, w}; }
  std::vector<std::string> names() const {
    return nhwc ? std::vector<std::string>{"nn", "yy", "xx", "cc"} : std::vector<std::string>{"nn", "cc", "yy", "xx"};
  }
  // Reads t at (n, c, y, x).
  Expr at(const Tensor& t, Expr n, Expr c, Expr y, Expr x) const { return nhwc ? t(n, y, x, c) : t(n, c, y, x); }
};

// Elements of the window starting at o * stride - pad_before that the divisor counts.
Expr windowCount(const PoolDim& p, const Var& o, bool count_include_pad) {
  Expr start = Expr(o) * p.stride - p.pad_before;
  if (count_include_pad) {
    // Windows never start before -pad_before, so only the end is clipped (at the explicit padding).
    if (p.extra == 0) return Expr(p.kernel);
    return te::min(Expr(p.kernel), Expr(p.in + p.pad_after) - start);
  }
  bool always_inside = p.pad_before == 0 && p.pad_after + p.extra == 0;
  if (always_inside) return Expr(p.kernel);
  return te::min(start + p.kernel, Expr(p.in)) - te::max(start, Expr(0));
}

}  // namespace

int64_t poolOutputSize(int64_t in, int64_t pad_before, int64_t pad_after, int64_t kernel, int64_t stride,
                       int64_t dilation, bool ceil_mode) {
  int64_t span = in + pad_before + pad_after - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // The last window must start inside the input or the left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad_before) --out;
  return out;
}

Tensor max_pool2d(const Tensor& data, Hw kernel, Hw strides, Pad4 padding, Hw dilation, bool ceil_mode, bool nhwc) {
  const char* op = "max_pool2d";
  checkPoolArgs(op, data, kernel, strides, padding, dilation, true);
  const Shape& s = data.shape();
  Axes ax{nhwc};
  PoolDim h = poolDim(op, "height", s[ax.h()], padding[0], padding[2], kernel[0], strides[0], dilation[0], ceil_mode);
  PoolDim w = poolDim(op, "width", s[ax.w()], padding[1], padding[3], kernel[1], strides[1], dilation[1], ceil_mode);
  // 8-bit values (quantized activations) pool as they are, padded with their type's minimum.
  const double lowest = te::is8BitInt(data.dtype()) ? static_cast<double>(te::intTypeMin(data.dtype()))
                                                    : -std::numeric_limits<double>::infinity();
  Tensor in = padForWindows(data, h, w, lowest, nhwc);
  IterVar ry = te::reduceAxis(kernel[0], "ry"), rx = te::reduceAxis(kernel[1], "rx");
  return te::compute(
      "pool_max", ax.shape(s[0], s[ax.c()], h.out, w.out),
      [&](const std::vector<Var>& v) {
        return te::maxReduce(ax.at(in, v[0], v[ax.c()], Expr(v[ax.h()]) * h.stride + Expr(ry.var) * h.dilation,
                                   Expr(v[ax.w()]) * w.stride + Expr(rx.var) * w.dilation),
                             {ry, rx});
      },
      te::OpTag::Pool, ax.names());
}

Tensor avg_pool2d(const Tensor& data, Hw kernel, Hw strides, Pad4 padding, bool ceil_mode, bool count_include_pad,
                  bool nhwc) {
  const char* op = "avg_pool2d";
  checkPoolArgs(op, data, kernel, strides, padding, {1, 1});
  const Shape& s = data.shape();
  Axes ax{nhwc};
  PoolDim h = poolDim(op, "height", s[ax.h()], padding[0], padding[2], kernel[0], strides[0], 1, ceil_mode);
  PoolDim w = poolDim(op, "width", s[ax.w()], padding[1], padding[3], kernel[1], strides[1], 1, ceil_mode);
  Tensor in = padForWindows(data, h, w, 0.0, nhwc);
  IterVar ry = te::reduceAxis(kernel[0], "ry"), rx = te::reduceAxis(kernel[1], "rx");
  Shape out = ax.shape(s[0], s[ax.c()], h.out, w.out);
  Tensor total = te::compute(
      "pool_sum", out,
      [&](const std::vector<Var>& v) {
        return te::sum(
            ax.at(in, v[0], v[ax.c()], Expr(v[ax.h()]) * h.stride + ry.var, Expr(v[ax.w()]) * w.stride + rx.var),
            {ry, rx});
      },
      te::OpTag::Pool, ax.names());
  return te::compute(
      "pool_avg", out,
      [&](const std::vector<Var>& v) {
        Expr count = windowCount(h, v[ax.h()], count_include_pad) * windowCount(w, v[ax.w()], count_include_pad);
        return total(v) / te::cast(DType::Float32, count);
      },
      te::OpTag::Pool, ax.names());
}

namespace {

Tensor globalPool(std::string_view op, const Tensor& data, bool is_max, bool nhwc) {
  checkRank(op, data, 4, "input");
  checkDType(op, data, DType::Float32, "input");
  const Shape& s = data.shape();
  Axes ax{nhwc};
  IterVar ry = te::reduceAxis(s[ax.h()], "ry"), rx = te::reduceAxis(s[ax.w()], "rx");
  Shape out = ax.shape(s[0], s[ax.c()], 1, 1);
  std::vector<std::string> names = ax.names();
  auto window = [&](const std::vector<Var>& v) { return ax.at(data, v[0], v[ax.c()], ry.var, rx.var); };
  if (is_max) {
    return te::compute(
        "global_pool_max", out,
        [&](const std::vector<Var>& v) {
          return te::maxReduce(window(v), {ry, rx});
        },
        te::OpTag::Pool, names);
  }
  Tensor total = te::compute(
      "global_pool_sum", out,
      [&](const std::vector<Var>& v) {
        return te::sum(window(v), {ry, rx});
      },
      te::OpTag::Pool, names);
  double count = static_cast<double>(s[ax.h()] * s[ax.w()]);
  return te::compute(
      "global_pool_avg", out, [&](const std::vector<Var>& v) { return total(v) / count; }, te::OpTag::Pool, names);
}

}  // namespace

Tensor global_avg_pool2d(const Tensor& data, bool nhwc) { return globalPool("global_avg_pool2d", data, false, nhwc); }
Tensor global_max_pool2d(const Tensor& data, bool nhwc) { return globalPool("global_max_pool2d", data, true, nhwc); }

}  // namespace ttune::ops
