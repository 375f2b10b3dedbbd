#include "transfer/refine.h"

#include <algorithm>
#include <limits>
#include <map>

#include "executor/executor.h"
#include "executor/latency.h"
#include "measure/timing.h"
#include "store/bank.h"

namespace ttune::transfer {

using schedule::Record;

Json refineJson(const RefineResult& r) {
  return Json{{"refined_kernels_changed", r.changed},
              {"refine_variants", r.variants},
              {"refine_speedup_over_isolated", r.speedup_over_isolated},
              {"refine_kept", r.kept}};
}

RefineResult refineInModel(const graph::Graph& g, const std::vector<Record>& records, const RefineOptions& o) {
  // Per workload: the best few by isolated time, then the default (when not among them).
  std::map<std::string, std::vector<const Record*>> cands;
  {
    std::map<std::string, std::vector<const Record*>> ok;
    std::map<std::string, const Record*> deflt;
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
      if (deflt.count(key)) pick.push_back(deflt[key]);
      else if (pick.empty()) pick.push_back(list.front());
      cands[key] = std::move(pick);
    }
  }
  RefineResult res;
  for (auto& [k, v] : cands) res.variants = std::max(res.variants, static_cast<int>(v.size()));
  if (res.variants == 0) return res;

  auto cache = executor::makeKernelCache();
  std::vector<executor::CompiledModel> models;
  for (int j = 0; j < res.variants; ++j) {
    executor::ModelOptions mo;
    mo.target = o.target;
    mo.cache = cache;
    mo.schedules = [&cands, j](const graph::Kernel& k) -> std::optional<std::vector<schedule::Step>> {
      auto it = cands.find(k.workload_key);
      if (it == cands.end()) return std::nullopt;
      return it->second[std::min<size_t>(j, it->second.size() - 1)]->steps;
    };
    models.push_back(executor::CompiledModel::compile(g, mo));
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
  std::map<std::string, const Record*> in_model, isolated_pick;
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

  // The whole-model check, when any pick changed.
  if (res.changed > 0) {
    auto pickModel = [&](const std::map<std::string, const Record*>& picks) {
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
    models.clear();  // frees the variants before two more models are built
    std::vector<executor::CompiledModel> pair;
    pair.push_back(pickModel(isolated_pick));
    pair.push_back(pickModel(in_model));
    executor::ModelTimings t = executor::timeCompiled(pair, inputs, 2 * o.rounds, 3);
    res.speedup_over_isolated = t.speedup_vs_first[1];
    res.kept = res.speedup_over_isolated >= 1;
  }
  for (auto& [key, r] : res.kept ? in_model : isolated_pick) res.chosen.push_back(*r);
  if (!res.kept) res.changed = 0;
  return res;
}

}  // namespace ttune::transfer
