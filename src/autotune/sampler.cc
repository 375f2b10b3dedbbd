#include "autotune/sampler.h"

#include <map>
#include <mutex>

#include "autotune/analysis.h"
#include "autotune/sketch.h"
#include "schedule/dot_group.h"
#include "schedule/names.h"
#include "support/assert.h"

namespace ttune::autotune {

using namespace schedule;

namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      d.push_back(i);
      if (i != n / i) d.push_back(n / i);
    }
  std::sort(d.begin(), d.end());
  return d;
}

void factorize(int64_t rest, int n, int64_t cap, std::vector<int64_t>& cur, std::vector<std::vector<int64_t>>& out) {
  if (static_cast<int>(cur.size()) == n) {
    out.push_back(cur);
    return;
  }
  for (int64_t d : divisors(rest)) {
    if (static_cast<int>(cur.size()) == n - 1 && d > cap) break;  // the innermost length
    cur.push_back(d);
    factorize(rest / d, n, cap, cur, out);
    cur.pop_back();
  }
}

// Non-dividing lengths: small sizes whose product stays within the extent.
std::vector<int64_t> nonDividingLengths(int64_t extent, int n, int64_t cap, Rng& rng) {
  static const int64_t cands[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 48, 64};
  std::vector<int64_t> out(n, 1);
  int64_t prod = 1;
  for (int k = n - 1; k >= 0; --k) {
    std::vector<int64_t> ok;
    for (int64_t c : cands)
      if (prod * c <= std::max<int64_t>(extent, 1) && (k != n - 1 || c <= cap)) ok.push_back(c);
    out[k] = ok.empty() ? 1 : ok[rng.index(ok.size())];
    prod *= out[k];
  }
  return out;
}

std::vector<std::optional<int64_t>> sampleLengths(int64_t extent, int n, const SamplerOptions& opt, Rng& rng) {
  const auto& exact = exactFactorizations(extent, n, opt.max_innermost_split);
  size_t ndiv = divisors(extent).size();
  double p = ndiv <= 4 ? 0.5 : opt.non_dividing_prob;
  std::vector<int64_t> pick;
  if (exact.empty() || rng.bernoulli(p))
    pick = nonDividingLengths(extent, n, opt.max_innermost_split, rng);
  else
    pick = exact[rng.index(exact.size())];
  return std::vector<std::optional<int64_t>>(pick.begin(), pick.end());
}

bool isTiled(const State& s, int si) { return !s.stages()[si].relations.empty(); }

// Candidate attach iterators for stage si inside its consumer (outermost first): the consumer's
// loops before its first reduction loop, skipping extent-1 loops.
std::vector<std::pair<std::string, std::string>> computeAtCandidates(const State& s, int si) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<int> cons = s.effectiveConsumers(si);
  if (cons.size() != 1) return out;
  const Stage& c = s.stages()[cons[0]];
  if (c.location == ComputeLocation::Inlined) return out;
  for (const Iterator& it : c.iters) {
    if (it.kind == te::IterKind::Reduce) break;
    if (it.extent && *it.extent == 1) continue;
    if (it.annotation == IterAnnotation::Vectorize) break;
    out.push_back({c.op, it.name});
  }
  return out;
}

// Replays steps; nullopt if they do not apply or bounds fail.
std::optional<State> replay(const State& base, const std::vector<Step>& steps) {
  auto st = State::replay(base.originalDag(), steps);
  if (!st.ok()) return std::nullopt;
  return std::move(*st);
}

void changeComputeLocations(State& s, Rng& rng, const SamplerOptions&) {
  DagAnalysis an(*s.originalDag());
  for (int si = static_cast<int>(s.stages().size()) - 1; si >= 0; --si) {
    const Stage& st = s.stages()[si];
    if (st.is_placeholder || st.location != ComputeLocation::Root || isTiled(s, si)) continue;
    if (s.dag().isOutput(si) || isCacheWriteStage(s, st.op)) continue;
    // Only stages the sketch left alone (skipped): padding, element-wise producers, small reductions.
    auto cand = computeAtCandidates(s, si);
    bool can_inline = !st.isReduction();
    size_t choice = rng.index(cand.size() + 2);
    std::string name = st.op;
    if (choice == 0) {
      if (can_inline) (void)s.apply(ComputeInlineStep{name});
    } else if (choice >= 2) {
      const auto& [stage, iter] = cand[choice - 2];
      (void)s.apply(ComputeAtStep{name, stage, iter});
    }
    if (!s.inferBounds().ok()) return;
  }
}

// The innermost tile of a multi-level-tiled stage runs its spatial parts in axis order; half of
// the draws move another axis innermost (it is then the one vectorized, and the private tile is
// laid out along it): e.g. output channels of an NCHW convolution.
void chooseInnerOrder(State& s, Rng& rng) {
  for (const Stage& st : std::vector<Stage>(s.stages())) {
    int si = s.stageIndex(st.op);
    if (st.is_placeholder || !isTiled(s, si) || !st.isReduction() || rng.bernoulli(0.5)) continue;
    // The trailing run of spatial iterators is the innermost tile level (before a dot group).
    const bool group = schedule::endsInDotGroup(st);
    size_t end = st.iters.size() - (group ? 1 : 0), begin = end;
    while (begin > 0 && st.iters[begin - 1].kind == te::IterKind::Spatial) --begin;
    std::vector<size_t> cand;
    for (size_t k = begin; k + 1 < end; ++k)
      if (st.iters[k].extent && *st.iters[k].extent > 1) cand.push_back(k);
    if (cand.empty()) continue;
    size_t move = rng.choice(cand);
    std::vector<std::string> order;
    for (size_t k = 0; k < end; ++k)
      if (k != move) order.push_back(st.iters[k].name);
    order.push_back(st.iters[move].name);
    if (group) order.push_back(st.iters.back().name);
    (void)s.apply(ReorderStep{st.op, order});
  }
}

void annotateParallel(State& s, const SamplerOptions& opt) {
  for (size_t si = 0; si < s.stages().size(); ++si) {
    const Stage& st = s.stages()[si];
    if (st.is_placeholder || st.location != ComputeLocation::Root || st.iters.empty()) continue;
    std::vector<std::string> fuse;
    int64_t prod = 1;
    for (const Iterator& it : st.iters) {
      if (it.kind != te::IterKind::Spatial || it.annotation != IterAnnotation::None || !it.extent) break;
      fuse.push_back(it.name);
      prod *= *it.extent;
      if (!s.attachedAt(st.op, it.name).empty() || prod >= 16 * opt.num_cores) break;
    }
    while (!fuse.empty() && prod > 1 && !fuse.empty()) {
      // Drop trailing extent-1 loops that add nothing.
      const Iterator* last = st.findIter(fuse.back());
      if (fuse.size() > 1 && last->extent == 1 && s.attachedAt(st.op, last->name).empty()) {
        fuse.pop_back();
        continue;
      }
      break;
    }
    if (fuse.empty() || prod <= 1) continue;
    std::string name = st.op;
    if (fuse.size() > 1 && !s.apply(FuseStep{name, fuse}).ok()) continue;
    (void)s.apply(AnnotationStep{name, names::fused(fuse), IterAnnotation::Parallel});
  }
}

void annotateUnroll(State& s, Rng& rng, const SamplerOptions& opt) {
  for (const Stage& st : std::vector<Stage>(s.stages())) {
    if (st.is_placeholder || st.location == ComputeLocation::Inlined || !st.isReduction()) continue;
    (void)s.apply(AutoUnrollStep{st.op, opt.unroll_choices[rng.index(opt.unroll_choices.size())]});
  }
}

void annotateVectorize(State& s, Rng& rng, const SamplerOptions& opt) {
  for (const Stage& st : std::vector<Stage>(s.stages())) {
    if (st.is_placeholder || st.location == ComputeLocation::Inlined || st.iters.empty()) continue;
    std::vector<std::string> inner;
    int64_t prod = 1;
    // A dot group stays innermost: the loop vectorized is the one around it.
    for (auto it = st.iters.rbegin() + (schedule::endsInDotGroup(st) ? 1 : 0); it != st.iters.rend(); ++it) {
      if (it->kind != te::IterKind::Spatial || it->annotation != IterAnnotation::None || !it->extent) break;
      if (!s.attachedAt(st.op, it->name).empty()) break;
      if (prod * *it->extent > opt.max_vectorize) break;
      prod *= *it->extent;
      inner.insert(inner.begin(), it->name);
      if (!st.relations.empty()) break;  // tiled stages vectorize their innermost loop only
    }
    if (inner.empty() || prod <= 1) continue;
    if (inner.size() > 1) {
      size_t n = static_cast<size_t>(rng.uniformInt(1, static_cast<int64_t>(inner.size())));
      inner.erase(inner.begin(), inner.end() - n);
    }
    if (inner.size() > 1 && !s.apply(FuseStep{st.op, inner}).ok()) continue;
    (void)s.apply(AnnotationStep{st.op, names::fused(inner), IterAnnotation::Vectorize});
  }
}

void rewriteLayouts(State& s) {
  for (const Stage& st : std::vector<Stage>(s.stages())) {
    int si = s.stageIndex(st.op);
    if (st.is_placeholder || !isTiled(s, si) || !st.isReduction()) continue;
    for (int p : s.dag().producers(si)) {
      const te::Operation& op = s.dag().op(p);
      if (op.isPlaceholder() && op.placeholder().is_constant) (void)s.apply(LayoutRewriteStep{st.op, op.name()});
    }
  }
}

// The innermost tile of a tiled reduction stage: its trailing spatial iterators.
std::vector<const Iterator*> innermostTile(const Stage& st) {
  std::vector<const Iterator*> out;
  size_t end = st.iters.size() - (schedule::endsInDotGroup(st) ? 1 : 0);
  for (size_t k = end; k > 0 && st.iters[k - 1].kind == te::IterKind::Spatial; --k)
    out.insert(out.begin(), &st.iters[k - 1]);
  return out;
}

// Every dot group of `before` is still there, whole, in `after` (mutations move factors between
// a split's parts, and the group is one of its split's parts).
bool dotGroupsKept(const State& before, const State& after) {
  for (const Stage& st : before.stages()) {
    if (!schedule::endsInDotGroup(st)) continue;
    const Stage* now = nullptr;
    for (const Stage& a : after.stages())
      if (a.op == st.op) now = &a;
    if (!now || !schedule::endsInDotGroup(*now) || now->iters.back().extent != st.iters.back().extent) return false;
  }
  return true;
}

int stageTileRegisters(const Stage& st, int lanes) {
  std::vector<const Iterator*> tile = innermostTile(st);
  if (tile.empty()) return 0;
  int64_t vec = (tile.back()->extent.value_or(1) + lanes - 1) / lanes, rows = 1;
  for (size_t k = 0; k + 1 < tile.size(); ++k) rows *= tile[k]->extent.value_or(1);
  return schedule::registersNeeded(static_cast<int>(std::min<int64_t>(rows * vec, 1 << 20)), static_cast<int>(vec));
}

int smallestPrimeFactor(int64_t n) {
  for (int64_t p = 2; p * p <= n; ++p)
    if (n % p == 0) return static_cast<int>(p);
  return static_cast<int>(n);
}

}  // namespace

int tileRegisters(const State& s, int lanes) {
  int need = 0;
  for (size_t si = 0; si < s.stages().size(); ++si) {
    const Stage& st = s.stages()[si];
    if (st.is_placeholder || st.relations.empty() || !st.isReduction()) continue;
    need = std::max(need, stageTileRegisters(st, lanes));
  }
  return need;
}

std::optional<State> fitRegisters(const State& state, int lanes, int registers) {
  std::optional<State> s = state;
  for (int attempt = 0; attempt < 16; ++attempt) {
    const Stage* over = nullptr;
    for (const Stage& st : s->stages())
      if (!st.is_placeholder && !st.relations.empty() && st.isReduction() && stageTileRegisters(st, lanes) > registers)
        over = &st;
    if (!over) return s;
    // Shrink the longest row axis of the tile; the vector axis only when the rows alone fit.
    std::vector<const Iterator*> tile = innermostTile(*over);
    const Iterator* pick = nullptr;
    for (size_t k = 0; k + 1 < tile.size(); ++k)
      if (tile[k]->extent.value_or(1) > 1 && (!pick || *tile[k]->extent > *pick->extent)) pick = tile[k];
    if (!pick && tile.back()->extent.value_or(1) > 1) pick = tile.back();
    if (!pick) return std::nullopt;
    // The split that made the iterator: part n is the innermost of n lengths.
    const std::optional<names::SplitPart> part = names::parseSplitPart(pick->name);
    if (!part) return std::nullopt;
    std::vector<Step> steps = s->steps();
    bool changed = false;
    for (Step& step : steps) {
      SplitStep* sp = std::get_if<SplitStep>(&step);
      if (!sp || sp->stage != over->op || sp->iter != part->parent || sp->lengths.empty() || !sp->lengths.back())
        continue;
      if (sp->lengths.size() != part->index) continue;
      int64_t inner = *sp->lengths.back();
      if (inner <= 1) return std::nullopt;
      int p = smallestPrimeFactor(inner);
      sp->lengths.back() = inner / p;
      if (sp->lengths.size() >= 2 && sp->lengths[sp->lengths.size() - 2]) *sp->lengths[sp->lengths.size() - 2] *= p;
      changed = true;
      break;
    }
    if (!changed) return std::nullopt;
    s = replay(state, steps);
    if (!s || !s->inferBounds().ok()) return std::nullopt;
  }
  return std::nullopt;
}

const std::vector<std::vector<int64_t>>& exactFactorizations(int64_t extent, int n, int64_t cap) {
  static std::mutex mu;
  static std::map<std::tuple<int64_t, int, int64_t>, std::vector<std::vector<int64_t>>> memo;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(extent, n, cap);
  auto it = memo.find(key);
  if (it != memo.end()) return it->second;
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> cur;
  factorize(std::max<int64_t>(extent, 1), n, cap, cur, out);
  return memo.emplace(key, std::move(out)).first->second;
}

std::vector<Step> finalizeForMeasurement(const State& state) {
  State s = state;
  rewriteLayouts(s);
  return s.steps();
}

std::vector<Step> withoutLayoutRewrites(const std::vector<Step>& steps) {
  std::vector<Step> out;
  for (const Step& s : steps)
    if (!std::holds_alternative<LayoutRewriteStep>(s)) out.push_back(s);
  return out;
}

std::optional<State> sampleState(const State& sketch, Rng& rng, const SamplerOptions& opt) {
  std::vector<Step> steps = sketch.steps();
  for (Step& st : steps) {
    SplitStep* sp = std::get_if<SplitStep>(&st);
    if (!sp) continue;
    bool unset = false;
    for (const auto& l : sp->lengths) unset = unset || !l;
    if (!unset) continue;
    if (!sp->extent) return std::nullopt;
    // Lengths the sketch fixed at the inner end (a dot-product group) stay; the unset ones
    // before them split what is left.
    size_t fixed = 0;
    int64_t fixed_prod = 1;
    for (size_t k = sp->lengths.size(); k > 0 && sp->lengths[k - 1]; --k, ++fixed) fixed_prod *= *sp->lengths[k - 1];
    std::vector<std::optional<int64_t>> tail(sp->lengths.end() - static_cast<long>(fixed), sp->lengths.end());
    const int free_parts = static_cast<int>(sp->lengths.size() - fixed);
    sp->lengths = sampleLengths((*sp->extent + fixed_prod - 1) / fixed_prod, free_parts, opt, rng);
    sp->lengths.insert(sp->lengths.end(), tail.begin(), tail.end());
  }
  auto s = replay(sketch, steps);
  if (!s) return std::nullopt;
  changeComputeLocations(*s, rng, opt);
  chooseInnerOrder(*s, rng);
  annotateParallel(*s, opt);
  annotateUnroll(*s, rng, opt);
  annotateVectorize(*s, rng, opt);
  if (!s->inferBounds().ok()) return std::nullopt;
  return fitRegisters(*s, opt.target.lanes(), opt.target.vector_registers);
}

std::optional<State> mutateState(const State& state, Rng& rng, const SamplerOptions& opt) {
  std::vector<Step> steps = state.steps();
  double r = rng.uniform();
  if (r < 0.90) {
    // Tile size: move a factor between two parts of one split.
    std::vector<size_t> cand;
    for (size_t i = 0; i < steps.size(); ++i)
      if (const SplitStep* sp = std::get_if<SplitStep>(&steps[i]); sp && sp->extent && *sp->extent > 1)
        cand.push_back(i);
    if (cand.empty()) return std::nullopt;
    SplitStep& sp = std::get<SplitStep>(steps[rng.choice(cand)]);
    int n = static_cast<int>(sp.lengths.size());
    if (rng.bernoulli(0.1)) {
      sp.lengths = sampleLengths(*sp.extent, n, opt, rng);
    } else {
      std::vector<int64_t> f(n + 1);
      int64_t prod = 1;
      for (int k = 0; k < n; ++k) prod *= *sp.lengths[k];
      f[0] = (*sp.extent + prod - 1) / prod;
      for (int k = 0; k < n; ++k) f[k + 1] = *sp.lengths[k];
      std::vector<int> order(n + 1);
      for (int k = 0; k <= n; ++k) order[k] = k;
      rng.shuffle(order);
      int src = -1;
      for (int k : order)
        if (f[k] > 1) {
          src = k;
          break;
        }
      if (src < 0) return std::nullopt;
      int dst = order[(std::find(order.begin(), order.end(), src) - order.begin() + 1) % (n + 1)];
      std::vector<int64_t> ds = divisors(f[src]);
      ds.erase(ds.begin());  // not 1
      int64_t d = ds[rng.index(ds.size())];
      f[src] /= d;
      f[dst] *= d;
      if (f[n] > opt.max_innermost_split) return std::nullopt;
      for (int k = 0; k < n; ++k) sp.lengths[k] = f[k + 1];
    }
  } else if (r < 0.94) {
    std::vector<size_t> cand;
    for (size_t i = 0; i < steps.size(); ++i)
      if (std::holds_alternative<AutoUnrollStep>(steps[i])) cand.push_back(i);
    if (cand.empty()) return std::nullopt;
    std::get<AutoUnrollStep>(steps[rng.choice(cand)]).max_step =
        opt.unroll_choices[rng.index(opt.unroll_choices.size())];
  } else if (r < 0.99) {
    // Compute location of one stage the sketch left free: choose again and replay.
    std::vector<size_t> cand;
    for (size_t i = 0; i < steps.size(); ++i) {
      const Step& st = steps[i];
      bool loc = std::holds_alternative<ComputeAtStep>(st) || std::holds_alternative<ComputeInlineStep>(st) ||
                 std::holds_alternative<ComputeRootStep>(st);
      if (!loc) continue;
      int si = state.stageIndex(stepStage(st));
      if (si >= 0 && !isTiled(state, si)) cand.push_back(i);
    }
    if (cand.empty()) return std::nullopt;
    size_t i = rng.choice(cand);
    std::string stage = stepStage(steps[i]);
    std::vector<Step> prefix(steps.begin(), steps.begin() + static_cast<long>(i));
    auto pre = replay(state, prefix);
    if (!pre) return std::nullopt;
    int si = pre->stageIndex(stage);
    if (si < 0) return std::nullopt;
    auto cands = computeAtCandidates(*pre, si);
    size_t choice = rng.index(cands.size() + 2);
    if (choice == 0)
      steps[i] = ComputeInlineStep{stage};
    else if (choice == 1)
      steps[i] = ComputeRootStep{stage};
    else
      steps[i] = ComputeAtStep{stage, cands[choice - 2].first, cands[choice - 2].second};
  } else {
    // Parallel: fuse one more or one fewer outer loop into the parallel loop.
    std::vector<size_t> cand;
    for (size_t i = 0; i + 1 < steps.size(); ++i) {
      const FuseStep* fu = std::get_if<FuseStep>(&steps[i]);
      const AnnotationStep* an = std::get_if<AnnotationStep>(&steps[i + 1]);
      if (fu && an && an->stage == fu->stage && an->annotation == IterAnnotation::Parallel) cand.push_back(i);
    }
    if (cand.empty()) return std::nullopt;
    size_t i = rng.choice(cand);
    FuseStep& fu = std::get<FuseStep>(steps[i]);
    std::vector<Step> prefix(steps.begin(), steps.begin() + static_cast<long>(i));
    auto pre = replay(state, prefix);
    if (!pre) return std::nullopt;
    const Stage& st = pre->stage(fu.stage);
    if (st.iters.empty() || st.iters[0].name != fu.iters[0]) return std::nullopt;
    size_t n = fu.iters.size();
    size_t want = rng.bernoulli(0.5) ? n + 1 : n - 1;
    if (want < 2 || want > st.iters.size() || st.iters[want - 1].kind != te::IterKind::Spatial) return std::nullopt;
    const std::string old_name = names::fused(fu.iters);
    fu.iters.clear();
    for (size_t k = 0; k < want; ++k) fu.iters.push_back(st.iters[k].name);
    const std::string new_name = names::fused(fu.iters);
    // Later steps that name the fused loop follow the new name.
    for (size_t k = i + 1; k < steps.size(); ++k) {
      if (AnnotationStep* a = std::get_if<AnnotationStep>(&steps[k]); a && a->iter == old_name) a->iter = new_name;
      if (ComputeAtStep* c = std::get_if<ComputeAtStep>(&steps[k]); c && c->target_iter == old_name)
        c->target_iter = new_name;
    }
  }
  auto out = replay(state, steps);
  if (!out || tileRegisters(*out, opt.target.lanes()) > opt.target.vector_registers) return std::nullopt;
  if (!dotGroupsKept(state, *out)) return std::nullopt;
  return out;
}

}  // namespace ttune::autotune
