// ONNX Resize (opsets 11 and 13) as separable per-axis resampling with graph ops: for each resized
// axis, out = sum_k gather(x, index_k, axis) * weight_k (+ an extrapolation term for
// tf_crop_and_resize), where the tap indices and weights are constants computed at import. Nearest
// uses one tap without weights, linear two, cubic four. Every coordinate transformation mode of
// these opsets is supported; antialiasing does not exist before opset 18.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using te::DType;

enum class Mode { Nearest, Linear, Cubic };

struct AxisPlan {
  std::vector<std::vector<int64_t>> index;  // per tap, per output position
  std::vector<std::vector<float>> weight;   // per tap, per output position
  std::vector<float> extra;                 // tf_crop_and_resize: value outside the crop window
  bool has_extra = false;
};

struct ResizeAttrs {
  Mode mode = Mode::Nearest;
  std::string coord, nearest;
  double cubic_a = -0.75, extrapolation = 0;
  bool exclude_outside = false;
};

// Input coordinate of output position x (ONNX's coordinate_transformation_mode). The resized
// length is in * scale before flooring, as in ONNX's reference implementation (it differs from
// the output extent when scales, not sizes, are given).
double sourceCoordinate(const Ctx& c, const ResizeAttrs& a, int64_t x, double scale, int64_t in, double roi_start,
                        double roi_end) {
  const std::string& m = a.coord;
  double xd = static_cast<double>(x), len = static_cast<double>(in) * scale;
  if (m == "half_pixel") return (xd + 0.5) / scale - 0.5;
  if (m == "pytorch_half_pixel") return len > 1 ? (xd + 0.5) / scale - 0.5 : 0.0;
  if (m == "align_corners") return len == 1 ? 0.0 : xd * static_cast<double>(in - 1) / (len - 1);
  if (m == "asymmetric") return xd / scale;
  if (m == "tf_half_pixel_for_nn") return (xd + 0.5) / scale;
  if (m == "tf_crop_and_resize") {
    double span = static_cast<double>(in - 1);
    return len > 1 ? roi_start * span + xd * (roi_end - roi_start) * span / (len - 1)
                   : 0.5 * (roi_start + roi_end) * span;
  }
  c.fail("coordinate_transformation_mode ", m, " is not supported");
}

int64_t nearestIndex(const Ctx& c, const std::string& mode, double x) {
  double r;
  if (mode == "round_prefer_floor")
    r = std::ceil(x - 0.5);
  else if (mode == "round_prefer_ceil")
    r = std::floor(x + 0.5);
  else if (mode == "floor")
    r = std::floor(x);
  else if (mode == "ceil")
    r = std::ceil(x);
  else
    c.fail("nearest_mode ", mode, " is not supported");
  return static_cast<int64_t>(r);
}

// Keys' cubic convolution kernel with parameter A at distance d >= 0.
double cubicKernel(double d, double A) {
  if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
  if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
  return 0;
}

AxisPlan planAxis(const Ctx& c, const ResizeAttrs& a, int64_t in, int64_t out, double scale, double roi_start,
                  double roi_end) {
  int taps = a.mode == Mode::Nearest ? 1 : a.mode == Mode::Linear ? 2 : 4;
  AxisPlan p;
  p.index.assign(taps, std::vector<int64_t>(out, 0));
  p.weight.assign(taps, std::vector<float>(out, 0.0f));
  p.extra.assign(out, 0.0f);
  auto clampIndex = [&](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
  for (int64_t x = 0; x < out; ++x) {
    double src = sourceCoordinate(c, a, x, scale, in, roi_start, roi_end);
    if (a.coord == "tf_crop_and_resize" && (src < 0 || src > static_cast<double>(in - 1))) {
      p.extra[x] = static_cast<float>(a.extrapolation);
      p.has_extra = true;
      continue;
    }
    if (a.mode == Mode::Nearest) {
      p.index[0][x] = clampIndex(nearestIndex(c, a.nearest, src));
      p.weight[0][x] = 1.0f;
      continue;
    }
    double f = std::floor(src), r = src - f;
    int64_t base = static_cast<int64_t>(f) - (taps / 2 - 1);
    std::vector<double> w(taps);
    if (a.mode == Mode::Linear)
      w = {1 - r, r};
    else
      for (int k = 0; k < 4; ++k) w[k] = cubicKernel(std::fabs(r - (k - 1)), a.cubic_a);
    double sum = 0;
    for (int k = 0; k < taps; ++k) {
      int64_t pos = base + k;
      if (a.exclude_outside && (pos < 0 || pos >= in)) w[k] = 0;
      sum += w[k];
      p.index[k][x] = clampIndex(pos);
    }
    for (int k = 0; k < taps; ++k)
      p.weight[k][x] = static_cast<float>(a.exclude_outside && sum != 0 ? w[k] / sum : w[k]);
  }
  return p;
}

// Weights shaped to broadcast along `axis` of a rank-`rank` tensor: [out, 1, ..., 1].
runtime::NDArray axisWeights(const std::vector<float>& v, size_t axis, size_t rank) {
  te::Shape s{static_cast<int64_t>(v.size())};
  for (size_t d = axis + 1; d < rank; ++d) s.push_back(1);
  runtime::NDArray a = runtime::NDArray::empty(s, DType::Float32);
  copyBytes(a.data(), v.data(), v.size() * sizeof(float));
  return a;
}

// A float32 constant (a heatmap inside a loop evaluated on the host: Keypoint R-CNN resizes 17 of
// them to every box) is resampled here, with the float operations the graph's gather, multiply
// and add nodes would perform, in their order, instead of through those nodes, which folding
// evaluates one element at a time (about 35 ns each). -1 when the plan needs the graph.
int applyPlanToConstant(Ctx& c, int x, size_t axis, const AxisPlan& p, const std::string& tag) {
  const graph::Value& v = c.val(x);
  if (!v.isConstant() || v.dtype != DType::Float32 || p.has_extra) return -1;
  const int64_t in_elems = te::shapeElements(v.shape);
  if (!c.folds(in_elems / v.shape[axis] * static_cast<int64_t>(p.index[0].size()), in_elems)) return -1;
  std::vector<size_t> taps;  // the graph skips a tap whose weights are all zero
  std::vector<bool> unit;    // and multiplies by none that are all one
  for (size_t k = 0; k < p.index.size(); ++k) {
    if (std::all_of(p.weight[k].begin(), p.weight[k].end(), [](float w) { return w == 0.0f; })) continue;
    taps.push_back(k);
    unit.push_back(std::all_of(p.weight[k].begin(), p.weight[k].end(), [](float w) { return w == 1.0f; }));
  }
  if (taps.empty()) return -1;
  const te::Shape& s = v.shape;
  const int64_t n_in = s[axis], n_out = static_cast<int64_t>(p.index[0].size());
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= s[d];
  for (size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
  te::Shape os = s;
  os[axis] = n_out;
  runtime::NDArray out = runtime::NDArray::empty(os, DType::Float32);
  const float* src = v.constant->as<float>();
  float* dst = out.as<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n_out; ++j) {
      float* d = dst + (o * n_out + j) * inner;
      for (size_t t = 0; t < taps.size(); ++t) {
        const size_t k = taps[t];
        const float* sp = src + (o * n_in + p.index[k][static_cast<size_t>(j)]) * inner;
        const float w = p.weight[k][static_cast<size_t>(j)];
        for (int64_t i = 0; i < inner; ++i) {
          float tap = unit[t] ? sp[i] : sp[i] * w;
          d[i] = t == 0 ? tap : d[i] + tap;
        }
      }
    }
  return c.addConstant(std::move(out), tag);
}

int applyPlan(Ctx& c, int x, size_t axis, size_t rank, const AxisPlan& p, bool last) {
  std::string t = "axis" + std::to_string(axis);
  if (int folded = applyPlanToConstant(c, x, axis, p, t + "_resampled"); folded >= 0) return folded;
  auto tag = [&](const std::string& s, bool final_node) { return last && final_node ? std::string() : t + "_" + s; };
  int acc = -1;
  for (size_t k = 0; k < p.index.size(); ++k) {
    bool all_zero = std::all_of(p.weight[k].begin(), p.weight[k].end(), [](float w) { return w == 0.0f; });
    if (all_zero) continue;
    bool all_one = std::all_of(p.weight[k].begin(), p.weight[k].end(), [](float w) { return w == 1.0f; });
    bool single = p.index.size() == 1 && !p.has_extra;
    int idx = c.addConstant(int64Tensor(p.index[k]), t + "_index" + std::to_string(k));
    int g = c.emit(graph::GatherAttrs{static_cast<int64_t>(axis)}, {x, idx}, tag("gather" + std::to_string(k), single));
    if (!all_one) {
      int w = c.addConstant(axisWeights(p.weight[k], axis, rank), t + "_weight" + std::to_string(k));
      bool final_mul = acc < 0 && k + 1 == p.index.size() && !p.has_extra;
      g = c.binary(BinaryKind::Mul, g, w, tag("tap" + std::to_string(k), final_mul));
    }
    bool final_add = k + 1 == p.index.size() && !p.has_extra;
    acc = acc < 0 ? g : c.binary(BinaryKind::Add, acc, g, tag("sum" + std::to_string(k), final_add));
  }
  if (p.has_extra) {
    int e = c.addConstant(axisWeights(p.extra, axis, rank), t + "_extrapolation");
    if (acc < 0) {  // every position is outside the crop window
      int zero = c.scalarConstant(0, DType::Float32, t + "_zero");
      int first =
          c.emit(graph::GatherAttrs{static_cast<int64_t>(axis)},
                 {x, c.addConstant(int64Tensor(std::vector<int64_t>(p.extra.size(), 0)), t + "_index")}, t + "_gather");
      acc = c.binary(BinaryKind::Mul, first, zero, t + "_zeros");
    }
    acc = c.binary(BinaryKind::Add, acc, e, tag("extrapolate", true));
  }
  return acc;
}

void importResize(Ctx& c) {
  c.checkAttrs({"coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value", "mode",
                "nearest_mode"});
  ResizeAttrs a;
  std::string mode = c.attrString("mode", "nearest");
  if (mode == "nearest")
    a.mode = Mode::Nearest;
  else if (mode == "linear")
    a.mode = Mode::Linear;
  else if (mode == "cubic")
    a.mode = Mode::Cubic;
  else
    c.fail("mode ", mode, " is not supported");
  a.coord = c.attrString("coordinate_transformation_mode", "half_pixel");
  a.nearest = c.attrString("nearest_mode", "round_prefer_floor");
  a.cubic_a = c.attrFloat("cubic_coeff_a", -0.75);
  a.exclude_outside = c.attrInt("exclude_outside", 0) != 0;
  a.extrapolation = c.attrFloat("extrapolation_value", 0.0);
  if (a.mode != Mode::Nearest && c.dtype(0) != DType::Float32) c.fail("linear and cubic modes need a float32 input");

  te::Shape in = c.shape(0);
  size_t rank = in.size();
  bool has_scales = c.present(2), has_sizes = c.present(3);
  if (has_scales == has_sizes) c.fail("exactly one of scales and sizes must be given");
  std::vector<double> scales(rank, 1.0);
  te::Shape out(rank);
  if (has_scales) {
    runtime::NDArray s = c.constant(2, "scales");
    if (s.dtype() != DType::Float32 || s.numElements() != static_cast<int64_t>(rank))
      c.fail("scales must be ", rank, " float values");
    for (size_t d = 0; d < rank; ++d) {
      scales[d] = s.as<float>()[d];
      if (scales[d] <= 0) c.fail("scale ", scales[d], " on axis ", d, " must be positive");
      out[d] = static_cast<int64_t>(std::floor(static_cast<double>(in[d]) * scales[d]));
    }
  } else {
    std::vector<int64_t> sizes = c.ints(3, "sizes");
    if (sizes.size() != rank) c.fail("sizes must have ", rank, " values");
    for (size_t d = 0; d < rank; ++d) {
      out[d] = sizes[d];
      scales[d] = in[d] == 0 ? 1.0 : static_cast<double>(sizes[d]) / static_cast<double>(in[d]);
    }
  }
  if (te::shapeElements(in) == 0) {
    // Nothing to resample (no box selected at run time): the result is as empty, on the axes the
    // sizes or scales give.
    for (size_t d = 0; d < rank; ++d)
      if (in[d] == 0 && out[d] != 0)
        c.fail("axis ", d, " of the empty input ", te::shapeToString(in), " cannot be resized to ", out[d]);
    c.setOutput(0, c.addConstant(runtime::NDArray::empty(out, c.dtype(0)), "empty"));
    return;
  }
  for (size_t d = 0; d < rank; ++d)
    if (out[d] <= 0)
      c.fail("the output shape ", te::shapeToString(out), " is empty, and empty tensors are not supported");
  c.checkSize(out);
  std::vector<double> roi(2 * rank, 0.0);
  if (a.coord == "tf_crop_and_resize") {
    if (!c.present(1)) c.fail("tf_crop_and_resize needs the roi input");
    runtime::NDArray r = c.constant(1, "roi");
    if (r.dtype() != DType::Float32 || r.numElements() != static_cast<int64_t>(2 * rank))
      c.fail("roi must be ", 2 * rank, " float values");
    for (size_t i = 0; i < 2 * rank; ++i) roi[i] = r.as<float>()[i];
  }

  std::vector<size_t> axes;
  for (size_t d = 0; d < rank; ++d) {
    bool identity =
        out[d] == in[d] && scales[d] == 1.0 && a.coord != "tf_crop_and_resize" && a.coord != "tf_half_pixel_for_nn";
    if (!identity) axes.push_back(d);
  }
  int x = c.in(0);
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t d = axes[i];
    AxisPlan p = planAxis(c, a, in[d], out[d], scales[d], roi[d], roi[d + rank]);
    x = applyPlan(c, x, d, rank, p, i + 1 == axes.size());
  }
  c.setOutput(0, x);
}

}  // namespace

void addResizeOps(OpTable& t) { t["Resize"] = importResize; }

}  // namespace ttune::frontend::detail
