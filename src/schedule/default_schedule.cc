#include "schedule/default_schedule.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <memory>

#include "schedule/bound.h"
#include "schedule/default_schedule_internal.h"
#include "schedule/names.h"
#include "schedule/state.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::schedule {

namespace default_schedule_detail {

std::string fuseOuter(std::vector<Step>& steps, const std::string& stage, const std::vector<std::string>& outer) {
  if (outer.empty()) return "";
  if (outer.size() == 1) return outer[0];
  steps.push_back(FuseStep{stage, outer});
  return names::fused(outer);
}

std::vector<std::string> parallelPrefix(const std::vector<std::pair<std::string, int64_t>>& axes,
                                        int64_t min_parallel) {
  std::vector<std::string> out;
  int64_t par = 1;
  for (const auto& [name, ext] : axes) {
    if (par >= min_parallel) break;
    out.push_back(name);
    par *= ext;
  }
  return out;
}

}  // namespace default_schedule_detail

using namespace default_schedule_detail;

namespace {

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
    outer.push_back({names::splitPart(last.name(), 0), last.extent / block});
    inner = names::splitPart(last.name(), 1);
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
    outer.push_back({names::splitPart(iv.name(), 0), (iv.extent + block - 1) / block});
    inner.push_back(names::splitPart(iv.name(), 1));
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
    outer.push_back({names::splitPart(last.name(), 0), (last.extent + vector_lanes - 1) / vector_lanes});
    vec = names::splitPart(last.name(), 1);
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
    te::Expr body =
        te::simplify(expandStages(dag, stage, [&](int p) { return static_cast<bool>(inlined[p]); }), bounds);
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
    order.push_back(names::splitPart(ci, 0));
    vec = names::splitPart(ci, 1);
    blocks = (C + lanes - 1) / lanes;
  }
  order.insert(order.end(), {eps, nu, vec});
  steps.push_back(ReorderStep{name, order});
  std::string par = p;
  if (blocks > 1) {
    const std::vector<std::string> fused = {p, names::splitPart(ci, 0)};
    steps.push_back(FuseStep{name, fused});
    par = names::fused(fused);
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
  std::vector<std::string> outer = {nn, names::splitPart(yy, 0), names::splitPart(xx, 0)};
  std::string vec = ff;
  if (K > lanes) {
    steps.push_back(SplitStep{name, ff, K, {lanes}, true});
    outer.push_back(names::splitPart(ff, 0));
    vec = names::splitPart(ff, 1);
  }
  std::vector<std::string> order = outer;
  order.insert(order.end(), {names::splitPart(yy, 1), names::splitPart(xx, 1), vec});
  steps.push_back(ReorderStep{name, order});
  steps.push_back(FuseStep{name, outer});
  steps.push_back(AnnotationStep{name, names::fused(outer), IterAnnotation::Parallel});
  steps.push_back(AnnotationStep{name, names::splitPart(yy, 1), IterAnnotation::Unroll});
  steps.push_back(AnnotationStep{name, names::splitPart(xx, 1), IterAnnotation::Unroll});
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
