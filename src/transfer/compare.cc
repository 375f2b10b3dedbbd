#include "transfer/compare.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "executor/latency.h"

namespace ttune::transfer {

using schedule::Record;

namespace {

// Why a run cannot be compared on this target, or "" when it can. A continued run is the one
// tuning run that must be warm-started (from the transfer run, checked by the caller).
std::string whyNot(const store::RunInfo& r, const schedule::Target& target, schedule::Baseline baseline,
                   bool continued = false) {
  std::string isa = schedule::isaName(target.isa), cpu = codegen::hostTarget().cpu;
  std::string run_isa = r.settings.value("isa", ""), run_cpu = r.settings.value("cpu", "");
  if (run_isa.empty() || run_cpu.empty())
    return "run " + r.run_id +
           " does not record the CPU and ISA level it was measured on (it predates them); run it again";
  if (run_isa != isa || run_cpu != cpu)
    return "run " + r.run_id + " was measured on " + run_cpu + " with " + run_isa + " code, not on this " + cpu +
           " with " + isa + " code: its times do not compare with timings taken here";
  if (runBaseline(r) != baseline)
    return "run " + r.run_id + " measured against the " + schedule::baselineName(runBaseline(r)) +
           " default schedules, not the " + schedule::baselineName(baseline) +
           " ones this comparison uses (--defaults): baselines do not mix";
  if (r.kind == store::RunKind::Tune && !continued && r.settings.value("warm_start", false))
    return "tuning run " + r.run_id +
           " was warm-started from the bank (--warm-start), so it is no from-scratch baseline";
  return "";
}

}  // namespace

schedule::Baseline runBaseline(const store::RunInfo& run) {
  return schedule::parseBaseline(run.settings.value("defaults", "strong")).value_or(schedule::Baseline::Strong);
}

Expected<store::RunInfo> comparableRun(const store::Bank& bank, store::RunKind kind, const std::string& model,
                                       const std::string& wanted, const schedule::Target& target,
                                       schedule::Baseline baseline) {
  std::optional<store::RunInfo> out;
  std::string last_reason;
  for (const store::RunInfo& r : bank.runs()) {
    if (!wanted.empty()) {
      if (r.run_id != wanted) continue;
      if (r.kind != kind)
        return Unexpected("run " + wanted + " in " + bank.path() + " is a " + store::runKindName(r.kind) +
                          " run, not a " + store::runKindName(kind) + " run");
      std::string why = whyNot(r, target, baseline);
      if (!why.empty()) return Unexpected(why);
      return r;
    }
    if (r.kind != kind || r.model != model || r.status != store::RunStatus::Finished) continue;
    std::string why = whyNot(r, target, baseline);
    if (why.empty())
      out = r;
    else
      last_reason = why;
  }
  if (!wanted.empty()) return Unexpected("the bank " + bank.path() + " has no run " + wanted);
  if (out) return *out;
  std::string what = kind == store::RunKind::Tune ? "tuning" : "transfer";
  return Unexpected("the bank " + bank.path() + " has no finished " + what + " run of " + model + " to compare" +
                    (last_reason.empty() ? "" : " (" + last_reason + ")"));
}

std::vector<Record> bestPerWorkload(const std::vector<Record>& records, double limit_s) {
  std::map<std::string, const Record*> best;
  for (const Record& r : records) {
    if (!r.result.ok() || (limit_s >= 0 && r.provenance.elapsed_s > limit_s)) continue;
    auto& b = best[r.workload_key];
    if (!b || r.result.median() < b->result.median()) b = &r;
  }
  std::vector<Record> out;
  for (auto& [k, r] : best) out.push_back(*r);
  return out;
}

Json choiceResult(const std::vector<Record>& chosen) {
  Json c = Json::object();
  for (const Record& r : chosen) c[r.workload_key] = store::stepsKey(r.steps);
  return Json{{"choice", c}};
}

std::optional<std::vector<Record>> inModelChoice(const store::Bank& bank, const std::string& model,
                                                 const schedule::TargetInfo& here, schedule::Baseline baseline) {
  std::vector<store::RunInfo> runs = bank.runs();
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    const store::RunInfo& r = *it;
    if (r.model != model || r.status != store::RunStatus::Finished) continue;
    if (r.settings.value("cpu", "") != here.cpu || r.settings.value("isa", "") != schedule::isaName(here.isa) ||
        r.settings.value("threads", 0) != here.threads || runBaseline(r) != baseline)
      continue;
    if (!r.result.is_object() || !r.result.contains("choice")) return std::nullopt;
    store::RecordQuery q;
    q.run_id = r.run_id;
    return transferChoice(bank.records(q), r.result);
  }
  return std::nullopt;
}

std::vector<Record> transferChoice(const std::vector<Record>& records, const Json& run_result) {
  if (run_result.is_object() && run_result.contains("choice") && run_result["choice"].is_object()) {
    const Json& c = run_result["choice"];
    std::map<std::string, const Record*> named;
    for (const Record& r : records) {
      if (!r.result.ok() || !c.contains(r.workload_key) || named.count(r.workload_key)) continue;
      if (c[r.workload_key].is_string() && c[r.workload_key].get<std::string>() == store::stepsKey(r.steps))
        named[r.workload_key] = &r;
    }
    std::vector<Record> out;
    for (auto& [k, r] : named) out.push_back(*r);
    return out;
  }
  std::map<std::string, double> default_s;
  std::vector<Record> transferred;
  for (const Record& r : records) {
    if (r.provenance.source == "default")
      default_s[r.workload_key] = r.result.median();
    else
      transferred.push_back(r);
  }
  std::vector<Record> out;
  for (Record& r : bestPerWorkload(transferred)) {
    auto it = default_s.find(r.workload_key);
    if (it == default_s.end() || r.result.median() < it->second) out.push_back(std::move(r));
  }
  return out;
}

Expected<Comparison> compareRuns(const graph::Graph& g, const std::string& model, const store::Bank& bank,
                                 const CompareOptions& o) {
  TT_TRY(store::RunInfo tune, comparableRun(bank, store::RunKind::Tune, model, o.tune_run, o.target, o.baseline));
  TT_TRY(store::RunInfo tr, comparableRun(bank, store::RunKind::Transfer, model, o.transfer_run, o.target, o.baseline));
  store::RecordQuery q;
  q.run_id = tune.run_id;
  std::vector<Record> tune_recs = bank.records(q);
  q.run_id = tr.run_id;
  std::vector<Record> tr_recs = bank.records(q);
  if (tune_recs.empty()) return Unexpected("tuning run " + tune.run_id + " has no records");

  Comparison c;
  c.tune_run = tune.run_id;
  c.transfer_run = tr.run_id;
  c.transfer_s = tr.wall_s;
  for (const Record& r : tr_recs) c.transfer_s = std::max(c.transfer_s, r.provenance.elapsed_s);
  c.tune_s = tune.wall_s;
  for (const Record& r : tune_recs) c.tune_s = std::max(c.tune_s, r.provenance.elapsed_s);

  // Checkpoints: an eighth, a quarter and half of the transfer run's search time (a tuning run
  // that matches the transfer sooner reads as a ratio below 1, not as 1), the transfer's time,
  // then every step after it, and the end.
  c.step_s = o.step_s;
  if (c.tune_s > c.transfer_s && (c.tune_s - c.transfer_s) / c.step_s > o.max_checkpoints)
    c.step_s = (c.tune_s - c.transfer_s) / o.max_checkpoints;
  std::vector<double> times;
  for (double f : {0.125, 0.25, 0.5})
    if (c.transfer_s * f < c.tune_s) times.push_back(c.transfer_s * f);
  const size_t at_transfer = times.size();
  for (double t = c.transfer_s; t < c.tune_s; t += c.step_s) times.push_back(t);
  times.push_back(c.tune_s);

  auto config = [&](const std::vector<Record>& recs) {
    executor::ModelOptions m;
    m.target = o.target;
    m.baseline = o.baseline;
    m.schedules = executor::recordsProvider(recs);
    return m;
  };
  executor::ModelOptions untuned;
  untuned.target = o.target;
  untuned.baseline = o.baseline;
  std::vector<executor::ModelOptions> configs = {untuned, config(transferChoice(tr_recs, tr.result))};
  for (double t : times) configs.push_back(config(bestPerWorkload(tune_recs, t)));
  // Transfer, then tune: the transfer choice, per kernel replaced by the continued run's best
  // when faster, at checkpoints of the continued run.
  std::vector<double> cont_times;
  if (!o.continued_run.empty()) {
    auto run = bank.run(o.continued_run);
    if (!run) return Unexpected("the bank " + bank.path() + " has no run " + o.continued_run);
    if (run->kind != store::RunKind::Tune || run->model != model)
      return Unexpected("run " + o.continued_run + " is not a tuning run of " + model);
    if (run->settings.value("warm_start_run", "") != tr.run_id)
      return Unexpected("tuning run " + o.continued_run + " was not warm-started from transfer run " + tr.run_id +
                        " (ttune tune --warm-start-run " + tr.run_id + ")");
    std::string why = whyNot(*run, o.target, o.baseline, true);
    if (!why.empty()) return Unexpected(why);
    q.run_id = run->run_id;
    std::vector<Record> cont_recs = bank.records(q);
    double cont_s = run->wall_s;
    for (const Record& r : cont_recs) cont_s = std::max(cont_s, r.provenance.elapsed_s);
    double step = std::max(c.step_s, cont_s / 6);
    for (double t = step; t < cont_s; t += step) cont_times.push_back(t);
    cont_times.push_back(cont_s);
    std::vector<Record> base = transferChoice(tr_recs, tr.result);
    for (double t : cont_times) {
      std::vector<Record> merged = base;
      for (Record& r : bestPerWorkload(cont_recs, t)) merged.push_back(std::move(r));
      configs.push_back(config(bestPerWorkload(merged)));
    }
    c.continued_run = run->run_id;
  }
  executor::ModelTimings tm = executor::timeModels(
      g, configs, o.protocol, {.per_round = o.per_round, .single_run_from_s = o.single_run_from_s});

  c.untuned_s = tm.median_s[0];
  c.transferred_s = tm.median_s[1];
  c.tt = tm.speedup[1];
  c.s_tt = c.tt.median;
  for (size_t i = 0; i < times.size(); ++i) {
    Checkpoint cp{times[i], tm.median_s[2 + i], tm.speedup[2 + i].median, tm.speedup[2 + i]};
    c.checkpoints.push_back(cp);
    if (!c.match_s && cp.speedup >= c.s_tt) c.match_s = cp.elapsed_s;
  }
  c.tuned_s = c.checkpoints.back().latency_s;
  c.s_max = c.checkpoints.back().speedup;
  c.max = c.checkpoints.back().interval;
  c.share = c.s_max > 1 ? (c.s_tt - 1) / (c.s_max - 1) : 0;
  c.tune_speedup_at_transfer_s = c.checkpoints[std::min(at_transfer, c.checkpoints.size() - 1)].speedup;
  std::vector<TimedSpeedup> timed;
  for (const Checkpoint& cp : c.checkpoints) timed.push_back({cp.elapsed_s, cp.interval});
  c.readout = readShare(c.tt, timed);
  const size_t first_cont = 2 + times.size();
  // The curve starts at the transfer's point: a transfer already at S_max reached it there.
  if (!cont_times.empty() && c.s_tt >= c.s_max) c.continued_match_max_s = c.transfer_s;
  for (size_t i = 0; i < cont_times.size(); ++i) {
    Checkpoint cp{c.transfer_s + cont_times[i], tm.median_s[first_cont + i], tm.speedup[first_cont + i].median,
                  tm.speedup[first_cont + i]};
    c.continued.push_back(cp);
    if (!c.continued_match_max_s && cp.speedup >= c.s_max) c.continued_match_max_s = cp.elapsed_s;
  }
  return c;
}

}  // namespace ttune::transfer
