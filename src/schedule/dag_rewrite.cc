#include "schedule/dag_rewrite.h"

#include <functional>
#include <unordered_map>

#include "schedule/bound.h"
#include "schedule/names.h"
#include "support/assert.h"
#include "support/keyed_memo.h"
#include "te/expr_functor.h"

namespace ttune::schedule {

using te::ComputeDAG;
using te::Expr;
using te::Tensor;

namespace {

// Rebuilds every op of `dag` in order. `special(i, remap)` may return the tensor that replaces op
// i (remap rewrites reads of earlier ops); other ops are rebuilt only if a read changed.
ComputeDAG rebuild(const ComputeDAG& dag,
                   const std::function<Tensor(int, const std::function<Expr(const Expr&)>&)>& special) {
  std::unordered_map<const te::Operation*, Tensor> map;
  auto remap = [&](const Expr& e) {
    return te::rewriteReads(e, [&](const te::TensorRead& r, std::vector<Expr> idx) {
      auto it = map.find(r.tensor.get());
      return (it == map.end() ? r.tensor : it->second)(idx);
    });
  };
  for (int i = 0; i < dag.numOps(); ++i) {
    const Tensor& t = dag.ops()[i];
    Tensor nt = special(i, remap);
    if (!nt.defined()) {
      if (t.op().isPlaceholder()) {
        nt = t;
      } else {
        const te::ComputeOp& c = t.op().compute();
        Expr body = remap(c.body);
        nt = body.same(c.body) ? t : te::computeWithAxes(t.name(), c.axes, body, t.op().tag());
      }
    }
    map[t.get()] = nt;
  }
  std::vector<Tensor> ins, outs;
  for (const Tensor& t : dag.inputs()) ins.push_back(map.at(t.get()));
  for (const Tensor& t : dag.outputs()) outs.push_back(map.at(t.get()));
  return ComputeDAG(ins, outs);
}

std::vector<std::string> axisNames(const te::ComputeOp& c) {
  std::vector<std::string> n;
  for (const te::IterVar& iv : c.axes) n.push_back(iv.name());
  return n;
}

// A copy stage `copy` (built by te::compute over the shape of what it copies) with the run-time
// extents of the axes it copies over, so that a kernel for a range of sizes copies only what is
// computed.
Tensor withRuntimeExtentsOf(const Tensor& copy, const std::vector<te::IterVar>& like) {
  const te::ComputeOp& c = copy.op().compute();
  bool any = false;
  std::vector<te::IterVar> axes = c.axes;
  for (size_t d = 0; d < axes.size(); ++d) {
    axes[d].runtime_extent = like[d].runtime_extent;
    any |= like[d].runtime_extent.defined();
  }
  return any ? te::computeWithAxes(copy.name(), std::move(axes), c.body, copy.op().tag()) : copy;
}

using DagPtr = std::shared_ptr<const ComputeDAG>;

// Rewritten DAGs keyed by the input DAG's address and the step's fields. Enough entries for the
// DAGs of every task of a large model (a few rewrites each).
KeyedMemo<DagPtr>& rewriteMemo() {
  static KeyedMemo<DagPtr> memo(4096);
  return memo;
}

Expected<DagPtr> memoized(const DagPtr& in, const std::string& fields,
                          const std::function<Expected<ComputeDAG>()>& make) {
  return rewriteMemo().get(in, fields, [&]() -> Expected<DagPtr> {
    TT_TRY(ComputeDAG out, make());
    return std::make_shared<const ComputeDAG>(std::move(out));
  });
}

}  // namespace

Expected<std::shared_ptr<const ComputeDAG>> cacheWriteDagShared(const std::shared_ptr<const ComputeDAG>& dag,
                                                                const std::string& op, const std::string& scope) {
  return memoized(dag, "cache_write\n" + op + '\n' + scope, [&] { return cacheWriteDag(*dag, op, scope); });
}

Expected<std::shared_ptr<const ComputeDAG>> cacheReadDagShared(const std::shared_ptr<const ComputeDAG>& dag,
                                                               const std::string& producer, const std::string& scope,
                                                               const std::vector<std::string>& readers) {
  std::string fields = "cache_read\n" + producer + '\n' + scope;
  for (const std::string& r : readers) fields += '\n' + r;
  return memoized(dag, fields, [&] { return cacheReadDag(*dag, producer, scope, readers); });
}

Expected<ComputeDAG> cacheWriteDag(const ComputeDAG& dag, const std::string& op, const std::string& scope) {
  int idx = dag.opIndex(op);
  if (idx < 0) return Unexpected("no stage named " + op);
  if (!dag.op(idx).isCompute()) return Unexpected("cannot cache the writes of placeholder " + op);
  std::string name = names::cacheStage(op, scope);
  if (dag.opIndex(name) >= 0) return Unexpected("stage " + name + " already exists");
  return rebuild(dag, [&](int i, const std::function<Expr(const Expr&)>& remap) -> Tensor {
    if (i != idx) return Tensor();
    const te::Operation& o = dag.op(i);
    const te::ComputeOp& c = o.compute();
    Tensor local = te::computeWithAxes(name, c.axes, remap(c.body), o.tag());
    return withRuntimeExtentsOf(
        te::compute(
            o.name(), o.shape(), [&](const std::vector<te::Var>& v) { return local(v); }, o.tag(), axisNames(c)),
        c.axes);
  });
}

Expected<ComputeDAG> cacheReadDag(const ComputeDAG& dag, const std::string& producer, const std::string& scope,
                                  const std::vector<std::string>& readers) {
  int p = dag.opIndex(producer);
  if (p < 0) return Unexpected("no stage named " + producer);
  std::string name = names::cacheStage(producer, scope);
  if (dag.opIndex(name) >= 0) return Unexpected("stage " + name + " already exists");
  if (readers.empty()) return Unexpected("cache_read of " + producer + " names no readers");
  std::vector<int> reader_ids;
  for (const std::string& r : readers) {
    int ri = dag.opIndex(r);
    if (ri < 0) return Unexpected("cache_read reader " + r + " does not exist");
    const auto& cons = dag.consumers(p);
    if (std::find(cons.begin(), cons.end(), ri) == cons.end())
      return Unexpected("stage " + r + " does not read " + producer);
    reader_ids.push_back(ri);
  }
  const te::Operation& pop = dag.op(p);
  Tensor cached;
  std::unordered_map<const te::Operation*, Tensor> built;
  return rebuild(dag, [&](int i, const std::function<Expr(const Expr&)>& remap) -> Tensor {
    if (i == p) {
      Tensor orig = dag.ops()[p];
      if (pop.isCompute()) {
        const te::ComputeOp& c = pop.compute();
        Expr body = remap(c.body);
        orig = body.same(c.body) ? orig : te::computeWithAxes(pop.name(), c.axes, body, pop.tag());
      }
      cached = te::compute(
          name, pop.shape(), [&](const std::vector<te::Var>& v) { return orig(v); }, te::OpTag::CacheCopy);
      if (pop.isCompute()) cached = withRuntimeExtentsOf(cached, pop.compute().axes);
      return orig;
    }
    if (std::find(reader_ids.begin(), reader_ids.end(), i) == reader_ids.end()) return Tensor();
    const te::Operation& o = dag.op(i);
    const te::ComputeOp& c = o.compute();
    Expr body = te::rewriteReads(remap(c.body), [&](const te::TensorRead& r, std::vector<Expr> idx) {
      return r.tensor.name() == producer ? cached(idx) : r.tensor(idx);
    });
    return te::computeWithAxes(o.name(), c.axes, body, o.tag());
  });
}

Expected<ComputeDAG> rfactorDag(const ComputeDAG& dag, const Stage& stage, const std::string& iter, int factor_axis) {
  int idx = dag.opIndex(stage.op);
  if (idx < 0) return Unexpected("no stage named " + stage.op);
  const te::Operation& o = dag.op(idx);
  if (!o.isCompute() || !o.compute().reduce()) return Unexpected("stage " + stage.op + " is not a reduction");
  std::string name = names::rfactorStage(stage.op);
  if (dag.opIndex(name) >= 0) return Unexpected("stage " + name + " already exists");
  int fi = stage.iterIndex(iter);
  if (fi < 0) return Unexpected("stage " + stage.op + " has no iterator " + iter);
  if (stage.iters[fi].kind != te::IterKind::Reduce)
    return Unexpected("rfactor iterator " + iter + " is not a reduction");
  const te::ComputeOp& c = o.compute();
  if (factor_axis < 0 || factor_axis > static_cast<int>(c.axes.size()))
    return Unexpected("rfactor axis position " + std::to_string(factor_axis) + " is out of range");
  // Spatial axes must be untouched: the new stage keeps them as they are.
  for (size_t i = 0; i < c.axes.size(); ++i) {
    int pos = stage.iterIndex(c.axes[i].name());
    if (pos < 0) return Unexpected("rfactor must precede transforms of the spatial axes of " + stage.op);
  }
  TT_TRY(StageLoops loops, buildStageLoops(stage));
  const te::Reduce* red = c.reduce();

  // Root reduce axes as expressions of the reduce leaves (fresh vars of the new ops).
  std::vector<te::IterVar> rf_axes;  // spatial axes of X.rf
  for (const te::IterVar& iv : c.axes) rf_axes.push_back(iv);
  te::IterVar factor{te::Var(iter), *stage.iters[fi].extent, te::IterKind::Spatial, Expr()};
  rf_axes.insert(rf_axes.begin() + factor_axis, factor);
  std::vector<te::IterVar> rf_reduce;
  te::VarMap<Expr> leaf_sub;
  for (size_t i = 0; i < stage.iters.size(); ++i) {
    const Iterator& it = stage.iters[i];
    if (it.kind != te::IterKind::Reduce) continue;
    if (static_cast<int>(i) == fi) {
      leaf_sub[loops.leaf_vars[i].get()] = factor.var;
    } else {
      te::IterVar r = te::reduceAxis(*it.extent, it.name);
      rf_reduce.push_back(r);
      leaf_sub[loops.leaf_vars[i].get()] = r.var;
    }
  }
  te::VarMap<Expr> root_sub;
  Expr guard;
  size_t k = c.axes.size();
  for (const te::IterVar& rv : red->axes) {
    Expr rel = te::substitute(loops.root_rel[k], leaf_sub);
    root_sub[rv.var.get()] = rel;
    // The new stages' reduce axes are of fixed size: an axis of a run-time extent becomes a
    // predicate on every iteration.
    if (rv.runtime_extent.defined()) {
      Expr g = rel < te::min(rv.runtime_extent, te::intImm(rv.extent));
      guard = guard.defined() ? (guard && g) : g;
    } else if (loops.rel_max[k] >= rv.extent) {
      Expr g = rel < te::intImm(rv.extent);
      guard = guard.defined() ? (guard && g) : g;
    }
    ++k;
  }
  for (const InnerGuard& ig : loops.inner_guards) {
    if (stage.root[ig.root_axis].kind != te::IterKind::Reduce) continue;
    Expr g = te::substitute(ig.value, leaf_sub) < te::intImm(ig.limit);
    guard = guard.defined() ? (guard && g) : g;
  }
  Expr source = te::substitute(red->source, root_sub);
  Expr cond = red->cond.defined() ? te::substitute(red->cond, root_sub) : Expr();
  if (guard.defined()) cond = cond.defined() ? (cond && guard) : guard;

  return rebuild(dag, [&](int i, const std::function<Expr(const Expr&)>& remap) -> Tensor {
    if (i != idx) return Tensor();
    Expr rf_body = rf_reduce.empty()
                       ? (cond.defined() ? te::select(cond, remap(source), te::reduceIdentity(red->kind, o.dtype()))
                                         : remap(source))
                       : te::reduce(red->kind, remap(source), rf_reduce, cond);
    Tensor rf = te::computeWithAxes(name, rf_axes, rf_body, o.tag());
    te::IterVar r = te::reduceAxis(factor.extent, iter);
    std::vector<te::IterVar> axes;
    for (const te::IterVar& iv : c.axes)
      axes.push_back(te::IterVar{te::Var(iv.name()), iv.extent, te::IterKind::Spatial, iv.runtime_extent});
    std::vector<Expr> ridx;
    for (const te::IterVar& iv : axes) ridx.push_back(iv.var);
    ridx.insert(ridx.begin() + factor_axis, r.var);
    return te::computeWithAxes(o.name(), axes, te::reduce(red->kind, rf(ridx), {r}), o.tag());
  });
}

Expected<ComputeDAG> layoutRewriteDag(const ComputeDAG& dag, const Stage& stage, const std::string& placeholder,
                                      WeightLayout* layout) {
  int ci = dag.opIndex(stage.op);
  int pi = dag.opIndex(placeholder);
  if (ci < 0) return Unexpected("no stage named " + stage.op);
  if (pi < 0) return Unexpected("no tensor named " + placeholder);
  const te::Operation& pop = dag.op(pi);
  if (!pop.isPlaceholder() || !pop.placeholder().is_constant)
    return Unexpected("layout rewrite needs a constant weight, " + placeholder + " is not one");
  const auto& cons = dag.consumers(pi);
  if (cons.size() != 1 || cons[0] != ci)
    return Unexpected("layout rewrite of " + placeholder + " needs " + stage.op + " to be its only reader");
  const te::Operation& cop = dag.op(ci);
  const te::ComputeOp& c = cop.compute();
  // Every read index must be exactly one of the stage's root axes.
  te::VarMap<int> axis_of;
  int k = 0;
  for (const te::IterVar& iv : c.axes) axis_of[iv.var.get()] = k++;
  for (const te::IterVar& iv : c.reduceAxes()) axis_of[iv.var.get()] = k++;
  std::vector<int> dim_axis;
  bool ok = true;
  int nreads = 0;
  te::visitAll(c.body, [&](const Expr& e) {
    const te::TensorRead* r = e.as<te::TensorRead>();
    if (!r || r->tensor.name() != placeholder) return;
    ++nreads;
    std::vector<int> da;
    for (const Expr& i : r->indices) {
      const te::VarRef* v = i.as<te::VarRef>();
      if (!v || !axis_of.count(v->var.get())) {
        ok = false;
        return;
      }
      da.push_back(axis_of.at(v->var.get()));
    }
    if (!dim_axis.empty() && dim_axis != da) ok = false;
    dim_axis = da;
  });
  if (!ok || nreads != 1)
    return Unexpected("layout rewrite of " + placeholder + " needs every index to be a plain loop axis of " + stage.op);
  // The packed layout follows the stage's tiling of the whole tensor, also when the stage is
  // computed inside another one (its loops then cover one tile of the layout at a time).
  Stage whole = stage;
  for (size_t d = 0; d < whole.root.size(); ++d) whole.region[d] = whole.root[d].full_extent;
  computeLeafExtents(whole);
  TT_TRY(StageLoops loops, buildStageLoops(whole));

  // Packed dims: the stage's leaves that contribute to an axis indexing the weight, in loop order.
  WeightLayout lay;
  lay.original = placeholder;
  lay.packed = names::packedWeight(placeholder);
  lay.original_shape = pop.shape();
  if (dag.opIndex(lay.packed) >= 0) return Unexpected("tensor " + lay.packed + " already exists");
  std::vector<Expr> packed_index;  // in the stage's root axis vars, via leaf decomposition
  std::vector<te::Var> root_vars;
  for (const te::IterVar& iv : c.axes) root_vars.push_back(iv.var);
  for (const te::IterVar& iv : c.reduceAxes()) root_vars.push_back(iv.var);
  for (size_t li = 0; li < stage.iters.size(); ++li) {
    const te::VarNode* lv = loops.leaf_vars[li].get();
    for (size_t d = 0; d < dim_axis.size(); ++d) {
      int axis = dim_axis[d];
      auto coef = te::linearCoefficient(loops.root_rel[axis], lv);
      if (!coef)
        return Unexpected("layout rewrite of " + placeholder + " cannot follow fused loop " + stage.iters[li].name);
      int64_t ext = *whole.iters[li].extent;
      if (*coef == 0 || ext == 1) continue;
      lay.packed_shape.push_back(ext);
      lay.source_dim.push_back(static_cast<int>(d));
      lay.source_stride.push_back(*coef);
      Expr rv = root_vars[axis];
      packed_index.push_back((rv / te::intImm(*coef)) % te::intImm(ext));
    }
  }
  if (lay.packed_shape.empty()) return Unexpected("layout rewrite of " + placeholder + " found no loop to follow");
  // The parts of each dimension must nest exactly (each stride is the next part's stride times
  // its extent), or the packed position of an element is not a function of its index.
  for (size_t d = 0; d < dim_axis.size(); ++d) {
    std::vector<std::pair<int64_t, int64_t>> parts;  // stride, extent
    for (size_t p = 0; p < lay.source_dim.size(); ++p)
      if (lay.source_dim[p] == static_cast<int>(d)) parts.emplace_back(lay.source_stride[p], lay.packed_shape[p]);
    std::sort(parts.begin(), parts.end());
    for (size_t p = 0; p < parts.size(); ++p) {
      int64_t expect = p == 0 ? 1 : parts[p - 1].first * parts[p - 1].second;
      if (parts[p].first != expect)
        return Unexpected("layout rewrite of " + placeholder + " needs the splits of its axes to nest exactly");
    }
  }
  // The outermost part of each dimension takes no modulo (it may exceed when splits overshoot).
  for (size_t d = 0; d < dim_axis.size(); ++d) {
    for (size_t p = 0; p < lay.source_dim.size(); ++p) {
      if (lay.source_dim[p] != static_cast<int>(d)) continue;
      int64_t maxstride = 0;
      for (size_t q = 0; q < lay.source_dim.size(); ++q)
        if (lay.source_dim[q] == static_cast<int>(d)) maxstride = std::max(maxstride, lay.source_stride[q]);
      if (lay.source_stride[p] == maxstride) packed_index[p] = te::Expr(root_vars[dim_axis[d]]) / te::intImm(maxstride);
    }
  }
  Tensor packed = te::placeholder(lay.packed, lay.packed_shape, pop.dtype(), true);
  if (layout) *layout = lay;
  ComputeDAG rebuilt = rebuild(dag, [&](int i, const std::function<Expr(const Expr&)>& remap) -> Tensor {
    if (i == pi) return packed;
    if (i != ci) return Tensor();
    Expr body = te::rewriteReads(c.body, [&](const te::TensorRead& r, std::vector<Expr> idx) {
      return r.tensor.name() == placeholder ? packed(packed_index) : r.tensor(idx);
    });
    return te::computeWithAxes(cop.name(), c.axes, remap(body), cop.tag());
  });
  return rebuilt;
}

ComputeDAG packingDag(const WeightLayout& layout, te::DType dtype) {
  Tensor orig = te::placeholder(layout.original, layout.original_shape, dtype, true);
  Tensor packed = te::compute(
      layout.packed, layout.packed_shape,
      [&](const std::vector<te::Var>& v) {
        std::vector<Expr> idx(layout.original_shape.size(), te::intImm(0));
        for (size_t p = 0; p < v.size(); ++p)
          idx[layout.source_dim[p]] = idx[layout.source_dim[p]] + Expr(v[p]) * te::intImm(layout.source_stride[p]);
        Expr inside;
        for (size_t d = 0; d < idx.size(); ++d) {
          Expr c = idx[d] < te::intImm(layout.original_shape[d]);
          inside = inside.defined() ? (inside && c) : c;
        }
        std::vector<Expr> clamped;
        for (size_t d = 0; d < idx.size(); ++d)
          clamped.push_back(te::min(idx[d], te::intImm(layout.original_shape[d] - 1)));
        return te::select(inside, orig(clamped), te::reduceIdentity(te::ReduceKind::Sum, dtype));
      },
      te::OpTag::LayoutTransform);
  return ComputeDAG({orig}, {packed});
}

}  // namespace ttune::schedule
