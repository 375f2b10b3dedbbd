#include "transfer/model_check.h"

#include <cmath>

#include <map>

#include "executor/executor.h"
#include "executor/latency.h"
#include "store/bank.h"
#include "support/strings.h"

namespace ttune::transfer {

using schedule::Record;

std::vector<Record> defaultRecords(const std::vector<Record>& records) {
  std::map<std::string, const Record*> d;
  for (const Record& r : records)
    if (r.provenance.source == "default" && r.result.ok()) d[r.workload_key] = &r;
  std::vector<Record> out;
  for (auto& [k, r] : d) out.push_back(*r);
  return out;
}

ModelCheck checkModel(const graph::Graph& g, const std::vector<Record>& picks, const std::vector<Record>& defaults,
                      const ModelCheckOptions& o) {
  std::map<std::string, const Record*> deflt, pick;
  for (const Record& r : defaults) deflt[r.workload_key] = &r;
  for (const Record& r : picks) pick[r.workload_key] = &r;
  ModelCheck c;
  int changed = 0;
  for (const auto& [key, r] : pick) {
    auto d = deflt.find(key);
    bool same = d != deflt.end() ? store::stepsKey(d->second->steps) == store::stepsKey(r->steps)
                                 : r->provenance.source == "default";
    changed += !same;
  }
  c.picks_differ = changed > 0;

  executor::ModelOptions dm;
  dm.cache = o.cache;
  dm.target = o.target;
  dm.baseline = o.baseline;
  dm.schedules = executor::recordsProvider(defaults);
  executor::ModelOptions pm = dm;
  pm.schedules = executor::recordsProvider(picks);
  // Picks that are the defaults need no decision: the fewest rounds, for the latency only.
  measure::RoundsProtocol protocol = o.protocol;
  if (!c.picks_differ) protocol.max_rounds = protocol.min_rounds;
  executor::ModelTimings t =
      executor::timeModels(g, {dm, pm}, protocol, {.per_round = o.per_round, .single_run_from_s = o.single_run_from_s});
  c.defaults_s = t.median_s[0];
  c.picks_s = t.median_s[1];
  c.speedup = t.speedup[1];
  c.kept_picks = c.picks_differ && c.speedup.gain();

  // The choice names every workload: its pick when the picks are kept, else its default.
  std::map<std::string, const Record*> chosen = deflt;
  if (c.kept_picks)
    for (const auto& [key, r] : pick) chosen[key] = r;
  for (const auto& [key, r] : chosen) c.chosen.push_back(*r);
  c.kernels_changed = c.kept_picks ? changed : 0;
  return c;
}

ModelCheck kernelLevelCheck(const std::vector<schedule::Record>& chosen, double defaults_s, double picks_s,
                            int kernels_changed) {
  ModelCheck c;
  c.chosen = chosen;
  c.whole_model = false;
  c.kernels_changed = kernels_changed;
  c.kept_picks = c.picks_differ = kernels_changed > 0;
  c.defaults_s = defaults_s;
  c.picks_s = kernels_changed > 0 ? picks_s : defaults_s;
  const double ratio = c.picks_s > 0 && std::isfinite(defaults_s) ? defaults_s / c.picks_s : 1.0;
  c.speedup.median = c.speedup.lo = c.speedup.hi = ratio;
  return c;
}

Json checkJson(const ModelCheck& c) {
  Json j{{"untuned_ms", c.defaults_s * 1e3}, {"chosen_ms", c.chosenSeconds() * 1e3},
         {"picks_ms", c.picks_s * 1e3},      {"picks_kept", c.kept_picks},
         {"picks_differ", c.picks_differ},   {"kernels_changed", c.kernels_changed}};
  j.update(measure::speedupJson(c.speedup));
  if (!c.whole_model) j["whole_model"] = false;
  return j;
}

std::string checkVerdict(const Json& j, size_t kernels) {
  measure::Speedup s = measure::speedupFromJson(j);
  if (!j.value("picks_differ", true)) return "no schedule beat its default: defaults kept";
  if (j.value("picks_kept", false))
    return measure::formatSpeedup(s) + strFormat(", %d of %zu kernels changed", j.value("kernels_changed", 0), kernels);
  return "no gain beyond the spread: " + measure::formatSpeedup(s) + ", defaults kept";
}

}  // namespace ttune::transfer
