#include "transfer/candidates.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "autotune/features.h"
#include "autotune/sampler.h"
#include "support/log.h"
#include "transfer/adapt.h"
#include "transfer/nearest.h"

namespace ttune::transfer {

using schedule::Record;
using schedule::Step;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Whether a record may be a transfer candidate for `target_model`: measured by a tuning run
// (not a transfer or default record, which would hand a model's own schedules back to it through
// another model's transfer run) of another model, whose lineage does not lead back to the target,
// in a run that was not warm-started from the rest of the bank (its schedules' origin is then
// unknown; records imported without their run, like the shipped bank's, count as cold). Runs
// are looked up once each.
class CandidateRule {
 public:
  CandidateRule(const store::Bank& bank, std::string target_model, schedule::Baseline baseline)
      : bank_(bank), target_(std::move(target_model)), baseline_(baseline) {}
  bool operator()(const Record& r) {
    const schedule::Provenance& p = r.provenance;
    if (p.source != "tune" || p.model.empty() || p.model == target_ || p.origin == target_) return false;
    if (p.baseline != baseline_) return false;
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
  schedule::Baseline baseline_;
  std::map<std::string, bool> cold_;
};

}  // namespace

std::vector<Record> classCandidates(const store::Bank& bank, const std::string& class_id,
                                    const std::string& target_model, const store::TargetFilter& target,
                                    const std::string& preferred_cpu, schedule::Baseline baseline) {
  store::RecordQuery q;
  q.class_id = class_id;
  q.ok_only = true;
  q.target = target;
  CandidateRule allowed(bank, target_model, baseline);
  // A workload the target shares with a source model stays a candidate (the source's schedule
  // for it is exact reuse), unlike the bank's exclude_model filter.
  std::map<std::pair<std::string, std::string>, Record> best;
  for (Record& r : bank.records(q)) {
    if (!allowed(r)) continue;
    // Times of different CPUs do not compare: a record of the preferred CPU wins, then the fastest.
    auto key = std::make_pair(r.workload_key, r.provenance.model);
    auto it = best.find(key);
    bool mine = !preferred_cpu.empty() && r.target.cpu == preferred_cpu;
    bool theirs = it != best.end() && !preferred_cpu.empty() && it->second.target.cpu == preferred_cpu;
    if (it == best.end() || (mine && !theirs) || (mine == theirs && r.result.median() < it->second.result.median()))
      best[key] = std::move(r);
  }
  std::vector<Record> out;
  for (auto& [k, r] : best) out.push_back(std::move(r));
  return out;
}

const std::vector<Record>& ClassCandidates::of(const std::string& class_id) {
  auto it = read_.find(class_id);
  if (it == read_.end())
    it = read_.emplace(class_id, classCandidates(bank_, class_id, model_, target_, cpu_, baseline_)).first;
  return it->second;
}

store::TargetFilter candidateTier(const schedule::TargetInfo& target, int tier) {
  if (tier >= 1) return store::TargetFilter{};
  return store::TargetFilter::sameIsa(target);
}

std::vector<std::vector<Record>> collectCandidates(const std::vector<const graph::Kernel*>& kernels,
                                                   const store::Bank& bank, const std::string& target_model,
                                                   const schedule::TargetInfo& target,
                                                   const std::vector<std::string>& sources, int* tier,
                                                   schedule::Baseline baseline) {
  std::set<std::string> only(sources.begin(), sources.end());
  std::vector<std::vector<Record>> found(kernels.size());
  const std::map<std::string, std::string> classes = bank.recordClasses();
  for (int t = 0; t < 2; ++t) {
    size_t n = 0;
    ClassCandidates of_class(bank, target_model, candidateTier(target, t), target.cpu, baseline);
    for (size_t i = 0; i < kernels.size(); ++i) {
      found[i].clear();
      std::vector<std::string> ids{kernels[i]->class_id};
      for (std::string& id : paddingVariants(kernels[i]->class_id, kernels[i]->class_name, classes))
        ids.push_back(std::move(id));
      for (const std::string& id : ids) {
        for (Record r : of_class.of(id)) {
          if (!only.empty() && !only.count(r.provenance.model)) continue;
          if (id != kernels[i]->class_id) {
            // The same class in the paper's sense: its stages mapped onto this kernel's padding.
            auto steps = remapStages(r.steps, kernels[i]->dag);
            if (!steps.ok()) continue;
            r.steps = std::move(*steps);
          }
          found[i].push_back(std::move(r));
          ++n;
        }
      }
    }
    if (tier) *tier = t;
    // Every candidate is measured here, so records of other CPUs of the level serve as well as
    // this CPU's (the shipped bank on a new machine); other levels only when the level has none.
    if (n > 0 || kernels.empty()) {
      if (t == 1)
        logInfo("no schedules were recorded for ", schedule::isaName(target.isa),
                "; transferring those of other ISA levels with their vector lengths adapted");
      break;
    }
  }
  return found;
}

std::vector<Candidate> buildCandidates(const graph::Kernel& k, const std::vector<Record>& records, Adapt adapt,
                                       const schedule::Target& code, BuildStats* stats) {
  std::vector<Candidate> cands;
  std::set<std::string> seen;
  for (const Record& r : records) {
    std::string src = r.provenance.model + " " + r.workload_key;
    std::string origin = r.provenance.origin.empty() ? r.provenance.model : r.provenance.origin;
    std::vector<Step> steps = r.steps;
    if (r.target.vector_bits > 0 && r.target.isa != code.isa) {
      // Measured for another vector width: same vector counts, register tiles refitted.
      auto lanes =
          adaptLanes(r.steps, k.dag, std::max(1, r.target.vector_bits / 32), code.lanes(), code.vector_registers);
      if (!lanes.ok()) {
        stats->failed++;
        continue;
      }
      steps = std::move(*lanes);
      stats->other_isa++;
    }
    if (adapt != Adapt::Adapted) {
      auto st = schedule::State::replay(k.dag, steps);
      if (st.ok() && seen.insert(store::stepsKey(steps)).second)
        cands.push_back({steps, src, r.provenance.model, origin, false, r.workload_key, r.result.median()});
      else if (!st.ok())
        stats->failed++;
    }
    if (adapt != Adapt::Verbatim) {
      auto a = adaptSplits(steps, k.dag);
      if (a.ok() && seen.insert(store::stepsKey(*a)).second)
        cands.push_back({*a, src, r.provenance.model, origin, true, r.workload_key, r.result.median()});
      else if (!a.ok() && adapt == Adapt::Adapted)
        stats->failed++;
    }
  }
  return cands;
}

std::unique_ptr<autotune::XGBoostModel> trainRanker(
    const std::vector<Record>& source_records,
    const std::function<std::shared_ptr<const te::ComputeDAG>(const std::string&)>& source_dag) {
  if (!source_dag) return nullptr;
  std::vector<autotune::TrainingSample> samples;
  std::map<std::string, std::shared_ptr<const te::ComputeDAG>> dags;
  for (const Record& r : source_records) {
    auto it = dags.find(r.workload_key);
    if (it == dags.end()) it = dags.emplace(r.workload_key, source_dag(r.workload_key)).first;
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

std::vector<Candidate> topRanked(const graph::Kernel& k, std::vector<Candidate> cands, autotune::XGBoostModel& ranker,
                                 int top_k) {
  if (static_cast<int>(cands.size()) <= top_k) return cands;
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
  std::vector<double> score = ranker.predict(feats);
  std::vector<size_t> order(valid.size());
  for (size_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });
  std::vector<Candidate> kept;
  for (size_t c = 0; c < order.size() && static_cast<int>(kept.size()) < top_k; ++c)
    kept.push_back(cands[valid[order[c]]]);
  return kept;
}

std::vector<Candidate> topByPrior(const graph::Kernel& k, std::vector<Candidate> cands,
                                  const std::function<double(const std::string&)>& flops_of, int top_k) {
  if (static_cast<int>(cands.size()) <= top_k) return cands;
  std::map<std::string, double> flops;
  auto score = [&](const Candidate& c) {
    if (c.workload_key == k.workload_key) return kInf;
    auto it = flops.find(c.workload_key);
    if (it == flops.end()) it = flops.emplace(c.workload_key, flops_of ? flops_of(c.workload_key) : 0.0).first;
    return it->second > 0 && c.source_s > 0 && std::isfinite(c.source_s) ? it->second / c.source_s : 0.0;
  };
  std::vector<std::pair<double, size_t>> order;
  for (size_t c = 0; c < cands.size(); ++c) order.push_back({score(cands[c]), c});
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Candidate> kept;
  for (size_t c = 0; c < order.size() && static_cast<int>(kept.size()) < top_k; ++c)
    kept.push_back(std::move(cands[order[c].second]));
  return kept;
}

}  // namespace ttune::transfer
