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

const char* choiceName(RefineResult::Choice c) {
  switch (c) {
    case RefineResult::Choice::Isolated: return "isolated";
    case RefineResult::Choice::InModel: return "in-model";
    case RefineResult::Choice::Defaults: return "defaults";
  }
  return "";
}

Json refineJson(const RefineResult& r) {
  Json j{{"refined_kernels_changed", r.changed}, {"refine_variants", r.variants}, {"refine_choice", choiceName(r.choice)}};
  if (std::isfinite(r.in_model_speedup)) j["refine_in_model_speedup"] = r.in_model_speedup;
  if (std::isfinite(r.defaults_speedup)) j["refine_defaults_speedup"] = r.defaults_speedup;
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
      std::stable_sort(list.begin(), list.end(), [](const Record* a, const Record* b) { return a->result.median() < b->result.median(); });
      std::vector<const Record*> pick;
      for (const Record* r : list) {
        if (static_cast<int>(pick.size()) >= o.candidates) break;
        if (r->provenance.source != "default") pick.push_back(r);
      }
      if (auto d = deflt.find(key); d != deflt.end()) pick.push_back(d->second);
      else if (pick.empty()) pick.push_back(list.front());
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

  // The whole model, timed interleaved with the isolated picks, the in-model picks (when any
  // differs) and the defaults (when every kernel has one): the fastest is kept, so the choice
  // never makes the model slower than its isolated picks or its default schedules.
  Picks defaults;
  for (const auto& [key, r] : isolated_pick)
    if (auto it = deflt.find(key); it != deflt.end()) defaults[key] = it->second;
  std::vector<std::pair<RefineResult::Choice, const Picks*>> options{{RefineResult::Choice::Isolated, &isolated_pick}};
  if (res.changed > 0) options.push_back({RefineResult::Choice::InModel, &in_model});
  if (defaults.size() == isolated_pick.size()) options.push_back({RefineResult::Choice::Defaults, &defaults});
  models.clear();  // frees the variants before the whole models are built
  const Picks* kept = &isolated_pick;
  res.choice = RefineResult::Choice::Isolated;
  if (options.size() > 1) {
    std::vector<executor::CompiledModel> whole;
    for (const auto& opt : options) whole.push_back(compilePicks(*opt.second));
    executor::ModelTimings t = executor::timeCompiled(whole, inputs, 2 * o.rounds, 3);
    double best = 1;
    for (size_t i = 1; i < options.size(); ++i) {
      double sp = t.speedup_vs_first[i];
      if (options[i].first == RefineResult::Choice::InModel) res.in_model_speedup = sp;
      else res.defaults_speedup = sp;
      if (sp > best) best = sp, kept = options[i].second, res.choice = options[i].first;
    }
  }
  for (const auto& [key, r] : *kept) res.chosen.push_back(*r);
  if (res.choice != RefineResult::Choice::InModel) res.changed = 0;
  return res;
}

}  // namespace ttune::transfer
