#include "autotune/sketch.h"

#include "autotune/analysis.h"
#include "schedule/dot_group.h"
#include "schedule/names.h"
#include "support/assert.h"

namespace ttune::autotune {

using namespace schedule;

bool isCacheWriteStage(const State& s, const std::string& stage) {
  for (const Step& st : s.steps())
    if (const CacheWriteStep* cw = std::get_if<CacheWriteStep>(&st))
      if (names::cacheStage(cw->stage, cw->scope) == stage) return true;
  return false;
}

namespace {

struct Work {
  State state;
  int stage;  // index into state.stages(), processed from last to first
};

enum class RuleResult { Skip, Apply, ApplyAndSkipRest };

class SketchGenerator {
 public:
  SketchGenerator(const SketchOptions& opt) : opt_(opt) {}

  std::vector<State> run(const std::shared_ptr<const te::ComputeDAG>& dag) {
    std::vector<Work> work{{State(dag), dag->numOps() - 1}};
    std::vector<State> done;
    while (!work.empty()) {
      Work w = std::move(work.back());
      work.pop_back();
      if (w.stage < 0) {
        done.push_back(std::move(w.state));
        continue;
      }
      std::vector<Work> next = applyRules(w);
      for (auto it = next.rbegin(); it != next.rend(); ++it) work.push_back(std::move(*it));
    }
    return done;
  }

 private:
  std::vector<Work> applyRules(const Work& w) {
    std::vector<Work> out;
    const State& s = w.state;
    const Stage& st = s.stages()[w.stage];
    DagAnalysis an(s.dag());
    const OpInfo& info = an.info(w.stage);
    if (st.is_placeholder || st.location != ComputeLocation::Root || !info.is_compute) {
      out.push_back({s, w.stage - 1});
      return out;
    }
    using Rule = RuleResult (SketchGenerator::*)(const Work&, const OpInfo&, const DagAnalysis&, std::vector<Work>&);
    const Rule rules[] = {&SketchGenerator::alwaysInline, &SketchGenerator::addRfactor, &SketchGenerator::addCacheWrite,
                          &SketchGenerator::tilingWithFusion, &SketchGenerator::tiling};
    for (Rule r : rules) {
      RuleResult res = (this->*r)(w, info, an, out);
      if (res == RuleResult::ApplyAndSkipRest) return out;
    }
    out.push_back({s, w.stage - 1});  // SkipStage
    return out;
  }

  // The single stage that reads this one (through inlined stages), or -1.
  int singleConsumer(const State& s, int stage) {
    std::vector<int> cons = s.effectiveConsumers(stage);
    return cons.size() == 1 ? cons[0] : -1;
  }

  bool hasElementwiseConsumer(const State& s, int stage, const DagAnalysis& an) {
    int c = singleConsumer(s, stage);
    if (c < 0) return false;
    const OpInfo& ci = an.info(c);
    if (!ci.is_compute || ci.has_reduce) return false;
    // Match through the inlined chain from this stage to the consumer.
    return an.elementwiseMatch(stage, c);
  }

  bool needsRfactor(const OpInfo& info) {
    if (info.needs_multi_level_tiling)
      return info.space_len <= info.reduce_len && info.space_len <= 16 * opt_.num_cores;
    return info.has_reduce && info.reduce_len > opt_.num_cores;
  }

  RuleResult alwaysInline(const Work& w, const OpInfo& info, const DagAnalysis&, std::vector<Work>& out) {
    if (info.is_output || info.has_reduce || !info.strictly_inlineable) return RuleResult::Skip;
    State s = w.state;
    if (!s.apply(ComputeInlineStep{s.stages()[w.stage].op}).ok()) return RuleResult::Skip;
    out.push_back({s, w.stage - 1});
    return RuleResult::ApplyAndSkipRest;
  }

  RuleResult addRfactor(const Work& w, const OpInfo& info, const DagAnalysis&, std::vector<Work>& out) {
    const State& s0 = w.state;
    const Stage& st = s0.stages()[w.stage];
    if (!needsRfactor(info) || isCacheWriteStage(s0, st.op)) return RuleResult::Skip;
    std::vector<std::string> red;
    for (const Iterator& it : st.iters)
      if (it.kind == te::IterKind::Reduce) red.push_back(it.name);
    if (red.empty()) return RuleResult::Skip;
    int nspatial = 0;
    for (const RootAxis& a : st.root) nspatial += a.kind == te::IterKind::Spatial;
    for (int inner = 0; inner < 2; ++inner) {
      State s = s0;
      if (red.size() > 1 && !s.apply(FuseStep{st.op, red}).ok()) return RuleResult::Skip;
      const std::string fused = names::fused(red);
      int64_t ext = info.reduce_len;
      if (!s.apply(SplitStep{st.op, fused, ext, {std::nullopt}, true}).ok()) return RuleResult::Skip;
      std::string part = names::splitPart(fused, inner ? 1 : 0);
      // The factored axis goes innermost in the rfactor stage when it is the inner part (so the
      // stage vectorizes over it), outermost otherwise.
      int axis = inner ? nspatial : 0;
      if (!s.apply(RfactorStep{st.op, part, axis}).ok()) continue;
      int rf = s.stageIndex(names::rfactorStage(st.op));
      out.push_back({s, rf - 1});
    }
    return RuleResult::Apply;
  }

  RuleResult addCacheWrite(const Work& w, const OpInfo& info, const DagAnalysis& an, std::vector<Work>& out) {
    const State& s0 = w.state;
    const Stage& st = s0.stages()[w.stage];
    if (!info.needs_multi_level_tiling || hasElementwiseConsumer(s0, w.stage, an)) return RuleResult::Skip;
    State s = s0;
    if (!s.apply(CacheWriteStep{st.op, names::kLocalScope}).ok()) return RuleResult::Skip;
    out.push_back({s, s.stageIndex(names::cacheStage(st.op, names::kLocalScope))});
    return RuleResult::Apply;
  }

  // Splits every spatial iterator into #S parts and every reduction iterator into #R parts and
  // reorders them by the structure string. Returns the split step index of each spatial axis.
  std::vector<int> multiLevelTiling(State& s, const std::string& stage) {
    const Stage& st = s.stage(stage);
    int ns = 0, nr = 0;
    for (char c : opt_.tiling) (c == 'S' ? ns : nr)++;
    std::vector<std::string> sp, rd;
    for (const Iterator& it : st.iters) (it.kind == te::IterKind::Spatial ? sp : rd).push_back(it.name);
    // An int8 or bfloat16 product: its innermost reduction axis ends in a fixed dot-product group.
    schedule::Target dot_target;
    dot_target.int8_group = opt_.int8_group;
    dot_target.bf16_group = opt_.bf16_group;
    const te::Operation& op = s.dag().op(s.stageIndex(stage));
    const int64_t dot_group = op.isCompute() && !rd.empty() ? schedule::dotGroup(op.compute(), dot_target) : 1;
    std::vector<std::optional<int64_t>> extents;
    std::vector<std::pair<std::string, int64_t>> all;
    for (const Iterator& it : st.iters) all.push_back({it.name, it.extent.value_or(0)});
    std::vector<int> split_ids;
    std::vector<std::vector<std::string>> sp_parts, rd_parts;
    for (const auto& [name, ext] : all) {
      bool spatial = std::find(sp.begin(), sp.end(), name) != sp.end();
      const bool grouped = dot_group > 1 && !spatial && name == rd.back();
      int parts = spatial ? ns : nr + (grouped ? 1 : 0);
      std::vector<std::optional<int64_t>> lengths(parts - 1, std::nullopt);
      if (grouped) lengths.back() = dot_group;
      std::vector<std::string> loops;
      if (parts > 1) {
        if (spatial) split_ids.push_back(static_cast<int>(s.steps().size()));
        Status ok =
            s.apply(SplitStep{stage, name, ext > 0 ? std::optional<int64_t>(ext) : std::nullopt, lengths, true});
        TT_ASSERT(ok.ok(), "multi-level tiling split failed: " + (ok.ok() ? std::string() : ok.error()));
        for (int k = 0; k < parts; ++k) loops.push_back(names::splitPart(name, k));
      } else {
        loops.push_back(name);
      }
      (spatial ? sp_parts : rd_parts).push_back(loops);
    }
    std::vector<std::string> order;
    int si = 0, ri = 0;
    for (char c : opt_.tiling) {
      auto& group = c == 'S' ? sp_parts : rd_parts;
      int level = c == 'S' ? si++ : ri++;
      for (auto& loops : group)
        if (level < static_cast<int>(loops.size())) order.push_back(loops[level]);
    }
    if (dot_group > 1) order.push_back(rd_parts.back().back());
    TT_ASSERT(s.apply(ReorderStep{stage, order}).ok(), "multi-level tiling reorder failed");
    if (dot_group > 1)
      TT_ASSERT(s.apply(AnnotationStep{stage, order.back(), IterAnnotation::Unroll}).ok(),
                "dot group annotation failed");
    return split_ids;
  }

  RuleResult tilingWithFusion(const Work& w, const OpInfo& info, const DagAnalysis& an, std::vector<Work>& out) {
    const State& s0 = w.state;
    const Stage& st = s0.stages()[w.stage];
    if (!info.needs_multi_level_tiling || !hasElementwiseConsumer(s0, w.stage, an)) return RuleResult::Skip;
    int ci = singleConsumer(s0, w.stage);
    const std::string consumer = s0.stages()[ci].op;
    for (int level : {1, 2}) {
      State s = s0;
      std::vector<int> split_ids = multiLevelTiling(s, st.op);
      const Stage& cs = s.stage(consumer);
      std::vector<std::string> axes;
      for (const Iterator& it : cs.iters) axes.push_back(it.name);
      if (axes.size() != split_ids.size()) return RuleResult::Skip;
      for (size_t d = 0; d < axes.size(); ++d)
        if (!s.apply(FollowSplitStep{consumer, axes[d], split_ids[d], level}).ok()) return RuleResult::Skip;
      std::vector<std::string> order;
      for (int l = 0; l <= level; ++l)
        for (const std::string& a : axes) order.push_back(names::splitPart(a, l));
      if (!s.apply(ReorderStep{consumer, order}).ok()) return RuleResult::Skip;
      const std::string& at = order[level * axes.size() - 1];
      if (!s.apply(ComputeAtStep{st.op, consumer, at}).ok()) return RuleResult::Skip;
      out.push_back({s, w.stage - 1});
    }
    return isCacheWriteStage(s0, st.op) ? RuleResult::ApplyAndSkipRest : RuleResult::Apply;
  }

  RuleResult tiling(const Work& w, const OpInfo& info, const DagAnalysis&, std::vector<Work>& out) {
    if (!info.needs_multi_level_tiling) return RuleResult::Skip;
    State s = w.state;
    multiLevelTiling(s, s.stages()[w.stage].op);
    out.push_back({s, w.stage - 1});
    return RuleResult::ApplyAndSkipRest;
  }

  SketchOptions opt_;
};

}  // namespace

std::vector<State> generateSketches(const std::shared_ptr<const te::ComputeDAG>& dag, const SketchOptions& options) {
  return SketchGenerator(options).run(dag);
}

}  // namespace ttune::autotune
