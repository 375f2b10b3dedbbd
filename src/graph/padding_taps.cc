#include "graph/padding_taps.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace ttune::graph {

namespace {

// The taps of one spatial axis that read input, and the paddings that keep the output's extent.
struct AxisTaps {
  int64_t first = 0, last = 0;  // the kept taps [first, last]
  int64_t pad_begin = 0, pad_end = 0;
  bool changed = false;
};

// Taps k in [0, kernel): input index o * stride - pad_begin + k * dilation for outputs o in
// [0, out). Returns nullopt when the axis cannot be narrowed (no tap reads input, or a padding
// would turn negative).
std::optional<AxisTaps> axisTaps(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation,
                                 int64_t pad_begin) {
  AxisTaps t;
  // The first tap whose last output position reads at or after index 0.
  const int64_t reach = pad_begin - (out - 1) * stride;
  if (reach > 0) t.first = (reach + dilation - 1) / dilation;
  // The last tap whose first output position reads before index `in`.
  t.last = std::min<int64_t>(kernel - 1, (in - 1 + pad_begin) / dilation);
  if (t.first > t.last || in <= 0 || out <= 0) return std::nullopt;
  t.changed = t.first > 0 || t.last < kernel - 1;
  t.pad_begin = pad_begin - t.first * dilation;
  // Any trailing padding in [needed, needed + stride - 1] gives `out` outputs; the smallest
  // non-negative one is taken.
  const int64_t needed = (out - 1) * stride + (t.last - t.first) * dilation + 1 - in - t.pad_begin;
  t.pad_end = std::max<int64_t>(needed, 0);
  if (t.pad_begin < 0 || t.pad_end > needed + stride - 1) return std::nullopt;
  return t;
}

}  // namespace

runtime::NDArray sliceTaps(const runtime::NDArray& w, int64_t row_first, int64_t row_last, int64_t col_first,
                           int64_t col_last) {
  const te::Shape& s = w.shape();
  const int64_t kh = row_last - row_first + 1, kw = col_last - col_first + 1;
  runtime::NDArray out = runtime::NDArray::empty({s[0], s[1], kh, kw}, w.dtype());
  const size_t elem = static_cast<size_t>(te::dtypeBytes(w.dtype()));
  const char* src = static_cast<const char*>(w.data());
  char* dst = static_cast<char*>(out.data());
  for (int64_t oi = 0; oi < s[0] * s[1]; ++oi)
    for (int64_t r = 0; r < kh; ++r) {
      const int64_t from = (oi * s[2] + row_first + r) * s[3] + col_first;
      std::memcpy(dst + static_cast<size_t>((oi * kh + r) * kw) * elem, src + static_cast<size_t>(from) * elem,
                  static_cast<size_t>(kw) * elem);
    }
  return out;
}

int dropPaddingTaps(Graph& g) {
  std::vector<Node> nodes = g.nodes();
  int rewritten = 0;
  for (Node& n : nodes) {
    Conv2dAttrs* a = std::get_if<Conv2dAttrs>(&n.attrs);
    if (!a || a->layout != Layout::NCHW || a->pad_value != 0 || n.inputs.size() < 2 || n.inputs[0] < 0 ||
        n.inputs[1] < 0)
      continue;
    const Value& x = g.value(n.inputs[0]);
    const Value& w = g.value(n.inputs[1]);
    const te::Shape& y = g.value(n.output).shape;
    if (!w.isConstant() || x.shape.size() != 4 || w.shape.size() != 4 || y.size() != 4) continue;
    auto rows = axisTaps(x.shape[2], y[2], w.shape[2], a->strides[0], a->dilation[0], a->pads[0]);
    auto cols = axisTaps(x.shape[3], y[3], w.shape[3], a->strides[1], a->dilation[1], a->pads[1]);
    if (!rows || !cols || (!rows->changed && !cols->changed)) continue;
    Conv2dAttrs narrowed = *a;
    narrowed.pads = {rows->pad_begin, cols->pad_begin, rows->pad_end, cols->pad_end};
    if (rows->first == rows->last) narrowed.dilation[0] = 1;
    if (cols->first == cols->last) narrowed.dilation[1] = 1;
    runtime::NDArray taps = sliceTaps(*w.constant, rows->first, rows->last, cols->first, cols->last);
    const std::string name = w.name + ".taps";
    n.inputs[1] = g.addConstant(name, std::move(taps));  // invalidates x, w and y
    n.attrs = narrowed;
    ++rewritten;
  }
  if (rewritten) g.setNodes(std::move(nodes));
  return rewritten;
}

}  // namespace ttune::graph
