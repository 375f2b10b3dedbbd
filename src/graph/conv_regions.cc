#include "graph/conv_regions.h"

#include <algorithm>
#include <optional>
#include <set>

#include "graph/padding_taps.h"

namespace ttune::graph {

namespace {

// A run of output positions [begin, end) of one axis where taps [first, last] read input.
struct Segment {
  int64_t begin = 0, end = 0, first = 0, last = 0;
};

// The segments of one axis; nullopt when some output position has no tap reading input.
std::optional<std::vector<Segment>> segments(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation,
                                             int64_t pad) {
  // Output positions o where tap t reads input: 0 <= o * stride - pad + t * dilation < in.
  std::vector<int64_t> lo(static_cast<size_t>(kernel)), hi(static_cast<size_t>(kernel));
  std::set<int64_t> cuts = {0, out};
  for (int64_t t = 0; t < kernel; ++t) {
    const int64_t shift = t * dilation - pad;  // input index of output 0
    int64_t l = shift >= 0 ? 0 : (-shift + stride - 1) / stride;
    int64_t h = (in - 1 - shift) < 0 ? -1 : std::min(out - 1, (in - 1 - shift) / stride);
    lo[static_cast<size_t>(t)] = l;
    hi[static_cast<size_t>(t)] = h;
    if (l <= h) {  // then 0 <= l and h + 1 <= out
      cuts.insert(l);
      cuts.insert(h + 1);
    }
  }
  std::vector<Segment> segs;
  for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
    Segment s{*it, *std::next(it), kernel, -1};
    for (int64_t t = 0; t < kernel; ++t)
      if (lo[static_cast<size_t>(t)] <= s.begin && hi[static_cast<size_t>(t)] >= s.end - 1) {
        s.first = std::min(s.first, t);
        s.last = std::max(s.last, t);
      }
    if (s.first > s.last) return std::nullopt;
    segs.push_back(s);
  }
  return segs;
}

// The nodes computing node n region by region; the last one writes n's output value.
std::vector<Node> regionNodes(Graph& g, const Node& n, const std::vector<Segment>& rows,
                              const std::vector<Segment>& cols) {
  const Conv2dAttrs a = std::get<Conv2dAttrs>(n.attrs);
  const int x = n.inputs[0];
  const runtime::NDArray w = *g.value(n.inputs[1]).constant;
  const std::string w_name = g.value(n.inputs[1]).name;
  std::vector<Node> out;
  auto add = [&](const std::string& name, OpAttrs attrs, std::vector<int> inputs) {
    int v = g.addNode(name, std::move(attrs), std::move(inputs));
    out.push_back(g.nodes().back());
    return v;
  };
  // Input positions an output segment's taps read: first and one past the last.
  auto inputRange = [](const Segment& s, int64_t stride, int64_t dilation, int64_t pad) {
    return std::pair<int64_t, int64_t>{s.begin * stride - pad + s.first * dilation,
                                       (s.end - 1) * stride - pad + s.last * dilation + 1};
  };
  std::vector<int> bands;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<int> parts;
    for (size_t c = 0; c < cols.size(); ++c) {
      const std::string tag = n.name + ".region" + std::to_string(r) + std::to_string(c);
      auto [r0, r1] = inputRange(rows[r], a.strides[0], a.dilation[0], a.pads[0]);
      auto [c0, c1] = inputRange(cols[c], a.strides[1], a.dilation[1], a.pads[1]);
      int slice = add(tag + ".input", SliceAttrs{{r0, c0}, {r1, c1}, {2, 3}, {1, 1}}, {x});
      Conv2dAttrs region = a;
      region.pads = {0, 0, 0, 0};
      if (rows[r].first == rows[r].last) region.dilation[0] = 1;
      if (cols[c].first == cols[c].last) region.dilation[1] = 1;
      int taps =
          g.addConstant(tag + "." + w_name, sliceTaps(w, rows[r].first, rows[r].last, cols[c].first, cols[c].last));
      parts.push_back(add(tag, region, {slice, taps}));
    }
    bands.push_back(parts.size() == 1 ? parts[0] : add(n.name + ".band" + std::to_string(r), ConcatAttrs{3}, parts));
  }
  if (bands.size() > 1) add(n.name + ".regions", ConcatAttrs{2}, bands);
  out.back().output = n.output;  // the value the convolution's readers read (same shape and dtype)
  return out;
}

int64_t macs(const std::vector<Segment>& segs) {
  int64_t m = 0;
  for (const Segment& s : segs) m += (s.end - s.begin) * (s.last - s.first + 1);
  return m;
}

}  // namespace

int splitConvRegions(Graph& g) {
  const std::vector<Node> original = g.nodes();
  std::vector<Node> nodes;
  int split = 0;
  for (const Node& n : original) {
    const Conv2dAttrs* a = std::get_if<Conv2dAttrs>(&n.attrs);
    std::optional<std::vector<Segment>> rows, cols;
    if (a && a->layout == Layout::NCHW && a->pad_value == 0 && n.inputs.size() == 2 && n.inputs[0] >= 0 &&
        n.inputs[1] >= 0 && g.value(n.inputs[1]).isConstant() && g.value(n.inputs[0]).shape.size() == 4 &&
        g.value(n.inputs[1]).shape.size() == 4) {
      const te::Shape xs = g.value(n.inputs[0]).shape, ws = g.value(n.inputs[1]).shape, ys = g.value(n.output).shape;
      rows = segments(xs[2], ys[2], ws[2], a->strides[0], a->dilation[0], a->pads[0]);
      cols = segments(xs[3], ys[3], ws[3], a->strides[1], a->dilation[1], a->pads[1]);
      const bool worth = rows && cols && rows->size() <= 3 && cols->size() <= 3 &&
                         (rows->size() > 1 || cols->size() > 1) &&
                         2 * macs(*rows) * macs(*cols) <= ys[2] * ys[3] * ws[2] * ws[3];
      if (!worth) rows.reset();
    }
    if (!rows) {
      nodes.push_back(n);
      continue;
    }
    for (Node& r : regionNodes(g, n, *rows, *cols)) nodes.push_back(std::move(r));
    ++split;
  }
  if (split) g.setNodes(std::move(nodes));
  return split;
}

}  // namespace ttune::graph
