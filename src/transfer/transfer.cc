#include "transfer/transfer.h"

#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include "autotune/cost_model.h"
#include "autotune/features.h"
#include "autotune/sampler.h"
#include "measure/builder.h"
#include "support/log.h"
#include "support/timer.h"
#include "transfer/adapt.h"

namespace ttune::transfer {

using schedule::Record;
using schedule::Step;

bool KernelOutcome::improved() const { return best && best->result.ok() && best->result.median() < default_s; }

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Candidate {
  std::vector<Step> steps;
  std::string source;  // "<model> <workload key>"
  std::string origin;  // the model whose tuning found the steps
  bool adapted = false;
};

store::TargetFilter filterFor(const schedule::TargetInfo& t) {
  store::TargetFilter f = store::TargetFilter::sameIsa(t);
  f.cpu = t.cpu;
  return f;
}

// Whether a record may be a transfer candidate for `target_model`: measured by a tuning run
// (not a transfer or default record, which would hand a model's own schedules back to it through
// another model's transfer run) of another model, whose lineage does not lead back to the target,
// in a run that was not warm-started from the rest of the bank (its schedules' origin is then
// unknown; records imported without their run, like the shipped bank's, count as cold). Runs
// are looked up once each.
class CandidateRule {
 public:
  CandidateRule(const store::Bank& bank, std::string target_model) : bank_(bank), target_(std::move(target_model)) {}
  bool operator()(const Record& r) {
    const schedule::Provenance& p = r.provenance;
    if (p.source != "tune" || p.model.empty() || p.model == target_ || p.origin == target_) return false;
    auto it = cold_.find(p.run_id);
    if (it == cold_.end()) {
      auto run = bank_.run(p.run_id);
      bool cold = !run || (run->kind == store::RunKind::Tune && !run->settings.value("warm_start", false));
      it = cold_.emplace(p.run_id, cold).first;
    }
    return it->second;
  }

 private:
  const store::Bank& bank_;
  std::string target_;
  std::map<std::string, bool> cold_;
};

// The best successful record of every (workload, model) of a class that may be a candidate for
// the target model (CandidateRule). A workload the target shares with a source model stays a
// candidate (the source's schedule for it is exact reuse), unlike the bank's exclude_model filter.
std::vector<Record> classCandidates(const store::Bank& bank, const std::string& class_id, const std::string& target_model,
                                    const store::TargetFilter& target) {
  store::RecordQuery q;
  q.class_id = class_id;
  q.ok_only = true;
  q.target = target;
  CandidateRule allowed(bank, target_model);
  std::map<std::pair<std::string, std::string>, Record> best;
  for (Record& r : bank.records(q)) {
    if (!allowed(r)) continue;
    auto key = std::make_pair(r.workload_key, r.provenance.model);
    auto it = best.find(key);
    if (it == best.end() || r.result.median() < it->second.result.median()) best[key] = std::move(r);
  }
  std::vector<Record> out;
  for (auto& [k, r] : best) out.push_back(std::move(r));
  return out;
}

// A ranking model trained on the source workloads' records (their own DAGs).
std::unique_ptr<autotune::XGBoostModel> trainRanker(const std::vector<Record>& source_records, const TransferOptions& opt) {
  if (!opt.source_dag) return nullptr;
  std::vector<autotune::TrainingSample> samples;
  std::map<std::string, std::shared_ptr<const te::ComputeDAG>> dags;
  for (const Record& r : source_records) {
    auto it = dags.find(r.workload_key);
    if (it == dags.end()) it = dags.emplace(r.workload_key, opt.source_dag(r.workload_key)).first;
    if (!it->second) continue;
    auto st = schedule::State::replay(it->second, autotune::withoutLayoutRewrites(r.steps));
    if (!st.ok()) continue;
    auto f = autotune::featuresOf(*st);
    if (!f.ok()) continue;
    samples.push_back({std::move(*f), r.workload_key, r.result.ok() ? r.result.median() : kInf});
  }
  if (samples.size() < 20) return nullptr;
  autotune::XGBoostOptions xo;
  xo.num_warmup_samples = 0;
  auto model = std::make_unique<autotune::XGBoostModel>(xo);
  model->update(samples);
  model->retrain();
  return model;
}

}  // namespace

TransferResult transferTune(const std::vector<graph::Kernel>& kernels, const store::Bank& bank, const TransferOptions& opt,
                            const RecordSink& sink, const ProgressFn& progress) {
  TransferResult res;
  Timer wall;
  std::vector<graph::TunableKernel> todo = graph::tunableKernels(kernels);
  std::set<std::string> sources(opt.sources.begin(), opt.sources.end());
  measure::Measurer measurer(opt.measure);

  // Candidates per kernel, from other models' best records of the same class.
  std::vector<std::vector<Record>> found(todo.size());
  std::vector<Record> all_source;
  store::TargetFilter target = filterFor(opt.target);
  auto collect = [&] {
    size_t n = 0;
    for (size_t i = 0; i < todo.size(); ++i) {
      found[i].clear();
      for (Record& r : classCandidates(bank, todo[i].kernel->class_id, opt.model, target)) {
        if (!sources.empty() && !sources.count(r.provenance.model)) continue;
        found[i].push_back(r);
        ++n;
      }
    }
    return n;
  };
  if (collect() == 0 && !todo.empty()) {
    // A bank tuned on other CPUs (the shipped one, on a new machine) still holds good candidates:
    // every candidate is measured here anyway. First other CPUs of the same ISA level, then any
    // ISA level, with vector lengths and register tiles adapted to this target.
    target = store::TargetFilter::sameIsa(opt.target);
    if (collect() > 0) {
      logInfo("no schedules were recorded on this CPU; transferring those of other CPUs with ", schedule::isaName(opt.target.isa));
    } else {
      target = {};
      if (collect() > 0)
        logInfo("no schedules were recorded for ", schedule::isaName(opt.target.isa),
                "; transferring those of other ISA levels with their vector lengths adapted to ", opt.measure.target.lanes(),
                " lanes");
    }
  }
  std::unique_ptr<autotune::XGBoostModel> ranker;
  if (opt.top_k > 0) {
    std::set<std::string> keys;
    for (const auto& f : found)
      for (const Record& r : f) keys.insert(r.workload_key);
    store::RecordQuery q;
    q.target = target;
    for (const std::string& k : keys) {
      q.workload_key = k;
      for (Record& r : bank.records(q)) all_source.push_back(std::move(r));
    }
    ranker = trainRanker(all_source, opt);
    if (!ranker) logInfo("transfer: too few source records to rank candidates; measuring them all");
  }

  int64_t trial = 0;
  for (size_t i = 0; i < todo.size(); ++i) {
    const graph::Kernel& k = *todo[i].kernel;
    KernelOutcome out;
    out.workload_key = k.workload_key;
    out.class_name = k.class_name;
    out.class_id = k.class_id;
    out.occurrences = todo[i].occurrences;
    out.flops = k.dag->flops();
    out.candidates = static_cast<int>(found[i].size());
    if (progress) progress({static_cast<int>(i), static_cast<int>(todo.size()), res.measured, wall.seconds(), k.class_name});

    // Replay each record on the target, verbatim and/or adapted; drop duplicates and misfits.
    std::vector<Candidate> cands;
    std::set<std::string> seen;
    const schedule::Target& code = opt.measure.target;
    for (const Record& r : found[i]) {
      std::string src = r.provenance.model + " " + r.workload_key;
      std::string origin = r.provenance.origin.empty() ? r.provenance.model : r.provenance.origin;
      std::vector<Step> steps = r.steps;
      if (r.target.vector_bits > 0 && r.target.isa != code.isa) {
        // Measured for another vector width: same vector counts, register tiles refitted.
        auto lanes = adaptLanes(r.steps, k.dag, std::max(1, r.target.vector_bits / 32), code.lanes(), code.vector_registers);
        if (!lanes.ok()) {
          out.failed++;
          continue;
        }
        steps = std::move(*lanes);
        out.other_isa++;
      }
      if (opt.adapt != Adapt::Adapted) {
        auto st = schedule::State::replay(k.dag, steps);
        if (st.ok() && seen.insert(store::stepsKey(steps)).second) cands.push_back({steps, src, origin, false});
        else if (!st.ok()) out.failed++;
      }
      if (opt.adapt != Adapt::Verbatim) {
        auto a = adaptSplits(steps, k.dag);
        if (a.ok() && seen.insert(store::stepsKey(*a)).second) cands.push_back({*a, src, origin, true});
        else if (!a.ok() && opt.adapt == Adapt::Adapted) out.failed++;
      }
    }
    // Keep the k best-ranked.
    if (ranker && opt.top_k > 0 && static_cast<int>(cands.size()) > opt.top_k) {
      std::vector<autotune::StateFeatures> feats;
      std::vector<size_t> valid;
      for (size_t c = 0; c < cands.size(); ++c) {
        auto st = schedule::State::replay(k.dag, autotune::withoutLayoutRewrites(cands[c].steps));
        if (!st.ok()) continue;
        auto f = autotune::featuresOf(*st);
        if (!f.ok()) continue;
        feats.push_back(std::move(*f));
        valid.push_back(c);
      }
      std::vector<double> score = ranker->predict(feats);
      std::vector<size_t> order(valid.size());
      for (size_t c = 0; c < order.size(); ++c) order[c] = c;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });
      std::vector<Candidate> kept;
      for (size_t c = 0; c < order.size() && static_cast<int>(kept.size()) < opt.top_k; ++c) kept.push_back(cands[valid[order[c]]]);
      cands = std::move(kept);
    }

    // Time the default schedule and the candidates on the target.
    std::vector<measure::MeasureInput> inputs;
    inputs.push_back({k.dag, measure::defaultScheduleFor(*k.dag, opt.measure.target)});
    for (const Candidate& c : cands) inputs.push_back({k.dag, c.steps});
    std::vector<schedule::RecordResult> results = measurer.measure(inputs);
    std::vector<Record> recs;
    for (size_t c = 0; c < inputs.size(); ++c) {
      Record r;
      r.workload_key = k.workload_key;
      r.kernel_class = k.class_name;
      r.class_id = k.class_id;
      r.target = opt.target;
      r.steps = inputs[c].steps;
      r.result = results[c];
      r.provenance = schedule::Provenance{opt.model, opt.run_id, c == 0 ? "default" : "transfer", ++trial, wall.seconds(),
                                          c == 0 ? "" : cands[c - 1].origin};
      if (c == 0) {
        out.default_s = r.result.ok() ? r.result.median() : kInf;
      } else {
        out.measured++;
        if (!r.result.ok()) out.failed++;
        else if (!out.best || r.result.median() < out.best->result.median()) {
          out.best = r;
          out.best_source = cands[c - 1].source + (cands[c - 1].adapted ? " (adapted)" : "");
        }
      }
      recs.push_back(std::move(r));
    }
    res.measured += static_cast<int64_t>(cands.size()) + 1;
    if (sink) sink(recs);
    res.kernels.push_back(std::move(out));
  }
  res.search_s = wall.seconds();
  if (progress) progress({static_cast<int>(todo.size()), static_cast<int>(todo.size()), res.measured, res.search_s, ""});
  return res;
}

std::vector<Record> chosenRecords(const TransferResult& result) {
  std::vector<Record> out;
  for (const KernelOutcome& k : result.kernels)
    if (k.improved()) out.push_back(*k.best);
  return out;
}

std::vector<SourceCoverage> rankSources(const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                                        const std::string& target_model) {
  std::vector<graph::TunableKernel> todo = graph::tunableKernels(kernels);
  double total = 0;
  for (const graph::TunableKernel& d : todo) total += d.kernel->dag->flops() * d.occurrences;
  std::map<std::string, SourceCoverage> by_model;
  for (const graph::TunableKernel& d : todo) {
    std::set<std::string> models;
    for (const Record& r : classCandidates(bank, d.kernel->class_id, target_model, {})) models.insert(r.provenance.model);
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
