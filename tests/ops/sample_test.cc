// GridSample, RoiAlign and max-pooling indices against scalar loop references written from the
// definitions (PyTorch's grid_sample, ONNX Runtime's RoiAlign, ONNX MaxPool's Indices).
#include "ops/sample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace ttune::ops {
namespace {

using namespace ttune::ops::testing;
using te::placeholder;

// ---- grid_sample reference --------------------------------------------------------------------

double unnormalizeRef(double g, int64_t size, bool align) {
  return align ? (g + 1) / 2 * static_cast<double>(size - 1) : ((g + 1) * static_cast<double>(size) - 1) / 2;
}

double reflectRef(double c, double twice_low, double twice_high) {
  if (twice_low == twice_high) return 0;
  double mn = twice_low / 2, span = (twice_high - twice_low) / 2;
  c = std::fabs(c - mn);
  double extra = std::fmod(c, span);
  int flips = static_cast<int>(std::floor(c / span));
  return flips % 2 == 0 ? extra + mn : span - extra + mn;
}

double padRef(double c, int64_t size, GridPadding p, bool align) {
  double hi = static_cast<double>(size - 1);
  if (p == GridPadding::Border) return std::clamp(c, 0.0, hi);
  if (p == GridPadding::Reflection) {
    double r = align ? reflectRef(c, 0, 2.0 * static_cast<double>(size - 1))
                     : reflectRef(c, -1, 2.0 * static_cast<double>(size) - 1);
    return std::clamp(r, 0.0, hi);
  }
  return c;
}

double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

std::vector<double> gridSampleRef(const Buffer& x, const Buffer& g, GridSampleMode mode, GridPadding pad, bool align) {
  int64_t n = x.shape[0], ch = x.shape[1], h = x.shape[2], w = x.shape[3], ho = g.shape[1], wo = g.shape[2];
  auto value = [&](int64_t b, int64_t c, int64_t yy, int64_t xx) {
    return yy >= 0 && yy < h && xx >= 0 && xx < w ? x.at({b, c, yy, xx}) : 0.0;
  };
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t c = 0; c < ch; ++c)
      for (int64_t i = 0; i < ho; ++i)
        for (int64_t j = 0; j < wo; ++j) {
          double px = unnormalizeRef(g.at({b, i, j, 0}), w, align), py = unnormalizeRef(g.at({b, i, j, 1}), h, align);
          if (mode == GridSampleMode::Bicubic) {
            double x0 = std::floor(px), y0 = std::floor(py), tx = px - x0, ty = py - y0;
            const double a = -0.75;
            double cx[4] = {cubic2(tx + 1, a), cubic1(tx, a), cubic1(1 - tx, a), cubic2(2 - tx, a)};
            double cy[4] = {cubic2(ty + 1, a), cubic1(ty, a), cubic1(1 - ty, a), cubic2(2 - ty, a)};
            double s = 0;
            for (int r = 0; r < 4; ++r)
              for (int q = 0; q < 4; ++q) {
                double yy = padRef(y0 - 1 + r, h, pad, align), xx = padRef(x0 - 1 + q, w, pad, align);
                s += cy[r] * cx[q] * value(b, c, static_cast<int64_t>(yy), static_cast<int64_t>(xx));
              }
            out.push_back(s);
            continue;
          }
          px = padRef(px, w, pad, align);
          py = padRef(py, h, pad, align);
          if (mode == GridSampleMode::Nearest) {
            out.push_back(
                value(b, c, static_cast<int64_t>(std::nearbyint(py)), static_cast<int64_t>(std::nearbyint(px))));
            continue;
          }
          int64_t x0 = static_cast<int64_t>(std::floor(px)), y0 = static_cast<int64_t>(std::floor(py));
          double tx = px - static_cast<double>(x0), ty = py - static_cast<double>(y0);
          out.push_back((1 - ty) * (1 - tx) * value(b, c, y0, x0) + (1 - ty) * tx * value(b, c, y0, x0 + 1) +
                        ty * (1 - tx) * value(b, c, y0 + 1, x0) + ty * tx * value(b, c, y0 + 1, x0 + 1));
        }
  return out;
}

TEST(GridSample, EveryModePaddingAndAlignmentMatchesTheReference) {
  Rng rng(7);
  Shape xs{2, 3, 5, 7}, gs{2, 4, 6, 2};
  Buffer xb = randomBuffer(xs, rng);
  // Beyond [-1, 1] on purpose: the padding modes only matter outside.
  Buffer gb = randomBuffer(gs, rng, -1.6, 1.6);
  for (auto mode : {GridSampleMode::Bilinear, GridSampleMode::Nearest, GridSampleMode::Bicubic})
    for (auto pad : {GridPadding::Zeros, GridPadding::Border, GridPadding::Reflection})
      for (bool align : {false, true}) {
        SCOPED_TRACE(cat("mode ", static_cast<int>(mode), " padding ", static_cast<int>(pad), " align ", align));
        te::Tensor x = placeholder("x", xs), g = placeholder("grid", gs);
        Buffer got = run1({x, g}, {xb, gb}, grid_sample(x, g, mode, pad, align));
        EXPECT_TRUE(allClose(got, {2, 3, 4, 6}, gridSampleRef(xb, gb, mode, pad, align), 1e-4, 1e-5));
      }
}

TEST(GridSample, NonFiniteCoordinatesStayInsideTheInput) {
  Shape xs{1, 1, 3, 3}, gs{1, 1, 4, 2};
  Rng rng(3);
  Buffer xb = randomBuffer(xs, rng);
  Buffer gb = Buffer::zeros(gs);
  double inf = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < gb.size(); ++i) gb.set(i, i % 2 ? inf : -1e30);
  te::Tensor x = placeholder("x", xs), g = placeholder("grid", gs);
  for (auto mode : {GridSampleMode::Bilinear, GridSampleMode::Nearest, GridSampleMode::Bicubic}) {
    Buffer got = run1({x, g}, {xb, gb}, grid_sample(x, g, mode, GridPadding::Zeros, false));
    EXPECT_EQ(got.size(), 4);  // evaluated without reading outside x (the evaluator checks bounds)
  }
}

TEST(GridSample, RejectsAGridOfTheWrongShape) {
  te::Tensor x = placeholder("x", {1, 2, 4, 4}), g = placeholder("grid", {1, 3, 3, 3});
  EXPECT_TRUE(throwsError([&] { grid_sample(x, g); }, {"grid_sample", "grid"}));
}

// ---- roi_align reference (ONNX Runtime's definition) ------------------------------------------

std::vector<double> roiAlignRef(const Buffer& x, const Buffer& rois, const Buffer& idx, const RoiAlignParams& p) {
  int64_t ch = x.shape[1], h = x.shape[2], w = x.shape[3], r = rois.shape[0];
  double off = p.half_pixel ? 0.5 : 0;
  std::vector<double> out;
  for (int64_t k = 0; k < r; ++k) {
    int64_t b = static_cast<int64_t>(idx.get(k));
    double x1 = rois.at({k, 0}) * p.spatial_scale - off, y1 = rois.at({k, 1}) * p.spatial_scale - off;
    double rw = rois.at({k, 2}) * p.spatial_scale - off - x1, rh = rois.at({k, 3}) * p.spatial_scale - off - y1;
    if (!p.half_pixel) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    double bh = rh / static_cast<double>(p.out_h), bw = rw / static_cast<double>(p.out_w);
    for (int64_t c = 0; c < ch; ++c)
      for (int64_t ph = 0; ph < p.out_h; ++ph)
        for (int64_t pw = 0; pw < p.out_w; ++pw) {
          double acc = p.max_mode ? -std::numeric_limits<double>::infinity() : 0.0;
          for (int64_t iy = 0; iy < p.sampling_h; ++iy)
            for (int64_t ix = 0; ix < p.sampling_w; ++ix) {
              double y = y1 + static_cast<double>(ph) * bh +
                         (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(p.sampling_h);
              double xx = x1 + static_cast<double>(pw) * bw +
                          (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(p.sampling_w);
              double v[4] = {0, 0, 0, 0};
              if (!(y < -1 || y > static_cast<double>(h) || xx < -1 || xx > static_cast<double>(w))) {
                y = std::max(y, 0.0), xx = std::max(xx, 0.0);
                int64_t yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(xx), yh, xh;
                if (yl >= h - 1)
                  yh = yl = h - 1, y = static_cast<double>(yl);
                else
                  yh = yl + 1;
                if (xl >= w - 1)
                  xh = xl = w - 1, xx = static_cast<double>(xl);
                else
                  xh = xl + 1;
                double ly = y - static_cast<double>(yl), lx = xx - static_cast<double>(xl), hy = 1 - ly, hx = 1 - lx;
                v[0] = hy * hx * x.at({b, c, yl, xl});
                v[1] = hy * lx * x.at({b, c, yl, xh});
                v[2] = ly * hx * x.at({b, c, yh, xl});
                v[3] = ly * lx * x.at({b, c, yh, xh});
              }
              if (p.max_mode)
                acc = std::max({acc, v[0], v[1], v[2], v[3]});
              else
                acc += v[0] + v[1] + v[2] + v[3];
            }
          out.push_back(p.max_mode ? acc : acc / static_cast<double>(p.sampling_h * p.sampling_w));
        }
  }
  return out;
}

TEST(RoiAlign, AverageAndMaxWithBothCoordinateModesMatchTheReference) {
  Rng rng(11);
  Shape xs{2, 3, 9, 11};
  Buffer xb = randomBuffer(xs, rng);
  // Boxes inside, across the border and degenerate, on both images.
  std::vector<double> boxes = {0, 0, 10, 8, 2.5, 1.2, 6.1, 7.9, -3, -2, 4, 3, 5, 5, 5.2, 5.1, 8, 6, 14, 12};
  Buffer rb = Buffer::zeros({5, 4});
  for (int64_t i = 0; i < rb.size(); ++i) rb.set(i, boxes[i]);
  Buffer ib = intBuffer({5}, {0, 1, 0, 1, 1}, DType::Int64);
  for (bool half : {true, false})
    for (bool max_mode : {false, true}) {
      SCOPED_TRACE(cat("half_pixel ", half, " max ", max_mode));
      RoiAlignParams p;
      p.out_h = 3, p.out_w = 4, p.sampling_h = 2, p.sampling_w = 3, p.spatial_scale = 0.9;
      p.half_pixel = half, p.max_mode = max_mode;
      te::Tensor x = placeholder("x", xs), r = placeholder("rois", {5, 4}), i = placeholder("idx", {5}, DType::Int64);
      Buffer got = run1({x, r, i}, {xb, rb, ib}, roi_align(x, r, i, p));
      EXPECT_TRUE(allClose(got, {5, 3, 3, 4}, roiAlignRef(xb, rb, ib, p), 1e-4, 1e-5));
    }
}

// ---- max pooling indices ----------------------------------------------------------------------

TEST(MaxPoolIndices, FirstMaximumOfEachWindowWithPadsDilationAndCeilMode) {
  Rng rng(5);
  Shape xs{2, 2, 7, 6};
  Buffer xb = Buffer::zeros(xs);
  for (int64_t i = 0; i < xb.size(); ++i) xb.set(i, static_cast<double>(rng.uniformInt(0, 4)));  // many ties
  struct Case {
    Hw k, s;
    Pad4 pad;
    Hw d;
    bool ceil, column;
  };
  for (const Case& t : {Case{{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, false, false},
                        Case{{2, 3}, {2, 1}, {0, 1, 1, 0}, {2, 1}, true, false},
                        Case{{3, 2}, {1, 2}, {1, 0, 0, 1}, {1, 1}, true, true}}) {
    SCOPED_TRACE(cat("kernel ", t.k[0], "x", t.k[1], " column_major ", t.column));
    te::Tensor x = placeholder("x", xs);
    te::Tensor y = max_pool2d_indices(x, t.k, t.s, t.pad, t.d, t.ceil, t.column);
    Shape os = y.shape();
    std::vector<double> want;
    forEachIndex(os, [&](const std::vector<int64_t>& o) {
      double best = -1e300;
      int64_t pos = -1;
      for (int64_t a = 0; a < t.k[0]; ++a)
        for (int64_t b = 0; b < t.k[1]; ++b) {
          int64_t yy = o[2] * t.s[0] - t.pad[0] + a * t.d[0], xx = o[3] * t.s[1] - t.pad[1] + b * t.d[1];
          if (yy < 0 || yy >= xs[2] || xx < 0 || xx >= xs[3]) continue;
          double v = xb.at({o[0], o[1], yy, xx});
          // the first maximum in row-major scan order, reported in the requested storage order
          if (v > best)
            best = v, pos = (o[0] * xs[1] + o[1]) * xs[2] * xs[3] + (t.column ? xx * xs[2] + yy : yy * xs[3] + xx);
        }
      want.push_back(static_cast<double>(pos));
    });
    EXPECT_TRUE(allClose(run1({x}, {xb}, y), os, want, 0, 0));
  }
}

}  // namespace
}  // namespace ttune::ops
