#include "schedule/default_schedule.h"

#include <cstdlib>
#include <functional>
#include <map>

#include "schedule/bound.h"
#include "schedule/dot_group.h"
#include "schedule/state.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::schedule {

namespace {

// Reductions at least this long get a register tile; shorter ones a plain vectorized loop nest.
constexpr int64_t kMinTiledReduce = 16;

int64_t reduceLength(const te::ComputeOp& c) {
  int64_t n = 1;
  for (const te::IterVar& iv : c.reduceAxes()) n *= iv.extent;
  return n;
}

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

// Fuses the given leading loops (when more than one) and returns the name of the parallel loop.
std::string fuseOuter(std::vector<Step>& steps, const std::string& stage, const std::vector<std::string>& outer) {
  if (outer.empty()) return "";
  if (outer.size() == 1) return outer[0];
  steps.push_back(FuseStep{stage, outer});
  std::string n;
  for (const std::string& o : outer) n += o + "@";
  return n;
}

// Outer loops to fuse for parallelism: a prefix of `axes` whose product reaches min_parallel.
std::vector<std::string> parallelPrefix(const std::vector<std::pair<std::string, int64_t>>& axes, int64_t min_parallel) {
  std::vector<std::string> out;
  int64_t par = 1;
  for (const auto& [name, ext] : axes) {
    if (par >= min_parallel) break;
    out.push_back(name);
    par *= ext;
  }
  return out;
}

// The non-inlined stage that reads `op` element-wise through a chain of inlined single-consumer
// stages, or -1.
int elementwiseConsumer(const te::ComputeDAG& dag, int op, const std::vector<bool>& inlined) {
  int cur = op;
  while (true) {
    const auto& cons = dag.consumers(cur);
    if (cons.size() != 1) return -1;
    int c = cons[0];
    const te::Operation& co = dag.op(c);
    if (!co.isCompute() || co.compute().reduce() || co.shape() != dag.op(op).shape()) return -1;
    if (!inlined[c]) return c;
    cur = c;
  }
}

// True when every read of a non-constant tensor in c's body is invariant in `axis` or (unless
// `invariant`) contiguous along it (unit stride in its last index only), so a vector along
// `axis` needs neither gathers nor scatters. Constant tensors are packed in the tile's order at
// load time.
bool vectorFriendly(const te::Expr& body, const te::IterVar& axis, bool invariant = false) {
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
bool vectorFriendly(const te::ComputeOp& c, const te::IterVar& axis, bool invariant = false) {
  return vectorFriendly(c.body, axis, invariant);
}

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

// True when no index of `read` depends on `var`.
bool readInvariantIn(const te::TensorRead& read, const te::IterVar& var) {
  for (const te::Expr& idx : read.indices) {
    std::optional<int64_t> coef = te::linearCoefficient(idx, var.var.get());
    if (!coef || *coef != 0) return false;
  }
  return true;
}

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

// True when op's body computes a transcendental function or a division (costly per element).
bool costlyPerElement(const te::Operation& op) {
  bool costly = false;
  te::visitAll(op.compute().body, [&](const te::Expr& e) {
    if (const te::Unary* u = e.as<te::Unary>())
      costly |= u->op != te::UnOp::Neg && u->op != te::UnOp::Not && u->op != te::UnOp::Abs;
    if (const te::Binary* b = e.as<te::Binary>()) costly |= b->op == te::BinOp::Div || b->op == te::BinOp::Pow;
  });
  return costly;
}

// True when `consumer` reads the costly stage `op` invariantly along one of its own axes
// (extent > 1): it broadcasts op's elements, so inlining op would recompute each of them that
// many times. Cheap stages inline anyway: a Winograd input transform reads each padded input in
// all 36 of its outputs, and inlining the padding's select there is 1.5-3.5x faster than a
// separate padding pass.
bool broadcastBy(const te::ComputeOp& consumer, const te::Operation& op) {
  if (!costlyPerElement(op)) return false;
  bool broadcast = false;
  te::visitAll(consumer.body, [&](const te::Expr& e) {
    const te::TensorRead* read = e.as<te::TensorRead>();
    if (!read || broadcast || read->tensor.op().name() != op.name()) return;
    for (const te::IterVar& iv : consumer.axes)
      if (iv.extent > 1 && readInvariantIn(*read, iv)) broadcast = true;
  });
  return broadcast;
}

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

void rowReduction(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& name, const DefaultScheduleOptions& opt) {
  const te::IterVar& r = c.reduceAxes()[0];
  const int64_t lanes = opt.target.lanes();
  const std::string rf = name + ".rf", outer = r.name() + ".0", inner = r.name() + ".1";
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

void wholeReduction(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& name, const DefaultScheduleOptions& opt) {
  const int64_t lanes = opt.target.lanes();
  std::vector<std::string> red;
  for (const te::IterVar& iv : c.reduceAxes()) red.push_back(iv.name());
  std::string fused = red[0];
  if (red.size() > 1) fused = fuseOuter(steps, name, red);
  steps.push_back(SplitStep{name, fused, reduceLength(c), {lanes}, true});
  const std::string rf = name + ".rf", outer = fused + ".0", inner = fused + ".1";
  steps.push_back(RfactorStep{name, inner, static_cast<int>(c.axes.size())});
  std::vector<std::string> order;
  for (const te::IterVar& iv : c.axes) order.push_back(iv.name());
  order.insert(order.end(), {outer, inner});
  steps.push_back(ReorderStep{rf, order});
  steps.push_back(AnnotationStep{rf, inner, IterAnnotation::Vectorize});
}

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
    steps.push_back(CacheWriteStep{R, "local"});
    E = R;
    R = R + ".local";
  }
  size_t n = c.axes.size();
  // The vector axis, in order of preference: the innermost long axis in which every
  // non-constant read is invariant (the output channels of a convolution, the columns of a
  // dense layer: a broadcast input times a packed weight vector, as a direct convolution does),
  // or such a last axis of at least half a vector;
  // the last axis when long and read contiguously; the longest axis read contiguously; the
  // longest axis.
  const int64_t vector_lanes = opt.target.lanes();
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
  if (v < 0 && c.axes[last].extent >= std::max<int64_t>(4, vector_lanes / 2) &&
      c.axes[last].extent < vector_lanes && vectorFriendly(c, c.axes[last], true))
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
  int r = -1;
  for (int d = static_cast<int>(n) - 1; d >= 0; --d)
    if (d != v && c.axes[d].extent > 1) {
      r = d;
      break;
    }
  // The register tile: rows x vectors accumulators that fit the target's register file and keep
  // its FMA pipes busy (schedule/target.h); `lanes` is the tile's width in elements.
  int64_t vec_extent = c.axes[v].extent;
  // Without a broadcast operand (depthwise) every FMA loads its own input: a small tile, and the
  // innermost reduction axis (the kernel's columns) inside the rows, so a row's taps follow each
  // other and the weight vector of a tap is reloaded from L1 rather than held for all rows.
  const bool elementwise = !hasBroadcastAxis(c, vector_lanes);
  int64_t max_rows = r >= 0 ? c.axes[r].extent : 1, max_vectors = (vec_extent + vector_lanes - 1) / vector_lanes;
  const int64_t row_stride = r >= 0 ? rowStrideBytes(c, c.axes[r]) : 0;
  // Depthwise rows read one after the other (stride 1) take rows that divide their extent.
  const bool unit_rows = r >= 0 && row_stride <= vec_extent * te::dtypeBytes(dag.op(ri).dtype());
  RegisterTile rt = elementwise ? elementwiseTileFor(opt.target, max_rows, max_vectors, unit_rows)
                                : registerTileFor(opt.target, max_rows, max_vectors, row_stride);
  int64_t lanes = std::min<int64_t>(rt.vectors * vector_lanes, vec_extent);
  const bool across_groups = group > 1 && group * 4 <= vector_lanes && vector_lanes % group == 0 && vec_extent % vector_lanes == 0;
  if (group > 1 && !across_groups) {
    // Within a group: a divisor of the group's width (a partial vector when the group is
    // narrower than one), the rows refitted to the vectors that takes. Groups of at most a
    // quarter vector (resnext's 4 channels per group with 16 lanes) instead take whole vectors
    // across groups, whose input lanes the code generator loads as one vector and a shuffle:
    // 1.5x on AVX-512; at half a vector (8 of 16 lanes, or 4 of 8) the shuffles cost what the
    // idle lanes do (0.85-1.05x, Zen 5).
    lanes = groupWidth(group, lanes);
    rt = registerTileFor(opt.target, max_rows, (lanes + vector_lanes - 1) / vector_lanes, row_stride);
  }
  // Outer-product tiles with rows: a width that leaves a remainder block guarded the whole
  // tile's code (a 1x1 conv to 120 channels in blocks of 64 ran at 18 GFLOP/s; in blocks of 60,
  // masking only the last vector, at the others' rate); the rows are refitted to the vectors it
  // needs. Not without rows (a classifier's 1000 columns in blocks of 50 misalign the packed
  // weights' rows: 15% slower than 64 and a remainder) nor for depthwise tiles (120 channels in
  // blocks of 24 instead of 32: 1.8x slower).
  // (Across groups, too: any width that is a multiple of the group keeps the vectors' bases on
  // group boundaries.)
  if (int64_t w = !elementwise && r >= 0 && (group <= 1 || across_groups) ? dividingWidth(vec_extent, lanes, vector_lanes) : lanes;
      w != lanes && (!across_groups || w % group == 0)) {
    rt = registerTileFor(opt.target, max_rows, (w + vector_lanes - 1) / vector_lanes, row_stride);
    lanes = w;
  }
  int64_t rows = r >= 0 ? std::min<int64_t>(rt.rows, c.axes[r].extent) : 1;
  // Tiles of R's spatial axes: [r, v] split, everything else whole and outside.
  std::vector<std::string> outer, reduce, tile;
  int split_r = -1, split_v = -1;
  // Outer loop order. Large reductions: leading unit axes, then the vector axis's blocks, then
  // the other axes -- with the blocks of output channels outermost, one block's weights stay in
  // L1 while the spatial loops sweep the input (NCHW has them there by its axis order; NHWC
  // needs the reorder). Short reductions (one block's weights within half of L1, e.g. 1x1 convs
  // with few input channels): the weights stay in L1 anyway, so the vector blocks go just outside
  // the rows' blocks and the parallel loops split the spatial axes; each thread then reads
  // mostly activations that the same thread wrote in the previous kernel (1.2-1.4x on the
  // mobile nets, neutral on ResNets, measured with bench_layout).
  std::vector<size_t> outer_axes;
  int64_t reduce_len = 1;
  for (const te::IterVar& iv : c.reduceAxes()) reduce_len *= iv.extent;
  bool short_reduction = r >= 0 && shortReduction(opt.target, reduce_len, lanes);
  if (elementwise) {
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
  for (size_t d = 0; d < n; ++d) {
    const std::string& a = c.axes[d].name();
    if (static_cast<int>(d) == r) {
      split_r = static_cast<int>(steps.size());
      steps.push_back(SplitStep{R, a, c.axes[d].extent, {rows}, true});
    } else if (static_cast<int>(d) == v) {
      split_v = static_cast<int>(steps.size());
      steps.push_back(SplitStep{R, a, c.axes[d].extent, {lanes}, true});
    }
  }
  for (size_t d : outer_axes) {
    const std::string& a = c.axes[d].name();
    outer.push_back(static_cast<int>(d) == r || static_cast<int>(d) == v ? a + ".0" : a);
  }
  if (r >= 0) tile.push_back(c.axes[r].name() + ".1");
  tile.push_back(c.axes[v].name() + ".1");
  for (const te::IterVar& iv : c.reduceAxes()) reduce.push_back(iv.name());
  // An int8 product: its innermost reduction axis in groups of the target's dot-product width,
  // the group loop inside the vector loop, so each vector of accumulators takes one dot-product
  // instruction per group (codegen/emitter_dot.cc) and the packed weights hold each lane's group
  // contiguously.
  const int64_t dot_group = !elementwise ? dotGroup(c, opt.target) : 1;
  std::string group_loop;
  if (dot_group > 1) {
    const std::string a = reduce.back();
    steps.push_back(SplitStep{R, a, c.reduceAxes().back().extent, {dot_group}, true});
    reduce.back() = a + ".0";
    group_loop = a + ".1";
  }
  std::vector<std::string> order = outer;
  if (elementwise && tile.size() == 2 && !reduce.empty()) {
    order.insert(order.end(), reduce.begin(), reduce.end() - 1);
    order.insert(order.end(), {tile[0], reduce.back(), tile[1]});
  } else {
    order.insert(order.end(), reduce.begin(), reduce.end());
    order.insert(order.end(), tile.begin(), tile.end());
  }
  if (!group_loop.empty()) order.push_back(group_loop);
  steps.push_back(ReorderStep{R, order});
  // The writer E is tiled the same way (its axes have R's names when E is R's copy, and are in
  // the same order otherwise); R is computed at E's last outer loop.
  const te::ComputeOp& ec = consumer >= 0 ? dag.op(consumer).compute() : c;
  std::vector<std::string> eouter, etile;
  std::vector<std::pair<std::string, int64_t>> par;
  for (size_t d = 0; d < n; ++d) {
    const std::string& a = ec.axes[d].name();
    if (static_cast<int>(d) == r) steps.push_back(FollowSplitStep{E, a, split_r, 1});
    else if (static_cast<int>(d) == v) steps.push_back(FollowSplitStep{E, a, split_v, 1});
  }
  for (size_t d : outer_axes) {
    const std::string& a = ec.axes[d].name();
    if (static_cast<int>(d) == r) {
      eouter.push_back(a + ".0");
      par.push_back({a + ".0", (c.axes[d].extent + rows - 1) / rows});
    } else if (static_cast<int>(d) == v) {
      eouter.push_back(a + ".0");
      par.push_back({a + ".0", (c.axes[d].extent + lanes - 1) / lanes});
    } else {
      eouter.push_back(a);
      par.push_back({a, c.axes[d].extent});
    }
  }
  if (r >= 0) etile.push_back(ec.axes[r].name() + ".1");
  etile.push_back(ec.axes[v].name() + ".1");
  std::vector<std::string> eorder = eouter;
  eorder.insert(eorder.end(), etile.begin(), etile.end());
  steps.push_back(ReorderStep{E, eorder});
  steps.push_back(ComputeAtStep{R, E, eouter.back()});
  std::string p = fuseOuter(steps, E, parallelPrefix(par, opt.min_parallel));
  if (!p.empty()) steps.push_back(AnnotationStep{E, p, IterAnnotation::Parallel});
  if (r >= 0) steps.push_back(AnnotationStep{R, c.axes[r].name() + ".1", IterAnnotation::Unroll});
  steps.push_back(AnnotationStep{R, c.axes[v].name() + ".1", IterAnnotation::Vectorize});
  if (!group_loop.empty()) steps.push_back(AnnotationStep{R, group_loop, IterAnnotation::Unroll});
  steps.push_back(AnnotationStep{E, ec.axes[v].name() + ".1", IterAnnotation::Vectorize});
  // Constant weights are packed in the tile's loop order at load time (when the tiling allows it).
  for (int p : dag.producers(ri)) {
    const te::Operation& w = dag.op(p);
    if (!w.isPlaceholder() || !w.placeholder().is_constant) continue;
    steps.push_back(LayoutRewriteStep{R, w.name()});
    auto dagp = std::make_shared<const te::ComputeDAG>(dag);
    if (!State::replay(dagp, steps).ok()) steps.pop_back();
  }
}

// A layout change (transpose) of stage c whose innermost output axis reads memory with a stride,
// judged on `body`, c's body with the stages inlined into it substituted (a transpose back and
// forth around an element-wise op reads contiguously): the axis along which it reads
// contiguously instead, or -1. Vectorizing
// the output's last axis would gather (or, across the other axis, scatter).
int transposedAxis(const te::ComputeOp& c, const te::Expr& body) {
  if (!c.reduceAxes().empty() || c.axes.size() < 2 || c.axes.back().extent < 2) return -1;
  if (vectorFriendly(body, c.axes.back())) return -1;
  for (int d = static_cast<int>(c.axes.size()) - 2; d >= 0; --d)
    if (c.axes[d].extent >= 2 && vectorFriendly(body, c.axes[d]) && !vectorFriendly(body, c.axes[d], true)) return d;
  return -1;
}

// A permutation within the innermost axis (ShuffleNet's channel shuffle in NHWC, computed as a
// reshape, a transpose and a reshape): the reads along the last axis are neither contiguous nor
// strided, so vectors along it would gather, each lane's index computed with vector divisions.
// Instead a block of the axis is unrolled into scalar moves, whose indices fold to constants
// per element. Judged on `body` as transposedAxis is; returns the block width (a divisor of the
// axis of at least 4 and at most a vector), or 0 when the stage is not such a permutation.
int64_t permutedLastAxisBlock(const te::ComputeOp& c, const te::Expr& body, int64_t lanes) {
  if (!c.reduceAxes().empty() || c.axes.empty()) return 0;
  const te::IterVar& last = c.axes.back();
  bool permuted = false, arithmetic = false;
  te::visitAll(body, [&](const te::Expr& e) {
    if (const te::TensorRead* read = e.as<te::TensorRead>())
      for (const te::Expr& idx : read->indices) permuted |= !te::linearCoefficient(idx, last.var.get()).has_value();
    if (e.as<te::Unary>()) arithmetic = true;
  });
  if (!permuted || arithmetic) return 0;
  for (int64_t w = std::min(lanes, last.extent); w >= 4; --w)
    if (last.extent % w == 0) return w;
  return 0;
}

void permutedStage(std::vector<Step>& steps, const te::ComputeOp& c, int64_t block, const std::string& name,
                   const DefaultScheduleOptions& opt) {
  const te::IterVar& last = c.axes.back();
  std::vector<std::pair<std::string, int64_t>> outer;
  for (size_t d = 0; d + 1 < c.axes.size(); ++d) outer.push_back({c.axes[d].name(), c.axes[d].extent});
  std::string inner = last.name();
  if (block < last.extent) {
    steps.push_back(SplitStep{name, last.name(), last.extent, {block}, true});
    outer.push_back({last.name() + ".0", last.extent / block});
    inner = last.name() + ".1";
  }
  std::string par = fuseOuter(steps, name, parallelPrefix(outer, opt.min_parallel));
  if (!par.empty()) steps.push_back(AnnotationStep{name, par, IterAnnotation::Parallel});
  steps.push_back(AnnotationStep{name, inner, IterAnnotation::Unroll});
}

// A transpose in square blocks of a vector's length: inside a block, rows of contiguous writes
// whose reads advance through a few input rows that stay in L1; both block loops unrolled into
// scalar moves (vector gathers or scatters are slower). mobilenet_v2's NCHW -> NHWC input
// 48 -> 21 us, a 12 x 128 x 64 attention transpose 23 -> 14 us (Zen 4, 2 threads).
void transposeStage(std::vector<Step>& steps, const te::ComputeOp& c, int a, const std::string& name,
                    const DefaultScheduleOptions& opt) {
  const int64_t block = opt.target.lanes();
  const te::IterVar& last = c.axes.back();
  const te::IterVar& col = c.axes[a];
  std::vector<std::pair<std::string, int64_t>> outer;
  std::vector<std::string> inner;
  auto blocked = [&](const te::IterVar& iv) {
    if (iv.extent <= block) {
      inner.push_back(iv.name());
      return;
    }
    steps.push_back(SplitStep{name, iv.name(), iv.extent, {block}, true});
    outer.push_back({iv.name() + ".0", (iv.extent + block - 1) / block});
    inner.push_back(iv.name() + ".1");
  };
  for (int d = 0; d + 1 < static_cast<int>(c.axes.size()); ++d)
    if (d != a) outer.push_back({c.axes[d].name(), c.axes[d].extent});
  blocked(col);
  blocked(last);
  std::vector<std::string> order;
  for (const auto& o : outer) order.push_back(o.first);
  order.insert(order.end(), inner.begin(), inner.end());
  steps.push_back(ReorderStep{name, order});
  std::string par = fuseOuter(steps, name, parallelPrefix(outer, opt.min_parallel));
  if (!par.empty()) steps.push_back(AnnotationStep{name, par, IterAnnotation::Parallel});
  for (const std::string& loop : inner) steps.push_back(AnnotationStep{name, loop, IterAnnotation::Unroll});
}

// Parallel outer loops and a vectorized innermost loop (split by the vector width), the
// reduction loops in between.
void plainStage(std::vector<Step>& steps, const te::Operation& op, const DefaultScheduleOptions& opt) {
  const te::ComputeOp& c = op.compute();
  const std::string& name = op.name();
  const te::IterVar& last = c.axes.back();
  const int64_t vector_lanes = opt.target.lanes();
  std::vector<std::pair<std::string, int64_t>> outer;
  for (size_t d = 0; d + 1 < c.axes.size(); ++d) outer.push_back({c.axes[d].name(), c.axes[d].extent});
  std::string vec;
  std::vector<std::string> order;
  if (last.extent > vector_lanes) {
    steps.push_back(SplitStep{name, last.name(), last.extent, {vector_lanes}, true});
    outer.push_back({last.name() + ".0", (last.extent + vector_lanes - 1) / vector_lanes});
    vec = last.name() + ".1";
  } else if (last.extent > 1) {
    vec = last.name();
  } else {
    outer.push_back({last.name(), 1});
  }
  for (const auto& o : outer) order.push_back(o.first);
  for (const te::IterVar& iv : c.reduceAxes()) order.push_back(iv.name());
  if (!vec.empty()) order.push_back(vec);
  if (!c.reduceAxes().empty() || vec != last.name()) steps.push_back(ReorderStep{name, order});
  std::string par = fuseOuter(steps, name, parallelPrefix(outer, opt.min_parallel));
  if (!par.empty()) steps.push_back(AnnotationStep{name, par, IterAnnotation::Parallel});
  if (!vec.empty()) steps.push_back(AnnotationStep{name, vec, IterAnnotation::Vectorize});
}

// Elementwise / injective stage, or a reduction too small to tile: parallel outer loops and a
// vectorized innermost loop (a layout change in transpose blocks).
void simpleStage(std::vector<Step>& steps, const te::ComputeDAG& dag, int stage, const std::vector<bool>& inlined,
                 const DefaultScheduleOptions& opt) {
  const te::Operation& op = dag.op(stage);
  const te::ComputeOp& c = op.compute();
  const std::string& name = op.name();
  if (c.reduceAxes().empty() && !c.axes.empty()) {
    // The body with the inlined stages substituted, simplified within the axes' bounds: a
    // reshape's floordiv/floormod of a flat index fold away where the shapes line up (BERT's head
    // split), leaving linear reads.
    te::VarBounds bounds;
    for (const te::IterVar& iv : c.axes) bounds[iv.var.get()] = te::IntBound::range(0, iv.extent);
    te::Expr body = te::simplify(expandStages(dag, stage, [&](int p) { return static_cast<bool>(inlined[p]); }), bounds);
    if (int a = costlyPerElement(op) ? -1 : transposedAxis(c, body); a >= 0) {
      transposeStage(steps, c, a, name, opt);
      return;
    }
    if (int64_t block = permutedLastAxisBlock(c, body, opt.target.lanes()); block > 0) {
      permutedStage(steps, c, block, name, opt);
      return;
    }
  }
  plainStage(steps, op, opt);
}

// The Winograd input transform [a, a, P, C]: per tile (and block of channels, in parallel) all
// a x a outputs with the transform's loops unrolled, so its coefficient selects fold and the
// tile's input loads are shared; channels vectorized.
void winogradInputStage(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& name,
                        const DefaultScheduleOptions& opt) {
  const int64_t lanes = opt.target.lanes();
  const std::string eps = c.axes[0].name(), nu = c.axes[1].name(), p = c.axes[2].name(), ci = c.axes[3].name();
  int64_t C = c.axes[3].extent;
  std::vector<std::string> order = {p};
  std::string vec = ci;
  int64_t blocks = 1;
  if (C > lanes) {
    steps.push_back(SplitStep{name, ci, C, {lanes}, true});
    order.push_back(ci + ".0");
    vec = ci + ".1";
    blocks = (C + lanes - 1) / lanes;
  }
  order.insert(order.end(), {eps, nu, vec});
  steps.push_back(ReorderStep{name, order});
  std::string par = p;
  if (blocks > 1) {
    steps.push_back(FuseStep{name, {p, ci + ".0"}});
    par = p + "@" + ci + ".0@";
  }
  steps.push_back(AnnotationStep{name, par, IterAnnotation::Parallel});
  steps.push_back(AnnotationStep{name, eps, IterAnnotation::Unroll});
  steps.push_back(AnnotationStep{name, nu, IterAnnotation::Unroll});
  steps.push_back(AnnotationStep{name, vec, IterAnnotation::Vectorize});
}

// The stage computing the Winograd output transform [N, OH, OW, K] (with its epilogue inlined):
// m x m output tiles with their rows and columns unrolled (the transform's selects on the
// position in the tile fold), channels vectorized, tiles in parallel.
void winogradOutputStage(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& name, int64_t m,
                         const DefaultScheduleOptions& opt) {
  const int64_t lanes = opt.target.lanes();
  const std::string nn = c.axes[0].name(), yy = c.axes[1].name(), xx = c.axes[2].name(), ff = c.axes[3].name();
  int64_t K = c.axes[3].extent;
  steps.push_back(SplitStep{name, yy, c.axes[1].extent, {m}, true});
  steps.push_back(SplitStep{name, xx, c.axes[2].extent, {m}, true});
  std::vector<std::string> outer = {nn, yy + ".0", xx + ".0"};
  std::string vec = ff;
  if (K > lanes) {
    steps.push_back(SplitStep{name, ff, K, {lanes}, true});
    outer.push_back(ff + ".0");
    vec = ff + ".1";
  }
  std::vector<std::string> order = outer;
  order.insert(order.end(), {yy + ".1", xx + ".1", vec});
  steps.push_back(ReorderStep{name, order});
  steps.push_back(FuseStep{name, outer});
  std::string par;
  for (const std::string& o : outer) par += o + "@";
  steps.push_back(AnnotationStep{name, par, IterAnnotation::Parallel});
  steps.push_back(AnnotationStep{name, yy + ".1", IterAnnotation::Unroll});
  steps.push_back(AnnotationStep{name, xx + ".1", IterAnnotation::Unroll});
  steps.push_back(AnnotationStep{name, vec, IterAnnotation::Vectorize});
}

// For every op tagged OpTag::WinogradOutput: the stage that computes it once single-consumer
// element-wise stages are inlined (itself, or the end of its epilogue chain), with its tile m.
std::map<int, int64_t> winogradOutputStages(const te::ComputeDAG& dag, const std::vector<bool>& inlined) {
  std::map<int, int64_t> out;
  for (int i = 0; i < dag.numOps(); ++i) {
    const te::Operation& op = dag.op(i);
    if (op.tag() != te::OpTag::WinogradOutput || !op.isCompute()) continue;
    int cur = i;
    while (inlined[cur] && dag.consumers(cur).size() == 1) cur = dag.consumers(cur)[0];
    int64_t a = 0;
    for (int p : dag.producers(i)) a = dag.op(p).shape().empty() ? 0 : dag.op(p).shape()[0];
    const te::Operation& s = dag.op(cur);
    if (a > 2 && !inlined[cur] && s.isCompute() && s.compute().axes.size() == 4 && s.shape() == op.shape())
      out[cur] = a - 2;
  }
  return out;
}

}  // namespace

DefaultScheduleOptions defaultScheduleOptions(const Target& target, Baseline baseline) {
  DefaultScheduleOptions o;
  o.target = target;
  o.baseline = baseline;
  o.min_parallel = std::max<int64_t>(64, 16 * target.cores);
  return o;
}

std::vector<Step> defaultSchedule(const te::ComputeDAG& dag, const DefaultScheduleOptions& opt) {
  std::vector<Step> steps;
  std::vector<bool> inlined(dag.numOps(), false);
  // Inline elementwise/injective stages feeding one consumer, except padding feeding a large
  // reduction with a broadcast operand: padding stays a stage of its own so the reduction's inner
  // loop reads without conditions. A depthwise convolution reads each input only about as often
  // as it has taps, so copying the padded input would cost more than the conditions. A costly
  // stage that an element-wise consumer broadcasts (a squeeze-excitation gate sigmoid(conv)
  // times the feature map, a layer norm's 1/sqrt(var)) stays a stage too: inlined, it would be
  // recomputed for every element it is broadcast to (broadcastBy).
  for (int i = 0; i < dag.numOps(); ++i) {
    const te::Operation& op = dag.op(i);
    if (!op.isCompute() || dag.isOutput(i) || op.compute().reduce()) continue;
    if (dag.consumers(i).size() != 1) continue;
    const te::Operation& consumer = dag.op(dag.consumers(i)[0]);
    if (opt.baseline == Baseline::Strong && consumer.isCompute() && !consumer.compute().reduce() &&
        broadcastBy(consumer.compute(), op))
      continue;
    if (opt.baseline == Baseline::Strong && op.tag() == te::OpTag::Pad) {
      if (consumer.isCompute() && consumer.compute().reduce() && reduceLength(consumer.compute()) >= kMinTiledReduce &&
          hasBroadcastAxis(consumer.compute(), opt.target.lanes()))
        continue;
    }
    steps.push_back(ComputeInlineStep{op.name()});
    inlined[i] = true;
  }
  if (opt.baseline == Baseline::Basic) {
    for (int i = 0; i < dag.numOps(); ++i)
      if (dag.op(i).isCompute() && !inlined[i] && !dag.op(i).compute().axes.empty()) plainStage(steps, dag.op(i), opt);
    return steps;
  }
  std::vector<bool> done(dag.numOps(), false);
  std::map<int, int64_t> winograd_out = winogradOutputStages(dag, inlined);
  for (int i = 0; i < dag.numOps(); ++i) {
    const te::Operation& op = dag.op(i);
    if (!op.isCompute() || inlined[i] || done[i]) continue;
    const te::ComputeOp& c = op.compute();
    if (wholeReductionFits(c, opt.target.lanes())) {
      std::vector<Step> tried = steps;
      wholeReduction(tried, c, op.name(), opt);
      auto dagp = std::make_shared<const te::ComputeDAG>(dag);
      if (State::replay(dagp, tried).ok()) steps = std::move(tried);
      continue;
    }
    if (c.axes.empty()) continue;
    if (op.tag() == te::OpTag::WinogradInput && c.axes.size() == 4) {
      winogradInputStage(steps, c, op.name(), opt);
      continue;
    }
    if (auto w = winograd_out.find(i); w != winograd_out.end()) {
      winogradOutputStage(steps, c, op.name(), w->second, opt);
      continue;
    }
    int64_t space = 1;
    for (const te::IterVar& iv : c.axes) space *= iv.extent;
    if (rowReductionFits(c, opt.target.lanes())) {
      rowReduction(steps, c, op.name(), opt);
    } else if (tiledReductionFits(c, opt.target.lanes()) && space >= 64) {
      // Without an element-wise consumer of its shape (an output, or a dense layer feeding a
      // reshape/transpose) the tile is written back by a cache-write copy.
      int e = dag.isOutput(i) ? -1 : elementwiseConsumer(dag, i, inlined);
      tiledReduction(steps, dag, i, e, opt);
      if (e >= 0) done[e] = true;
    } else {
      simpleStage(steps, dag, i, inlined, opt);
    }
  }
  return steps;
}

bool shortReduction(const Target& t, int64_t reduce_len, int64_t block_lanes) {
  return reduce_len * block_lanes * 4 <= t.l1d_bytes / 2;
}

}  // namespace ttune::schedule
