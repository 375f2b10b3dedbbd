#include "transfer/transfer.h"

#include <cmath>
#include <ctime>
#include <iterator>
#include <map>
#include <set>

#include "autotune/cost_model.h"
#include "autotune/features.h"
#include "autotune/sampler.h"
#include "codegen/target.h"
#include "measure/builder.h"
#include "support/log.h"
#include "support/timer.h"
#include "transfer/adapt.h"
#include "transfer/candidates.h"
#include "transfer/nearest.h"

namespace ttune::transfer {

using schedule::Record;
using schedule::Step;

bool KernelOutcome::improved() const { return best && best->result.ok() && retimed.gain(); }

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The source model whose candidates cover the most untuned time (weight x default time).
std::vector<std::pair<std::string, double>> scoreSources(const std::vector<std::vector<Record>>& found,
                                                         const std::vector<double>& untuned) {
  double total = 0;
  for (double t : untuned) total += std::isfinite(t) ? t : 0;
  std::map<std::string, double> covered;
  for (size_t i = 0; i < found.size(); ++i) {
    std::set<std::string> models;
    for (const Record& r : found[i]) models.insert(r.provenance.model);
    for (const std::string& m : models) covered[m] += std::isfinite(untuned[i]) ? untuned[i] : 0;
  }
  std::vector<std::pair<std::string, double>> out;
  for (auto& [m, t] : covered) out.push_back({m, total > 0 ? t / total : 0});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

// For kernels without candidates: the records of the nearest neighbour classes (same tier and
// source rules), their steps remapped onto the kernel; those that do not remap are left out.
void addNearestClassCandidates(const std::vector<const graph::Kernel*>& ks, const store::Bank& bank,
                               const TransferOptions& opt, int tier, std::vector<std::vector<Record>>& found,
                               std::vector<std::string>& via_class) {
  std::map<std::string, std::string> known;
  std::set<std::string> only(opt.sources.begin(), opt.sources.end());
  ClassCandidates of_class(bank, opt.model, candidateTier(opt.target, tier), opt.target.cpu, opt.baseline);
  for (size_t i = 0; i < ks.size(); ++i) {
    if (!found[i].empty()) continue;
    if (known.empty()) {
      // Only classes that hold candidates for this transfer (another baseline's, or only the
      // target's own records, would hide a farther neighbour that has some).
      known = bank.recordClasses();
      std::erase_if(known, [&](const auto& c) { return of_class.of(c.first).empty(); });
      if (known.empty()) return;
    }
    for (const std::string& id : nearestClasses(ks[i]->class_name, known)) {
      for (Record r : of_class.of(id)) {
        if (!only.empty() && !only.count(r.provenance.model)) continue;
        auto steps = remapStages(r.steps, ks[i]->dag);
        if (!steps.ok()) continue;
        r.steps = std::move(*steps);
        found[i].push_back(std::move(r));
        via_class[i] = known[id];
      }
    }
  }
}

// The sources: every source model's share of the untuned time its candidates cover; in auto
// mode only the best one's candidates stay. Sets res.source_scores and res.sources.
void pickSources(TransferResult& res, std::vector<std::vector<Record>>& found, const std::vector<double>& untuned,
                 const TransferOptions& opt) {
  res.source_scores = scoreSources(found, untuned);
  if (opt.source_mode == SourceMode::Auto && !res.source_scores.empty()) {
    const std::string& pick = res.source_scores.front().first;
    for (auto& f : found) std::erase_if(f, [&](const Record& r) { return r.provenance.model != pick; });
  }
  std::set<std::string> used;
  for (const auto& f : found)
    for (const Record& r : f) used.insert(r.provenance.model);
  res.sources.assign(used.begin(), used.end());
}

// For a transfer that ranks its top k with a cost model: one trained on every record of the
// candidates' source kernels; null when not ranking that way or with too few records.
std::unique_ptr<autotune::XGBoostModel> rankerFor(const std::vector<std::vector<Record>>& found,
                                                  const store::Bank& bank, const TransferOptions& opt) {
  if (opt.top_k <= 0 || opt.rank != Rank::CostModel) return nullptr;
  std::set<std::string> keys;
  for (const auto& f : found)
    for (const Record& r : f) keys.insert(r.workload_key);
  store::RecordQuery q;
  std::vector<Record> all_source;
  for (const std::string& k : keys) {
    q.workload_key = k;
    for (Record& r : bank.records(q)) all_source.push_back(std::move(r));
  }
  std::unique_ptr<autotune::XGBoostModel> ranker = trainRanker(all_source, opt.source_dag);
  if (!ranker) logInfo("transfer: too few source records to rank candidates; measuring them all");
  return ranker;
}

// What each kernel measures: its candidates built for the target, cut to the top k and to what
// is left of the budget, kernels in `order`. It depends on no measurement (the budget only
// counts), so it is chosen first and built in batches of several kernels' candidates: built
// kernel by kernel, a ranked transfer's 4 candidates kept one build process waiting for the
// other at every kernel. Fills each outcome's candidate, nearest-class and build-failure counts.
std::vector<std::vector<Candidate>> chooseCandidates(const std::vector<graph::TunableKernel>& todo,
                                                     const std::vector<size_t>& order,
                                                     const std::vector<std::vector<Record>>& found,
                                                     const std::vector<std::string>& via_class,
                                                     autotune::XGBoostModel* ranker, const store::Bank& bank,
                                                     const TransferOptions& opt, TransferResult& res) {
  auto flops_of = [&bank](const std::string& key) {
    auto w = bank.workload(key);
    return w && w->flops ? *w->flops : 0.0;
  };
  int64_t left = opt.budget > 0 ? opt.budget : std::numeric_limits<int64_t>::max();
  std::vector<std::vector<Candidate>> chosen(todo.size());
  for (size_t i : order) {
    const graph::Kernel& k = *todo[i].kernel;
    KernelOutcome& out = res.kernels[i];
    out.candidates = static_cast<int>(found[i].size());
    out.nearest_class = via_class[i];
    BuildStats bs;
    std::vector<Candidate> cands = buildCandidates(k, found[i], opt.adapt, opt.measure.target, &bs);
    out.failed += bs.failed;
    out.other_isa += bs.other_isa;
    if (ranker && opt.top_k > 0) cands = topRanked(k, std::move(cands), *ranker, opt.top_k);
    if (opt.top_k > 0 && opt.rank == Rank::Prior) cands = topByPrior(k, std::move(cands), flops_of, opt.top_k);
    if (static_cast<int64_t>(cands.size()) > left) cands.resize(static_cast<size_t>(left));
    left -= static_cast<int64_t>(cands.size());
    chosen[i] = std::move(cands);
  }
  return chosen;
}

}  // namespace

TransferResult transferTune(const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                            const TransferOptions& opt, const RecordSink& sink, const ProgressFn& progress) {
  TransferResult res;
  Timer wall;
  std::vector<graph::TunableKernel> todo = graph::tunableKernels(kernels);
  std::vector<const graph::Kernel*> ks;
  for (const auto& t : todo) ks.push_back(t.kernel);
  measure::Measurer measurer(opt.measure);
  measure::MeasureOptions retime = opt.measure;
  retime.timing.repeat = 1;  // the rounds are the repeats
  measure::Measurer retimer(retime);
  const schedule::Target& code = opt.measure.target;
  // Built under the entry the executor gives each schedule, so that the whole-model check can
  // load what was measured (res.compiled) instead of compiling it again.
  const bool runs_here = !opt.measure.remote && codegen::runnable(code).ok();
  if (runs_here) res.compiled = executor::makeKernelCache();
  auto input = [&](const graph::Kernel& k, std::vector<Step> steps) {
    measure::MeasureInput in{k.dag, std::move(steps)};
    if (runs_here) in.entry = executor::kernelEntry(executor::kernelCacheKey(k.workload_key, in.steps, code));
    return in;
  };
  auto keep = [&](const graph::Kernel& k, const measure::MeasureInput& in, const measure::BuildResult& b) {
    if (res.compiled) executor::addBuilt(*res.compiled, executor::kernelCacheKey(k.workload_key, in.steps, code), b);
  };
  int tier = 0;
  std::vector<std::vector<Record>> found =
      collectCandidates(ks, bank, opt.model, opt.target, opt.sources, &tier, opt.baseline);
  std::vector<std::string> via_class(ks.size());
  if (opt.nearest_classes) addNearestClassCandidates(ks, bank, opt, tier, found, via_class);

  int64_t trial = 0;
  auto record = [&](const graph::Kernel& k, const std::vector<Step>& steps, const schedule::RecordResult& result,
                    const std::string& source, const std::string& origin) {
    Record r;
    r.workload_key = k.workload_key;
    r.kernel_class = k.class_name;
    r.class_id = k.class_id;
    r.target = opt.target;
    r.steps = steps;
    r.result = result;
    r.provenance = schedule::Provenance{opt.model, opt.run_id, source, ++trial, wall.seconds(), origin};
    r.provenance.baseline = opt.baseline;
    return r;
  };

  // Every kernel's default first, in one batch: the untuned time of each kernel. One repeat (the
  // re-timing's): these times only order the kernels and decide which winners are re-timed, and
  // the re-timing times each such default again, side by side with its winner.
  res.kernels.resize(todo.size());
  std::vector<double> untuned(todo.size(), kInf);
  // Kept for each winner's re-timing against its default (its code, not compiled again).
  std::vector<measure::BuildResult> default_builds;
  std::vector<measure::MeasureInput> default_inputs;
  {
    if (progress) progress({0, static_cast<int>(todo.size()), 0, wall.seconds(), "default schedules"});
    std::vector<measure::MeasureInput>& inputs = default_inputs;
    for (const auto& t : todo)
      inputs.push_back(input(*t.kernel, measure::defaultScheduleFor(*t.kernel->dag, code, opt.baseline)));
    std::vector<schedule::RecordResult> results = retimer.measure(inputs, default_builds);
    for (size_t i = 0; i < todo.size(); ++i) keep(*todo[i].kernel, inputs[i], default_builds[i]);
    std::vector<Record> recs;
    for (size_t i = 0; i < todo.size(); ++i) {
      const graph::Kernel& k = *todo[i].kernel;
      KernelOutcome& out = res.kernels[i];
      out.workload_key = k.workload_key;
      out.class_name = k.class_name;
      out.class_id = k.class_id;
      out.occurrences = todo[i].occurrences;
      out.flops = k.dag->flops();
      out.default_s = results[i].ok() ? results[i].median() : kInf;
      untuned[i] = out.occurrences * out.default_s;
      recs.push_back(record(k, inputs[i].steps, results[i], "default", ""));
    }
    res.measured += static_cast<int64_t>(todo.size());
    if (sink) sink(recs);
  }

  pickSources(res, found, untuned, opt);
  std::unique_ptr<autotune::XGBoostModel> ranker = rankerFor(found, bank, opt);

  // Kernels by untuned time (a failed default first: any working candidate helps).
  std::vector<size_t> order(todo.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return untuned[a] > untuned[b]; });
  std::vector<std::vector<Candidate>> chosen =
      chooseCandidates(todo, order, found, via_class, ranker.get(), bank, opt, res);

  constexpr size_t kBuildBatch = 32;  // candidates; bounds the object code held at once
  int done = 0;
  for (size_t g = 0; g < order.size();) {
    size_t g_end = g;
    std::vector<measure::MeasureInput> batch;
    for (; g_end < order.size() && (g_end == g || batch.size() + chosen[order[g_end]].size() <= kBuildBatch); ++g_end)
      for (const Candidate& c : chosen[order[g_end]]) batch.push_back(input(*todo[order[g_end]].kernel, c.steps));
    std::vector<measure::BuildResult> batch_builds =
        batch.empty() ? std::vector<measure::BuildResult>{} : measurer.build(batch);
    size_t at = 0;
    for (; g < g_end; ++g) {
      const size_t i = order[g];
      const graph::Kernel& k = *todo[i].kernel;
      KernelOutcome& out = res.kernels[i];
      const std::vector<Candidate>& cands = chosen[i];
      if (progress) progress({done++, static_cast<int>(todo.size()), res.measured, wall.seconds(), k.class_name});
      if (cands.empty()) continue;
      std::vector<measure::MeasureInput> inputs(batch.begin() + at, batch.begin() + at + cands.size());
      std::vector<measure::BuildResult> builds(std::make_move_iterator(batch_builds.begin() + at),
                                               std::make_move_iterator(batch_builds.begin() + at + cands.size()));
      at += cands.size();
      std::vector<schedule::RecordResult> results = measurer.measureBuilt(inputs, builds);
      std::vector<Record> recs;
      size_t best_c = 0;
      for (size_t c = 0; c < cands.size(); ++c) {
        Record r = record(k, cands[c].steps, results[c], "transfer", cands[c].origin);
        out.measured++;
        if (!r.result.ok())
          out.failed++;
        else if (!out.best || r.result.median() < out.best->result.median()) {
          out.best = r;
          out.best_source = cands[c].source + (cands[c].adapted ? " (adapted)" : "");
          best_c = c;
        }
        recs.push_back(std::move(r));
      }
      res.measured += static_cast<int64_t>(cands.size());
      if (sink) sink(recs);
      // One measurement each decided the ranking; the winner is re-timed side by side with the
      // default until the verdict is known (measure/speedup.h), and kept only beyond the spread.
      // Both run the code they were measured with.
      if (out.best && out.best->result.median() < out.default_s) {
        keep(k, inputs[best_c], builds[best_c]);
        measure::SideBySide sbs =
            retimer.compareSideBySide({default_inputs[i], inputs[best_c]}, measure::decided(measure::kernelRounds()),
                                      {std::move(default_builds[i]), std::move(builds[best_c])});
        out.retimed = sbs.speedup[1];
        out.retimed_default_s = sbs.median_s[0];
        out.retimed_best_s = sbs.median_s[1];
      }
    }
  }
  res.search_s = wall.seconds();
  if (progress)
    progress({static_cast<int>(todo.size()), static_cast<int>(todo.size()), res.measured, res.search_s, ""});
  return res;
}

std::vector<Record> chosenRecords(const TransferResult& result) {
  std::vector<Record> out;
  for (const KernelOutcome& k : result.kernels)
    if (k.improved()) out.push_back(*k.best);
  return out;
}

std::vector<SourceCoverage> rankSources(const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                                        const std::string& target_model, schedule::Baseline baseline) {
  std::vector<graph::TunableKernel> todo = graph::tunableKernels(kernels);
  double total = 0;
  for (const graph::TunableKernel& d : todo) total += d.kernel->dag->flops() * d.occurrences;
  std::map<std::string, SourceCoverage> by_model;
  const std::map<std::string, std::string> classes = bank.recordClasses();
  ClassCandidates of_class(bank, target_model, {}, "", baseline);
  for (const graph::TunableKernel& d : todo) {
    std::set<std::string> models;
    std::vector<std::string> ids = paddingVariants(d.kernel->class_id, d.kernel->class_name, classes);
    ids.push_back(d.kernel->class_id);
    for (const std::string& id : ids)
      for (const Record& r : of_class.of(id)) models.insert(r.provenance.model);
    for (const std::string& m : models) {
      SourceCoverage& c = by_model[m];
      c.model = m;
      c.kernels++;
      c.flops_share += total > 0 ? d.kernel->dag->flops() * d.occurrences / total : 0;
    }
  }
  std::vector<SourceCoverage> out;
  for (auto& [m, c] : by_model) out.push_back(c);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.flops_share > b.flops_share; });
  return out;
}

}  // namespace ttune::transfer
