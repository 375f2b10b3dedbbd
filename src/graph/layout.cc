#include "graph/layout.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <type_traits>

#include "support/assert.h"
#include "support/overload.h"

namespace ttune::graph {

namespace {

const std::vector<int64_t> kToNHWC{0, 2, 3, 1};
const std::vector<int64_t> kToNCHW{0, 3, 1, 2};
const std::vector<int64_t> kOIHWToHWIO{2, 3, 1, 0};

// out[i0, i1, ...] = a[...] with out's axis k being a's axis perm[k].
runtime::NDArray permuteArray(const runtime::NDArray& a, const std::vector<int64_t>& perm) {
  const te::Shape& in = a.shape();
  size_t rank = in.size();
  TT_ASSERT(perm.size() == rank, "permutation rank differs from the array's");
  te::Shape out(rank);
  for (size_t k = 0; k < rank; ++k) out[k] = in[perm[k]];
  std::vector<int64_t> in_stride(rank, 1);
  for (size_t k = rank; k-- > 1;) in_stride[k - 1] = in_stride[k] * in[k];
  runtime::NDArray r = runtime::NDArray::empty(out, a.dtype());
  size_t bytes = te::dtypeBytes(a.dtype());
  const char* src = static_cast<const char*>(a.data());
  char* dst = static_cast<char*>(r.data());
  std::vector<int64_t> idx(rank, 0);
  for (int64_t e = 0, n = r.numElements(); e < n; ++e) {
    int64_t offset = 0;
    for (size_t k = 0; k < rank; ++k) offset += idx[k] * in_stride[perm[k]];
    std::memcpy(dst + e * bytes, src + offset * bytes, bytes);
    for (size_t k = rank; k-- > 0;) {
      if (++idx[k] < out[k]) break;
      idx[k] = 0;
    }
  }
  return r;
}

// A constant broadcast against a rank-4 NCHW value, as the same broadcast against NHWC.
runtime::NDArray constantToNHWC(const runtime::NDArray& a) {
  te::Shape s = a.shape();
  while (s.size() < 4) s.insert(s.begin(), 1);
  runtime::NDArray r = runtime::NDArray::empty(s, a.dtype());
  std::memcpy(r.data(), a.data(), static_cast<size_t>(a.bytes()));
  return permuteArray(r, kToNHWC);
}

int64_t normalizeAxis(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

// The position an axis of a rank-4 NCHW value has in its NHWC layout.
int64_t nhwcAxis(int64_t nchw_axis) {
  return std::find(kToNHWC.begin(), kToNHWC.end(), normalizeAxis(nchw_axis, 4)) - kToNHWC.begin();
}

class Converter {
 public:
  Converter(Graph& g, int vector_lanes)
      : g_(g), original_(g.nodes()), consumers_(g.consumers()), vector_lanes_(vector_lanes) {
    grow();
    for (size_t v = 0; v < g_.values().size(); ++v)
      if (g_.value(static_cast<int>(v)).producer < 0) nchw_[v] = static_cast<int>(v);
  }

  void run() {
    for (const Node& n : original_) convert(n);
    // Outputs are NCHW again, under their names (the superseded values are no longer reachable).
    g_.redirectOutputs([&](int o) { return toNCHW(o); }, ".nchw_superseded");
    g_.setNodes(std::move(nodes_));
  }

 private:
  void grow() {
    nchw_.resize(g_.values().size(), -1);
    nhwc_.resize(g_.values().size(), -1);
  }

  int emit(const std::string& name, OpAttrs attrs, std::vector<int> inputs) {
    int v = g_.addNode(name, std::move(attrs), std::move(inputs));
    nodes_.push_back(g_.nodes().back());
    grow();
    return v;
  }

  int addConstant(const std::string& name, runtime::NDArray data) {
    int v = g_.addConstant(name, std::move(data));
    grow();
    nchw_[v] = v;
    return v;
  }

  bool rank4(int v) const { return g_.value(v).shape.size() == 4; }

  // A constant of any rank is re-laid-out as a broadcast against a rank-4 value.
  int toNHWC(int v) {
    if (nhwc_[v] >= 0) return nhwc_[v];
    const Value& x = g_.value(v);
    int r;
    if (x.isConstant()) {
      r = addConstant(x.name + ".nhwc", constantToNHWC(*x.constant));
    } else {
      TT_ASSERT(nchw_[v] >= 0 && rank4(v), "value " + x.name + " has no layout to convert from");
      r = emit(x.name + ".to_nhwc", TransposeAttrs{kToNHWC}, {nchw_[v]});
    }
    nhwc_[v] = r;
    return r;
  }

  int toNCHW(int v) {
    if (nchw_[v] >= 0) return nchw_[v];
    TT_ASSERT(nhwc_[v] >= 0, "value " + g_.value(v).name + " has no layout to convert from");
    const te::Shape& s = g_.value(nhwc_[v]).shape;  // N, H, W, C
    te::Shape nchw{s[0], s[3], s[1], s[2]};
    OpAttrs attrs = (s[1] * s[2] == 1 || s[3] == 1) ? OpAttrs(ReshapeAttrs{nchw}) : OpAttrs(TransposeAttrs{kToNCHW});
    int r = emit(g_.value(v).name + ".to_nchw", std::move(attrs), {nhwc_[v]});
    nchw_[v] = r;
    return r;
  }

  // Keeps n as it is, reading every input in NCHW.
  void keep(const Node& n) {
    Node k = n;
    for (int& v : k.inputs)
      if (v >= 0) v = toNCHW(v);
    nodes_.push_back(k);
    nchw_[n.output] = n.output;
  }

  void convertTo(const Node& n, OpAttrs attrs, std::vector<int> inputs) {
    nhwc_[n.output] = emit(n.name, std::move(attrs), std::move(inputs));
  }

  // Inputs of an element-wise node in NHWC, or nothing when one of them cannot follow.
  std::optional<std::vector<int>> elementwiseInputs(const Node& n) {
    if (!rank4(n.output)) return std::nullopt;
    for (int v : n.inputs) {
      if (v < 0) return std::nullopt;
      const Value& x = g_.value(v);
      if (nhwc_[v] < 0 && !x.isConstant() && x.shape.size() != 4 && te::shapeElements(x.shape) != 1)
        return std::nullopt;
    }
    std::vector<int> ins;
    for (int v : n.inputs) {
      const Value& x = g_.value(v);
      if (nhwc_[v] >= 0 || x.isConstant() || x.shape.size() == 4)
        ins.push_back(toNHWC(v));
      else
        ins.push_back(toNCHW(v));  // a single element broadcasts alike in both layouts
    }
    return ins;
  }

  // The value exists only in NHWC: a reader that can follow should.
  bool followsNHWC(int v) const { return v >= 0 && nhwc_[v] >= 0 && nchw_[v] < 0; }
  bool anyInputFollowsNHWC(const Node& n) const {
    return std::any_of(n.inputs.begin(), n.inputs.end(), [&](int v) { return followsNHWC(v); });
  }

  // Few output channels over a wide image: NCHW vectorizes along the rows (see the header).
  bool narrowOutput(const Conv2dAttrs& a, int output) const {
    if (vector_lanes_ <= 0 || a.groups != 1 || !rank4(output)) return false;
    const te::Shape& s = g_.value(output).shape;  // N, K, H, W
    return s[1] < std::max(4, vector_lanes_ / 2) && s[3] >= vector_lanes_;
  }

  // The node that alone reads value v, if it runs `A`.
  template <typename A>
  const Node* soleReader(int v) const {
    if (consumers_[v].size() != 1) return nullptr;
    const Node& n = original_[consumers_[v][0]];
    return std::holds_alternative<A>(n.attrs) ? &n : nullptr;
  }

  // A channel shuffle (ShuffleNet: reshape [N, C, H, W] -> [N, g, C/g, H, W], swap axes 1 and 2,
  // reshape back) of an NHWC value is the same shuffle of the channels within each pixel:
  // [N, H, W, g, C/g], swap the last two, [N, H, W, C]. Returns false unless n starts one.
  bool convertChannelShuffle(const Node& n, const ReshapeAttrs& a) {
    if (!followsNHWC(n.inputs[0]) || !rank4(n.inputs[0]) || a.shape.size() != 5) return false;
    const te::Shape& in = g_.value(n.inputs[0]).shape;  // N, C, H, W
    const te::Shape& s = a.shape;
    if (s[0] != in[0] || s[1] * s[2] != in[1] || s[3] != in[2] || s[4] != in[3]) return false;
    const Node* t = soleReader<TransposeAttrs>(n.output);
    if (!t || std::get<TransposeAttrs>(t->attrs).perm != std::vector<int64_t>{0, 2, 1, 3, 4}) return false;
    const Node* back = soleReader<ReshapeAttrs>(t->output);
    if (!back || g_.value(back->output).shape != in) return false;
    int r = emit(n.name, ReshapeAttrs{{in[0], in[2], in[3], s[1], s[2]}}, {toNHWC(n.inputs[0])});
    int swapped = emit(t->name, TransposeAttrs{{0, 1, 2, 4, 3}}, {r});
    nhwc_[back->output] = emit(back->name, ReshapeAttrs{{in[0], in[2], in[3], in[1]}}, {swapped});
    absorbed_.insert(t->output);
    absorbed_.insert(back->output);
    return true;
  }

  // Pooling follows its input into NHWC.
  template <typename PoolAttrs>
  void convertPool(const Node& n, PoolAttrs a) {
    if (a.layout != Layout::NCHW || !followsNHWC(n.inputs[0])) return keep(n);
    a.layout = Layout::NHWC;
    convertTo(n, a, {toNHWC(n.inputs[0])});
  }

  void convert(const Node& n) {
    if (absorbed_.count(n.output)) return;  // emitted with the node that starts its pattern
    std::visit(Overload{
                   [&](const Conv2dAttrs& a) {
                     int data = n.inputs[0], weight = n.inputs.size() > 1 ? n.inputs[1] : -1;
                     if (a.layout != Layout::NCHW || !rank4(data) || weight < 0 || !g_.value(weight).isConstant() ||
                         narrowOutput(a, n.output))
                       return keep(n);
                     Conv2dAttrs c = a;
                     c.layout = Layout::NHWC;
                     int hwio = weight;
                     runtime::NDArray permuted = permuteArray(*g_.value(weight).constant, kOIHWToHWIO);
                     if (consumers_[weight].size() == 1) {
                       // Only this convolution reads the weight: re-lay it out in place (no second copy).
                       Value& w = g_.mutableValue(weight);
                       w.shape = permuted.shape();
                       w.constant = std::move(permuted);
                     } else {
                       hwio = addConstant(g_.value(weight).name + ".hwio", std::move(permuted));
                     }
                     std::vector<int> ins{toNHWC(data), hwio};
                     for (size_t k = 2; k < n.inputs.size(); ++k)
                       ins.push_back(n.inputs[k] < 0 ? -1 : toNCHW(n.inputs[k]));
                     convertTo(n, c, ins);
                   },
                   [&](const Pool2dAttrs& a) { convertPool(n, a); },
                   [&](const ReshapeAttrs& a) {
                     if (!convertChannelShuffle(n, a)) keep(n);
                   },
                   [&](const SliceAttrs& a) {
                     // Slices of an NHWC value (a channel split) slice the same axes in NHWC.
                     if (!followsNHWC(n.inputs[0]) || !rank4(n.inputs[0]) || !rank4(n.output)) return keep(n);
                     SliceAttrs s = a;
                     if (s.axes.empty())  // no axes: the leading ones, in order
                       for (int64_t d = 0; d < static_cast<int64_t>(s.starts.size()); ++d) s.axes.push_back(d);
                     for (int64_t& axis : s.axes) axis = nhwcAxis(axis);
                     convertTo(n, s, {toNHWC(n.inputs[0])});
                   },
                   [&](const ReduceAttrs& a) {
                     // A per-channel reduction over the image that keeps its rank (an instance norm's mean
                     // over H and W) reduces the same axes in NHWC: no transposes around the
                     // normalization, and the channels stay the contiguous axis its vectors run along.
                     // Reductions over the channels stay NCHW: their result meets NCHW values more often
                     // (a channel attention map against the softmax of the same features).
                     bool spatial = !a.axes.empty() && std::all_of(a.axes.begin(), a.axes.end(), [](int64_t axis) {
                       return normalizeAxis(axis, 4) >= 2;
                     });
                     if (!a.keepdims || !spatial || !followsNHWC(n.inputs[0]) || !rank4(n.inputs[0])) return keep(n);
                     ReduceAttrs r = a;
                     for (int64_t& axis : r.axes) axis = nhwcAxis(axis);
                     std::sort(r.axes.begin(), r.axes.end());
                     convertTo(n, r, {toNHWC(n.inputs[0])});
                   },
                   [&](const GlobalPool2dAttrs& a) { convertPool(n, a); },
                   [&](const PadAttrs& a) {
                     if (!followsNHWC(n.inputs[0]) || a.before.size() != 4 || a.after.size() != 4) return keep(n);
                     PadAttrs p = a;
                     for (size_t k = 0; k < 4; ++k) {
                       p.before[k] = a.before[kToNHWC[k]];
                       p.after[k] = a.after[kToNHWC[k]];
                     }
                     convertTo(n, p, {toNHWC(n.inputs[0])});
                   },
                   [&](const ConcatAttrs& a) {
                     // Along the channels (inception's branches) or the image (a convolution computed
                     // by output regions, conv_regions.h): the same axis of the NHWC values.
                     if (!anyInputFollowsNHWC(n) || !rank4(n.output)) return keep(n);
                     std::vector<int> ins;
                     for (int v : n.inputs) ins.push_back(toNHWC(v));
                     convertTo(n, ConcatAttrs{nhwcAxis(normalizeAxis(a.axis, 4))}, ins);
                   },
                   [&](const auto& a) {
                     using A = std::decay_t<decltype(a)>;
                     if constexpr (std::is_same_v<A, UnaryAttrs> || std::is_same_v<A, BinaryAttrs> ||
                                   std::is_same_v<A, WhereAttrs> || std::is_same_v<A, CastAttrs>) {
                       if (anyInputFollowsNHWC(n))
                         if (auto ins = elementwiseInputs(n)) return convertTo(n, a, *ins);
                     }
                     keep(n);
                   },
               },
               n.attrs);
  }

  Graph& g_;
  std::vector<Node> original_;
  std::vector<std::vector<int>> consumers_;
  std::vector<Node> nodes_;
  std::vector<int> nchw_, nhwc_;  // per value: the value holding it in that layout, or -1
  int vector_lanes_;
  std::set<int> absorbed_;  // outputs of nodes a pattern emitted ahead of them
};

}  // namespace

void convertToChannelsLast(Graph& g, int vector_lanes) { Converter(g, vector_lanes).run(); }

}  // namespace ttune::graph
