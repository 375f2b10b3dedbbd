#include "schedule/bound.h"

#include <functional>
#include <unordered_map>

#include "support/assert.h"
#include "support/keyed_memo.h"
#include "support/overload.h"
#include "te/expr_functor.h"

namespace ttune::schedule {

using te::Expr;
using te::IntBound;
using te::Var;

Expected<StageLoops> buildStageLoops(const Stage& stage) {
  StageLoops out;
  std::unordered_map<std::string, Expr> value;
  std::unordered_map<std::string, int64_t> extent;
  for (const Iterator& it : stage.iters) {
    if (!it.extent) return Unexpected("iterator " + it.name + " of stage " + stage.op + " has an unknown extent");
    Var v(it.name);
    out.leaf_vars.push_back(v);
    value[it.name] = v;
    extent[it.name] = *it.extent;
    out.bounds[v.get()] = IntBound::range(0, *it.extent);
  }
  // Intermediate extents, recomputed forward from the region through the relations, noting the
  // iterators whose parts cover more than their extent and where that must be guarded.
  std::vector<std::string> overshoot;
  std::unordered_map<std::string, std::string> up;  // child -> the iterator a guard moves up to
  {
    std::unordered_map<std::string, int64_t> ext;
    for (size_t i = 0; i < stage.root.size(); ++i) ext[stage.root[i].name] = stage.region[i];
    for (const Relation& rel : stage.relations) {
      if (const SplitRelation* r = std::get_if<SplitRelation>(&rel)) {
        int64_t pe = ext.at(r->parent);
        int64_t rest = pe, prod = 1;
        for (size_t k = r->children.size() - 1; k >= 1; --k) {
          if (!r->factors[k - 1]) return Unexpected("stage " + stage.op + " has an unset split length on " + r->parent);
          int64_t f = *r->factors[k - 1];
          ext[r->children[k]] = std::min(f, rest);
          prod *= ext[r->children[k]];
          rest = (rest + f - 1) / f;
        }
        ext[r->children[0]] = rest;
        if (prod * rest > pe) overshoot.push_back(r->parent);
        // Overshooting the outermost part overshoots the parent: the parent's guard covers it.
        up[r->children[0]] = r->parent;
      } else {
        const FuseRelation& fr = std::get<FuseRelation>(rel);
        int64_t p = 1;
        for (const std::string& n : fr.parents) p *= ext.at(n);
        ext[fr.child] = p;
        up[fr.child] = fr.parents[0];
      }
    }
    for (auto& [k, v] : ext) extent.emplace(k, v);
  }
  // Walk relations backwards, expressing parents through their children.
  for (auto it = stage.relations.rbegin(); it != stage.relations.rend(); ++it) {
    std::visit(Overload{
                   [&](const SplitRelation& r) {
                     Expr v = value.at(r.children[0]);
                     for (size_t k = 1; k < r.children.size(); ++k)
                       v = v * te::intImm(*r.factors[k - 1]) + value.at(r.children[k]);
                     value[r.parent] = v;
                   },
                   [&](const FuseRelation& r) {
                     Expr f = value.at(r.child);
                     int64_t inner = 1;
                     for (size_t k = r.parents.size(); k-- > 0;) {
                       int64_t e = extent.at(r.parents[k]);
                       Expr q = inner == 1 ? f : f / te::intImm(inner);
                       value[r.parents[k]] = k == 0 ? q : q % te::intImm(e);
                       inner *= e;
                     }
                   },
               },
               *it);
  }
  // Root axis each iterator derives from (for the kind of its guards).
  std::unordered_map<std::string, int> root_of;
  for (size_t i = 0; i < stage.root.size(); ++i) root_of[stage.root[i].name] = static_cast<int>(i);
  for (const Relation& rel : stage.relations) {
    if (const SplitRelation* r = std::get_if<SplitRelation>(&rel)) {
      for (const std::string& c : r->children) root_of[c] = root_of.at(r->parent);
    } else {
      const FuseRelation& fr = std::get<FuseRelation>(rel);
      root_of[fr.child] = root_of.at(fr.parents[0]);
    }
  }
  std::vector<std::string> guarded;
  for (std::string node : overshoot) {
    for (auto it = up.find(node); it != up.end(); it = up.find(node)) node = it->second;
    if (root_of.count(node) && stage.root[root_of.at(node)].name == node) continue;  // root guard
    if (std::find(guarded.begin(), guarded.end(), node) != guarded.end()) continue;
    guarded.push_back(node);
    out.inner_guards.push_back(InnerGuard{te::simplify(value.at(node), out.bounds), extent.at(node), root_of.at(node)});
  }
  for (const RootAxis& a : stage.root) {
    Expr rel = te::simplify(value.at(a.name), out.bounds);
    out.root_rel.push_back(rel);
    IntBound b = te::constIntBound(rel, out.bounds);
    out.rel_max.push_back(b.hi);
  }
  return out;
}

namespace {

Expr expandInlinedUncached(const State& state, int stage) {
  return expandStages(state.dag(), stage,
                      [&](int p) { return state.stages()[p].location == ComputeLocation::Inlined; });
}

// e with structurally equal reads made one node. An expanded Winograd output transform reads
// each tile element in every arm of its select chains; with the reads shared, passes over the
// body (lowering's read-to-load conversion) can key their work by node.
Expr shareEqualReads(const Expr& e) {
  std::unordered_map<uint64_t, std::vector<Expr>> seen;
  std::function<Expr(const Expr&)> share = [&](const Expr& x) -> Expr {
    if (!x.as<te::TensorRead>()) return te::mapChildren(x, share);
    Expr r = te::mapChildren(x, share);  // reads nested in indices first
    auto& same_hash = seen[te::structuralHash(r)];
    for (const Expr& c : same_hash)
      if (te::structurallyEqual(c, r)) return c;
    same_hash.push_back(r);
    return r;
  };
  return share(e);
}

}  // namespace

te::Expr expandStages(const te::ComputeDAG& dag, int stage, const std::function<bool(int)>& inlined) {
  std::function<Expr(const Expr&)> expand = [&](const Expr& e) -> Expr {
    return te::rewriteReads(e, [&](const te::TensorRead& r, std::vector<Expr> idx) -> Expr {
      int p = dag.opIndex(r.tensor.get());
      TT_ASSERT(p >= 0, "read of a tensor outside the DAG: " + r.tensor.name());
      if (!inlined(p)) return r.tensor(idx);
      const te::ComputeOp& c = dag.op(p).compute();
      te::VarMap<Expr> sub;
      for (size_t d = 0; d < c.axes.size(); ++d) sub[c.axes[d].var.get()] = idx[d];
      return expand(te::substitute(c.body, sub));
    });
  };
  return expand(dag.op(stage).compute().body);
}

te::Expr expandInlined(const State& state, int stage) {
  // Memoized per DAG object, stage and set of inlined stages: lowering and bound inference
  // expand the same bodies for every state of a search task, and a fused Winograd output
  // transform expands to thousands of nodes.
  static KeyedMemo<Expr> memo(2048);
  std::string fields = std::to_string(stage) + ':';
  for (const Stage& st : state.stages()) fields += st.location == ComputeLocation::Inlined ? '1' : '0';
  return *memo.get(state.dagPtr(), fields,
                   [&]() -> Expected<Expr> { return shareEqualReads(expandInlinedUncached(state, stage)); });
}

namespace {

// A symbolic interval [lo, hi]; `full` when the expression could not be bounded.
struct SymInterval {
  Expr lo, hi;
  bool full = false;
};

class IntervalEval {
 public:
  explicit IntervalEval(const te::VarBounds& ranged) : ranged_(ranged) {}

  SymInterval eval(const Expr& e) {
    if (isPoint(e)) return {e, e};
    return std::visit(Overload{
                          [&](const te::VarRef& n) -> SymInterval {
                            const IntBound& b = ranged_.at(n.var.get());
                            return {te::intImm(b.lo), te::intImm(b.hi)};
                          },
                          [&](const te::Binary& n) -> SymInterval { return binary(n); },
                          [&](const te::Cast& n) -> SymInterval {
                            if (te::isInt(n.a.dtype())) return eval(n.a);
                            return {Expr(), Expr(), true};
                          },
                          [&](const te::Select& n) -> SymInterval {
                            SymInterval t = eval(n.t), f = eval(n.f);
                            if (t.full || f.full) return {Expr(), Expr(), true};
                            return {te::min(t.lo, f.lo), te::max(t.hi, f.hi)};
                          },
                          [&](const auto&) -> SymInterval {
                            return {Expr(), Expr(), true};
                          },
                      },
                      e.node().kind);
  }

 private:
  bool isPoint(const Expr& e) {
    bool point = true;
    te::visitAll(e, [&](const Expr& x) {
      if (const te::VarRef* v = x.as<te::VarRef>(); v && ranged_.count(v->var.get())) point = false;
      if (x.as<te::TensorRead>() || x.as<te::BufferLoad>()) point = false;
    });
    return point;
  }

  SymInterval binary(const te::Binary& n) {
    using te::BinOp;
    SymInterval a = eval(n.a), b = eval(n.b);
    if (a.full || b.full) return {Expr(), Expr(), true};
    int64_t c;
    switch (n.op) {
      case BinOp::Add:
        return {a.lo + b.lo, a.hi + b.hi};
      case BinOp::Sub:
        return {a.lo - b.hi, a.hi - b.lo};
      case BinOp::Mul:
        if (te::isConstInt(n.b, &c)) return c >= 0 ? SymInterval{a.lo * c, a.hi * c} : SymInterval{a.hi * c, a.lo * c};
        if (te::isConstInt(n.a, &c)) return c >= 0 ? SymInterval{b.lo * c, b.hi * c} : SymInterval{b.hi * c, b.lo * c};
        return {Expr(), Expr(), true};
      case BinOp::FloorDiv:
        if (te::isConstInt(n.b, &c) && c > 0) return {a.lo / te::intImm(c), a.hi / te::intImm(c)};
        return {Expr(), Expr(), true};
      case BinOp::FloorMod:
        if (te::isConstInt(n.b, &c) && c > 0) return {te::intImm(0), te::intImm(c - 1)};
        return {Expr(), Expr(), true};
      case BinOp::Min:
        return {te::min(a.lo, b.lo), te::min(a.hi, b.hi)};
      case BinOp::Max:
        return {te::max(a.lo, b.lo), te::max(a.hi, b.hi)};
      default:
        return {Expr(), Expr(), true};
    }
  }

  const te::VarBounds& ranged_;
};

}  // namespace

Expected<std::vector<AxisRegion>> computeRegion(const State& state, int producer, int consumer,
                                                const StageLoops& consumer_loops,
                                                const std::vector<Expr>& consumer_root, int attach_pos,
                                                const te::VarBounds& fixed_bounds) {
  const te::ComputeDAG& dag = state.dag();
  const te::Operation& pop = dag.op(producer);
  const te::Operation& cop = dag.op(consumer);
  const te::Shape& shape = pop.shape();
  size_t nd = shape.size();

  // Consumer op axis vars -> consumer root values.
  te::VarMap<Expr> sub;
  const te::ComputeOp& cc = cop.compute();
  size_t k = 0;
  for (const te::IterVar& iv : cc.axes) sub[iv.var.get()] = consumer_root[k++];
  for (const te::IterVar& iv : cc.reduceAxes()) sub[iv.var.get()] = consumer_root[k++];

  // Loops strictly inside the attach point range; the rest are fixed.
  te::VarBounds ranged;
  for (size_t i = static_cast<size_t>(attach_pos + 1); i < consumer_loops.leaf_vars.size(); ++i)
    ranged[consumer_loops.leaf_vars[i].get()] = consumer_loops.bounds.at(consumer_loops.leaf_vars[i].get());
  te::VarBounds all = fixed_bounds;
  for (auto& [v, b] : ranged) all[v] = b;

  Expr body = expandInlined(state, consumer);
  std::vector<std::vector<Expr>> reads;
  te::visitAll(body, [&](const Expr& e) {
    if (const te::TensorRead* r = e.as<te::TensorRead>(); r && r->tensor.get() == &pop) {
      std::vector<Expr> idx;
      for (const Expr& i : r->indices) idx.push_back(te::substitute(i, sub));
      reads.push_back(std::move(idx));
    }
  });
  if (reads.empty()) return Unexpected("stage " + cop.name() + " does not read " + pop.name());

  IntervalEval ev(ranged);
  std::vector<AxisRegion> out;
  for (size_t d = 0; d < nd; ++d) {
    Expr lo, hi;
    bool full = false;
    for (const auto& idx : reads) {
      SymInterval si = ev.eval(te::simplify(idx[d], all));
      if (si.full) {
        full = true;
        break;
      }
      lo = lo.defined() ? te::min(lo, si.lo) : si.lo;
      hi = hi.defined() ? te::max(hi, si.hi) : si.hi;
    }
    AxisRegion reg;
    if (!full) {
      lo = te::simplify(lo, all);
      hi = te::simplify(hi, all);
      Expr ext = te::simplify(hi - lo + 1, all);
      int64_t e;
      if (!te::isConstInt(ext, &e)) {
        IntBound b = te::constIntBound(ext, all);
        if (b.hi == IntBound::kPosInf)
          full = true;
        else
          e = b.hi;
      }
      if (!full) {
        e = std::max<int64_t>(1, std::min(e, shape[d]));
        IntBound lb = te::constIntBound(lo, all);
        bool low_ok = lb.lo >= 0;
        bool high_ok = lb.hi != IntBound::kPosInf && lb.hi + e <= shape[d];
        reg.min = low_ok ? lo : te::simplify(te::max(lo, te::intImm(0)), all);
        reg.extent = e;
        if (low_ok && high_ok) {
          reg.actual = te::intImm(e);
        } else {
          Expr end = te::min(lo + e, te::intImm(shape[d]));
          reg.actual = te::simplify(end - reg.min, all);
        }
      }
    }
    if (full) reg = AxisRegion{te::intImm(0), shape[d], te::intImm(shape[d])};
    out.push_back(std::move(reg));
  }
  return out;
}

}  // namespace ttune::schedule
