// ONNX operators whose output shape depends on input values: NonZero, Compress, Unique and
// NonMaxSuppression. ttune's graphs have static shapes, so these are evaluated at import on
// the host, from inputs that are constants there (initializers, folded subgraphs, or model
// inputs bound with OnnxOptions::constant_inputs / the staged run of a model). Compress only needs
// its condition: with it known, it is a gather with constant indices of a run-time input.
// Each input that is not a constant is reported through Ctx::constant, whose sentence names the
// model inputs it comes from. A result with no elements (NonZero of zeros, no box selected) is
// rejected: empty tensors are not supported.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <queue>

#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using te::DType;

runtime::NDArray int64Array(const std::vector<int64_t>& v, te::Shape shape) {
  runtime::NDArray a(std::move(shape), DType::Int64);
  copyBytes(a.data(), v.data(), v.size() * sizeof(int64_t));
  return a;
}

void importNonZero(Ctx& c) {
  c.checkAttrs({});
  runtime::NDArray x = c.constant(0, "X");
  te::Shape s = x.shape();
  std::vector<int64_t> positions;  // flat positions of the non-zeros, in row-major order
  for (int64_t i = 0, n = x.numElements(); i < n; ++i)
    if (exactValue(x, i) != 0) positions.push_back(i);
  int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(s.size())), count = static_cast<int64_t>(positions.size());
  std::vector<int64_t> out(static_cast<size_t>(rank * count));
  for (int64_t k = 0; k < count; ++k) {
    int64_t rest = positions[k];
    for (int64_t d = static_cast<int64_t>(s.size()); d-- > 0;) {
      out[d * count + k] = rest % s[d];
      rest /= s[d];
    }
    if (s.empty()) out[k] = 0;
  }
  c.setOutput(0, c.addConstant(int64Array(out, {rank, count}), {}));
}

void importCompress(Ctx& c) {
  c.checkAttrs({"axis"});
  runtime::NDArray cond = c.constant(1, "condition");
  if (cond.shape().size() != 1) c.fail("the condition must be 1-D, got shape ", te::shapeToString(cond.shape()));
  int x = c.in(0);
  te::Shape s = c.shape(0);
  int64_t axis = 0;
  if (c.hasAttr("axis")) {
    axis = normAxis(c, c.attrInt("axis", 0), s.size());
  } else {  // no axis: the flattened input
    x = c.reshape(x, {te::shapeElements(s)}, "flat");
    s = {te::shapeElements(s)};
  }
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < std::min(cond.numElements(), s[axis]); ++i)
    if (exactValue(cond, i) != 0) keep.push_back(i);
  int ids = c.addConstant(int64Tensor(keep), "selected");
  c.setOutput(0, c.emit(graph::GatherAttrs{axis}, {x, ids}));
}

// Unique values (no axis) or unique slices along an axis, with numpy's lexicographic order when
// sorted and first-occurrence order otherwise.
void importUnique(Ctx& c) {
  c.checkAttrs({"axis", "sorted"});
  runtime::NDArray x = c.constant(0, "X");
  te::Shape s = x.shape();
  bool has_axis = c.hasAttr("axis"), sorted = c.attrInt("sorted", 1) != 0;
  int64_t axis = has_axis ? normAxis(c, c.attrInt("axis", 0), s.size()) : 0;
  if (!has_axis) s = {x.numElements()};
  int64_t outer = 1, inner = 1, n = s[axis];
  for (int64_t d = 0; d < axis; ++d) outer *= s[d];
  for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= s[d];
  // Slice j as a row of doubles: every element with index j on the axis, in row-major order.
  std::vector<std::vector<long double>> slice(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) slice[j].push_back(exactValue(x, (o * n + j) * inner + i));
  std::vector<int64_t> first;  // first occurrence of each unique slice, in output order
  std::vector<int64_t> inverse(static_cast<size_t>(n));
  std::map<std::vector<long double>, int64_t> seen;  // slice -> position in `first` (before sorting)
  for (int64_t j = 0; j < n; ++j) {
    auto [it, fresh] = seen.emplace(slice[j], static_cast<int64_t>(first.size()));
    if (fresh) first.push_back(j);
    inverse[j] = it->second;
  }
  if (sorted) {
    std::vector<int64_t> order(first.size()), rank(first.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return slice[first[a]] < slice[first[b]]; });
    for (size_t k = 0; k < order.size(); ++k) rank[order[k]] = static_cast<int64_t>(k);
    std::vector<int64_t> reordered;
    for (int64_t k : order) reordered.push_back(first[k]);
    first = reordered;
    for (int64_t& v : inverse) v = rank[v];
  }
  std::vector<int64_t> counts(first.size(), 0);
  for (int64_t v : inverse) ++counts[v];
  int data = c.in(0);
  if (!has_axis) data = c.reshape(data, {x.numElements()}, "flat");
  int ids = c.addConstant(int64Tensor(first), "first");
  c.setOutput(0, c.emit(graph::GatherAttrs{axis}, {data, ids}, "values"));
  if (c.outputUsed(1)) c.setOutput(1, c.addConstant(int64Tensor(first), "indices"));
  if (c.outputUsed(2)) c.setOutput(2, c.addConstant(int64Tensor(inverse), "inverse_indices"));
  if (c.outputUsed(3)) c.setOutput(3, c.addConstant(int64Tensor(counts), "counts"));
}

// ONNX NonMaxSuppression with ONNX Runtime's conventions: candidates are the boxes scoring above
// score_threshold, taken by descending score (ties: lower index first); a candidate is dropped
// when its IoU with a box already kept for its class exceeds iou_threshold.
void importNonMaxSuppression(Ctx& c) {
  c.checkAttrs({"center_point_box"});
  runtime::NDArray boxes = c.constant(0, "boxes"), scores = c.constant(1, "scores");
  te::Shape bs = boxes.shape(), ss = scores.shape();
  if (bs.size() != 3 || bs[2] != 4) c.fail("boxes must be [batches, boxes, 4], got ", te::shapeToString(bs));
  if (ss.size() != 3 || ss[0] != bs[0] || ss[2] != bs[1])
    c.fail("scores must be [", bs[0], ", classes, ", bs[1], "], got ", te::shapeToString(ss));
  // Read exactly: exporters pass INT64_MAX for "no limit", which no double holds.
  int64_t max_out = 0;
  if (c.present(2)) {
    std::vector<int64_t> m = c.ints(2, "max_output_boxes_per_class");
    if (m.size() != 1) c.fail("max_output_boxes_per_class must have one element");
    max_out = m[0];
  }
  double iou_threshold = c.present(3) ? c.scalar(3, "iou_threshold") : 0.0;
  bool has_score_threshold = c.present(4);
  double score_threshold = has_score_threshold ? c.scalar(4, "score_threshold") : 0.0;
  bool center = c.attrInt("center_point_box", 0) != 0;
  int64_t nb = bs[1];
  // Corners (y1, x1, y2, x2), ordered, of box k of batch b.
  auto corners = [&](int64_t b, int64_t k) {
    double v[4];
    for (int i = 0; i < 4; ++i) v[i] = static_cast<double>(exactValue(boxes, (b * nb + k) * 4 + i));
    if (center) return std::array<double, 4>{v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
    return std::array<double, 4>{std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]),
                                 std::max(v[1], v[3])};
  };
  auto suppresses = [&](const std::array<double, 4>& a, const std::array<double, 4>& b) {
    double ih = std::min(a[2], b[2]) - std::max(a[0], b[0]), iw = std::min(a[3], b[3]) - std::max(a[1], b[1]);
    if (ih <= 0 || iw <= 0) return false;
    double inter = ih * iw, area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (area_a <= 0 || area_b <= 0) return false;
    return inter / (area_a + area_b - inter) > iou_threshold;
  };
  std::vector<int64_t> selected;  // rows of (batch, class, box)
  for (int64_t b = 0; b < ss[0]; ++b) {
    std::vector<std::array<double, 4>> box(static_cast<size_t>(nb));
    for (int64_t i = 0; i < nb; ++i) box[i] = corners(b, i);
    for (int64_t k = 0; k < ss[1]; ++k) {
      std::vector<std::pair<double, int64_t>> cand;
      for (int64_t i = 0; i < nb; ++i) {
        double sc = static_cast<double>(exactValue(scores, (b * ss[1] + k) * nb + i));
        if (!has_score_threshold || sc > score_threshold) cand.emplace_back(sc, i);
      }
      std::stable_sort(cand.begin(), cand.end(), [](const auto& l, const auto& r) { return l.first > r.first; });
      // Kept boxes by top edge: only those whose top lies within (top - tallest kept, bottom) can
      // overlap a candidate, so detection heads' thousands of boxes (torchvision offsets each
      // class's boxes apart) are not compared all against all.
      std::multimap<double, int64_t> kept;
      double tallest = 0;
      int64_t count = 0;
      for (const auto& [sc, i] : cand) {
        if (count >= max_out) break;
        const std::array<double, 4>& q = box[i];
        bool drop = false;
        for (auto it = kept.lower_bound(q[0] - tallest); !drop && it != kept.end() && it->first <= q[2]; ++it)
          drop = suppresses(box[it->second], q);
        if (drop) continue;
        kept.emplace(q[0], i);
        tallest = std::max(tallest, q[2] - q[0]);
        ++count;
        selected.insert(selected.end(), {b, k, i});
      }
    }
  }
  int64_t rows = static_cast<int64_t>(selected.size() / 3);
  c.setOutput(0, c.addConstant(int64Array(selected, {rows, 3}), {}));
}

}  // namespace

void addDynamicOps(OpTable& t) {
  t["NonZero"] = importNonZero;
  t["Compress"] = importCompress;
  t["Unique"] = importUnique;
  t["NonMaxSuppression"] = importNonMaxSuppression;
}

}  // namespace ttune::frontend::detail
