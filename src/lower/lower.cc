#include "lower/lower.h"

#include <functional>
#include <unordered_map>

#include "lower/limit_unrolling.h"
#include "lower/register_tile_unroll.h"
#include "lower/vector_loops.h"
#include "schedule/bound.h"
#include "support/assert.h"
#include "te/arith.h"
#include "te/expr_functor.h"
#include "te/runtime_extents.h"

namespace ttune::lower {

using schedule::ComputeLocation;
using schedule::IterAnnotation;
using schedule::Stage;
using schedule::StageLoops;
using schedule::State;
using te::Expr;
using te::IntBound;
using te::Var;

namespace {

struct StageBuffer {
  te::BufferRef buffer;
  std::vector<int64_t> extents;  // per spatial dim (region extents)
  std::vector<int64_t> strides;
  std::vector<Expr> min;  // region start per spatial dim, set when emitted
};

struct Emitted {
  Stmt stmt;
  int64_t steps = 1;  // statements executed per run of the nest (for auto-unroll)
};

class Lowerer {
 public:
  Lowerer(const State& state, const LowerOptions& opt) : state_(state), dag_(state.dag()), opt_(opt) {}

  Expected<LoweredFunc> run(const std::string& name) {
    const auto& stages = state_.stages();
    bufs_.resize(stages.size());
    LoweredFunc f;
    f.name = name;
    f.size_params = dag_.sizeParams();
    for (const te::Var& p : f.size_params) size_bounds_[p.get()] = IntBound{0, IntBound::kPosInf};
    for (int i = 0; i < dag_.numOps(); ++i) {
      const Stage& st = stages[i];
      const te::Operation& op = dag_.op(i);
      int arg = dag_.argIndex(i);
      if (st.location == ComputeLocation::Inlined) continue;
      std::vector<int64_t> ext;
      if (st.location == ComputeLocation::At) {
        for (size_t d = 0; d < op.shape().size(); ++d) ext.push_back(st.region[d]);
      } else {
        ext = op.shape();
      }
      int64_t size = 1;
      for (int64_t e : ext) size *= e;
      te::MemScope scope =
          arg >= 0 ? te::MemScope::Arg
          : (st.location == ComputeLocation::At && size * te::dtypeBytes(op.dtype()) <= opt_.max_stack_bytes)
              ? te::MemScope::Local
              : te::MemScope::Global;
      StageBuffer& b = bufs_[i];
      b.buffer = std::make_shared<te::Buffer>(te::Buffer{op.name(), op.dtype(), size, scope});
      b.extents = ext;
      b.strides.assign(ext.size(), 1);
      // A tile computed inside another stage is private to it: lay it out in the order of the
      // stage's own loops (the dimension whose innermost loop runs innermost gets stride 1), so
      // a tile vectorized along any axis is stored contiguously.
      std::vector<int> order(ext.size());
      for (size_t d = 0; d < ext.size(); ++d) order[d] = static_cast<int>(d);
      if (st.location == ComputeLocation::At) {
        std::vector<int> inner = innermostLoopOf(st);
        std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return inner[x] < inner[y]; });
      }
      int64_t stride = 1;
      for (int k = static_cast<int>(order.size()) - 1; k >= 0; --k) {
        b.strides[order[k]] = stride;
        stride *= ext[order[k]];
      }
      if (st.location != ComputeLocation::At) b.min.assign(ext.size(), te::intImm(0));
    }
    for (const te::Tensor& t : dag_.tensors()) f.args.push_back(bufs_[dag_.opIndex(t.get())].buffer);

    std::vector<Stmt> body;
    std::vector<te::BufferRef> globals;
    for (int i = 0; i < dag_.numOps(); ++i) {
      const Stage& st = stages[i];
      if (st.is_placeholder || st.location != ComputeLocation::Root) continue;
      if (bufs_[i].buffer->scope == te::MemScope::Global) globals.push_back(bufs_[i].buffer);
      std::vector<Expr> mins, actual;
      std::vector<Expr> runtime = te::runtimeExtentsOf(dag_.op(i));
      for (size_t d = 0; d < st.root.size(); ++d) {
        mins.push_back(te::intImm(0));
        actual.push_back(extentOf(st.root[d].full_extent, runtime[d]));
      }
      TT_TRY(Emitted e, emitStage(i, mins, actual, size_bounds_));
      body.push_back(e.stmt);
    }
    Stmt s = makeSeq(std::move(body));
    for (auto it = globals.rbegin(); it != globals.rend(); ++it) s = makeAllocate(*it, s);
    f.body =
        limitUnrolling(unrollRegisterTileLoops(resolveVectorLoops(s)), opt_.max_unrolled_statements, opt_.vector_lanes);
    if (opt_.prefetch) f.body = prefetchNextBlocks(f.body, *opt_.prefetch);
    return f;
  }

 private:
  // For each spatial root axis of a stage: the position of the innermost leaf loop it depends
  // on (-1 when none).
  static std::vector<int> innermostLoopOf(const Stage& st) {
    std::vector<int> out;
    auto loops = schedule::buildStageLoops(st);
    for (size_t d = 0; d < st.root.size(); ++d) {
      if (st.root[d].kind != te::IterKind::Spatial) continue;
      int pos = -1;
      if (loops.ok())
        for (size_t p = 0; p < loops->leaf_vars.size(); ++p)
          if (te::usesVar(loops->root_rel[d], loops->leaf_vars[p].get())) pos = static_cast<int>(p);
      out.push_back(pos);
    }
    return out;
  }

  // The extent a root axis is computed to: its run-time extent when it has one, never past the
  // extent its buffers are laid out for (so a size out of range cannot write out of bounds).
  Expr extentOf(int64_t full_extent, const Expr& runtime) const {
    if (!runtime.defined()) return te::intImm(full_extent);
    return te::simplify(te::min(runtime, te::intImm(full_extent)), size_bounds_);
  }

  struct Guard {
    Expr rel;          // root axis offset inside the region (in leaf vars)
    Expr limit;        // must stay below this
    bool reduce;       // applies to the update only
    int deepest = -1;  // innermost leaf position it depends on
    bool linear = false;
    int64_t coef = 0;
    bool held = false;  // known to hold in the nest being emitted (a full-tile version)
  };

  struct Ctx {
    int si;
    const Stage* st;
    StageLoops loops;
    std::vector<Expr> root_value;  // absolute root axis values
    std::vector<Guard> guards;
    std::vector<Expr> outer_guards;  // conditions that hold for the whole nest or none of it
    te::VarBounds bounds;
    int first_reduce = -1;
    Stmt main_body, init_body;
  };

  Expected<Emitted> emitStage(int si, const std::vector<Expr>& mins, const std::vector<Expr>& actual,
                              const te::VarBounds& outer) {
    const Stage& st = state_.stages()[si];
    Ctx c;
    c.si = si;
    c.st = &st;
    TT_TRY(c.loops, schedule::buildStageLoops(st));
    c.bounds = outer;
    for (auto& [v, b] : c.loops.bounds) c.bounds[v] = b;
    auto addGuard = [&](const Expr& rel, const Expr& limit, int root_axis) {
      Guard g{rel, limit, st.root[root_axis].kind == te::IterKind::Reduce};
      for (size_t p = 0; p < c.loops.leaf_vars.size(); ++p)
        if (te::usesVar(g.rel, c.loops.leaf_vars[p].get())) g.deepest = static_cast<int>(p);
      if (g.deepest < 0) {  // no loop of this stage moves it: checked once around the nest
        if (!te::proveTrue(g.rel < g.limit, c.bounds)) c.outer_guards.push_back(g.rel < g.limit);
        return;
      }
      auto coef = te::linearCoefficient(g.rel, c.loops.leaf_vars[g.deepest].get());
      g.linear = coef.has_value() && *coef > 0;
      g.coef = coef.value_or(0);
      c.guards.push_back(g);
    };
    for (size_t d = 0; d < st.root.size(); ++d) {
      c.root_value.push_back(te::simplify(mins[d] + c.loops.root_rel[d], c.bounds));
      IntBound lim = te::constIntBound(actual[d], c.bounds);
      if (c.loops.rel_max[d] < lim.lo) continue;  // never overshoots
      addGuard(c.loops.root_rel[d], actual[d], static_cast<int>(d));
    }
    for (const schedule::InnerGuard& ig : c.loops.inner_guards) addGuard(ig.value, te::intImm(ig.limit), ig.root_axis);
    for (size_t p = 0; p < st.iters.size(); ++p)
      if (st.iters[p].kind == te::IterKind::Reduce) {
        c.first_reduce = static_cast<int>(p);
        break;
      }
    TT_TRY(Emitted e, emitLoops(c, 0, false));
    for (const Expr& g : c.outer_guards) e.stmt = makeIf(g, e.stmt);
    return e;
  }

  // Flat index of buffer `b` for absolute indices `idx`.
  Expr flatIndex(const StageBuffer& b, const std::vector<Expr>& idx, const te::VarBounds& bounds) {
    Expr off = te::intImm(0);
    for (size_t d = 0; d < idx.size(); ++d) {
      TT_ASSERT(d < b.min.size() && b.min[d].defined(), "read of " + b.buffer->name + " before its region is known");
      off = off + (idx[d] - b.min[d]) * te::intImm(b.strides[d]);
    }
    return te::simplify(off, bounds);
  }

  // The value stored by the stage's innermost statement (reads turned into buffer loads).
  Expr bodyValue(Ctx& c, Expr* cond_out) {
    const te::ComputeOp& op = dag_.op(c.si).compute();
    Expr body = schedule::expandInlined(state_, c.si);
    te::VarMap<Expr> sub;
    size_t k = 0;
    for (const te::IterVar& iv : op.axes) sub[iv.var.get()] = c.root_value[k++];
    for (const te::IterVar& iv : op.reduceAxes()) sub[iv.var.get()] = c.root_value[k++];
    // Loads of one element recur: a Winograd transform reads each of its tile's elements in every
    // arm of its select chains before they fold. expandInlined shares structurally equal reads,
    // so each element's flat index is built once (keyed by the read's node) and its load node is
    // shared. Substitution and the read rewrite are one traversal.
    std::unordered_map<const te::ExprNode*, Expr> loads;  // nodes of `body`, alive throughout
    std::function<Expr(const Expr&)> convert = [&](const Expr& e) -> Expr {
      if (const te::VarRef* v = e.as<te::VarRef>()) {
        auto it = sub.find(v->var.get());
        return it == sub.end() ? e : it->second;
      }
      const te::TensorRead* r = e.as<te::TensorRead>();
      if (!r) return te::mapChildren(e, convert);
      if (auto it = loads.find(e.get()); it != loads.end()) return it->second;
      std::vector<Expr> idx;
      for (const Expr& i : r->indices) idx.push_back(convert(i));
      int p = dag_.opIndex(r->tensor.get());
      Expr load = te::bufferLoad(bufs_[p].buffer, flatIndex(bufs_[p], idx, c.bounds));
      loads.emplace(e.get(), load);
      return load;
    };
    if (const te::Reduce* red = body.as<te::Reduce>()) {
      if (red->cond.defined()) *cond_out = te::simplify(convert(red->cond), c.bounds);
      return te::simplify(convert(red->source), c.bounds);
    }
    return te::simplify(convert(body), c.bounds);
  }

  Expr storeIndex(Ctx& c) {
    const StageBuffer& b = bufs_[c.si];
    Expr off = te::intImm(0);
    for (size_t d = 0; d < b.extents.size(); ++d) off = off + c.loops.root_rel[d] * te::intImm(b.strides[d]);
    return te::simplify(off, c.bounds);
  }

  Stmt innermost(Ctx& c, bool init) {
    const te::Operation& op = dag_.op(c.si);
    const te::ComputeOp& comp = op.compute();
    const te::BufferRef& buf = bufs_[c.si].buffer;
    Expr idx = storeIndex(c);
    const te::Reduce* red = comp.reduce();
    if (init) return makeStore(buf, idx, te::reduceIdentity(red->kind, op.dtype()));
    Expr cond;
    Expr v = bodyValue(c, &cond);
    if (!red) return makeStore(buf, idx, v);
    Expr old = te::bufferLoad(buf, idx);
    Expr combined;
    switch (red->kind) {
      case te::ReduceKind::Sum:
        combined = old + v;
        break;
      case te::ReduceKind::Max:
        combined = te::max(old, v);
        break;
      case te::ReduceKind::Min:
        combined = te::min(old, v);
        break;
      case te::ReduceKind::Prod:
        combined = old * v;
        break;
    }
    Stmt s = makeStore(buf, idx, combined);
    if (cond.defined() && !te::proveTrue(cond, c.bounds)) s = makeIf(cond, s);
    return s;
  }

  // Emits leaf loops from position `pos` inward. In init mode only spatial loops are emitted and
  // the innermost statement writes the reduction identity.
  Expected<Emitted> emitLoops(Ctx& c, size_t pos, bool init) {
    const Stage& st = *c.st;
    if (pos == st.iters.size()) return Emitted{innermost(c, init), 1};
    if (!init && static_cast<int>(pos) == c.first_reduce) {
      TT_TRY(Emitted in, emitLoops(c, pos, true));
      TT_TRY(Emitted up, emitMain(c, pos));
      return Emitted{makeSeq({in.stmt, up.stmt}), in.steps + up.steps};
    }
    if (init && st.iters[pos].kind == te::IterKind::Reduce) return emitLoops(c, pos + 1, true);
    return init ? emitLoop(c, pos, true, {}) : emitMain(c, pos);
  }

  Expected<Emitted> emitMain(Ctx& c, size_t pos) {
    // Stages computed at this loop, emitted at the start of its body.
    std::vector<Stmt> attached;
    std::vector<te::BufferRef> heap;
    int64_t steps = 0;
    const Stage& st = *c.st;
    for (int a : state_.attachedAt(st.op, st.iters[pos].name)) {
      TT_TRY(auto regions, schedule::computeRegion(state_, a, c.si, c.loops, c.root_value, static_cast<int>(pos),
                                                   fixedBounds(c, pos)));
      const Stage& ast = state_.stages()[a];
      std::vector<Expr> mins, actual;
      std::vector<Expr> runtime = te::runtimeExtentsOf(dag_.op(a));
      StageBuffer& b = bufs_[a];
      b.min.clear();
      for (size_t d = 0; d < regions.size(); ++d) {
        const schedule::AxisRegion& r = regions[d];
        b.min.push_back(r.min);
        mins.push_back(r.min);
        // Past a run-time extent the producer holds nothing any consumer needs.
        actual.push_back(runtime[d].defined()
                             ? te::simplify(te::min(r.actual, extentOf(ast.root[d].full_extent, runtime[d]) - r.min),
                                            fixedBounds(c, pos))
                             : r.actual);
      }
      for (size_t d = regions.size(); d < ast.root.size(); ++d) {  // reduce axes: full
        mins.push_back(te::intImm(0));
        actual.push_back(extentOf(ast.root[d].full_extent, runtime[d]));
      }
      TT_TRY(Emitted e, emitStage(a, mins, actual, fixedBounds(c, pos)));
      // A stack tile's scope may end with its producer (it lives for the whole function); a
      // heap buffer is freed at the end of its scope, so that scope must cover the consumer too.
      Stmt s = e.stmt;
      if (b.buffer->scope == te::MemScope::Local)
        s = makeAllocate(b.buffer, s);
      else if (b.buffer->scope == te::MemScope::Global)
        heap.push_back(b.buffer);
      attached.push_back(s);
      steps += e.steps;
    }
    return emitLoop(c, pos, false, std::move(attached), steps, std::move(heap));
  }

  te::VarBounds fixedBounds(const Ctx& c, size_t pos) {
    te::VarBounds b;
    for (auto& [v, r] : c.bounds) b[v] = r;
    // Loops inside pos are not fixed: drop them so regions treat them as ranging.
    for (size_t p = pos + 1; p < c.loops.leaf_vars.size(); ++p) b.erase(c.loops.leaf_vars[p].get());
    return b;
  }

  // True when a guard's limit follows a size parameter (te/runtime_extents.h). Only such guards
  // get the treatment below: a fixed-size kernel's code stays as it was (its limits may be
  // expressions too, at the clamped edges of an attached stage's region).
  bool sizedLimit(const Expr& limit) const {
    if (size_bounds_.empty()) return false;
    bool found = false;
    te::visitAll(limit, [&](const Expr& e) {
      if (const te::VarRef* r = e.as<te::VarRef>()) found |= size_bounds_.count(r->var.get()) > 0;
    });
    return found;
  }

  // Guards on a run-time limit put tail code (loops of run-time extent, ifs) inside a nest even
  // where the whole nest is inside the limit: at a kernel's largest size every tile is full, yet
  // a register tile's loops would stay of run-time extent. So the body of loop `pos` becomes
  // `if (those guards hold for every inner iteration) <body without them> else <body>` for the
  // guards whose part outside `pos` depends on pos's variable (fixed-size kernels: unchanged).
  Expected<Stmt> fullTileVersion(Ctx& c, size_t pos, bool init, const std::vector<Stmt>& attached, Stmt body) {
    const te::VarNode* v = c.loops.leaf_vars[pos].get();
    // Inside a vectorized or unrolled loop the test would run per lane or per copy.
    for (size_t p = 0; p <= pos; ++p)
      if (c.st->iters[p].annotation == IterAnnotation::Vectorize || c.st->iters[p].annotation == IterAnnotation::Unroll)
        return body;
    std::vector<size_t> held;
    Expr cond;
    for (size_t gi = 0; gi < c.guards.size(); ++gi) {
      const Guard& g = c.guards[gi];
      if (g.held || g.deepest <= static_cast<int>(pos) || (init && g.reduce) || !sizedLimit(g.limit)) continue;
      te::LinearForm form = te::toLinear(g.rel);
      te::LinearForm outer;
      outer.constant = form.constant;
      bool bounded = true;
      for (const auto& [atom, k] : form.terms) {
        bool inner = false;
        for (size_t p = pos + 1; p < c.loops.leaf_vars.size(); ++p)
          inner |= te::usesVar(atom, c.loops.leaf_vars[p].get());
        if (!inner) {
          outer.terms.emplace_back(atom, k);
          continue;
        }
        IntBound ab = te::constIntBound(atom, c.bounds);
        int64_t end = k > 0 ? ab.hi : ab.lo;
        bounded &= end != IntBound::kNegInf && end != IntBound::kPosInf;
        if (bounded) outer.constant += k * end;
      }
      Expr rest = te::fromLinear(outer);
      if (!bounded || !te::usesVar(rest, v)) continue;
      held.push_back(gi);
      Expr holds = rest < g.limit;
      cond = cond.defined() ? (cond && holds) : holds;
    }
    if (held.empty()) return body;
    for (size_t gi : held) c.guards[gi].held = true;
    auto fast = emitLoops(c, pos + 1, init);
    for (size_t gi : held) c.guards[gi].held = false;
    if (!fast.ok()) return Unexpected(fast.reason());
    return makeIf(te::simplify(cond, c.bounds), makeSeq({makeSeq(attached), fast->stmt}), body);
  }

  // A guard on a run-time limit also bounds the loops outside its innermost one: an iteration of
  // loop `pos` in which even the smallest value of the inner loops overshoots has no work. Without
  // it a kernel run far below its largest size would walk every empty tile, and its parallel loop
  // would hand threads iterations with nothing to do. The bound on pos's variable v, when the
  // guard's offset is linear in v (or in v / c, v being the outermost part of a fuse) with a
  // positive coefficient and the inner loops' terms are bounded below; nullopt otherwise.
  std::optional<Expr> outerBound(const Ctx& c, const Guard& g, size_t pos) const {
    const te::VarNode* v = c.loops.leaf_vars[pos].get();
    auto usesInner = [&](const Expr& e) {
      for (size_t p = pos + 1; p < c.loops.leaf_vars.size(); ++p)
        if (te::usesVar(e, c.loops.leaf_vars[p].get())) return true;
      return false;
    };
    te::LinearForm form = te::toLinear(g.rel);
    te::LinearForm rest;
    rest.constant = form.constant;
    int64_t coef = 0, div = 1;
    for (const auto& [atom, k] : form.terms) {
      if (te::usesVar(atom, v)) {
        if (coef != 0 || k <= 0 || usesInner(atom)) return std::nullopt;
        const te::Binary* b = atom.as<te::Binary>();
        int64_t d = 0;
        if (const te::VarRef* r = atom.as<te::VarRef>(); r && r->var.get() == v) {
          d = 1;
        } else if (b && b->op == te::BinOp::FloorDiv && b->a.as<te::VarRef>() && te::isConstInt(b->b, &d) && d > 0) {
          if (b->a.as<te::VarRef>()->var.get() != v) return std::nullopt;
        } else {
          return std::nullopt;
        }
        coef = k;
        div = d;
      } else if (usesInner(atom)) {
        IntBound ab = te::constIntBound(atom, c.bounds);
        int64_t end = k > 0 ? ab.lo : ab.hi;
        if (end == IntBound::kNegInf || end == IntBound::kPosInf) return std::nullopt;
        rest.constant += k * end;
      } else {
        rest.terms.emplace_back(atom, k);
      }
    }
    if (coef == 0) return std::nullopt;
    // coef * (v / div) + rest < limit  <=>  v / div < ceil((limit - rest) / coef)
    Expr quotient = (g.limit - te::fromLinear(rest) + te::intImm(coef - 1)) / te::intImm(coef);
    return te::simplify(quotient * te::intImm(div), c.bounds);
  }

  Expected<Emitted> emitLoop(Ctx& c, size_t pos, bool init, std::vector<Stmt> attached, int64_t attached_steps = 0,
                             std::vector<te::BufferRef> heap = {}) {
    const Stage& st = *c.st;
    const schedule::Iterator& it = st.iters[pos];
    Var v = c.loops.leaf_vars[pos];
    int64_t max_ext = *it.extent;
    TT_TRY(Emitted inner, emitLoops(c, pos + 1, init));
    Stmt body = makeSeq({makeSeq(attached), inner.stmt});
    TT_TRY(body, fullTileVersion(c, pos, init, attached, body));
    for (auto b = heap.rbegin(); b != heap.rend(); ++b) body = makeAllocate(*b, body);
    int64_t inner_steps = inner.steps + attached_steps;

    // Guards whose innermost loop is this one: tighten the bound when linear, else an if.
    Expr extent = te::intImm(max_ext);
    for (const Guard& g : c.guards) {
      if (g.held || g.deepest != static_cast<int>(pos) || (init && g.reduce)) continue;
      if (g.linear) {
        // rel = rest + coef*v < limit  <=>  v < ceil((limit - rest) / coef)
        Expr rest = te::simplify(g.rel - Expr(v) * te::intImm(g.coef), c.bounds);
        Expr bound = (g.limit - rest + te::intImm(g.coef - 1)) / te::intImm(g.coef);
        extent = te::simplify(te::min(extent, te::max(bound, te::intImm(0))), c.bounds);
      } else {
        body = makeIf(g.rel < g.limit, body);
      }
    }
    for (const Guard& g : c.guards) {
      // Non-linear guards of this loop keep their `if`; the bound only skips whole iterations.
      bool here = g.deepest == static_cast<int>(pos) && !g.linear;
      if (g.held || (g.deepest <= static_cast<int>(pos) && !here) || (init && g.reduce) || !sizedLimit(g.limit))
        continue;
      if (std::optional<Expr> bound = outerBound(c, g, pos))
        extent = te::simplify(te::min(extent, te::max(*bound, te::intImm(0))), c.bounds);
    }
    ForKind kind = ForKind::Serial;
    switch (it.annotation) {
      case IterAnnotation::Parallel:
        kind = init ? ForKind::Serial : ForKind::Parallel;
        break;
      case IterAnnotation::Vectorize:
        kind = ForKind::Vectorized;
        break;
      case IterAnnotation::Unroll:
        kind = max_ext * inner_steps <= opt_.max_explicit_unroll ? ForKind::Unrolled : ForKind::Serial;
        break;
      case IterAnnotation::None:
        if (st.auto_unroll_max_step > 0 && max_ext * inner_steps <= st.auto_unroll_max_step) kind = ForKind::Unrolled;
        break;
    }
    if (init && it.annotation == IterAnnotation::Parallel) {
      // The init nest of a reduction sits inside the parallel loop's iteration unless this loop is
      // outside the first reduction loop; then it is part of the parallel loop itself.
      kind = ForKind::Parallel;
    }
    int64_t steps = kind == ForKind::Vectorized ? inner_steps : max_ext * inner_steps;
    if (max_ext == 1) {  // at most one iteration: no loop (and no parallel dispatch)
      Stmt one = makeLet(v, te::intImm(0), body);
      if (!te::isIntValue(extent, 1)) one = makeIf(extent > te::intImm(0), one);
      return Emitted{one, steps};
    }
    return Emitted{makeFor(v, extent, max_ext, kind, body), steps};
  }

  const State& state_;
  const te::ComputeDAG& dag_;
  LowerOptions opt_;
  std::vector<StageBuffer> bufs_;
  te::VarBounds size_bounds_;  // the DAG's size parameters
};

}  // namespace

LowerOptions lowerOptionsFor(const schedule::Target& target) {
  LowerOptions lo;
  lo.vector_lanes = target.lanes();
  // Measured on Zen 5 (lower/prefetch.h): AVX2 code gains, AVX-512 code does not beyond the
  // run-to-run spread (and loses 5% with weights far beyond L3), so it stays off there; other
  // instruction sets are unmeasured.
  if (target.isa == schedule::Isa::Avx2) {
    PrefetchOptions p;
    // The current block and the next one share L2 with the activations the passes read.
    p.max_block_bytes = target.l2_bytes / 4;
    lo.prefetch = p;
  }
  return lo;
}

Expected<LoweredFunc> lower(const State& state, const std::string& name, const LowerOptions& options) {
  if (state.boundsInferred()) return Lowerer(state, options).run(name);
  State s = state;
  TT_TRY_STATUS(s.inferBounds());
  return Lowerer(s, options).run(name);
}

}  // namespace ttune::lower
