#include "ops/sample.h"

#include <algorithm>

#include "ops/pool.h"
#include "support/error.h"

namespace ttune::ops {

using te::DType;
using te::Expr;
using te::IterVar;
using te::Var;

namespace {

Expr f32(double v) { return te::floatImm(v); }
Expr i64(int64_t v) { return te::intImm(v); }
Expr asFloat(const Expr& e) { return te::cast(DType::Float32, e); }
Expr clampE(const Expr& e, const Expr& lo, const Expr& hi) { return te::max(te::min(e, hi), lo); }

// The integer part of a float coordinate, the float first kept within [lo, hi] so that the
// conversion is defined for any value (callers bound-check the result against the tensor).
Expr floorIndex(const Expr& c, double lo, double hi) {
  return te::cast(DType::Int64, te::floor(clampE(c, f32(lo), f32(hi))));
}

// x[n, c, y, x] when (y, x) is inside, 0 otherwise; the read itself is clamped.
Expr readOrZero(const Tensor& t, const Expr& n, const Expr& c, const Expr& y, const Expr& x) {
  int64_t h = t.shape()[2], w = t.shape()[3];
  Expr inside = y >= i64(0) && y < i64(h) && x >= i64(0) && x < i64(w);
  Expr v = t(n, c, clampE(y, i64(0), i64(h - 1)), clampE(x, i64(0), i64(w - 1)));
  return te::select(inside, v, f32(0));
}

// torch.nn.functional.grid_sample's mapping of a normalized coordinate to pixel units.
Expr unnormalize(const Expr& g, int64_t size, bool align_corners) {
  if (align_corners) return (g + f32(1)) * f32(0.5 * static_cast<double>(size - 1));
  return ((g + f32(1)) * f32(static_cast<double>(size)) - f32(1)) * f32(0.5);
}

// Reflects c into [twice_low / 2, twice_high / 2] (the reflection repeats with period 2 * span).
Expr reflect(const Expr& c, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return f32(0);
  double lo = static_cast<double>(twice_low) / 2, span = static_cast<double>(twice_high - twice_low) / 2;
  Expr a = te::abs(c - f32(lo));
  Expr flips = te::floor(a / f32(span));
  Expr extra = a - flips * f32(span);
  Expr even = flips - te::floor(flips * f32(0.5)) * f32(2) == f32(0);
  return te::select(even, extra + f32(lo), f32(span + lo) - extra);
}

// The padding mode applied to a pixel coordinate: border and reflection land inside [0, size-1].
Expr padCoordinate(const Expr& c, int64_t size, GridPadding padding, bool align_corners) {
  Expr hi = f32(static_cast<double>(size - 1));
  switch (padding) {
    case GridPadding::Zeros:
      return c;
    case GridPadding::Border:
      return clampE(c, f32(0), hi);
    case GridPadding::Reflection: {
      Expr r = align_corners ? reflect(c, 0, 2 * (size - 1)) : reflect(c, -1, 2 * size - 1);
      return clampE(r, f32(0), hi);
    }
  }
  return c;
}

// Keys' cubic convolution kernel with A = -0.75 (as PyTorch's bicubic) at distance d >= 0.
Expr cubicWeight(const Expr& d) {
  const double a = -0.75;
  Expr near = ((f32(a + 2) * d - f32(a + 3)) * d) * d + f32(1);
  Expr far = ((f32(a) * d - f32(5 * a)) * d + f32(8 * a)) * d - f32(4 * a);
  return te::select(d <= f32(1), near, te::select(d < f32(2), far, f32(0)));
}

}  // namespace

Tensor grid_sample(const Tensor& x, const Tensor& grid, GridSampleMode mode, GridPadding padding, bool align_corners) {
  const char* op = "grid_sample";
  checkRank(op, x, 4, "input");
  checkDType(op, x, DType::Float32, "input");
  checkRank(op, grid, 4, "grid");
  checkDType(op, grid, DType::Float32, "grid");
  const te::Shape& s = x.shape();
  const te::Shape& g = grid.shape();
  TT_CHECK_ARG(g[0] == s[0] && g[3] == 2, op, ": the grid must have shape [", s[0], ", H_out, W_out, 2], got ",
               te::shapeToString(g));
  int64_t h = s[2], w = s[3];
  te::Shape out{s[0], s[1], g[1], g[2]};
  // A coordinate of each output point, in pixels of x.
  auto coords = [&](const std::vector<Var>& v) {
    Expr gx = grid(v[0], v[2], v[3], i64(0)), gy = grid(v[0], v[2], v[3], i64(1));
    return std::pair{unnormalize(gy, h, align_corners), unnormalize(gx, w, align_corners)};
  };
  if (mode == GridSampleMode::Nearest) {
    return te::compute(op, out,
                       [&](const std::vector<Var>& v) {
                         auto [py, px] = coords(v);
                         py = padCoordinate(py, h, padding, align_corners);
                         px = padCoordinate(px, w, padding, align_corners);
                         // round half to even, as std::nearbyint in PyTorch
                         Expr iy = floorIndex(te::round(py), -2, static_cast<double>(h + 2));
                         Expr ix = floorIndex(te::round(px), -2, static_cast<double>(w + 2));
                         return readOrZero(x, v[0], v[1], iy, ix);
                       },
                       te::OpTag::Injective, {"n", "c", "y", "x"});
  }
  int64_t taps = mode == GridSampleMode::Bilinear ? 2 : 4;
  IterVar ry = te::reduceAxis(taps, "ty"), rx = te::reduceAxis(taps, "tx");
  return te::compute(op, out,
                     [&](const std::vector<Var>& v) {
                       auto [py, px] = coords(v);
                       if (mode == GridSampleMode::Bilinear) {
                         py = padCoordinate(py, h, padding, align_corners);
                         px = padCoordinate(px, w, padding, align_corners);
                         Expr y0 = te::floor(py), x0 = te::floor(px);
                         Expr ty = py - y0, tx = px - x0;
                         Expr wy = f32(1) - te::abs(ty - asFloat(ry.var)), wx = f32(1) - te::abs(tx - asFloat(rx.var));
                         Expr iy = floorIndex(py, -4, static_cast<double>(h + 4)) + Expr(ry.var);
                         Expr ix = floorIndex(px, -4, static_cast<double>(w + 4)) + Expr(rx.var);
                         return te::sum(wy * wx * readOrZero(x, v[0], v[1], iy, ix), {ry, rx});
                       }
                       // Bicubic: 4 x 4 taps around floor(p), each tap's coordinate padded on its own.
                       Expr y0 = te::floor(py), x0 = te::floor(px);
                       Expr ty = py - y0, tx = px - x0;
                       Expr wy = cubicWeight(te::abs(ty + f32(1) - asFloat(ry.var)));
                       Expr wx = cubicWeight(te::abs(tx + f32(1) - asFloat(rx.var)));
                       Expr cy = padCoordinate(y0 - f32(1) + asFloat(ry.var), h, padding, align_corners);
                       Expr cx = padCoordinate(x0 - f32(1) + asFloat(rx.var), w, padding, align_corners);
                       Expr iy = floorIndex(cy, -8, static_cast<double>(h + 8)),
                            ix = floorIndex(cx, -8, static_cast<double>(w + 8));
                       return te::sum(wy * wx * readOrZero(x, v[0], v[1], iy, ix), {ry, rx});
                     },
                     te::OpTag::Injective, {"n", "c", "y", "x"});
}

Tensor roi_align(const Tensor& x, const Tensor& rois, const Tensor& batch_indices, const RoiAlignParams& p) {
  const char* op = "roi_align";
  checkRank(op, x, 4, "input");
  checkDType(op, x, DType::Float32, "input");
  checkRank(op, rois, 2, "rois");
  checkDType(op, rois, DType::Float32, "rois");
  checkRank(op, batch_indices, 1, "batch_indices");
  TT_CHECK_ARG(te::isInt(batch_indices.dtype()), op, ": batch_indices must be integers");
  TT_CHECK_ARG(rois.shape()[1] == 4 && batch_indices.shape()[0] == rois.shape()[0], op,
               ": rois must be [R, 4] and batch_indices [R], got ", te::shapeToString(rois.shape()), " and ",
               te::shapeToString(batch_indices.shape()));
  TT_CHECK_ARG(p.out_h > 0 && p.out_w > 0 && p.sampling_h > 0 && p.sampling_w > 0, op,
               ": the output size and the sampling counts must be positive");
  const te::Shape& s = x.shape();
  int64_t n = s[0], h = s[2], w = s[3];
  double offset = p.half_pixel ? 0.5 : 0.0;
  IterVar sy = te::reduceAxis(p.sampling_h, "sy"), sx = te::reduceAxis(p.sampling_w, "sx");
  IterVar cy = te::reduceAxis(2, "cy"), cx = te::reduceAxis(2, "cx");
  return te::compute(
      op, {rois.shape()[0], s[1], p.out_h, p.out_w},
      [&](const std::vector<Var>& v) {
        Expr r = v[0];
        Expr b = clampE(te::cast(DType::Int64, batch_indices(r)), i64(0), i64(n - 1));
        auto corner = [&](int k) { return rois(r, i64(k)) * f32(p.spatial_scale) - f32(offset); };
        Expr x1 = corner(0), y1 = corner(1), x2 = corner(2), y2 = corner(3);
        Expr rw = x2 - x1, rh = y2 - y1;
        if (!p.half_pixel) rw = te::max(rw, f32(1)), rh = te::max(rh, f32(1));
        Expr bin_h = rh / f32(static_cast<double>(p.out_h)), bin_w = rw / f32(static_cast<double>(p.out_w));
        Expr y =
            y1 + asFloat(v[2]) * bin_h + (asFloat(sy.var) + f32(0.5)) * bin_h / f32(static_cast<double>(p.sampling_h));
        Expr xx =
            x1 + asFloat(v[3]) * bin_w + (asFloat(sx.var) + f32(0.5)) * bin_w / f32(static_cast<double>(p.sampling_w));
        // Samples beyond one pixel outside the map count as 0; NaN coordinates too.
        Expr valid =
            y >= f32(-1) && y <= f32(static_cast<double>(h)) && xx >= f32(-1) && xx <= f32(static_cast<double>(w));
        auto axis = [&](const Expr& c, int64_t size, const IterVar& pick) {
          Expr cc = te::min(te::max(c, f32(0)), f32(static_cast<double>(size - 1)));
          Expr low = te::floor(cc);
          Expr frac = cc - low;
          Expr weight = te::select(Expr(pick.var) == i64(0), f32(1) - frac, frac);
          Expr idx = te::min(floorIndex(cc, 0, static_cast<double>(size - 1)) + Expr(pick.var), i64(size - 1));
          return std::pair{weight, idx};
        };
        auto [wy, iy] = axis(y, h, cy);
        auto [wx, ix] = axis(xx, w, cx);
        Expr val = te::select(valid, wy * wx * x(b, v[1], iy, ix), f32(0));
        if (p.max_mode) return te::maxReduce(val, {sy, sx, cy, cx});
        return te::sum(val * f32(1.0 / static_cast<double>(p.sampling_h * p.sampling_w)), {sy, sx, cy, cx});
      },
      te::OpTag::Pool, {"r", "c", "y", "x"});
}

Tensor max_pool2d_indices(const Tensor& x, Hw kernel, Hw strides, Pad4 padding, Hw dilation, bool ceil_mode,
                          bool column_major) {
  const char* op = "max_pool2d_indices";
  Tensor pooled = max_pool2d(x, kernel, strides, padding, dilation, ceil_mode, /*nhwc=*/false);
  const te::Shape& s = x.shape();
  int64_t c = s[1], h = s[2], w = s[3];
  IterVar ry = te::reduceAxis(kernel[0], "ry"), rx = te::reduceAxis(kernel[1], "rx");
  // The first maximum in row-major scan order (ONNX Runtime's), as its row-major flat position.
  Tensor first = te::compute(column_major ? std::string(op) + "_row_major" : std::string(op), pooled.shape(),
                             [&](const std::vector<Var>& v) {
                               Expr y = Expr(v[2]) * strides[0] - padding[0] + Expr(ry.var) * dilation[0];
                               Expr xx = Expr(v[3]) * strides[1] - padding[1] + Expr(rx.var) * dilation[1];
                               Expr inside = y >= i64(0) && y < i64(h) && xx >= i64(0) && xx < i64(w);
                               Expr value =
                                   x(v[0], v[1], clampE(y, i64(0), i64(h - 1)), clampE(xx, i64(0), i64(w - 1)));
                               Expr flat = (Expr(v[0]) * c + Expr(v[1])) * (h * w) + y * w + xx;
                               return te::minReduce(flat, {ry, rx}, inside && value == pooled(v[0], v[1], v[2], v[3]));
                             },
                             te::OpTag::Pool, {"nn", "cc", "yy", "xx"});
  if (!column_major) return first;
  return te::compute(op, pooled.shape(),
                     [&](const std::vector<Var>& v) {
                       Expr f = first(v[0], v[1], v[2], v[3]);
                       Expr in_plane = f % (h * w);
                       return f - in_plane + (in_plane % w) * h + in_plane / w;
                     },
                     te::OpTag::Injective, {"nn", "cc", "yy", "xx"});
}

}  // namespace ttune::ops
