// The reduction forms of the default schedule (default_schedule_internal.h): a register tile
// (tiledReduction), one vector of partial results per row (rowReduction) or for the whole tensor
// (wholeReduction), and the access analyses that choose between them.
#include <algorithm>
#include <memory>
#include <optional>

#include "schedule/default_schedule_internal.h"
#include "schedule/dot_group.h"
#include "schedule/names.h"
#include "schedule/state.h"
#include "schedule/target.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::schedule::default_schedule_detail {

int64_t reduceLength(const te::ComputeOp& c) {
  int64_t n = 1;
  for (const te::IterVar& iv : c.reduceAxes()) n *= iv.extent;
  return n;
}

namespace {

// A sum whose terms multiply by a constant tensor (weights): a convolution however short its
// reduction (a depthwise 3x3 has nine taps); pooling is not of this kind.
bool weightedSum(const te::ComputeOp& c) {
  const te::Reduce* red = c.reduce();
  if (!red || red->kind != te::ReduceKind::Sum) return false;
  bool weighted = false;
  te::visitAll(red->source, [&](const te::Expr& e) {
    const te::TensorRead* read = e.as<te::TensorRead>();
    if (read && read->tensor.op().isPlaceholder() && read->tensor.op().placeholder().is_constant) weighted = true;
  });
  return weighted;
}

}  // namespace

// True when every read of a non-constant tensor in c's body is invariant in `axis` or (unless
// `invariant`) contiguous along it (unit stride in its last index only), so a vector along
// `axis` needs neither gathers nor scatters. Constant tensors are packed in the tile's order at
// load time.
bool vectorFriendly(const te::Expr& body, const te::IterVar& axis, bool invariant) {
  bool ok = true;
  te::visitAll(body, [&](const te::Expr& e) {
    const te::TensorRead* read = e.as<te::TensorRead>();
    if (!read || !ok) return;
    const te::Operation& src = read->tensor.op();
    if (src.isPlaceholder() && src.placeholder().is_constant) return;
    for (size_t i = 0; i < read->indices.size(); ++i) {
      std::optional<int64_t> coef = te::linearCoefficient(read->indices[i], axis.var.get());
      bool last = i + 1 == read->indices.size();
      if (!coef || (*coef != 0 && (invariant || !(last && *coef == 1)))) ok = false;
    }
  });
  return ok;
}
bool vectorFriendly(const te::ComputeOp& c, const te::IterVar& axis, bool invariant) {
  return vectorFriendly(c.body, axis, invariant);
}

namespace {

// A grouped convolution reads its input at channel (ff / Kg) * Cg + rc: along the output channels
// ff the input is invariant within each group of Kg channels and jumps between groups. The block
// `D` (Kg) when every non-constant read of c's body takes `axis` only through floordiv(axis, D)
// or not at all, and some read takes it that way; 0 otherwise. A vector of a width dividing D,
// aligned to it, then broadcasts the input as an ordinary convolution's vector does.
int64_t groupBlock(const te::Expr& body, const te::IterVar& axis) {
  int64_t block = 0;
  bool ok = true;
  // The index with every floordiv(axis, D) replaced by 0, the Ds recorded.
  std::function<te::Expr(const te::Expr&)> strip = [&](const te::Expr& e) -> te::Expr {
    if (const te::Binary* b = e.as<te::Binary>(); b && (b->op == te::BinOp::Div || b->op == te::BinOp::FloorDiv)) {
      const te::VarRef* v = b->a.as<te::VarRef>();
      const te::IntImm* d = b->b.as<te::IntImm>();
      if (v && d && v->var.get() == axis.var.get() && d->value > 1) {
        if (block != 0 && block != d->value) ok = false;
        block = d->value;
        return te::Expr(static_cast<int64_t>(0));
      }
    }
    return te::mapChildren(e, strip);
  };
  te::visitAll(body, [&](const te::Expr& e) {
    const te::TensorRead* read = e.as<te::TensorRead>();
    if (!read || !ok) return;
    const te::Operation& src = read->tensor.op();
    if (src.isPlaceholder() && src.placeholder().is_constant) return;
    for (const te::Expr& idx : read->indices) {
      std::optional<int64_t> coef = te::linearCoefficient(strip(idx), axis.var.get());
      if (!coef || *coef != 0) ok = false;
    }
  });
  return ok ? block : 0;
}

// The widest vector block along a grouped axis (groupBlock D): a divisor of D up to `cap`.
int64_t groupWidth(int64_t block, int64_t cap) {
  for (int64_t w = std::min(block, cap); w > 1; --w)
    if (block % w == 0) return w;
  return 1;
}

}  // namespace

// True when no index of `read` depends on `var`.
bool readInvariantIn(const te::TensorRead& read, const te::IterVar& var) {
  for (const te::Expr& idx : read.indices) {
    std::optional<int64_t> coef = te::linearCoefficient(idx, var.var.get());
    if (!coef || *coef != 0) return false;
  }
  return true;
}

namespace {

// The largest distance in bytes between the elements that non-constant reads of c's body take
// for consecutive values of `axis` (row-major tensors); 0 when no read varies linearly with it.
int64_t rowStrideBytes(const te::ComputeOp& c, const te::IterVar& axis) {
  int64_t best = 0;
  te::visitAll(c.body, [&](const te::Expr& e) {
    const te::TensorRead* read = e.as<te::TensorRead>();
    if (!read) return;
    const te::Operation& src = read->tensor.op();
    if (src.isPlaceholder() && src.placeholder().is_constant) return;
    const te::Shape& shape = src.shape();
    if (shape.size() != read->indices.size()) return;
    int64_t stride = 0, inner = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      std::optional<int64_t> coef = te::linearCoefficient(read->indices[i], axis.var.get());
      if (!coef) return;
      stride += *coef * inner;
      inner *= shape[i];
    }
    best = std::max(best, std::abs(stride) * te::dtypeBytes(src.dtype()));
  });
  return best;
}

}  // namespace

// True when some axis of at least `lanes` elements can be vectorized (every non-constant read
// invariant or contiguous along it) while some read stays invariant along it: that read is the
// broadcast operand of an outer-product register tile (a convolution's input along its output
// channels, a matrix product's left operand along the columns). A depthwise convolution has
// none: its input and its weights both vary along the channels.
bool hasBroadcastAxis(const te::ComputeOp& c, int64_t lanes) {
  for (const te::IterVar& iv : c.axes) {
    if (iv.extent >= lanes && groupBlock(c.body, iv) > 1) return true;  // a grouped convolution's channels
    if (iv.extent < lanes || !vectorFriendly(c, iv)) continue;
    bool invariant_read = false;
    te::visitAll(c.body, [&](const te::Expr& e) {
      const te::TensorRead* read = e.as<te::TensorRead>();
      if (read && !invariant_read) invariant_read = readInvariantIn(*read, iv);
    });
    if (invariant_read) return true;
  }
  return false;
}

// Reductions that get a register tile: long ones, and short weighted sums without a broadcast
// operand (depthwise convolutions), whose tile keeps the epilogue fused and enough accumulators
// in flight (1.6-1.8x over a plain vectorized loop on the mobile nets).
bool tiledReductionFits(const te::ComputeOp& c, int64_t lanes) {
  if (!c.reduce()) return false;
  int64_t len = reduceLength(c);
  return len >= kMinTiledReduce || (len >= 4 && weightedSum(c) && !hasBroadcastAxis(c, lanes));
}

// A reduction along the contiguous axis of its input with no spatial axis to vectorize (softmax's
// max and sum, a layer norm's mean and variance over the last axis): a register tile would
// vectorize across rows and gather. Instead the reduction is factored (rfactor) into one vector
// of partial results per row, accumulated with contiguous vector loads, then reduced across the
// vector; rows in parallel. 2.4x on BERT's softmax (12 x 256 x 256, Zen 4).
bool rowReductionFits(const te::ComputeOp& c, int64_t lanes) {
  if (!c.reduce() || c.reduceAxes().size() != 1 || c.axes.empty()) return false;
  const te::IterVar& r = c.reduceAxes()[0];
  if (r.extent < 2 * lanes || !vectorFriendly(c, r)) return false;
  for (const te::IterVar& iv : c.axes)
    if (iv.extent >= lanes && vectorFriendly(c, iv)) return false;
  return true;
}

void rowReduction(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& name,
                  const DefaultScheduleOptions& opt) {
  const te::IterVar& r = c.reduceAxes()[0];
  const int64_t lanes = opt.target.lanes();
  const std::string rf = names::rfactorStage(name), outer = names::splitPart(r.name(), 0),
                    inner = names::splitPart(r.name(), 1);
  steps.push_back(SplitStep{name, r.name(), r.extent, {lanes}, true});
  steps.push_back(RfactorStep{name, inner, static_cast<int>(c.axes.size())});
  std::vector<std::string> order;
  std::vector<std::pair<std::string, int64_t>> spatial;
  for (const te::IterVar& iv : c.axes) {
    order.push_back(iv.name());
    spatial.push_back({iv.name(), iv.extent});
  }
  order.insert(order.end(), {outer, inner});
  steps.push_back(ReorderStep{rf, order});
  steps.push_back(ComputeAtStep{rf, name, c.axes.back().name()});
  std::string par = fuseOuter(steps, name, parallelPrefix(spatial, opt.min_parallel));
  if (!par.empty()) steps.push_back(AnnotationStep{name, par, IterAnnotation::Parallel});
  steps.push_back(AnnotationStep{rf, inner, IterAnnotation::Vectorize});
}

// A reduction of a whole tensor to one value (DynamicQuantizeLinear's min and max, a global
// sum): no spatial axis to parallelize or vectorize, so as it stands it is a scalar loop (0.9
// GFLOP/s on the 393K elements of BERT's feed-forward input). Its reduction axes fused and
// factored (rfactor) by the vector width: a vector of partial results accumulated with
// contiguous loads, then reduced across the vector.
bool wholeReductionFits(const te::ComputeOp& c, int64_t lanes) {
  if (!c.reduce() || c.reduce()->cond.defined()) return false;
  for (const te::IterVar& iv : c.axes)
    if (iv.extent != 1) return false;
  return reduceLength(c) >= 2 * lanes && vectorFriendly(c, c.reduceAxes().back());
}

void wholeReduction(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& name,
                    const DefaultScheduleOptions& opt) {
  const int64_t lanes = opt.target.lanes();
  std::vector<std::string> red;
  for (const te::IterVar& iv : c.reduceAxes()) red.push_back(iv.name());
  std::string fused = red[0];
  if (red.size() > 1) fused = fuseOuter(steps, name, red);
  steps.push_back(SplitStep{name, fused, reduceLength(c), {lanes}, true});
  const std::string rf = names::rfactorStage(name), outer = names::splitPart(fused, 0),
                    inner = names::splitPart(fused, 1);
  steps.push_back(RfactorStep{name, inner, static_cast<int>(c.axes.size())});
  std::vector<std::string> order;
  for (const te::IterVar& iv : c.axes) order.push_back(iv.name());
  order.insert(order.end(), {outer, inner});
  steps.push_back(ReorderStep{rf, order});
  steps.push_back(AnnotationStep{rf, inner, IterAnnotation::Vectorize});
}

namespace {

// The width of a register tile's vector blocks along an axis of `extent` elements: `cap` when it
// divides the extent, else the largest divisor of the extent up to `cap` that uses at least 3/4
// of the vectors it occupies (112 channels in blocks of 56, not 16), else the divisor that uses
// them best, so no block is a partial remainder -- unless every divisor fills less than half of
// its vectors and `cap` with one remainder block fills more: an extent with no useful divisor
// (attention's 197 keys in ViT-B/16, a prime) went to blocks of one element, scalar code at a
// tenth of the rate of blocks of 32 with a masked remainder.
int64_t dividingWidth(int64_t extent, int64_t cap, int64_t vector_lanes) {
  if (extent % cap == 0) return cap;
  auto vectors = [&](int64_t w) { return (w + vector_lanes - 1) / vector_lanes; };
  int64_t best = cap;
  double best_use = 0;
  for (int64_t w = cap; w >= 1; --w) {
    if (extent % w) continue;
    double use = static_cast<double>(w) / static_cast<double>(vectors(w) * vector_lanes);
    if (use >= 0.75) return w;
    if (use > best_use) {
      best = w;
      best_use = use;
    }
  }
  const double remainder_use =
      static_cast<double>(extent) /
      static_cast<double>(((extent / cap) * vectors(cap) + vectors(extent % cap)) * vector_lanes);
  if (best_use < 0.5 && remainder_use > best_use) return cap;
  return best;
}

// The shape of a reduction's register tile: which axes it spans and how far.
struct TilePlan {
  int v = -1;                // the vector axis
  int r = -1;                // the row axis (the innermost other axis longer than 1), or -1
  int64_t group = 0;         // groupBlock of a grouped convolution's vector axis, else 0
  bool elementwise = false;  // no broadcast operand (depthwise): every FMA loads its own input
  int64_t rows = 1;          // the tile's rows (along r)
  int64_t lanes = 0;         // the tile's width in elements (along v)
};

// The vector axis, in order of preference: the innermost long axis in which every non-constant
// read is invariant (the output channels of a convolution, the columns of a dense layer: a
// broadcast input times a packed weight vector, as a direct convolution does), or such a last
// axis of at least half a vector; the last axis when long and read contiguously; the longest
// axis read contiguously; the longest axis. Sets plan.v and plan.group.
void pickVectorAxis(TilePlan& plan, const te::ComputeOp& c, int64_t vector_lanes) {
  size_t n = c.axes.size();
  auto pick = [&](bool invariant) {
    int best = -1;
    for (int d = static_cast<int>(n) - 1; d >= 0; --d)
      if (c.axes[d].extent >= vector_lanes && vectorFriendly(c, c.axes[d], invariant) &&
          (best < 0 || (!invariant && c.axes[d].extent > c.axes[best].extent)))
        best = d;
    return best;
  };
  int last = static_cast<int>(n) - 1;
  int v = pick(true);
  // A short invariant axis (a convolution with 12 output channels and 16 lanes, e.g. the phases
  // of a transposed convolution to RGB) still beats every other axis: one masked vector keeps
  // the broadcast-times-weight-vector form, while vectors along the image read the input at a
  // channel stride (a 12-channel NHWC convolution ran at 5 GFLOP/s, 16 channels at 108).
  if (v < 0 && c.axes[last].extent >= std::max<int64_t>(4, vector_lanes / 2) && c.axes[last].extent < vector_lanes &&
      vectorFriendly(c, c.axes[last], true))
    v = last;
  // A grouped convolution: vectors along the output channels within a group (groupBlock).
  int64_t group = 0;
  if (v < 0)
    for (int d = last; d >= 0 && group == 0; --d)
      if (c.axes[d].extent >= vector_lanes && (group = groupBlock(c.body, c.axes[d])) > 1) v = d;
  if (v < 0 && c.axes[last].extent >= vector_lanes && vectorFriendly(c, c.axes[last], false)) v = last;
  if (v < 0) v = pick(false);
  if (v < 0) {
    v = last;
    for (int d = last; d >= 0; --d)
      if (c.axes[d].extent > c.axes[v].extent) v = d;
    if (c.axes[v].extent < vector_lanes) v = last;
  }
  plan.v = v;
  plan.group = group;
}

// The register tile: rows x vectors accumulators that fit the target's register file and keep
// its FMA pipes busy (schedule/target.h). Sets plan.r, elementwise, rows and lanes.
void sizeTile(TilePlan& plan, const te::ComputeOp& c, te::DType dtype, const Target& target) {
  const int64_t vector_lanes = target.lanes();
  const int v = plan.v;
  const int64_t group = plan.group;
  int& r = plan.r;
  for (int d = static_cast<int>(c.axes.size()) - 1; d >= 0; --d)
    if (d != v && c.axes[d].extent > 1) {
      r = d;
      break;
    }
  int64_t vec_extent = c.axes[v].extent;
  // Without a broadcast operand (depthwise) every FMA loads its own input: a small tile, and the
  // innermost reduction axis (the kernel's columns) inside the rows, so a row's taps follow each
  // other and the weight vector of a tap is reloaded from L1 rather than held for all rows.
  const bool elementwise = plan.elementwise = !hasBroadcastAxis(c, vector_lanes);
  int64_t max_rows = r >= 0 ? c.axes[r].extent : 1, max_vectors = (vec_extent + vector_lanes - 1) / vector_lanes;
  const int64_t row_stride = r >= 0 ? rowStrideBytes(c, c.axes[r]) : 0;
  // Depthwise rows read one after the other (stride 1) take rows that divide their extent.
  const bool unit_rows = r >= 0 && row_stride <= vec_extent * te::dtypeBytes(dtype);
  RegisterTile rt = elementwise ? elementwiseTileFor(target, max_rows, max_vectors, unit_rows)
                                : registerTileFor(target, max_rows, max_vectors, row_stride);
  int64_t lanes = std::min<int64_t>(rt.vectors * vector_lanes, vec_extent);
  const bool across_groups =
      group > 1 && group * 4 <= vector_lanes && vector_lanes % group == 0 && vec_extent % vector_lanes == 0;
  if (group > 1 && !across_groups) {
    // Within a group: a divisor of the group's width (a partial vector when the group is
    // narrower than one), the rows refitted to the vectors that takes. Groups of at most a
    // quarter vector (resnext's 4 channels per group with 16 lanes) instead take whole vectors
    // across groups, whose input lanes the code generator loads as one vector and a shuffle:
    // 1.5x on AVX-512; at half a vector (8 of 16 lanes, or 4 of 8) the shuffles cost what the
    // idle lanes do (0.85-1.05x, Zen 5).
    lanes = groupWidth(group, lanes);
    rt = registerTileFor(target, max_rows, (lanes + vector_lanes - 1) / vector_lanes, row_stride);
  }
  // Outer-product tiles with rows: a width that leaves a remainder block guarded the whole
  // tile's code (a 1x1 conv to 120 channels in blocks of 64 ran at 18 GFLOP/s; in blocks of 60,
  // masking only the last vector, at the others' rate); the rows are refitted to the vectors it
  // needs. Not without rows (a classifier's 1000 columns in blocks of 50 misalign the packed
  // weights' rows: 15% slower than 64 and a remainder) nor for depthwise tiles (120 channels in
  // blocks of 24 instead of 32: 1.8x slower).
  // (Across groups, too: any width that is a multiple of the group keeps the vectors' bases on
  // group boundaries.)
  if (int64_t w = !elementwise && r >= 0 && (group <= 1 || across_groups)
                      ? dividingWidth(vec_extent, lanes, vector_lanes)
                      : lanes;
      w != lanes && (!across_groups || w % group == 0)) {
    rt = registerTileFor(target, max_rows, (w + vector_lanes - 1) / vector_lanes, row_stride);
    lanes = w;
  }
  plan.lanes = lanes;
  plan.rows = r >= 0 ? std::min<int64_t>(rt.rows, c.axes[r].extent) : 1;
}

// The order of the tiled stage's outer loops (axis indices; r and v stand for their outer
// parts). Large reductions: leading unit axes, then the vector axis's blocks, then the other
// axes -- with the blocks of output channels outermost, one block's weights stay in L1 while the
// spatial loops sweep the input (NCHW has them there by its axis order; NHWC needs the reorder).
// Short reductions (one block's weights within half of L1, e.g. 1x1 convs with few input
// channels): the weights stay in L1 anyway, so the vector blocks go just outside the rows' blocks
// and the parallel loops split the spatial axes; each thread then reads mostly activations that
// the same thread wrote in the previous kernel (1.2-1.4x on the mobile nets, neutral on ResNets,
// measured with bench_layout).
std::vector<size_t> outerAxisOrder(const te::ComputeOp& c, const TilePlan& plan, const Target& target) {
  const size_t n = c.axes.size();
  const int v = plan.v, r = plan.r;
  std::vector<size_t> outer_axes;
  int64_t reduce_len = 1;
  for (const te::IterVar& iv : c.reduceAxes()) reduce_len *= iv.extent;
  bool short_reduction = r >= 0 && shortReduction(target, reduce_len, plan.lanes);
  if (plan.elementwise) {
    // Depthwise: the axes in their own order, so each thread sweeps whole input pixels
    // contiguously (channel blocks outside the columns read a pixel's channels in strided
    // pieces: 1.5x slower on stride-2 layers whose input exceeds L2).
    for (size_t d = 0; d < n; ++d) outer_axes.push_back(d);
  } else if (short_reduction) {
    for (size_t d = 0; d < n; ++d) {
      if (static_cast<int>(d) == v) continue;
      if (static_cast<int>(d) == r) outer_axes.push_back(static_cast<size_t>(v));
      outer_axes.push_back(d);
    }
  } else {
    size_t lead = 0;
    while (lead < n && static_cast<int>(lead) != v && c.axes[lead].extent == 1) outer_axes.push_back(lead++);
    outer_axes.push_back(static_cast<size_t>(v));
    for (size_t d = lead; d < n; ++d)
      if (static_cast<int>(d) != v) outer_axes.push_back(d);
  }
  return outer_axes;
}

// What tiling the reduction stage leaves for its writer: the indices of its r and v split steps
// (-1 when absent) and the int8 dot-product group loop ("" when none).
struct TiledStage {
  int split_r = -1, split_v = -1;
  std::string group_loop;
};

// Tiles the reduction stage R: splits r and v by the tile, orders outer loops, reductions, then
// the tile.
TiledStage tileReductionStage(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& R,
                              const TilePlan& plan, const std::vector<size_t>& outer_axes, const Target& target) {
  const size_t n = c.axes.size();
  const int v = plan.v, r = plan.r;
  TiledStage t;
  std::vector<std::string> outer, reduce, tile;
  for (size_t d = 0; d < n; ++d) {
    const std::string& a = c.axes[d].name();
    if (static_cast<int>(d) == r) {
      t.split_r = static_cast<int>(steps.size());
      steps.push_back(SplitStep{R, a, c.axes[d].extent, {plan.rows}, true});
    } else if (static_cast<int>(d) == v) {
      t.split_v = static_cast<int>(steps.size());
      steps.push_back(SplitStep{R, a, c.axes[d].extent, {plan.lanes}, true});
    }
  }
  for (size_t d : outer_axes) {
    const std::string& a = c.axes[d].name();
    outer.push_back(static_cast<int>(d) == r || static_cast<int>(d) == v ? names::splitPart(a, 0) : a);
  }
  if (r >= 0) tile.push_back(names::splitPart(c.axes[r].name(), 1));
  tile.push_back(names::splitPart(c.axes[v].name(), 1));
  for (const te::IterVar& iv : c.reduceAxes()) reduce.push_back(iv.name());
  // An int8 product: its innermost reduction axis in groups of the target's dot-product width,
  // the group loop inside the vector loop, so each vector of accumulators takes one dot-product
  // instruction per group (codegen/emitter_dot.cc) and the packed weights hold each lane's group
  // contiguously.
  const int64_t dot_group = !plan.elementwise ? dotGroup(c, target) : 1;
  if (dot_group > 1) {
    const std::string a = reduce.back();
    steps.push_back(SplitStep{R, a, c.reduceAxes().back().extent, {dot_group}, true});
    reduce.back() = names::splitPart(a, 0);
    t.group_loop = names::splitPart(a, 1);
  }
  std::vector<std::string> order = outer;
  if (plan.elementwise && tile.size() == 2 && !reduce.empty()) {
    order.insert(order.end(), reduce.begin(), reduce.end() - 1);
    order.insert(order.end(), {tile[0], reduce.back(), tile[1]});
  } else {
    order.insert(order.end(), reduce.begin(), reduce.end());
    order.insert(order.end(), tile.begin(), tile.end());
  }
  if (!t.group_loop.empty()) order.push_back(t.group_loop);
  steps.push_back(ReorderStep{R, order});
  return t;
}

// The writer E is tiled the same way (its axes have R's names when E is R's copy, and are in
// the same order otherwise); R is computed at E's last outer loop; E's outer loops go parallel.
void tileWriterStage(std::vector<Step>& steps, const te::ComputeOp& c, const te::ComputeOp& ec, const std::string& R,
                     const std::string& E, const TilePlan& plan, const std::vector<size_t>& outer_axes,
                     const TiledStage& t, const DefaultScheduleOptions& opt) {
  const size_t n = c.axes.size();
  const int v = plan.v, r = plan.r;
  std::vector<std::string> eouter, etile;
  std::vector<std::pair<std::string, int64_t>> par;
  for (size_t d = 0; d < n; ++d) {
    const std::string& a = ec.axes[d].name();
    if (static_cast<int>(d) == r)
      steps.push_back(FollowSplitStep{E, a, t.split_r, 1});
    else if (static_cast<int>(d) == v)
      steps.push_back(FollowSplitStep{E, a, t.split_v, 1});
  }
  for (size_t d : outer_axes) {
    const std::string& a = ec.axes[d].name();
    if (static_cast<int>(d) == r) {
      eouter.push_back(names::splitPart(a, 0));
      par.push_back({names::splitPart(a, 0), (c.axes[d].extent + plan.rows - 1) / plan.rows});
    } else if (static_cast<int>(d) == v) {
      eouter.push_back(names::splitPart(a, 0));
      par.push_back({names::splitPart(a, 0), (c.axes[d].extent + plan.lanes - 1) / plan.lanes});
    } else {
      eouter.push_back(a);
      par.push_back({a, c.axes[d].extent});
    }
  }
  if (r >= 0) etile.push_back(names::splitPart(ec.axes[r].name(), 1));
  etile.push_back(names::splitPart(ec.axes[v].name(), 1));
  std::vector<std::string> eorder = eouter;
  eorder.insert(eorder.end(), etile.begin(), etile.end());
  steps.push_back(ReorderStep{E, eorder});
  steps.push_back(ComputeAtStep{R, E, eouter.back()});
  std::string p = fuseOuter(steps, E, parallelPrefix(par, opt.min_parallel));
  if (!p.empty()) steps.push_back(AnnotationStep{E, p, IterAnnotation::Parallel});
  if (r >= 0) steps.push_back(AnnotationStep{R, names::splitPart(c.axes[r].name(), 1), IterAnnotation::Unroll});
  steps.push_back(AnnotationStep{R, names::splitPart(c.axes[v].name(), 1), IterAnnotation::Vectorize});
  if (!t.group_loop.empty()) steps.push_back(AnnotationStep{R, t.group_loop, IterAnnotation::Unroll});
  steps.push_back(AnnotationStep{E, names::splitPart(ec.axes[v].name(), 1), IterAnnotation::Vectorize});
}

// Constant weights are packed in the tile's loop order at load time (when the tiling allows it:
// a rewrite the schedule cannot replay is dropped).
void packConstantWeights(std::vector<Step>& steps, const te::ComputeDAG& dag, int ri, const std::string& R) {
  for (int p : dag.producers(ri)) {
    const te::Operation& w = dag.op(p);
    if (!w.isPlaceholder() || !w.placeholder().is_constant) continue;
    steps.push_back(LayoutRewriteStep{R, w.name()});
    auto dagp = std::make_shared<const te::ComputeDAG>(dag);
    if (!State::replay(dagp, steps).ok()) steps.pop_back();
  }
}

}  // namespace

// A reduction with a register tile: the reduction is computed into a private tile of
// (rows x vector) outputs, inside the loops of the stage that writes it out -- its element-wise
// consumer when it has one (so the epilogue is fused), else a copy stage (cache_write). The
// vector runs along the last axis when it is long enough, else along the longest axis (the
// channels of a late convolution layer).
void tiledReduction(std::vector<Step>& steps, const te::ComputeDAG& dag, int ri, int consumer,
                    const DefaultScheduleOptions& opt) {
  const te::ComputeOp& c = dag.op(ri).compute();
  std::string R = dag.op(ri).name();
  std::string E;  // the stage the tile is computed in, and R's stage name for tiling
  if (consumer >= 0) {
    E = dag.op(consumer).name();
  } else {
    steps.push_back(CacheWriteStep{R, names::kLocalScope});
    E = R;
    R = names::cacheStage(R, names::kLocalScope);
  }
  TilePlan plan;
  pickVectorAxis(plan, c, opt.target.lanes());
  sizeTile(plan, c, dag.op(ri).dtype(), opt.target);
  std::vector<size_t> outer_axes = outerAxisOrder(c, plan, opt.target);
  TiledStage t = tileReductionStage(steps, c, R, plan, outer_axes, opt.target);
  const te::ComputeOp& ec = consumer >= 0 ? dag.op(consumer).compute() : c;
  tileWriterStage(steps, c, ec, R, E, plan, outer_axes, t, opt);
  packConstantWeights(steps, dag, ri, R);
}

}  // namespace ttune::schedule::default_schedule_detail
