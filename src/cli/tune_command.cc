// `ttune tune`: Ansor-style auto-scheduling of a model's kernels; every measurement goes to the
// schedule bank as it happens, so an interrupted run resumes where it stopped.
#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "autotune/tuner.h"
#include "cli/bank_access.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/cost_prior.h"
#include "cli/fleet.h"
#include "cli/interrupt.h"
#include "cli/model_loader.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/target_option.h"
#include "codegen/target.h"
#include "executor/executor.h"
#include "executor/latency.h"
#include "measure/builder.h"
#include "measure/peak.h"
#include "measure/worker_command.h"
#include "models/zoo.h"
#include "runtime/thread_pool.h"
#include "store/bank.h"
#include "support/error.h"
#include "support/strings.h"
#include "support/temp_dir.h"
#include "support/timer.h"
#include "transfer/compare.h"
#include "transfer/model_check.h"
#include "transfer/refine.h"

namespace ttune::cli {

namespace {

// The live view of a tuning run: a headline (trials, rate), the estimated latency against
// untuned with the time shares, and the kernels in order of their share of the estimated latency, with
// trials, default and best time; ">" marks the kernel being tuned.
std::vector<std::string> tuneViewLines(const autotune::TunerProgress& p, double wall_s, int64_t resumed_trials) {
  std::vector<std::string> out;
  double rate = wall_s > 0 ? static_cast<double>(p.trials - resumed_trials) / wall_s : 0;
  int unmeasured = 0;
  for (const auto& t : p.tasks) unmeasured += !std::isfinite(t.best_s);
  std::string est;
  if (unmeasured == 0 && std::isfinite(p.estimated_latency_s)) {
    est = "est. " + formatSeconds(p.estimated_latency_s);
    if (std::isfinite(p.untuned_latency_s) && p.estimated_latency_s > 0)
      est += strFormat(" (untuned %s, %.2fx)", formatSeconds(p.untuned_latency_s).c_str(),
                       p.untuned_latency_s / p.estimated_latency_s);
  } else {
    est = strFormat("measuring defaults, %d of %zu kernels left", unmeasured, p.tasks.size());
  }
  out.push_back(strFormat("%lld/%lld trials, %.1f trials/s", static_cast<long long>(p.trials),
                          static_cast<long long>(p.trials_total), rate));
  out.push_back(est);
  double total = p.search_s + p.build_s + p.run_s;
  if (total > 0)
    out.back() += strFormat("; time: measuring %.0f%%, compiling %.0f%%, searching %.0f%%", 100 * p.run_s / total,
                            100 * p.build_s / total, 100 * p.search_s / total);
  std::vector<size_t> order(p.tasks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto share = [&](size_t i) {
    const auto& t = p.tasks[i];
    return std::isfinite(t.best_s) ? t.weight * t.best_s : -1.0;  // unmeasured last
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return share(x) > share(y); });
  out.push_back(strFormat("  %-40s %6s %6s %10s %10s %7s", "kernel (share of est. latency)", "occ", "trials", "default",
                          "best", "speedup"));
  for (size_t k = 0; k < std::min<size_t>(8, order.size()); ++k) {
    const auto& t = p.tasks[order[k]];
    bool cur = static_cast<int>(order[k]) == p.current_task;
    std::string name = ellipsize(t.class_name, 31);
    if (std::isfinite(t.best_s) && std::isfinite(p.estimated_latency_s) && p.estimated_latency_s > 0)
      name += strFormat(" (%.1f%%)", 100 * t.weight * t.best_s / p.estimated_latency_s);
    std::string def = std::isfinite(t.default_s) ? formatSeconds(t.default_s) : "-";
    std::string best = std::isfinite(t.best_s) ? formatSeconds(t.best_s) : "-";
    std::string sp =
        std::isfinite(t.best_s) && std::isfinite(t.default_s) ? strFormat("%.2fx", t.default_s / t.best_s) : "-";
    out.push_back(strFormat("%s %-40s %6.0f %6d %10s %10s %7s%s", cur ? ">" : " ", name.c_str(), t.weight, t.trials,
                            def.c_str(), best.c_str(), sp.c_str(), t.dead ? " done" : ""));
  }
  if (order.size() > 8) out.push_back(strFormat("  ... %zu more kernels", order.size() - 8));
  return out;
}

// Where a run starts: a new one (empty run_id), or the latest unfinished run of this model for
// code of the same ISA level and defaults, whose clock continues (records and the run's wall
// time count the time spent before too).
struct ResumePoint {
  std::string run_id;
  int64_t done = 0;        // its committed records
  double time_before = 0;  // its wall time so far
};

ResumePoint findResume(store::Bank& bank, const std::string& name, const std::string& isa,
                       const std::string& defaults_name) {
  ResumePoint rp;
  for (const auto& r : bank.runs())
    if (r.kind == store::RunKind::Tune && r.model == name && r.status != store::RunStatus::Finished &&
        r.settings.value("isa", isa) == isa && r.settings.value("defaults", "strong") == defaults_name) {
      rp.run_id = r.run_id;
      rp.time_before = r.wall_s;
    }
  if (!rp.run_id.empty()) {
    store::RecordQuery own;
    own.run_id = rp.run_id;
    auto mine = bank.recordsOrError(own);
    if (!mine.ok()) fail("cannot resume tuning run ", rp.run_id, ": ", mine.error());
    rp.done = static_cast<int64_t>(mine->size());
    Status st = bank.resumeRun(rp.run_id);
    if (!st.ok()) fail(st.error());
  }
  return rp;
}

// Seeded with records beyond the run's own.
bool warmStart(const TuneArgs& a) { return a.warm_start || !a.warm_start_run.empty(); }

// The run's settings as stored with it (and matched by findResume: isa, defaults).
Json tuneSettings(const TuneArgs& a, const schedule::TargetInfo& target, const std::string& isa,
                  const std::string& defaults_name, bool remote) {
  Json settings{{"trials", a.trials},
                {"time_budget_min", a.time_budget_min},
                {"seed", a.seed},
                {"measures_per_round", a.measures_per_round},
                {"population", a.population},
                {"threads", target.threads},
                {"warm_start", warmStart(a)},
                {"warm_start_run", a.warm_start_run},
                {"refine", a.refine},
                {"isa", isa},
                {"cpu", target.cpu},
                {"defaults", defaults_name},
                {"label", a.label},
                {"cost_model", spellingOf(kCostModelStarts, a.cost_model)}};
  if (remote) settings["workers"] = a.workers;
  return settings;
}

autotune::TunerOptions tunerOptions(const TuneArgs& a, const schedule::Target& code, schedule::Baseline baseline,
                                    const schedule::TargetInfo& target, const std::string& name,
                                    const ResumePoint& rp) {
  autotune::TunerOptions topt;
  topt.trials = a.trials;
  topt.time_budget_s = a.time_budget_min * 60;
  topt.measures_per_round = a.measures_per_round;
  topt.early_stopping = a.early_stopping;
  topt.search.population = a.population;
  topt.search.target = code;
  topt.search.baseline = baseline;
  topt.search.sketch.num_cores = target.threads;
  topt.search.sampler.num_cores = target.threads;
  topt.seed = a.seed;
  topt.model = name;
  topt.run_id = rp.run_id;
  topt.elapsed_offset_s = rp.time_before;
  topt.target = target;
  return topt;
}

// A resumed run continues from its own committed records. Only --warm-start also seeds the
// search with every other record of these kernels (other runs, other models, transfer runs):
// faster, but then the run is no from-scratch baseline for `ttune compare`.
void preloadTuner(autotune::Tuner& tuner, store::Bank& bank, const TuneArgs& a, const std::string& name,
                  const schedule::TargetInfo& target, const ResumePoint& rp) {
  if (rp.done <= 0 && !warmStart(a)) return;
  store::RecordQuery q;
  q.kernels_of_model = name;
  q.target = store::TargetFilter::exactly(target);
  std::vector<schedule::Record> seed;
  // A resumed run must see all it did: a read error fails here instead of restarting from less.
  auto read = [&](const store::RecordQuery& query) {
    auto r = bank.recordsOrError(query);
    if (!r.ok()) fail("cannot resume tuning run ", rp.run_id, ": ", r.error());
    return std::move(*r);
  };
  if (a.warm_start) {
    seed = read(q);
  } else {
    q.run_id = rp.run_id;
    seed = read(q);
    if (!a.warm_start_run.empty()) {
      // One run's records (a transfer run's: transfer, then tune from its schedules).
      if (!bank.run(a.warm_start_run))
        fail("--warm-start-run: the bank ", bank.path(), " has no run ", a.warm_start_run);
      q.run_id = a.warm_start_run;
      for (schedule::Record& r : read(q)) seed.push_back(std::move(r));
    }
  }
  int used = tuner.preload(seed, rp.done);
  if (used > 0 && !a.json && stderrIsTerminal())
    std::cerr << "ttune: resuming with " << used << " measured schedules from " << bank.path() << "\n";
}

// Runs the search, storing records as they are measured; an interrupt (or any failure) leaves the
// run marked interrupted so the same command resumes it.
autotune::TunerProgress runSearch(autotune::Tuner& tuner, store::Bank& bank, const TuneArgs& a, const ResumePoint& rp,
                                  LiveView& view, const Timer& wall) {
  std::optional<InterruptGuard> guard(std::in_place);
  auto sink = [&](const std::vector<schedule::Record>& recs) {
    Status st = bank.addRecords(recs);
    if (!st.ok()) fail(st.error());
  };
  auto progress = [&](const autotune::TunerProgress& p) {
    (void)bank.updateRun(rp.run_id, p.trials, rp.time_before + wall.seconds());
    if (!a.json) {
      std::vector<std::string> lines = tuneViewLines(p, wall.seconds(), rp.done);
      view.update(static_cast<double>(p.trials), static_cast<double>(p.trials_total), p.elapsed_s, lines[0],
                  std::vector<std::string>(lines.begin() + 1, lines.end()));
    }
    if (InterruptGuard::interrupted()) throw Error("tuning interrupted; run the same command again to resume");
  };
  autotune::TunerProgress p;
  try {
    p = tuner.run(sink, progress);
  } catch (const Error&) {
    guard.reset();
    (void)bank.finishRun(rp.run_id, store::RunStatus::Interrupted);
    throw;
  }
  guard.reset();
  view.finish();
  return p;
}

// Each kernel's pick re-timed side by side with its default (weighted by occurrences), and the
// choice that keeps a pick only when it is faster beyond the spread.
struct Retimed {
  std::vector<schedule::Record> choice;
  std::set<std::string> beaten;  // workload keys whose pick was kept
  double default_s = 0, pick_s = 0, flops = 0;
  int kernels = 0, gains = 0;
};

Retimed retimePicks(const std::vector<autotune::TuneTaskSpec>& tasks, const std::vector<schedule::Record>& run_recs,
                    const std::vector<schedule::Record>& defaults, const measure::MeasureOptions& mo,
                    const measure::WorkerCommand& worker, const schedule::Target& code, schedule::Baseline baseline) {
  std::map<std::string, const schedule::Record*> default_of;
  for (const schedule::Record& r : defaults) default_of[r.workload_key] = &r;
  Retimed out;
  measure::MeasureOptions ro = mo;
  ro.timing.repeat = 1;  // the rounds are the repeats
  measure::Measurer retimer(ro, worker);
  std::map<std::string, schedule::Record> pick;
  for (schedule::Record& r : transfer::bestPerWorkload(run_recs)) pick[r.workload_key] = std::move(r);
  for (const autotune::TuneTaskSpec& t : tasks) {
    auto it = pick.find(t.workload_key);
    if (it == pick.end()) continue;
    std::vector<schedule::Step> def = measure::defaultScheduleFor(*t.dag, code, baseline);
    double d = it->second.result.median(), q = d;
    bool keep = false;
    if (store::stepsKey(def) != store::stepsKey(it->second.steps)) {
      measure::SideBySide m = retimer.compareSideBySide({{t.dag, def}, {t.dag, it->second.steps}},
                                                        measure::decided(measure::kernelRounds()));
      d = m.median_s[0];
      keep = m.speedup[1].gain();
      // The pick's time as the decision saw it: the default's over the median per-round
      // speedup (the two medians of times can disagree with it on a noisy host, and a kept
      // pick then looked slower than its default).
      q = keep ? d / m.speedup[1].median : d;
    }
    out.default_s += t.weight * d;
    out.flops += t.weight * t.dag->flops();
    ++out.kernels;
    out.pick_s += t.weight * q;
    auto dr = default_of.find(t.workload_key);
    if (keep) {
      out.gains++;
      out.beaten.insert(t.workload_key);
      out.choice.push_back(it->second);
    } else if (dr != default_of.end()) {
      out.choice.push_back(*dr->second);
    }
  }
  return out;
}

// --cost-model bank: the model is trained first on the bank's records of other models
// (cost_prior.h); nullopt when it starts empty.
std::optional<CostPrior> startCostModel(autotune::XGBoostModel& model, const TuneArgs& a, const store::Bank& bank,
                                        const std::string& name, const schedule::TargetInfo& target,
                                        const schedule::Target& code, schedule::Baseline baseline) {
  if (a.cost_model != CostModelStart::Bank) return std::nullopt;
  if (!a.json && stderrIsTerminal()) std::cerr << "ttune: training the cost model on the bank's records...\n";
  SourceDags dags(bank, code, baseline);
  CostPrior prior = bankCostPrior(bank, name, target, dags);
  model.setPrior(prior.samples);
  return prior;
}

measure::MeasureOptions measureOptions(const schedule::TargetInfo& target, const schedule::Target& code,
                                       const std::optional<WorkersMeasurement>& remote) {
  measure::MeasureOptions mo;
  mo.threads = target.threads;
  mo.target = code;
  if (remote) mo.remote = remote->runner;
  return mo;
}

Json priorJson(const CostPrior& p) {
  return Json{{"samples", p.samples.size()}, {"groups", p.groups},   {"other_machine_groups", p.other_groups},
              {"records_read", p.records},   {"skipped", p.skipped}, {"seconds", p.seconds}};
}

}  // namespace

Json tuneModel(const TuneArgs& a) {
  if (a.threads > 0) runtime::ThreadPool::global().setNumThreads(a.threads);
  if (a.trials <= 0) fail("--trials must be positive");
  // --workers: compiled here, measured by the bank's workers of that target (cli/fleet.h).
  std::optional<WorkersMeasurement> remote;
  if (!a.workers.empty()) remote = workersMeasurement(a.db, a.workers, a.target);
  schedule::Target code = remote ? remote->code : resolveTargetOption(a.target, TargetUse::Measure);
  std::string name = modelName(a.src);
  // A model whose later shapes depend on run-time values: the kernels of the stages one run on
  // sample inputs compiles are tuned; the end-of-run check is then the kernels' side-by-side
  // re-timing (there is no one whole-model graph to time).
  graph::Graph g;
  bool staged = false;
  // (The staged stages' sample inputs: run's default --seed, not the search's seed, so `run --db`
  // compiles the stages whose kernels were tuned.)
  std::vector<graph::Kernel> kernels = modelKernels(a.src, code, &g, &staged);
  if (staged && remote)
    fail("model ", name, " runs in stages, so its kernels are tuned with measurements here, not by --workers");

  // Tasks: distinct kernels with a reduction (element-wise kernels keep the default schedule).
  std::vector<autotune::TuneTaskSpec> tasks;
  for (const graph::TunableKernel& t : graph::tunableKernels(kernels))
    tasks.push_back({t.kernel->workload_key, t.kernel->class_id, t.kernel->class_name, t.kernel->dag,
                     static_cast<double>(t.occurrences)});
  if (tasks.empty()) fail("model ", name, " has no kernel to tune");

  // Code for another machine is measured by a worker for it (measure/worker_command.h); an
  // emulated worker's run goes to a throw-away bank.
  ModelRunBank mrb =
      openModelRunBank(a.db, code, remote ? &*remote : nullptr, false, a.json, name, a.src.spec, kernels);
  store::Bank& bank = mrb.rb.bank;
  const schedule::TargetInfo& target = mrb.target;
  const std::string isa = schedule::isaName(code.isa);
  const schedule::Baseline baseline = baselineOf(a.src);
  const std::string defaults_name = schedule::baselineName(baseline);

  ResumePoint rp;
  if (!a.new_run) rp = findResume(bank, name, isa, defaults_name);
  std::string& run_id = rp.run_id;
  Json settings = tuneSettings(a, target, isa, defaults_name, remote.has_value());
  if (run_id.empty()) {
    auto r = bank.beginRun(store::RunKind::Tune, name, settings);
    if (!r.ok()) fail(r.error());
    run_id = *r;
  }
  LiveView view(a.verbose);

  const measure::MeasureOptions mo = measureOptions(target, code, remote);
  measure::Measurer measurer(mo, mrb.rb.worker);
  Timer wall;  // from here on everything counts as tuning time, the cost model's prior included
  autotune::XGBoostModel model;
  std::optional<CostPrior> prior = startCostModel(model, a, bank, name, target, code, baseline);
  autotune::TunerOptions topt = tunerOptions(a, code, baseline, target, name, rp);
  topt.elapsed_offset_s += wall.seconds();
  autotune::Tuner tuner(tasks, topt, model, measurer);
  preloadTuner(tuner, bank, a, name, target, rp);

  autotune::TunerProgress p = runSearch(tuner, bank, a, rp, view, wall);
  // The run's own records decide (not the rest of the bank). The searched times promise too much
  // (measurer.h, compareSideBySide): each pick that is not the default is re-timed side by side
  // with its default, kept only when faster beyond the spread, and the kernels' speedup is
  // reported from those times. Then (--refine) the picks are re-ranked inside the model, and the
  // whole model is checked against its defaults (transfer/model_check.h); the choice it keeps is
  // the run's, which `run --db` and `export` use. All of it counts as tuning time.
  store::RecordQuery rq;
  rq.run_id = run_id;
  std::vector<schedule::Record> run_recs = bank.records(rq);
  std::vector<schedule::Record> defaults = transfer::defaultRecords(run_recs);
  if (!a.json && stderrIsTerminal())
    std::cerr << "ttune: re-timing each kernel's pick side by side with its default...\n";
  Retimed retimed = retimePicks(tasks, run_recs, defaults, mo, mrb.rb.worker, code, baseline);
  std::vector<schedule::Record>& choice = retimed.choice;
  std::optional<transfer::RefineResult> refined;
  if (a.refine && !mrb.rb.foreign && !staged) {
    if (!a.json && stderrIsTerminal())
      std::cerr << "ttune: re-ranking each kernel's best schedules inside the model...\n";
    transfer::RefineOptions ro;
    ro.target = code;
    ro.baseline = baseline;
    std::vector<schedule::Record> cands;
    for (const schedule::Record& r : run_recs)
      if (r.provenance.source == "default" || retimed.beaten.count(r.workload_key)) cands.push_back(r);
    refined = transfer::refineInModel(g, cands, ro);
    choice = refined->chosen;
  }
  if (!a.json && stderrIsTerminal())
    std::cerr << "ttune: timing " << name << " with its defaults and with the tuned choice...\n";
  transfer::ModelCheckOptions co;
  co.target = code;
  co.baseline = baseline;
  // The whole model runs in this process: for another machine's code the kernels' side-by-side
  // re-timing above decides alone (its picks are kept), and the model's figures are the kernels'.
  transfer::ModelCheck check =
      mrb.rb.foreign || staged ? transfer::kernelLevelCheck(choice, retimed.default_s, retimed.pick_s, retimed.gains)
                               : transfer::checkModel(g, choice, defaults, co);
  Json result = transfer::choiceResult(check.chosen);
  result["check"] = transfer::checkJson(check);
  double wall_s = wall.seconds();
  Status st = bank.setRunResult(run_id, result);
  if (st.ok()) st = bank.updateRun(run_id, p.trials, rp.time_before + wall_s);
  if (st.ok()) st = bank.finishRun(run_id, store::RunStatus::Finished);
  if (!st.ok()) fail(st.error());

  double total = p.search_s + p.build_s + p.run_s;
  double flops = 0;
  // Without a whole-model time the figures are the re-timed kernels' (a short run may not have
  // measured every kernel).
  if (check.whole_model)
    for (const graph::Kernel& k : kernels) flops += k.dag->flops();
  else
    flops = retimed.flops;
  Json j{{"model", name},
         {"staged", staged},
         {"run_id", run_id},
         {"db", bank.path()},
         {"flops", flops},
         {"peak_gflops", measure::measurePeakGflops(code, target.threads)},
         {"untuned_ms", check.defaults_s * 1e3},
         {"tuned_ms", check.chosenSeconds() * 1e3},
         {"speedup", check.kept_picks ? check.speedup.median : 1.0},
         {"check", result["check"]},
         {"kernels_improved", check.kernels_changed},
         {"kernels_faster_alone", retimed.gains},
         {"trials", p.trials},
         {"tasks", tasks.size()},
         {"kernels_timed", retimed.kernels},
         {"wall_s", wall_s},
         {"search_share", total > 0 ? p.search_s / total : 0.0},
         {"compile_share", total > 0 ? p.build_s / total : 0.0},
         {"measure_share", total > 0 ? p.run_s / total : 0.0},
         {"trials_per_s", wall_s > 0 ? (p.trials - rp.done) / wall_s : 0.0},
         {"threads", target.threads},
         {"defaults", defaults_name},
         {"target", codegen::describe(code)},
         {"worker", mrb.rb.worker.describe()},
         {"emulated", mrb.rb.worker.emulated}};
  if (!mrb.rb.stored()) j["db"] = nullptr;
  // The speedup the kernels' isolated measurements promise (untuned over tuned latency, each
  // kernel weighted by its occurrences), next to what the whole model delivers: re-timed side by
  // side, and as the search measured it.
  if (std::isfinite(retimed.default_s) && std::isfinite(retimed.pick_s) && retimed.pick_s > 0)
    j["kernel_speedup"] = retimed.default_s / retimed.pick_s;
  if (std::isfinite(p.estimated_latency_s) && std::isfinite(p.untuned_latency_s) && p.estimated_latency_s > 0)
    j["kernel_speedup_searched"] = p.untuned_latency_s / p.estimated_latency_s;
  if (refined) j.update(transfer::refineJson(*refined));
  j["cost_model"] = spellingOf(kCostModelStarts, a.cost_model);
  if (prior) j["cost_model_prior"] = priorJson(*prior);
  return j;
}

namespace {

void printTune(const Json& j) {
  std::string name = j["model"];
  double wall_s = j["wall_s"], untuned_s = j["untuned_ms"].get<double>() * 1e-3,
         tuned_s = j["tuned_ms"].get<double>() * 1e-3;
  std::cout << name << ": " << j["trials"].get<int64_t>() << " trials over " << j["tasks"].get<int>() << " kernels in "
            << formatSeconds(wall_s) << " (" << strFormat("%.1f", j["trials_per_s"].get<double>()) << " trials/s), run "
            << j["run_id"].get<std::string>() << " in "
            << (j["db"].is_string() ? j["db"].get<std::string>() : std::string("a throw-away bank (emulated timings)"))
            << "\n";
  if (j.value("emulated", false))
    std::cout << "  worker   " << j["worker"].get<std::string>() << ": times below are emulated\n";
  if (j.contains("cost_model_prior")) {
    const Json& c = j["cost_model_prior"];
    std::cout << "  cost model started from " << c["samples"].get<size_t>() << " of the bank's schedules of "
              << c["groups"].get<size_t>() << " other kernels (" << formatSeconds(c["seconds"].get<double>())
              << ", counted in the tuning time)\n";
  } else {
    std::cout << "  cost model started empty (--cost-model scratch)\n";
  }
  if (j.value("staged", false))
    std::cout << "  model    runs in stages (shapes depend on run-time values): the side-by-side times of "
              << j["kernels_timed"].get<int>() << " of its stages' " << j["tasks"].get<int>() << " tunable kernels\n";
  else if (!j["check"].value("whole_model", true))
    std::cout << "  model    the side-by-side times of " << j["kernels_timed"].get<int>() << " of "
              << j["tasks"].get<int>() << " tunable kernels (the whole model runs on " << j["target"].get<std::string>()
              << " only)\n";
  std::cout << "  untuned  " << formatSeconds(untuned_s) << "  ("
            << throughputText(j["flops"].get<double>(), untuned_s, j["peak_gflops"].get<double>()) << ")\n  tuned    "
            << formatSeconds(tuned_s) << "  (" << transfer::checkVerdict(j["check"], j["tasks"].get<size_t>()) << ")\n";
  if (j.contains("kernel_speedup")) {
    double k = j["kernel_speedup"].get<double>();
    std::cout << strFormat(
        "  kernels  %.2fx faster in isolation (%d kernels faster beyond the spread side by side, "
        "occurrence-weighted",
        k, j["kernels_faster_alone"].get<int>());
    if (j.contains("kernel_speedup_searched"))
      std::cout << strFormat("; %.2fx as searched", j["kernel_speedup_searched"].get<double>());
    std::cout << ")";
    // The share of the gain that survives is only meaningful when there is a gain.
    if (k > 1.02 && j["check"]["picks_kept"].get<bool>())
      std::cout << strFormat(": the model keeps %.0f%% of the gain", 100 * (j["speedup"].get<double>() - 1) / (k - 1));
    std::cout << "\n";
  }
  std::cout << refineSummary(j);
  std::cout << strFormat("  time     %.0f%% measuring, %.0f%% compiling, %.0f%% searching, on %d threads\n",
                         100 * j["measure_share"].get<double>(), 100 * j["compile_share"].get<double>(),
                         100 * j["search_share"].get<double>(), j["threads"].get<int>());
}

void tune(const TuneArgs& a) {
  Json j = tuneModel(a);
  if (a.json) return printJson(j);
  printTune(j);
}

}  // namespace

void addTuneCommand(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("tune", "Auto-schedule a model's kernels (Ansor-style search); records go to the bank");
  auto a = std::make_shared<TuneArgs>();
  // The command refines by default (the run's choice is then what the model runs fastest with);
  // TuneArgs keeps false for callers that want the plain Ansor-style baseline (the experiment).
  a->refine = true;
  addSourceOptions(cmd, a->src);
  cmd->add_option("--trials", a->trials, "Measurement trials in total (a resumed run counts what it did)");
  cmd->add_option("--time-budget", a->time_budget_min, "Stop after this many minutes");
  cmd->add_option("--db", a->db, kBankOptionHelp);
  cmd->add_option("--seed", a->seed, "Seed of the search");
  cmd->add_option("--threads", a->threads, "Threads for kernels (default: all cores)");
  cmd->add_option("--measures-per-round", a->measures_per_round, "Candidates measured per round");
  cmd->add_option("--population", a->population, "Evolutionary search population");
  cmd->add_option("--early-stopping", a->early_stopping, "Stop a kernel after this many trials without improvement");
  cmd->add_flag("--new-run", a->new_run, "Start a new run instead of resuming an unfinished one");
  cmd->add_flag("--warm-start", a->warm_start,
                "Also seed the search with the bank's other records of these kernels (other runs and models)");
  cmd->add_option("--warm-start-run", a->warm_start_run,
                  "Seed the search with one run's records (e.g. a transfer run's)");
  cmd->add_flag("--refine,!--no-refine", a->refine,
                "Re-rank each kernel's best schedules inside the compiled model at the end, keeping the fastest whole "
                "model of the isolated picks, the in-model picks and the defaults (default: on)");
  a->cost_model = CostModelStart::Bank;
  addSpelledOption(cmd, "--cost-model", a->cost_model, kCostModelStarts,
                   "bank: train the cost model first on the bank's records of other models on this target "
                   "(default); scratch: start it empty, as Ansor does");
  cmd->add_flag("--json", a->json, "Print a JSON summary");
  cmd->add_flag("--progress", a->verbose, "Print progress lines also when stderr is not a terminal");
  addTargetOption(cmd, a->target);
  cmd->add_option("--workers", a->workers,
                  "Measure on the measurement workers of this target that take jobs from the bank (a PostgreSQL bank; "
                  "docs/fleet.md); code is compiled here for their CPU");
  cmd->callback([a] { tune(*a); });
}

}  // namespace ttune::cli
