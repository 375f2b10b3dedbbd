#include "graph/size_ranges.h"

#include <algorithm>
#include <map>

#include <cstring>
#include <optional>

#include "support/overload.h"
#include "te/arith.h"
#include "te/expr_functor.h"
#include "te/runtime_extents.h"

namespace ttune::graph {

namespace {

using te::Expr;

// Fits extents measured at the probes (e[p] at probes[p]) as an expression of the sizes: a
// constant, a*n + b of one size, or a*n*m of two; nullopt when none reproduces every probe.
class ExtentFitter {
 public:
  ExtentFitter(const std::vector<SizeRange>& ranges, const std::vector<te::Var>& vars,
               const std::vector<std::vector<int64_t>>& sizes)
      : ranges_(ranges), vars_(vars), sizes_(sizes) {}

  std::optional<Expr> fit(const std::vector<int64_t>& e) const {
    std::vector<int> moved;  // ranges whose own probes change the extent
    for (size_t r = 0; r < ranges_.size(); ++r)
      for (size_t p = 1; p < sizes_.size(); ++p)
        if (onlyChanges(p, r) && e[p] != e[0]) {
          moved.push_back(static_cast<int>(r));
          break;
        }
    Expr candidate;
    if (moved.empty()) {
      candidate = te::intImm(e[0]);
    } else if (moved.size() == 1) {
      int r = moved[0];
      size_t p = 1;
      while (!onlyChanges(p, r)) ++p;
      int64_t dn = ranges_[r].max - sizes_[p][r], de = e[0] - e[p];
      if (de % dn != 0) return std::nullopt;
      int64_t a = de / dn, b = e[0] - a * ranges_[r].max;
      candidate = te::simplify(te::intImm(a) * Expr(vars_[r]) + te::intImm(b));
    } else if (moved.size() == 2) {
      int64_t denom = ranges_[moved[0]].max * ranges_[moved[1]].max;
      if (e[0] % denom != 0) return std::nullopt;
      candidate = te::intImm(e[0] / denom) * Expr(vars_[moved[0]]) * Expr(vars_[moved[1]]);
    } else {
      return std::nullopt;
    }
    for (size_t p = 0; p < sizes_.size(); ++p)
      if (extentAt(candidate, vars_, sizes_[p]) != e[p]) return std::nullopt;
    return candidate;
  }

 private:
  // Probe p changes range r alone.
  bool onlyChanges(size_t p, size_t r) const {
    for (size_t q = 0; q < ranges_.size(); ++q)
      if ((sizes_[p][q] != ranges_[q].max) != (q == r)) return false;
    return true;
  }

  const std::vector<SizeRange>& ranges_;
  const std::vector<te::Var>& vars_;
  const std::vector<std::vector<int64_t>>& sizes_;
};

// The body with its index arithmetic simplified on the op's domain.
Expr simplifiedBody(const te::Operation& op) {
  const te::ComputeOp& c = op.compute();
  te::VarBounds b;
  for (const te::IterVar& iv : c.axes) b[iv.var.get()] = te::IntBound{0, iv.extent - 1};
  for (const te::IterVar& iv : c.reduceAxes()) b[iv.var.get()] = te::IntBound{0, iv.extent - 1};
  const te::Reduce* red = c.reduce();
  if (!red) return te::simplify(c.body, b);
  Expr cond = red->cond.defined() ? te::simplify(red->cond, b) : Expr();
  return te::reduce(red->kind, te::simplify(red->source, b), red->axes, cond);
}

// Structural equality of two ops' simplified bodies, the ops of two DAGs of one kernel at two
// sizes: axes correspond by position, reads by the producer's position in its DAG, float
// constants must be equal. Integer constants may differ: ints() lists each pair in pre-order, for
// the caller to fit the ones that follow the sizes (a reshape merging two sized axes divides by
// one of them).
class SameBody {
 public:
  SameBody(const te::ComputeDAG& da, const te::Operation& a, const te::ComputeDAG& db, const te::Operation& b)
      : da_(da), db_(db) {
    auto map = [&](const std::vector<te::IterVar>& x, const std::vector<te::IterVar>& y) {
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) vars_[x[i].var.get()] = y[i].var.get();
    };
    map(a.compute().axes, b.compute().axes);
    map(a.compute().reduceAxes(), b.compute().reduceAxes());
  }

  const std::vector<std::pair<int64_t, int64_t>>& ints() const { return ints_; }

  bool operator()(const Expr& a, const Expr& b) {
    if (a.defined() != b.defined()) return false;
    if (!a.defined()) return true;
    if (a.dtype() != b.dtype() || a.node().kind.index() != b.node().kind.index()) return false;
    bool same = std::visit(Overload{
                               [&](const te::IntImm& x) {
                                 ints_.emplace_back(x.value, b.as<te::IntImm>()->value);
                                 return true;
                               },
                               [&](const te::FloatImm& x) {
                                 double y = b.as<te::FloatImm>()->value;
                                 return std::memcmp(&x.value, &y, sizeof y) == 0;
                               },
                               [&](const te::VarRef& x) {
                                 auto it = vars_.find(x.var.get());
                                 return it != vars_.end() && it->second == b.as<te::VarRef>()->var.get();
                               },
                               [&](const te::Binary& x) { return x.op == b.as<te::Binary>()->op; },
                               [&](const te::Unary& x) { return x.op == b.as<te::Unary>()->op; },
                               [&](const te::Select&) { return true; },
                               [&](const te::Cast&) { return true; },
                               [&](const te::TensorRead& x) {
                                 const te::TensorRead* y = b.as<te::TensorRead>();
                                 return da_.opIndex(x.tensor.get()) == db_.opIndex(y->tensor.get()) &&
                                        x.indices.size() == y->indices.size();
                               },
                               [&](const te::BufferLoad&) { return false; },  // not in a DAG
                               [&](const te::Reduce& x) {
                                 const te::Reduce* y = b.as<te::Reduce>();
                                 return x.kind == y->kind && x.axes.size() == y->axes.size() &&
                                        x.cond.defined() == y->cond.defined();
                               },
                           },
                           a.node().kind);
    if (!same) return false;
    std::vector<Expr> ca, cb;
    te::forEachChild(a, [&](const Expr& c) { ca.push_back(c); });
    te::forEachChild(b, [&](const Expr& c) { cb.push_back(c); });
    if (ca.size() != cb.size()) return false;
    for (size_t i = 0; i < ca.size(); ++i)
      if (!(*this)(ca[i], cb[i])) return false;
    return true;
  }

 private:
  const te::ComputeDAG& da_;
  const te::ComputeDAG& db_;
  te::VarMap<const te::VarNode*> vars_;
  std::vector<std::pair<int64_t, int64_t>> ints_;
};

// `e` with its integer constants, numbered in pre-order from `counter`, replaced by `with`'s.
Expr replaceInts(const Expr& e, size_t& counter, const std::map<size_t, Expr>& with) {
  if (e.as<te::IntImm>()) {
    auto it = with.find(counter++);
    if (it == with.end()) return e;
    return it->second.dtype() == e.dtype() ? it->second : te::cast(e.dtype(), it->second);
  }
  return te::mapChildren(e, [&](const Expr& c) { return replaceInts(c, counter, with); });
}

// True when the valid part of a value with these extents (laid out at `shape`) is one leading
// run of its buffer: axes before the first sized one have extent 1, axes after it are fixed.
bool leadingRun(const std::vector<Expr>& extents, const te::Shape& shape) {
  size_t d = 0;
  while (d < extents.size() && te::isConstInt(extents[d], nullptr)) ++d;
  if (d == extents.size()) return true;
  for (size_t k = 0; k < d; ++k)
    if (shape[k] != 1) return false;
  for (size_t k = d + 1; k < extents.size(); ++k)
    if (!te::isConstInt(extents[k], nullptr)) return false;
  return true;
}

int64_t elementsAt(const std::vector<Expr>& extents, const std::vector<te::Var>& vars,
                   const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (const Expr& e : extents) n *= extentAt(e, vars, sizes);
  return n;
}

bool equalBytes(const runtime::NDArray& a, const runtime::NDArray& b) {
  return a.bytes() == b.bytes() && std::memcmp(a.data(), b.data(), static_cast<size_t>(a.bytes())) == 0;
}

// `small` equals the leading corner of `big` (same dtype and rank).
bool isCorner(const runtime::NDArray& small, const runtime::NDArray& big) {
  if (small.dtype() != big.dtype() || small.shape().size() != big.shape().size()) return false;
  int64_t elem = te::dtypeBytes(small.dtype());
  const te::Shape& s = small.shape();
  std::vector<int64_t> idx(s.size(), 0);
  for (int64_t n = 0; n < small.numElements(); ++n) {
    int64_t off = 0;
    for (size_t d = 0; d < s.size(); ++d) off = off * big.shape()[d] + idx[d];
    if (std::memcmp(static_cast<const char*>(small.data()) + n * elem,
                    static_cast<const char*>(big.data()) + off * elem, static_cast<size_t>(elem)) != 0)
      return false;
    for (size_t d = s.size(); d-- > 0;) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
  return true;
}

class Analysis {
 public:
  Analysis(const std::vector<SizeRange>& ranges, std::vector<ProbeGraph>& probes) : ranges_(ranges), probes_(probes) {
    for (const SizeRange& r : ranges) vars_.emplace_back(r.name);
    for (const ProbeGraph& p : probes) sizes_.push_back(p.sizes);
  }

  Expected<RangeModel> run() {
    const Graph& g0 = probes_[0].graph;
    for (size_t p = 1; p < probes_.size(); ++p) {
      const Graph& g = probes_[p].graph;
      if (g.values().size() != g0.values().size() || g.nodes().size() != g0.nodes().size())
        return Unexpected("the model imports as another graph at " + at(p) + " than at " + at(0) +
                          " (its operators depend on the sizes), so one compiled model cannot serve the range");
    }
    RangeModel m;
    m.ranges = ranges_;
    m.vars = vars_;
    TT_TRY(m.value_extents, valueExtents());
    std::vector<std::vector<Kernel>> kernels;
    for (const ProbeGraph& p : probes_) kernels.push_back(partition(p.graph));
    for (size_t p = 1; p < probes_.size(); ++p)
      if (kernels[p].size() != kernels[0].size())
        return Unexpected("the model fuses into " + std::to_string(kernels[p].size()) + " kernels at " + at(p) +
                          " but " + std::to_string(kernels[0].size()) + " at " + at(0));
    for (size_t k = 0; k < kernels[0].size(); ++k) {
      TT_TRY(Kernel rk, rangeKernel(kernels, k, m.value_extents));
      m.kernels.push_back(std::move(rk));
      m.largest_keys.push_back(kernels[0][k].workload_key);
    }
    m.graph = std::move(probes_[0].graph);
    return m;
  }

 private:
  std::string at(size_t p) const { return sizesText(ranges_, sizes_[p]); }

  Expected<std::vector<std::vector<Expr>>> valueExtents() const {
    const Graph& g0 = probes_[0].graph;
    ExtentFitter fitter(ranges_, vars_, sizes_);
    std::vector<std::vector<Expr>> out(g0.values().size());
    for (size_t v = 0; v < g0.values().size(); ++v) {
      const Value& v0 = g0.value(static_cast<int>(v));
      for (size_t p = 1; p < probes_.size(); ++p) {
        const Value& vp = probes_[p].graph.value(static_cast<int>(v));
        if (vp.shape.size() != v0.shape.size() || vp.dtype != v0.dtype || vp.isConstant() != v0.isConstant())
          return Unexpected("value " + v0.name + " changes rank, type or kind between " + at(0) + " and " + at(p));
      }
      for (size_t d = 0; d < v0.shape.size(); ++d) {
        std::vector<int64_t> e;
        for (const ProbeGraph& p : probes_) e.push_back(p.graph.value(static_cast<int>(v)).shape[d]);
        std::optional<Expr> f = fitter.fit(e);
        if (!f)
          return Unexpected("axis " + std::to_string(d) + " of value " + v0.name +
                            " does not follow the sizes as a*n + b or a*n*m");
        out[v].push_back(*f);
      }
      if (!v0.isConstant()) continue;
      bool fixed = true;
      for (const Expr& e : out[v]) fixed &= te::isConstInt(e, nullptr);
      for (size_t p = 1; p < probes_.size(); ++p) {
        const runtime::NDArray& c = *probes_[p].graph.value(static_cast<int>(v)).constant;
        if (fixed ? !equalBytes(c, *v0.constant) : !isCorner(c, *v0.constant))
          return Unexpected("constant " + v0.name + " at " + at(p) + " is not " +
                            (fixed ? "the one at " : "the leading part of the one at ") + at(0) +
                            " (it is computed from a size in a way a range cannot follow)");
      }
    }
    return out;
  }

  Expected<Kernel> rangeKernel(const std::vector<std::vector<Kernel>>& kernels, size_t k,
                               const std::vector<std::vector<Expr>>& value_extents) const {
    const Kernel& k0 = kernels[0][k];
    std::string who = "kernel #" + std::to_string(k) + " (" + k0.class_name + ")";
    for (size_t p = 1; p < probes_.size(); ++p) {
      const Kernel& kp = kernels[p][k];
      if (kp.class_id != k0.class_id || kp.nodes != k0.nodes || kp.inputs != k0.inputs || kp.outputs != k0.outputs ||
          kp.alias_only != k0.alias_only || kp.alias_offset_bytes != k0.alias_offset_bytes ||
          kp.dag->numOps() != k0.dag->numOps())
        return Unexpected(who + " is fused differently at " + at(p) + " than at " + at(0));
    }
    if (k0.alias_only) {
      TT_TRY_STATUS(checkView(k0, who, value_extents));
      return k0;
    }
    ExtentFitter fitter(ranges_, vars_, sizes_);
    std::vector<std::vector<Expr>> extents(k0.dag->numOps());
    std::vector<Expr> bodies(k0.dag->numOps());
    for (int i = 0; i < k0.dag->numOps(); ++i) {
      const te::Operation& op0 = k0.dag->op(i);
      if (!op0.isCompute()) continue;
      size_t n_axes = op0.compute().axes.size() + op0.compute().reduceAxes().size();
      TT_TRY(bodies[static_cast<size_t>(i)], sizedBody(kernels, k, i, who));
      for (size_t d = 0; d < n_axes; ++d) {
        std::vector<int64_t> e;
        for (size_t p = 0; p < probes_.size(); ++p) e.push_back(axisExtent(kernels[p][k].dag->op(i), d));
        std::optional<Expr> f = fitter.fit(e);
        if (!f)
          return Unexpected(who + ": axis " + std::to_string(d) + " of op " + op0.name() +
                            " does not follow the sizes as a*n + b or a*n*m");
        extents[i].push_back(te::isConstInt(*f, nullptr) ? Expr() : *f);
      }
    }
    Kernel out = k0;
    out.dag = std::make_shared<const te::ComputeDAG>(te::withRuntimeExtents(
        *k0.dag, [&](int i) { return extents[static_cast<size_t>(i)]; },
        [&](int i) { return bodies[static_cast<size_t>(i)]; }));
    out.workload_key = out.dag->workloadKey();
    return out;
  }

  // Op i of kernel k must compute the same at every probe up to its extents and its integer
  // constants; a constant that changes must follow the sizes (as an extent does). Returns the
  // body with those constants replaced by their expressions of the sizes, or an undefined Expr
  // when none changes (the op keeps its body).
  Expected<Expr> sizedBody(const std::vector<std::vector<Kernel>>& kernels, size_t k, int i,
                           const std::string& who) const {
    const te::Operation& op0 = kernels[0][k].dag->op(i);
    auto refuse = [&](size_t p) {
      return Unexpected(who + " computes op " + op0.name() + " differently at " + at(p) + " than at " + at(0) +
                        " beyond its extents (its index arithmetic or constants depend on a size in a way a "
                        "range cannot follow)");
    };
    Expr body0 = simplifiedBody(op0);
    std::vector<std::vector<int64_t>> ints;  // per constant, its value at each probe
    for (size_t p = 1; p < probes_.size(); ++p) {
      const te::ComputeDAG& dp = *kernels[p][k].dag;
      const te::Operation& opp = dp.op(i);
      SameBody same(*kernels[0][k].dag, op0, dp, opp);
      if (!opp.isCompute() || opp.name() != op0.name() || opp.dtype() != op0.dtype() ||
          opp.compute().axes.size() != op0.compute().axes.size() ||
          opp.compute().reduceAxes().size() != op0.compute().reduceAxes().size() || !same(body0, simplifiedBody(opp)))
        return refuse(p);
      ints.resize(same.ints().size());
      for (size_t c = 0; c < ints.size(); ++c) {
        if (p == 1) ints[c].push_back(same.ints()[c].first);
        ints[c].push_back(same.ints()[c].second);
      }
    }
    ExtentFitter fitter(ranges_, vars_, sizes_);
    std::map<size_t, Expr> sized;
    for (size_t c = 0; c < ints.size(); ++c) {
      if (std::all_of(ints[c].begin(), ints[c].end(), [&](int64_t v) { return v == ints[c][0]; })) continue;
      std::optional<Expr> f = fitter.fit(ints[c]);
      if (!f) {
        size_t p = 1;
        while (ints[c][p] == ints[c][0]) ++p;
        return refuse(p);
      }
      sized.emplace(c, *f);
    }
    if (sized.empty()) return Expr();
    size_t counter = 0;
    Expr body = replaceInts(body0, counter, sized);
    TT_ASSERT(counter == ints.size(), "a body whose constants are numbered differently when replaced");
    return body;
  }

  static int64_t axisExtent(const te::Operation& op, size_t d) {
    const te::ComputeOp& c = op.compute();
    return d < c.axes.size() ? c.axes[d].extent : c.reduceAxes()[d - c.axes.size()].extent;
  }

  // A view (reshape or contiguous slice) stays a view when its input's and its output's valid
  // parts are leading runs and the output's lies inside the input's at every probe.
  Status checkView(const Kernel& k, const std::string& who, const std::vector<std::vector<Expr>>& value_extents) const {
    const Graph& g0 = probes_[0].graph;
    int in = k.inputs[0], out = k.outputs[0];
    if (!leadingRun(value_extents[in], g0.value(in).shape) || !leadingRun(value_extents[out], g0.value(out).shape))
      return Unexpected(who + " reshapes " + g0.value(in).name + " into " + g0.value(out).name +
                        " across a sized axis that is not the leading one, which a range cannot follow");
    int64_t offset = k.alias_offset_bytes / te::dtypeBytes(g0.value(in).dtype);
    for (size_t p = 0; p < probes_.size(); ++p)
      if (offset + elementsAt(value_extents[out], vars_, sizes_[p]) > elementsAt(value_extents[in], vars_, sizes_[p]))
        return Unexpected(who + " views past the computed part of " + g0.value(in).name + " at " + at(p));
    return Ok{};
  }

  const std::vector<SizeRange>& ranges_;
  std::vector<ProbeGraph>& probes_;
  std::vector<te::Var> vars_;
  std::vector<std::vector<int64_t>> sizes_;
};

}  // namespace

std::string sizesText(const std::vector<SizeRange>& ranges, const std::vector<int64_t>& sizes) {
  std::string s;
  for (size_t r = 0; r < ranges.size(); ++r) s += (r ? "," : "") + ranges[r].name + "=" + std::to_string(sizes[r]);
  return s;
}

namespace {

// A bucket the probes can check: two sizes of at least 2 below its largest.
bool checkable(int64_t lo, int64_t hi) { return hi - std::max<int64_t>(2, lo) >= 2; }

}  // namespace

std::vector<SizeRange> rangeBuckets(const SizeRange& range) {
  // Small ranges (batches) are cut down to 1: a batch of 1 run by kernels for 8 takes 1.5x its
  // time. Larger ones stop at 8: their smallest sizes cost little however they run.
  const int64_t floor = range.max <= 16 ? 1 : 8;
  std::vector<SizeRange> cuts;
  int64_t hi = range.max;
  while (hi / 2 >= std::max(floor, range.min)) {
    cuts.push_back(SizeRange{range.name, hi / 2 + 1, hi});
    hi /= 2;
  }
  cuts.push_back(SizeRange{range.name, range.min, hi});
  if (!checkable(cuts[0].min, cuts[0].max)) return {range};  // too narrow to cut (the check says so)
  // A bucket too narrow to check serves each of its sizes alone (a size bound in that bucket).
  std::vector<SizeRange> out;
  for (const SizeRange& c : cuts) {
    if (c.min == c.max || checkable(c.min, c.max)) {
      out.push_back(c);
    } else if (!out.empty() && out.back().min - 1 == c.max && checkable(c.min, out.back().max) && out.back().max > 16) {
      out.back().min = c.min;  // the small end of a large range joins the bucket above it
    } else {
      for (int64_t n = c.max; n >= c.min; --n) out.push_back(SizeRange{range.name, n, n});
    }
  }
  return out;
}

std::vector<std::vector<int64_t>> probeSizes(const std::vector<SizeRange>& ranges) {
  std::vector<int64_t> largest;
  for (const SizeRange& r : ranges) largest.push_back(r.max);
  std::vector<std::vector<int64_t>> out{largest};
  std::vector<std::vector<int64_t>> others(ranges.size());
  for (size_t r = 0; r < ranges.size(); ++r) {
    int64_t lo = std::max<int64_t>(2, ranges[r].min);
    for (int64_t v : {ranges[r].max - 1, lo + (ranges[r].max - lo) / 3})
      if (v >= lo && v < ranges[r].max && std::find(others[r].begin(), others[r].end(), v) == others[r].end())
        others[r].push_back(v);
    for (int64_t v : others[r]) {
      std::vector<int64_t> s = largest;
      s[r] = v;
      out.push_back(s);
    }
  }
  if (ranges.size() > 1) {
    std::vector<int64_t> s = largest;
    bool any = false;
    for (size_t r = 0; r < ranges.size(); ++r)
      if (!others[r].empty()) {
        s[r] = others[r].back();
        any = true;
      }
    if (any) out.push_back(s);
  }
  return out;
}

int64_t extentAt(const Expr& extent, const std::vector<te::Var>& vars, const std::vector<int64_t>& sizes) {
  te::VarMap<Expr> sub;
  for (size_t r = 0; r < vars.size(); ++r) sub[vars[r].get()] = te::intImm(sizes[r]);
  int64_t v = 0;
  bool ok = te::isConstInt(te::simplify(te::substitute(extent, sub)), &v);
  TT_ASSERT(ok, "an extent of sizes that does not evaluate to a constant");
  return v;
}

Expected<RangeModel> analyzeRanges(const std::vector<SizeRange>& ranges, std::vector<ProbeGraph> probes) {
  TT_ASSERT(!probes.empty() && !ranges.empty(), "a range analysis without probes or ranges");
  return Analysis(ranges, probes).run();
}

}  // namespace ttune::graph
