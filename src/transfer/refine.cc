#include "transfer/refine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "executor/executor.h"
#include "executor/latency.h"
#include "measure/timing.h"
#include "store/bank.h"

namespace ttune::transfer {

using schedule::Record;

Json refineJson(const RefineResult& r) {
  Json j{{"refined_kernels_changed", r.changed},
         {"refine_variants", r.variants},
         {"refine_choice", r.choice == RefineResult::Choice::InModel ? "in-model" : "isolated"}};
  if (r.in_model_speedup.rounds() > 0) j.update(measure::speedupJson(r.in_model_speedup, "refine_in_model_"));
  return j;
}

RefineResult refineInModel(const graph::Graph& g, const std::vector<Record>& records, const RefineOptions& o) {
  using Picks = std::map<std::string, const Record*>;  // one record per workload
  // Per workload: the best few by isolated time, then the default (when not among them).
  std::map<std::string, std::vector<const Record*>> cands;
  Picks deflt;
  {
    std::map<std::string, std::vector<const Record*>> ok;
    for (const Record& r : records) {
      if (!r.result.ok()) continue;
      ok[r.workload_key].push_back(&r);
      if (r.provenance.source == "default") deflt[r.workload_key] = &r;
    }
    for (auto& [key, list] : ok) {
      std::stable_sort(list.begin(), list.end(),
                       [](const Record* a, const Record* b) { return a->result.median() < b->result.median(); });
      std::vector<const Record*> pick;
      for (const Record* r : list) {
        if (static_cast<int>(pick.size()) >= o.candidates) break;
        if (r->provenance.source != "default") pick.push_back(r);
      }
      if (auto d = deflt.find(key); d != deflt.end())
        pick.push_back(d->second);
      else if (pick.empty())
        pick.push_back(list.front());
      cands[key] = std::move(pick);
    }
  }
  RefineResult res;
  for (auto& [k, v] : cands) res.variants = std::max(res.variants, static_cast<int>(v.size()));
  if (res.variants == 0) return res;

  // A whole model running one pick per workload (the default schedule where there is none).
  auto cache = executor::makeKernelCache();
  auto compilePicks = [&](const Picks& picks) {
    executor::ModelOptions mo;
    mo.target = o.target;
    mo.baseline = o.baseline;
    mo.cache = cache;
    mo.schedules = [&picks](const graph::Kernel& k) -> std::optional<std::vector<schedule::Step>> {
      auto it = picks.find(k.workload_key);
      if (it == picks.end()) return std::nullopt;
      return it->second->steps;
    };
    return executor::CompiledModel::compile(g, mo);
  };
  std::vector<executor::CompiledModel> models;
  for (int j = 0; j < res.variants; ++j) {
    Picks variant;
    for (const auto& [key, list] : cands) variant[key] = list[std::min<size_t>(j, list.size() - 1)];
    models.push_back(compilePicks(variant));
  }
  auto inputs = executor::randomInputs(g, 1);
  for (auto& m : models) m.run(inputs);  // warm-up
  // seconds[variant][kernel] over rounds
  size_t nk = models[0].kernels().size();
  std::vector<std::vector<std::vector<double>>> secs(models.size(), std::vector<std::vector<double>>(nk));
  std::vector<double> s;
  for (int r = 0; r < o.rounds; ++r)
    for (size_t j = 0; j < models.size(); ++j) {
      models[j].runProfiled(inputs, s);
      for (size_t k = 0; k < nk && k < s.size(); ++k) secs[j][k].push_back(s[k]);
    }
  Picks in_model, isolated_pick;
  for (size_t k = 0; k < nk; ++k) {
    const std::string& key = models[0].kernels()[k].workload_key;
    auto it = cands.find(key);
    if (it == cands.end() || in_model.count(key)) continue;
    const auto& list = it->second;
    size_t best = 0;
    double best_s = std::numeric_limits<double>::infinity();
    for (size_t j = 0; j < list.size(); ++j) {
      double t = measure::median(secs[j][k]);
      if (t < best_s) best_s = t, best = j;
    }
    size_t isolated = 0;
    for (size_t j = 1; j < list.size(); ++j)
      if (list[j]->result.median() < list[isolated]->result.median()) isolated = j;
    in_model[key] = list[best];
    isolated_pick[key] = list[isolated];
    // Two candidates may be one schedule (a tuned state equal to the default).
    res.changed += store::stepsKey(list[best]->steps) != store::stepsKey(list[isolated]->steps);
  }

  // The in-model picks (when any differs) against the isolated picks, whole models timed
  // interleaved: they replace them only beyond the spread. The check against the defaults is the
  // caller's (model_check.h).
  models.clear();  // frees the variants before the whole models are built
  const Picks* kept = &isolated_pick;
  res.choice = RefineResult::Choice::Isolated;
  if (res.changed > 0) {
    std::vector<executor::CompiledModel> whole;
    whole.push_back(compilePicks(isolated_pick));
    whole.push_back(compilePicks(in_model));
    executor::ModelTimings t =
        executor::timeCompiled(whole, inputs, o.protocol, {.single_run_from_s = executor::kSingleRunFromS});
    res.in_model_speedup = t.speedup[1];
    if (t.speedup[1].gain()) kept = &in_model, res.choice = RefineResult::Choice::InModel;
  }
  for (const auto& [key, r] : *kept) res.chosen.push_back(*r);
  if (res.choice != RefineResult::Choice::InModel) res.changed = 0;
  return res;
}

}  // namespace ttune::transfer
