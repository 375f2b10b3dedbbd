#include "autotune/features.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>
#include <thread>
#include <unordered_map>

#include "autotune/feature_ops.h"
#include "autotune/feature_walker.h"
#include "lower/lower.h"
#include "runtime/thread_pool.h"
#include "support/hash.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::autotune {

using detail::collectLoads;
using detail::countOps;
using detail::kNumOpKinds;
using detail::LoopInfo;
using detail::OpCounts;
using detail::StoreInfo;
using detail::WalkResult;
using te::Expr;

float log2p(double x) {
  if (!std::isfinite(x)) return x > 0 ? 64.f : x < 0 ? -64.f : 0.f;
  return static_cast<float>(std::copysign(std::log2(1.0 + std::fabs(x)), x));
}

void StoreFeatures::appendScaled(std::vector<float>& out) const {
  forEach([&](const char*, int, float v) { out.push_back(log2p(v)); });
}

const std::vector<std::string>& featureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    StoreFeatures f;
    f.forEach([&](const char* name, int index, float&) {
      if (index < 0)
        n.emplace_back(name);
      else if (std::string(name) == "ai_curve")
        n.push_back(std::string(name) + "_" + std::to_string(index));
      else
        n.push_back("b" + std::to_string(index) + "." + name);
    });
    return n;
  }();
  return names;
}

std::vector<float> StateFeatures::flat() const {
  std::vector<float> out;
  out.reserve(data.size() + 1);
  out.push_back(static_cast<float>(n_stores));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

namespace {

constexpr double kCacheLine = 64;

// ---- Accesses and touched regions ----------------------------------------------------------------

// One term coef * atom of a linearized flat index. `pos` lists the positions (in the store's loop
// list, outermost 0) of the loops the atom depends on; a plain loop variable has one.
struct Term {
  int64_t coef = 0;
  Expr atom;  // defined for non-linear atoms only
  bool var = false;
  std::vector<int> pos;
  int innermost() const { return pos.empty() ? -1 : *std::max_element(pos.begin(), pos.end()); }
};

struct Access {
  Expr index;
  std::vector<Term> terms;
};

struct BufferUse {
  const te::Buffer* buffer = nullptr;
  bool read = false, write = false;
  std::vector<Access> accesses;
  int elem = 4;
};

// Distinct elements of sum(coef_i * v_i), v_i over [0, ext_i): equal strides merge (their ranges
// add), then strides are combined from the smallest: a stride that continues an arithmetic
// progression extends it, a stride past the span so far replicates it, overlaps merge.
struct Footprint {
  double count = 1;  // distinct elements
  double run = 1;    // elements of the leading progression (contiguous when step 1)
  double step = 1;   // its stride in elements
};

Footprint footprint(std::vector<std::pair<double, double>>& terms) {  // (|coef|, extent)
  Footprint fp;
  for (auto& [c, e] : terms)
    if (e <= 0) return {0, 1, 1};
  std::sort(terms.begin(), terms.end());
  std::vector<std::pair<double, double>> merged;
  for (auto& [c, e] : terms) {
    if (c == 0 || e <= 1) continue;
    if (!merged.empty() && merged.back().first == c) {
      double& m = merged.back().second;
      m = std::max(m + e - 1, std::max(m, e));
    } else {
      merged.emplace_back(c, e);
    }
  }
  double span = 1, step = 0;
  bool full = true, leading = true;
  for (auto& [c, e] : merged) {
    double nspan = span + (e - 1) * c;
    if (step == 0) {
      step = c;
      fp.count = e;
      fp.step = c;
      fp.run = e;
      span = nspan;
      continue;
    }
    if (full && std::fabs(c - step * fp.count) < 1e-9 * c) {
      fp.count *= e;  // continues the progression
    } else if (c >= span) {
      fp.count *= e;  // disjoint copies
      full = false;
    } else if (full && std::fmod(c, step) == 0) {
      fp.count = (nspan - 1) / step + 1;  // overlapping progression of the same step
    } else {
      fp.count = std::min(fp.count * e, nspan);
      full = false;
    }
    span = nspan;
    leading = leading && full;
    if (leading) fp.run = fp.count;
  }
  return fp;
}

class StoreFeaturizer {
 public:
  StoreFeaturizer(const WalkResult& w, const schedule::State* state) : w_(w) {
    if (state)
      for (const schedule::Stage& st : state->stages())
        if (st.auto_unroll_max_step > 0) auto_unroll_.emplace_back(st.op, st.auto_unroll_max_step);
  }

  std::vector<StoreFeatures> run() {
    std::vector<std::vector<BufferUse>> uses(w_.stores.size());
    for (size_t s = 0; s < w_.stores.size(); ++s) uses[s] = collectUses(w_.stores[s]);
    countLoopAccesses(uses);
    std::vector<StoreFeatures> out(w_.stores.size());
    for (size_t s = 0; s < w_.stores.size(); ++s) out[s] = featurize(w_.stores[s], uses[s]);
    return out;
  }

 private:
  std::vector<BufferUse> collectUses(const StoreInfo& si) {
    std::vector<BufferUse> uses;
    // Distinct accesses by (buffer, structural hash of the index): a store's value can hold
    // hundreds of loads of a few distinct elements (a Winograd transform before its selects fold).
    std::unordered_map<uint64_t, std::vector<std::pair<size_t, size_t>>> seen;  // -> (use, access)
    std::set<std::pair<const te::Buffer*, const te::ExprNode*>> same_node;      // lowering shares load nodes
    auto add = [&](const te::Buffer* b, const Expr& index, bool write) {
      auto it = std::find_if(uses.begin(), uses.end(), [&](const BufferUse& u) { return u.buffer == b; });
      if (it == uses.end()) {
        uses.push_back({b, false, false, {}, te::dtypeBytes(b->dtype)});
        it = uses.end() - 1;
      }
      (write ? it->write : it->read) = true;
      const size_t u = static_cast<size_t>(it - uses.begin());
      if (!same_node.insert({b, index.get()}).second) return;  // this very node was added
      auto& same_hash = seen[Hasher().add(reinterpret_cast<uintptr_t>(b)).add(te::structuralHash(index)).value()];
      for (const auto& [su, sa] : same_hash)
        if (su == u && te::structurallyEqual(it->accesses[sa].index, index)) return;
      same_hash.push_back({u, it->accesses.size()});
      it->accesses.push_back(linearize(si, index));
    };
    add(si.store->buffer.get(), si.store->index, true);
    std::vector<const te::BufferLoad*> loads;
    collectLoads(si.store->value, loads);
    for (const te::BufferLoad* l : loads) add(l->buffer.get(), l->index, false);
    return uses;
  }

  int position(const StoreInfo& si, const te::VarNode* v) const {
    for (size_t p = 0; p < si.loops.size(); ++p)
      if (w_.loops[si.loops[p]].var == v) return static_cast<int>(p);
    return -1;  // a let or a variable outside the nest: fixed
  }

  Access linearize(const StoreInfo& si, const Expr& index) {
    Access a;
    a.index = index;
    te::LinearForm f = te::toLinear(index);
    for (auto& [atom, coef] : f.terms) {
      Term t;
      t.coef = coef;
      if (const te::VarRef* v = atom.as<te::VarRef>()) {
        t.var = true;
        int p = position(si, v->var.get());
        if (p >= 0) t.pos.push_back(p);
      } else {
        t.atom = atom;
        std::vector<const te::VarNode*> vars;
        detail::collectVars(atom, vars);
        for (const te::VarNode* v : vars)
          if (int p = position(si, v); p >= 0) t.pos.push_back(p);
      }
      if (!t.pos.empty()) a.terms.push_back(std::move(t));
    }
    return a;
  }

  // For serial reuse: how many stores inside each loop access each buffer.
  void countLoopAccesses(const std::vector<std::vector<BufferUse>>& uses) {
    loop_access_.assign(w_.loops.size(), {});
    for (size_t s = 0; s < w_.stores.size(); ++s)
      for (int l : w_.stores[s].loops)
        for (const BufferUse& u : uses[s]) {
          auto& v = loop_access_[l];
          auto it = std::find_if(v.begin(), v.end(), [&](const auto& p) { return p.first == u.buffer; });
          if (it == v.end())
            v.emplace_back(u.buffer, 1);
          else
            ++it->second;
        }
  }

  int storesAccessing(int loop, const te::Buffer* b) const {
    for (const auto& [buf, n] : loop_access_[loop])
      if (buf == b) return n;
    return 0;
  }

  // Distinct values of a non-linear atom when the loops at positions >= level range.
  double atomRange(const StoreInfo& si, const Term& t, int level) const {
    te::VarBounds bounds;
    std::vector<const te::VarNode*> vars;
    detail::collectVars(t.atom, vars);
    double cap = 1;
    for (const te::VarNode* v : vars) {
      int p = position(si, v);
      const LoopInfo* l = p >= 0 ? &w_.loops[si.loops[p]] : nullptr;
      if (l && p >= level) {
        if (l->max_extent <= 0) return 0;
        bounds[v] = te::IntBound::range(0, l->max_extent);
        cap *= l->trips;
      } else {
        bounds[v] = te::IntBound::exact(0);
      }
    }
    te::IntBound b = te::constIntBound(t.atom, bounds);
    if (!b.bounded()) return cap;
    return std::min(cap, static_cast<double>(b.hi - b.lo) + 1);
  }

  Footprint accessFootprint(const StoreInfo& si, const Access& a, int level) const {
    std::vector<std::pair<double, double>> terms;
    for (const Term& t : a.terms) {
      if (t.innermost() < level) continue;  // fixed at this level
      double c = static_cast<double>(std::abs(t.coef));
      if (t.var)
        terms.emplace_back(c, w_.loops[si.loops[t.pos[0]]].trips);
      else
        terms.emplace_back(c, atomRange(si, t, level));
    }
    return footprint(terms);
  }

  static bool movesWith(const BufferUse& u, int pos) {
    for (const Access& a : u.accesses)
      for (const Term& t : a.terms)
        if (std::find(t.pos.begin(), t.pos.end(), pos) != t.pos.end()) return true;
    return false;
  }

  // |d index / d loop var| at position pos, other variables at 0.
  double strideOf(const StoreInfo& si, const Access& a, int pos) const {
    double s = 0;
    bool linear = true;
    for (const Term& t : a.terms)
      if (std::find(t.pos.begin(), t.pos.end(), pos) != t.pos.end()) {
        if (t.var)
          s += static_cast<double>(t.coef);
        else
          linear = false;
      }
    if (linear) return std::fabs(s);
    std::vector<const te::VarNode*> vars;
    detail::collectVars(a.index, vars);
    detail::Env env;
    const te::VarNode* target = w_.loops[si.loops[pos]].var;
    for (const te::VarNode* v : vars) env.emplace_back(v, 0);
    auto v0 = detail::evalInt(a.index, env);
    for (auto& [v, val] : env)
      if (v == target) val = 1;
    auto v1 = detail::evalInt(a.index, env);
    if (v0 && v1) return std::fabs(static_cast<double>(*v1 - *v0));
    // Data-dependent index: the average step of its bound range over the loop.
    te::VarBounds b;
    for (const te::VarNode* v : vars) b[v] = te::IntBound::exact(0);
    b[target] = te::IntBound::range(0, std::max<int64_t>(w_.loops[si.loops[pos]].max_extent, 1));
    te::IntBound r = te::constIntBound(a.index, b);
    int64_t ext = w_.loops[si.loops[pos]].max_extent;
    return r.bounded() && ext > 1 ? static_cast<double>(r.hi - r.lo) / static_cast<double>(ext - 1) : 1.0;
  }

  static double execs_outside(const std::vector<double>& trips, int pos) {
    double p = 1;
    for (int i = 0; i < pos; ++i) p *= trips[i];
    return p;
  }

  enum Pos { kNone, kInnerSpatial, kMiddleSpatial, kOuterSpatial, kInnerReduce, kMiddleReduce, kOuterReduce, kMixed };

  void annotationFeatures(const StoreInfo& si, const BufferUse& written, lower::ForKind kind, bool use_trips,
                          float& num, float& prod, float& len, float* const (&onehot)[8]) const {
    int n = static_cast<int>(si.loops.size());
    double p = 1;
    int cat = kNone;
    num = 0;
    for (int i = 0; i < n; ++i) {
      const LoopInfo& l = w_.loops[si.loops[i]];
      if (l.kind != kind) continue;
      double ext = use_trips ? l.trips : static_cast<double>(l.max_extent);
      ++num;
      p *= ext;
      len = static_cast<float>(ext);
      int level = i == n - 1 ? 0 : i == 0 ? 2 : 1;
      int c = (movesWith(written, i) ? kInnerSpatial : kInnerReduce) + level;
      cat = cat == kNone ? c : cat == c ? c : kMixed;
    }
    prod = num > 0 ? static_cast<float>(p) : 0.f;
    *onehot[cat] = 1;
  }

  // What every feature group needs to know about one store's loop nest.
  struct Nest {
    int n = 0;                  // loops around the store, outermost first
    std::vector<double> trips;  // each loop's average trip count
    std::vector<double> inner;  // inner[i]: iterations of the loops at positions >= i per execution of loop i's parent
    double execs = 0, max_execs = 1;  // executions of the store (guards counted), and at the loops' full extents
    int unknown = 0;                  // loops of unknown extent
    std::vector<std::vector<Footprint>>
        fp;  // fp[b][i]: touched elements of buffer b while the loops at positions >= i range
  };

  Nest nestOf(const StoreInfo& si, const std::vector<BufferUse>& uses) const {
    Nest nest;
    const int n = nest.n = static_cast<int>(si.loops.size());
    nest.trips.resize(n);
    nest.execs = si.guard_prob;
    for (int i = 0; i < n; ++i) {
      const LoopInfo& l = w_.loops[si.loops[i]];
      nest.trips[i] = l.trips;
      nest.execs *= l.trips;
      nest.max_execs *= static_cast<double>(l.max_extent);
      nest.unknown += l.unknown;
    }
    nest.inner.assign(n + 1, 1.0);
    for (int i = n - 1; i >= 0; --i) nest.inner[i] = nest.inner[i + 1] * nest.trips[i];
    // Touched elements of every buffer at every level (level i: loops at positions >= i range).
    size_t nb = uses.size();
    nest.fp.assign(nb, std::vector<Footprint>(n + 1));
    for (size_t b = 0; b < nb; ++b)
      for (int lv = 0; lv <= n; ++lv) {
        Footprint best{0, 1, 1};
        for (const Access& a : uses[b].accesses) {
          Footprint x = accessFootprint(si, a, lv);
          if (x.count > best.count) best = x;
        }
        nest.fp[b][lv] = best;
      }
    return nest;
  }

  // Bytes touched by all buffers while the loops at positions >= lv range.
  static double bytesAt(const Nest& nest, const std::vector<BufferUse>& uses, int lv) {
    double s = 0;
    for (size_t b = 0; b < uses.size(); ++b) s += nest.fp[b][lv].count * uses[b].elem;
    return s;
  }

  // The innermost loop left as a loop in machine code (serial or parallel), or -1.
  int rolledLoop(const StoreInfo& si) const {
    int rolled = -1;
    for (int i = static_cast<int>(si.loops.size()) - 1; i >= 0 && rolled < 0; --i) {
      lower::ForKind k = w_.loops[si.loops[i]].kind;
      if (k == lower::ForKind::Serial || k == lower::ForKind::Parallel) rolled = i;
    }
    return rolled;
  }

  // Group 1: operation counts, loop annotations and the shape of the loops that stay loops.
  void computeFeatures(const StoreInfo& si, const std::vector<BufferUse>& uses, const Nest& nest, const OpCounts& ops,
                       ComputeFeatures& c) const {
    const int n = nest.n;
    const double execs = nest.execs;
#define TTUNE_FIELD_PTR(name) &c.name,
    float* const fl[] = {TTUNE_FEATURE_OPS(TTUNE_FIELD_PTR, float)};
    float* const in[] = {TTUNE_FEATURE_OPS(TTUNE_FIELD_PTR, int)};
    float* const vec_pos[] = {TTUNE_FEATURE_POSITION(TTUNE_FIELD_PTR, vec)};
    float* const unroll_pos[] = {TTUNE_FEATURE_POSITION(TTUNE_FIELD_PTR, unroll)};
    float* const parallel_pos[] = {TTUNE_FEATURE_POSITION(TTUNE_FIELD_PTR, parallel)};
#undef TTUNE_FIELD_PTR
    static_assert(sizeof(fl) / sizeof(fl[0]) == kNumOpKinds);
    for (int k = 0; k < kNumOpKinds; ++k) {
      *fl[k] = static_cast<float>(ops.flt[k] * execs);
      *in[k] = static_cast<float>(ops.integer[k] * execs);
    }
    c.bool_op = static_cast<float>(ops.bool_op * execs);
    c.select_op = static_cast<float>(ops.select_op * execs);
    const BufferUse& written = uses[0];
    annotationFeatures(si, written, lower::ForKind::Vectorized, false, c.vec_num, c.vec_prod, c.vec_len, vec_pos);
    annotationFeatures(si, written, lower::ForKind::Unrolled, false, c.unroll_num, c.unroll_prod, c.unroll_len,
                       unroll_pos);
    annotationFeatures(si, written, lower::ForKind::Parallel, true, c.parallel_num, c.parallel_prod, c.parallel_len,
                       parallel_pos);
    c.exec_ratio = nest.max_execs > 0 ? static_cast<float>(execs / nest.max_execs) : 0.f;
    c.guard_ifs = static_cast<float>(si.guard_ifs);
    for (int i = n - 1; i >= 0; --i)
      if (w_.loops[si.loops[i]].kind == lower::ForKind::Vectorized) {
        c.vec_tail_frac = static_cast<float>(w_.loops[si.loops[i]].short_frac);
        break;
      }
    c.unknown_extents = static_cast<float>(nest.unknown);
    const int rolled = rolledLoop(si);
    int vec = -1;  // innermost vectorized loop
    for (int i = n - 1; i >= 0 && vec < 0; --i)
      if (w_.loops[si.loops[i]].kind == lower::ForKind::Vectorized) vec = i;
    auto maxStride = [&](int pos) {
      double m = 0;
      for (const BufferUse& u : uses)
        for (const Access& a : u.accesses) m = std::max(m, strideOf(si, a, pos));
      return static_cast<float>(m);
    };
    if (rolled >= 0) {
      c.rolled_len = static_cast<float>(nest.trips[rolled]);
      c.rolled_reduce = !movesWith(written, rolled);
      c.rolled_max_stride = maxStride(rolled);
      double body = 1;
      for (int i = rolled + 1; i < n; ++i) body *= static_cast<double>(w_.loops[si.loops[i]].max_extent);
      c.rolled_body = static_cast<float>(body);
    }
    if (vec >= 0) c.vec_max_stride = maxStride(vec);
    for (int i = 0; i < n; ++i)
      if (w_.loops[si.loops[i]].kind == lower::ForKind::Parallel) {
        c.parallel_launches = static_cast<float>(si.guard_prob * execs_outside(nest.trips, i));
        break;
      }
  }

  // Group 2: one buffer's accesses -- bytes, cache lines and reuse. `rolled` as rolledLoop.
  BufferFeatures bufferFeatures(const StoreInfo& si, const std::vector<BufferUse>& uses, size_t b, const Nest& nest,
                                int rolled, double& lines) const {
    const int n = nest.n;
    const double execs = nest.execs;
    const BufferUse& u = uses[b];
    BufferFeatures bf;
    bf.acc_read = u.read && !u.write;
    bf.acc_write = u.write && !u.read;
    bf.acc_readwrite = u.read && u.write;
    double elem = u.elem;
    double bytes = execs * elem;
    double unique = nest.fp[b][0].count * elem;
    // Lines: the innermost loop moving the access decides its stride.
    const Access& a = u.accesses[0];
    int inner_pos = -1;
    for (int i = n - 1; i >= 0 && inner_pos < 0; --i)
      if (movesWith(u, i)) inner_pos = i;
    double stride = inner_pos >= 0 ? strideOf(si, a, inner_pos) : 0;
    double reduce_ratio = nest.inner[inner_pos + 1];
    double factor = stride == 0 ? 1.0 : std::min(1.0, stride * elem / kCacheLine);
    lines = reduce_ratio > 0 ? execs / reduce_ratio * factor : 0;
    if (execs > 0) lines = std::max(lines, 1.0);
    const Footprint& f0 = nest.fp[b][0];
    double per_run = f0.step * elem >= kCacheLine ? f0.run : std::max(1.0, f0.run * f0.step * elem / kCacheLine);
    double unique_lines = f0.run > 0 ? f0.count / f0.run * per_run : 0;
    // Reuse, from the innermost loop out.
    double reuse_ct = 0, dis_iter = 0, dis_bytes = 0;
    for (int i = n - 1; i >= 0; --i) {
      if (!movesWith(u, i)) {
        bf.reuse_loop = 1;
        reuse_ct = nest.trips[i];
        dis_iter = nest.inner[i + 1];
        dis_bytes = bytesAt(nest, uses, i + 1);
        break;
      }
      int count = storesAccessing(si.loops[i], u.buffer);
      if (count > 1) {
        bf.reuse_serial = 1;
        reuse_ct = count - 1;
        dis_iter = nest.inner[i + 1] / count;
        dis_bytes = bytesAt(nest, uses, i + 1) / count;
        break;
      }
    }
    if (bf.reuse_loop == 0 && bf.reuse_serial == 0) bf.reuse_none = 1;
    bf.bytes = static_cast<float>(bytes);
    bf.unique_bytes = static_cast<float>(unique);
    bf.lines = static_cast<float>(lines);
    bf.unique_lines = static_cast<float>(unique_lines);
    bf.reuse_dis_iter = static_cast<float>(dis_iter);
    bf.reuse_dis_bytes = static_cast<float>(dis_bytes);
    bf.reuse_ct = static_cast<float>(reuse_ct);
    double div = reuse_ct > 0 ? reuse_ct : 0.5;  // Ansor: twice the value without reuse
    bf.bytes_d_reuse_ct = static_cast<float>(bytes / div);
    bf.unique_bytes_d_reuse_ct = static_cast<float>(unique / div);
    bf.lines_d_reuse_ct = static_cast<float>(lines / div);
    bf.unique_lines_d_reuse_ct = static_cast<float>(unique_lines / div);
    bf.stride = static_cast<float>(stride);
    bf.rolled_stride = rolled >= 0 && movesWith(u, rolled) ? static_cast<float>(strideOf(si, a, rolled)) : 0.f;
    bf.local_scope = u.buffer->scope == te::MemScope::Local;
    return bf;
  }

  // Group 2: the buffers ranked by cache lines (then bytes), the first kMaxBuffers kept.
  void rankedBufferFeatures(const StoreInfo& si, const std::vector<BufferUse>& uses, const Nest& nest,
                            StoreFeatures& f) const {
    struct Ranked {
      BufferFeatures feat;
      double lines, bytes;
    };
    const int rolled = rolledLoop(si);
    std::vector<Ranked> ranked;
    for (size_t b = 0; b < uses.size(); ++b) {
      double lines = 0;
      BufferFeatures bf = bufferFeatures(si, uses, b, nest, rolled, lines);
      ranked.push_back({bf, lines, nest.execs * uses[b].elem});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& x, const Ranked& y) {
      return x.lines != y.lines ? x.lines > y.lines : x.bytes > y.bytes;
    });
    for (size_t k = 0; k < ranked.size() && k < StoreFeatures::kMaxBuffers; ++k) f.buffers[k] = ranked[k].feat;
  }

  // Group 3: arithmetic intensity from the innermost loop outwards, sampled at kCurveSamples points.
  static void intensityCurve(const StoreInfo& si, const std::vector<BufferUse>& uses, const Nest& nest,
                             const OpCounts& ops, StoreFeatures& f) {
    const int n = nest.n;
    double flops = ops.floatOps() * si.guard_prob;
    if (!(flops > 0)) return;
    std::vector<double> xs, ys;
    for (int lv = n; lv >= 0; --lv) {
      if (lv < n && lv > 0 && nest.trips[lv] == 1) continue;  // no new point
      double o = flops * nest.inner[lv];
      xs.push_back(std::log2(1 + o));
      ys.push_back(o / std::max(bytesAt(nest, uses, lv), 1.0));
    }
    double xmax = xs.back();
    size_t pt = 0;
    for (size_t k = 0; k < StoreFeatures::kCurveSamples; ++k) {
      double x = xmax * static_cast<double>(k + 1) / StoreFeatures::kCurveSamples;
      while (pt + 1 < xs.size() && xs[pt] < x - 1e-9) ++pt;
      double y = ys[pt];
      if (pt > 0 && xs[pt] > xs[pt - 1])
        y = ys[pt - 1] + (ys[pt] - ys[pt - 1]) * (x - xs[pt - 1]) / (xs[pt] - xs[pt - 1]);
      f.ai_curve[k] = static_cast<float>(y);
    }
  }

  StoreFeatures featurize(const StoreInfo& si, std::vector<BufferUse>& uses) {
    StoreFeatures f;
    const Nest nest = nestOf(si, uses);
    OpCounts ops;
    countOps(si.store->value, ops);
    countOps(si.store->index, ops);
    computeFeatures(si, uses, nest, ops, f.compute);
    rankedBufferFeatures(si, uses, nest, f);
    intensityCurve(si, uses, nest, ops, f);

    // Group 4: the store's local allocation.
    if (si.alloc >= 0) {
      const detail::AllocInfo& al = w_.allocs[si.alloc];
      double size = static_cast<double>(al.buffer->size) * te::dtypeBytes(al.buffer->dtype);
      f.alloc.alloc_size = static_cast<float>(size);
      f.alloc.alloc_outer_prod = static_cast<float>(al.execs);
      f.alloc.alloc_prod = static_cast<float>(size * al.execs);
      f.alloc.alloc_inner_prod = al.execs > 0 ? static_cast<float>(nest.execs / al.execs) : 0.f;
      f.alloc.alloc_local = al.buffer->scope == te::MemScope::Local;
    }

    // Group 5: the loop nest as a whole.
    f.outer.outer_prod = static_cast<float>(nest.execs);
    f.outer.num_loops = static_cast<float>(nest.n);
    for (const auto& [name, step] : auto_unroll_)
      if (name == si.store->buffer->name) f.outer.auto_unroll_max_step = static_cast<float>(step);
    return f;
  }

  const WalkResult& w_;
  std::vector<std::pair<std::string, int64_t>> auto_unroll_;
  std::vector<std::vector<std::pair<const te::Buffer*, int>>> loop_access_;
};

}  // namespace

std::vector<StoreFeatures> extractStoreFeatures(const lower::LoweredFunc& func, const schedule::State* state) {
  WalkResult w = detail::walkLoopIR(func.body);
  return StoreFeaturizer(w, state).run();
}

StateFeatures extractFeatures(const lower::LoweredFunc& func, const schedule::State* state) {
  std::vector<StoreFeatures> stores = extractStoreFeatures(func, state);
  StateFeatures out;
  out.n_stores = static_cast<int>(stores.size());
  out.data.reserve(stores.size() * kNumFeatures);
  for (const StoreFeatures& s : stores) s.appendScaled(out.data);
  return out;
}

Expected<StateFeatures> featuresOf(const schedule::State& state) {
  TT_TRY(lower::LoweredFunc f, lower::lower(state, "kernel"));
  StateFeatures out = extractFeatures(f, &state);
  if (!out.valid()) return Unexpected("the lowered kernel has no store");
  return out;
}

std::vector<StateFeatures> featuresOfAll(const std::vector<schedule::State>& states, int threads) {
  std::vector<StateFeatures> out(states.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < states.size(); i = next++) {
      auto f = featuresOf(states[i]);
      if (f.ok()) out[i] = std::move(*f);
    }
  };
  int n = threads > 0 ? threads : runtime::defaultNumThreads();
  n = std::min<int>(n, static_cast<int>(states.size()));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace ttune::autotune
