// Replay of each transform step on a State: validation (with the reason a step does not apply)
// and the effect on stages, iterators, relations and compute locations.
#include <algorithm>
#include <unordered_set>

#include "schedule/bound.h"
#include "schedule/dag_rewrite.h"
#include "schedule/names.h"
#include "schedule/state.h"
#include "support/assert.h"
#include "support/overload.h"
#include "support/strings.h"

namespace ttune::schedule {

class StepApplier {
 public:
  explicit StepApplier(State& s) : s_(s) {}

  Status apply(const Step& step) {
    return std::visit([&](const auto& st) { return applyOne(st); }, step);
  }

 private:
  Expected<Stage*> computeStage(const std::string& name) {
    int i = s_.stageIndex(name);
    if (i < 0) return Unexpected("no stage named " + name);
    Stage& st = s_.stages_[i];
    if (st.is_placeholder) return Unexpected("stage " + name + " is a placeholder");
    if (st.location == ComputeLocation::Inlined) return Unexpected("stage " + name + " is inlined");
    return &st;
  }

  Expected<int> iterOf(const Stage& st, const std::string& iter) {
    int i = st.iterIndex(iter);
    if (i < 0) return Unexpected("stage " + st.op + " has no iterator " + iter);
    return i;
  }

  bool nameTaken(const Stage& st, const std::string& name) {
    for (const RootAxis& a : st.root)
      if (a.name == name) return true;
    for (const Relation& r : st.relations) {
      if (const SplitRelation* sp = std::get_if<SplitRelation>(&r)) {
        for (const std::string& c : sp->children)
          if (c == name) return true;
      } else if (std::get<FuseRelation>(r).child == name) {
        return true;
      }
    }
    return false;
  }

  // Moves stages attached at (stage, from) to (stage, to).
  void moveAttach(const std::string& stage, const std::string& from, const std::string& to) {
    for (Stage& o : s_.stages_)
      if (o.location == ComputeLocation::At && o.attach_stage == stage && o.attach_iter == from) o.attach_iter = to;
  }

  Status splitWithFactors(Stage& st, int it, const std::vector<std::optional<int64_t>>& factors) {
    Iterator old = st.iters[it];
    if (old.annotation != IterAnnotation::None) return Unexpected("iterator " + old.name + " is already annotated");
    if (factors.empty()) return Unexpected("split of " + old.name + " has no lengths");
    for (const auto& f : factors)
      if (f && *f < 1) return Unexpected("split of " + old.name + " has a length below 1");
    SplitRelation rel;
    rel.parent = old.name;
    rel.factors = factors;
    std::vector<Iterator> kids;
    for (size_t k = 0; k <= factors.size(); ++k) {
      std::string name = names::splitPart(old.name, k);
      if (nameTaken(st, name)) return Unexpected("iterator name " + name + " is already used in stage " + st.op);
      rel.children.push_back(name);
      kids.push_back(Iterator{name, std::nullopt, old.kind, IterAnnotation::None});
    }
    st.relations.push_back(rel);
    st.iters.erase(st.iters.begin() + it);
    st.iters.insert(st.iters.begin() + it, kids.begin(), kids.end());
    // A stage computed at the split loop is computed at its innermost part (same granularity).
    moveAttach(st.op, old.name, rel.children.back());
    computeLeafExtents(st);
    return okStatus();
  }

  Status applyOne(const SplitStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    TT_TRY(int it, iterOf(*st, step.iter));
    std::vector<std::optional<int64_t>> factors = step.lengths;
    if (!step.inner_to_outer) {
      // nparts: outer part counts; convert to factors of the inner parts.
      auto ext = st->iters[it].extent;
      if (!ext) return Unexpected("an nparts split of " + step.iter + " needs a known extent");
      int64_t rest = *ext;
      for (const auto& p : step.lengths) {
        if (!p || *p < 1) return Unexpected("an nparts split of " + step.iter + " needs set lengths >= 1");
        rest = (rest + *p - 1) / *p;
      }
      factors.assign(step.lengths.begin() + 1, step.lengths.end());
      factors.push_back(rest);
    }
    return splitWithFactors(*st, it, factors);
  }

  Expected<const SplitStep*> sourceSplit(int src) {
    if (src < 0 || src >= static_cast<int>(s_.steps_.size()))
      return Unexpected("source step " + std::to_string(src) + " does not exist yet");
    const SplitStep* sp = std::get_if<SplitStep>(&s_.steps_[src]);
    if (!sp) return Unexpected("source step " + std::to_string(src) + " is not a split");
    return sp;
  }

  Status applyOne(const FollowSplitStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    TT_TRY(int it, iterOf(*st, step.iter));
    TT_TRY(const SplitStep* src, sourceSplit(step.src_step));
    int n = static_cast<int>(src->lengths.size());
    if (step.n_split < 1 || step.n_split > n + 1)
      return Unexpected("follow_split takes 1 to " + std::to_string(n + 1) + " parts, not " +
                        std::to_string(step.n_split));
    std::vector<std::optional<int64_t>> lengths(src->lengths.begin(), src->lengths.begin() + (step.n_split - 1));
    std::optional<int64_t> prod = 1;
    for (int k = step.n_split - 1; k < n; ++k)
      prod = (prod && src->lengths[k]) ? std::optional<int64_t>(*prod * *src->lengths[k]) : std::nullopt;
    lengths.push_back(prod);
    return splitWithFactors(*st, it, lengths);
  }

  Status applyOne(const FollowFusedSplitStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    TT_TRY(int it, iterOf(*st, step.iter));
    std::optional<int64_t> len = 1;
    for (int src : step.src_steps) {
      TT_TRY(const SplitStep* sp, sourceSplit(src));
      if (step.level < 0 || step.level >= static_cast<int>(sp->lengths.size()))
        return Unexpected("follow_fused_split level " + std::to_string(step.level) + " is out of range");
      const auto& l = sp->lengths[step.level];
      len = (len && l) ? std::optional<int64_t>(*len * *l) : std::nullopt;
    }
    if (step.factor_or_nparts) return splitWithFactors(*st, it, {len});
    SplitStep nparts{step.stage, step.iter, std::nullopt, {len}, false};
    return applyOne(nparts);
  }

  Status applyOne(const FuseStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    if (step.iters.empty()) return Unexpected("fuse of no iterators");
    std::vector<int> pos;
    for (const std::string& n : step.iters) {
      TT_TRY(int i, iterOf(*st, n));
      pos.push_back(i);
    }
    for (size_t k = 1; k < pos.size(); ++k)
      if (pos[k] != pos[k - 1] + 1) return Unexpected("fused iterators of " + st->op + " are not consecutive");
    te::IterKind kind = st->iters[pos[0]].kind;
    for (size_t k = 0; k < pos.size(); ++k) {
      const Iterator& it = st->iters[pos[k]];
      if (it.annotation != IterAnnotation::None) return Unexpected("iterator " + it.name + " is already annotated");
      if (it.kind != kind) return Unexpected("fuse would mix spatial and reduction iterators in " + st->op);
      if (k + 1 < pos.size() && !s_.attachedAt(st->op, it.name).empty())
        return Unexpected("iterator " + it.name + " is an attach point and cannot be fused into an outer loop");
    }
    if (pos.size() == 1) return okStatus();
    const std::string child = names::fused(step.iters);
    if (nameTaken(*st, child)) return Unexpected("iterator name " + child + " is already used");
    st->relations.push_back(FuseRelation{step.iters, child});
    moveAttach(st->op, step.iters.back(), child);
    st->iters.erase(st->iters.begin() + pos.front(), st->iters.begin() + pos.back() + 1);
    st->iters.insert(st->iters.begin() + pos.front(), Iterator{child, std::nullopt, kind, IterAnnotation::None});
    computeLeafExtents(*st);
    return okStatus();
  }

  Status applyOne(const ReorderStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    if (step.order.size() != st->iters.size())
      return Unexpected("reorder of " + st->op + " lists " + std::to_string(step.order.size()) +
                        " iterators, the stage has " + std::to_string(st->iters.size()));
    std::vector<Iterator> out;
    std::unordered_set<std::string> seen;
    for (const std::string& n : step.order) {
      TT_TRY(int i, iterOf(*st, n));
      if (!seen.insert(n).second) return Unexpected("reorder lists " + n + " twice");
      out.push_back(st->iters[i]);
    }
    st->iters = std::move(out);
    return okStatus();
  }

  Status applyOne(const AnnotationStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    TT_TRY(int i, iterOf(*st, step.iter));
    Iterator& it = st->iters[i];
    if (it.annotation != IterAnnotation::None)
      return Unexpected("iterator " + it.name + " is already annotated " + annotationName(it.annotation));
    if (step.annotation == IterAnnotation::Parallel && it.kind == te::IterKind::Reduce)
      return Unexpected("reduction iterator " + it.name + " cannot run in parallel");
    it.annotation = step.annotation;
    return okStatus();
  }

  Status applyOne(const AutoUnrollStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    if (step.max_step < 0) return Unexpected("auto_unroll max step must not be negative");
    st->auto_unroll_max_step = step.max_step;
    return okStatus();
  }

  Status applyOne(const ComputeAtStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    int si = s_.stageIndex(step.stage);
    if (s_.dag().isOutput(si)) return Unexpected("output stage " + step.stage + " cannot be computed at another stage");
    TT_TRY(Stage * target, computeStage(step.target_stage));
    TT_TRY(int ti, iterOf(*target, step.target_iter));
    (void)ti;
    std::vector<int> cons = s_.effectiveConsumers(si);
    int tgt = s_.stageIndex(step.target_stage);
    if (cons.size() != 1 || cons[0] != tgt)
      return Unexpected("stage " + step.stage + " can only be computed at its single consumer, not at " +
                        step.target_stage);
    st->location = ComputeLocation::At;
    st->attach_stage = step.target_stage;
    st->attach_iter = step.target_iter;
    return okStatus();
  }

  Status applyOne(const ComputeInlineStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    int si = s_.stageIndex(step.stage);
    if (s_.dag().isOutput(si)) return Unexpected("output stage " + step.stage + " cannot be inlined");
    if (st->isReduction()) return Unexpected("reduction stage " + step.stage + " cannot be inlined");
    for (const Iterator& it : st->iters)
      if (!s_.attachedAt(st->op, it.name).empty())
        return Unexpected("stage " + step.stage + " has stages computed at it and cannot be inlined");
    st->location = ComputeLocation::Inlined;
    return okStatus();
  }

  Status applyOne(const ComputeRootStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    st->location = ComputeLocation::Root;
    st->attach_stage.clear();
    st->attach_iter.clear();
    return okStatus();
  }

  // Swaps in a rewritten DAG, keeping the stages of unchanged ops and resetting `reset`.
  void swapDag(te::ComputeDAG dag, const std::vector<std::string>& reset) {
    swapDag(std::make_shared<const te::ComputeDAG>(std::move(dag)), reset);
  }

  void swapDag(std::shared_ptr<const te::ComputeDAG> nd, const std::vector<std::string>& reset) {
    std::vector<Stage> next;
    for (int i = 0; i < nd->numOps(); ++i) {
      const std::string& name = nd->op(i).name();
      int old = s_.stageIndex(name);
      bool fresh = old < 0 || std::find(reset.begin(), reset.end(), name) != reset.end();
      if (fresh) {
        Stage st = makeStage(*nd, i);
        if (old >= 0) {  // keep the location of a reset stage
          st.location = s_.stages_[old].location;
          st.attach_stage = s_.stages_[old].attach_stage;
          st.attach_iter = s_.stages_[old].attach_iter;
        }
        next.push_back(std::move(st));
      } else {
        next.push_back(s_.stages_[old]);
      }
    }
    s_.dag_ = nd;
    s_.stages_ = std::move(next);
  }

  Status applyOne(const CacheWriteStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    if (!st->relations.empty()) return Unexpected("cache_write must precede other transforms of stage " + step.stage);
    if (step.scope.empty()) return Unexpected("cache_write needs a scope name");
    TT_TRY(auto nd, cacheWriteDagShared(s_.dagPtr(), step.stage, step.scope));
    swapDag(std::move(nd), {step.stage});
    return okStatus();
  }

  Status applyOne(const CacheReadStep& step) {
    if (s_.stageIndex(step.stage) < 0) return Unexpected("no stage named " + step.stage);
    if (step.scope.empty()) return Unexpected("cache_read needs a scope name");
    TT_TRY(auto nd, cacheReadDagShared(s_.dagPtr(), step.stage, step.scope, step.readers));
    swapDag(std::move(nd), {});
    return okStatus();
  }

  Status applyOne(const RfactorStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    // In a sketch the split lengths are not sampled yet: build the structure with length 1 (the
    // step is replayed with real lengths once they are filled).
    Stage shaped = *st;
    for (Relation& r : shaped.relations)
      if (SplitRelation* sp = std::get_if<SplitRelation>(&r))
        for (auto& f : sp->factors)
          if (!f) f = 1;
    computeLeafExtents(shaped);
    TT_TRY(te::ComputeDAG nd, rfactorDag(s_.dag(), shaped, step.iter, step.factor_axis));
    swapDag(std::move(nd), {step.stage});
    return okStatus();
  }

  Status applyOne(const LayoutRewriteStep& step) {
    TT_TRY(Stage * st, computeStage(step.stage));
    WeightLayout layout;
    TT_TRY(te::ComputeDAG nd, layoutRewriteDag(s_.dag(), *st, step.placeholder, &layout));
    swapDag(std::move(nd), {});
    s_.layouts_.push_back(std::move(layout));
    return okStatus();
  }

  State& s_;
};

Status State::apply(const Step& step) {
  State backup = *this;
  StepApplier applier(*this);
  Status st = applier.apply(step);
  if (!st.ok()) {
    *this = std::move(backup);
    return st;
  }
  steps_.push_back(step);
  bounds_inferred_ = false;
  return okStatus();
}

Expected<State> State::replay(std::shared_ptr<const te::ComputeDAG> dag, const std::vector<Step>& steps) {
  State s(std::move(dag));
  for (size_t i = 0; i < steps.size(); ++i) {
    // No backup copy: a failed replay discards the whole state.
    Status st = StepApplier(s).apply(steps[i]);
    if (!st.ok()) return Unexpected("step " + std::to_string(i) + " " + stepToString(steps[i]) + ": " + st.error());
    s.steps_.push_back(steps[i]);
  }
  if (s.concrete()) TT_TRY_STATUS(s.inferBounds());
  return s;
}

Status State::inferBounds() {
  if (bounds_inferred_) return okStatus();
  if (!concrete()) return Unexpected("the schedule has unset split lengths");
  for (int si = static_cast<int>(stages_.size()) - 1; si >= 0; --si) {
    Stage& st = stages_[si];
    if (st.is_placeholder || st.location == ComputeLocation::Inlined) continue;
    for (size_t d = 0; d < st.root.size(); ++d) st.region[d] = st.root[d].full_extent;
    if (st.location == ComputeLocation::At) {
      int ci = stageIndex(st.attach_stage);
      if (ci < 0) return Unexpected("stage " + st.op + " is attached to missing stage " + st.attach_stage);
      const Stage& cs = stages_[ci];
      int pos = cs.iterIndex(st.attach_iter);
      if (pos < 0) return Unexpected("stage " + st.op + " is attached to missing iterator " + st.attach_iter);
      TT_TRY(StageLoops loops, buildStageLoops(cs));
      std::vector<te::Expr> root;
      te::VarBounds fixed;
      for (int i = 0; i <= pos; ++i) fixed[loops.leaf_vars[i].get()] = loops.bounds.at(loops.leaf_vars[i].get());
      for (size_t d = 0; d < cs.root.size(); ++d) {
        te::Var m(cs.op + ".min." + cs.root[d].name);
        fixed[m.get()] = te::IntBound{0, cs.root[d].full_extent - cs.region[d]};
        root.push_back(te::Expr(m) + loops.root_rel[d]);
      }
      TT_TRY(auto regions, computeRegion(*this, si, ci, loops, root, pos, fixed));
      for (size_t d = 0; d < regions.size(); ++d) st.region[d] = regions[d].extent;
    }
    computeLeafExtents(st);
  }
  // No parallel loop may run inside another (nested parallelism is not supported).
  std::function<Status(int, bool)> check = [&](int si, bool in_parallel) -> Status {
    const Stage& st = stages_[si];
    bool par = in_parallel;
    for (const Iterator& it : st.iters) {
      if (it.annotation == IterAnnotation::Parallel) {
        if (par) return Unexpected("parallel loop " + it.name + " of " + st.op + " is nested in another parallel loop");
        par = true;
      }
      for (int a : attachedAt(st.op, it.name)) TT_TRY_STATUS(check(a, par));
    }
    return okStatus();
  };
  for (size_t i = 0; i < stages_.size(); ++i)
    if (!stages_[i].is_placeholder && stages_[i].location == ComputeLocation::Root)
      TT_TRY_STATUS(check(static_cast<int>(i), false));
  bounds_inferred_ = true;
  return okStatus();
}

}  // namespace ttune::schedule
