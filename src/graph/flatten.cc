#include "graph/flatten.h"

#include <unordered_map>
#include <unordered_set>

#include "schedule/default_schedule.h"

namespace ttune::graph {

namespace {

bool pointwise(const Conv2dAttrs& a) {
  return a.layout == Layout::NHWC && a.groups == 1 && a.strides == Hw{1, 1} && a.dilation == Hw{1, 1} &&
         a.pads == Pad4{0, 0, 0, 0};
}

// An operand of a chain node that broadcasts alike against [N, H, W, K] and [N, 1, H*W, K]: no
// extent along the image (a per-channel bias or scale, a scalar).
bool imageInvariant(const te::Shape& s) {
  // Right-aligned against rank 4: H is the third dimension from the end, W the second.
  size_t r = s.size();
  bool h_one = r < 3 || s[r - 3] == 1;
  bool w_one = r < 2 || s[r - 2] == 1;
  return h_one && w_one;
}

class Flattener {
 public:
  Flattener(Graph& g, const FlattenDecision& decide)
      : g_(g),
        original_(g.nodes()),
        consumers_(g.consumers()),
        decide_(decide),
        outputs_(g.outputs().begin(), g.outputs().end()) {}

  void run() {
    plan();
    if (last_.empty()) return;
    for (size_t i = 0; i < original_.size(); ++i) {
      Node n = original_[i];
      for (int& v : n.inputs)
        if (auto it = remap_.find(v); v >= 0 && it != remap_.end()) v = it->second;
      auto m = last_.find(static_cast<int>(i));
      if (m == last_.end()) {
        nodes_.push_back(std::move(n));
        continue;
      }
      emitFlat(n, m->second);
    }
    g_.setNodes(std::move(nodes_));
  }

 private:
  // The element-wise chain a pointwise convolution at node i would take into the flat shape, or
  // nothing when it stays as it is.
  std::optional<std::vector<int>> chainOf(int i) const {
    const Node& n = original_[i];
    const Conv2dAttrs* a = std::get_if<Conv2dAttrs>(&n.attrs);
    if (!a || !pointwise(*a) || n.inputs.size() < 2 || n.inputs[0] < 0 || n.inputs[1] < 0) return std::nullopt;
    const Value& data = g_.value(n.inputs[0]);
    const Value& w = g_.value(n.inputs[1]);
    const te::Shape& out = g_.value(n.output).shape;
    if (data.shape.size() != 4 || out.size() != 4 || data.shape[1] <= 1 || data.dtype != te::DType::Float32)
      return std::nullopt;
    if (w.shape.size() != 4 || w.shape[0] != 1 || w.shape[1] != 1) return std::nullopt;
    if (!decide_({data.shape[2], data.shape[1] * data.shape[2], data.shape[3], out[3]})) return std::nullopt;
    std::vector<int> chain{i};
    int v = n.output;
    // A node that an earlier convolution's chain took stays there, as fusion would fuse it
    // with the earlier one (partition() grows kernels from their first node).
    while (!outputs_.count(v) && consumers_[v].size() == 1 && !last_.count(consumers_[v][0])) {
      const Node& c = original_[consumers_[v][0]];
      bool elementwise = std::holds_alternative<UnaryAttrs>(c.attrs) || std::holds_alternative<BinaryAttrs>(c.attrs);
      if (!elementwise || g_.value(c.output).shape != out || g_.value(c.output).dtype != te::DType::Float32) break;
      bool operands_ok = true;
      for (int x : c.inputs)
        if (x != v)
          operands_ok = operands_ok && x >= 0 && (g_.value(x).shape == out || imageInvariant(g_.value(x).shape));
      if (!operands_ok) break;
      chain.push_back(consumers_[v][0]);
      v = c.output;
    }
    // The chain's end: not a graph output, and not read by one node that would fuse it (that node
    // would then be a kernel of its own after the view reshape).
    if (outputs_.count(v) || consumers_[v].empty()) return std::nullopt;
    if (consumers_[v].size() == 1 && !last_.count(consumers_[v][0])) {
      FusionRole r = fusionRole(original_[consumers_[v][0]].attrs);
      if (r == FusionRole::Elementwise || r == FusionRole::Injective) return std::nullopt;
    }
    return chain;
  }

  void plan() {
    for (size_t i = 0; i < original_.size(); ++i) {
      auto chain = chainOf(static_cast<int>(i));
      if (!chain) continue;
      for (int c : *chain) last_[c] = c == chain->back();
    }
  }

  int emit(const std::string& name, OpAttrs attrs, std::vector<int> inputs) {
    int v = g_.addNode(name, std::move(attrs), std::move(inputs));
    nodes_.push_back(g_.nodes().back());
    return v;
  }

  // Value v ([N, H, W, C]) as [N, 1, H*W, C].
  int flatView(int v) {
    if (auto it = flat_.find(v); it != flat_.end()) return it->second;
    const te::Shape& s = g_.value(v).shape;
    ReshapeAttrs r{{s[0], 1, s[1] * s[2], s[3]}};
    r.view = true;
    int f = emit(g_.value(v).name + ".flat", r, {v});
    flat_[v] = f;
    return f;
  }

  void emitFlat(const Node& n, bool last) {
    // The convolution's data, the chain's value and full-shape operands, through flat views (a
    // chain value's view is its flat replacement); weights, bias and image-invariant operands
    // as they are.
    std::vector<int> inputs = n.inputs;
    if (std::holds_alternative<Conv2dAttrs>(n.attrs)) {
      inputs[0] = flatView(inputs[0]);
    } else {
      for (int& x : inputs)
        if (g_.value(x).shape.size() == 4 && !imageInvariant(g_.value(x).shape)) x = flatView(x);
    }
    int f = emit(n.name, n.attrs, std::move(inputs));
    flat_[n.output] = f;
    if (!last) return;
    ReshapeAttrs back{g_.value(n.output).shape};
    back.view = true;
    int u = emit(n.name + ".unflat", back, {f});
    remap_[n.output] = u;
    flat_[u] = f;  // a later flattened reader takes f itself
  }

  Graph& g_;
  const std::vector<Node> original_;
  const std::vector<std::vector<int>> consumers_;
  const FlattenDecision& decide_;
  const std::unordered_set<int> outputs_;
  std::unordered_map<int, bool> last_;  // original node index in a chain -> whether it ends it
  std::unordered_map<int, int> flat_;   // value -> its flat view (a chain value: its replacement)
  std::unordered_map<int, int> remap_;  // chain end -> the reshape back
  std::vector<Node> nodes_;
};

}  // namespace

void flattenPointwiseConvs(Graph& g, const FlattenDecision& decide) {
  if (decide) Flattener(g, decide).run();
}

FlattenDecision flattenByTileModel(const schedule::Target& target) {
  return [target](const PointwiseConv& c) {
    // The schedules vectorize the output channels; rows are pixels, each reading its input
    // channels (c.in_channels floats apart).
    int64_t lanes = target.lanes();
    int64_t vectors = (c.out_channels + lanes - 1) / lanes;
    int64_t stride = c.in_channels * 4;
    // A short reduction (one block of weights within half of L1) is parallelized over the image
    // by the default schedule, so that each thread reads what the same thread wrote in the
    // previous kernel; a flat image splits differently from the 2-D kernels around it, and the
    // depthwise kernels after mobilenet_v2's expansions ran up to 1.3x slower (AVX2, Zen 5).
    schedule::RegisterTile tile = schedule::registerTileFor(target, c.image_pixels, vectors, stride);
    if (schedule::shortReduction(target, c.in_channels, tile.vectors * lanes)) return false;
    double in_row = schedule::registerTileScore(target, c.row_pixels, vectors, stride);
    double flat = schedule::registerTileScore(target, c.image_pixels, vectors, stride);
    return flat >= 1.05 * in_row;
  };
}

}  // namespace ttune::graph
