#include "cli/bank_access.h"

#include <iostream>
#include <map>
#include <optional>

#include "cli/fleet.h"
#include "cli/interrupt.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "codegen/codegen.h"
#include "runtime/thread_pool.h"
#include "store/seed.h"
#include "support/error.h"
#include "support/log.h"
#include "support/timer.h"
#include "transfer/compare.h"
#include "transfer/model_check.h"
#include "transfer/refresh.h"

namespace ttune::cli {

store::Bank openBank(const std::string& path) {
  auto bank = store::openBank(path);
  if (!bank.ok()) fail(bank.error());
  return std::move(*bank);
}

RunBank openRunBank(const std::string& db, const schedule::Target& code, bool copy_records, bool quiet) {
  auto worker = measure::workerCommandFor(code);
  if (!worker.ok()) fail(worker.error());
  if (!worker->emulated) return RunBank{*worker, !codegen::runnable(code).ok(), nullptr, openBank(db)};
  if (!quiet)
    std::cerr << "ttune: " << code.name << " is measured by an emulated worker (" << worker->describe()
              << "): the run checks the flow and the code; its timings are not the device's and are not stored\n";
  auto scratch = std::make_unique<TempDir>("ttune-emulated-bank");
  const std::string records = scratch->path + "/records.jsonl";
  if (copy_records) {
    Status copied = openBank(db).exportJsonl(records, store::RecordQuery{});
    if (!copied.ok()) fail(copied.error());
  }
  store::Bank bank = openBank(scratch->path + "/bank.db");
  if (copy_records) {
    auto imported = bank.importJsonl(records);
    if (!imported.ok()) fail(imported.error());
  }
  return RunBank{*worker, true, std::move(scratch), std::move(bank)};
}

ModelRunBank openModelRunBank(const std::string& db, const schedule::Target& code, const WorkersMeasurement* remote,
                              bool copy_records, bool quiet, const std::string& name, const std::string& spec,
                              const std::vector<graph::Kernel>& kernels) {
  ModelRunBank m{
      remote ? RunBank{remote->command, true, nullptr, openBank(db)} : openRunBank(db, code, copy_records, quiet),
      currentTarget(code)};
  registerModel(m.rb.bank, name, spec, kernels);
  if (remote) remote->onDevice(m.target);
  return m;
}

schedule::TargetInfo currentTarget(const schedule::Target& code) {
  // Code this machine cannot run is measured on its device (or emulated): the record is the
  // target CPU's, never this machine's.
  const std::string& machine = codegen::runnable(code).ok() ? codegen::hostTarget().cpu : code.cpu;
  return schedule::targetInfo(code, machine, runtime::ThreadPool::global().numThreads());
}

void registerModel(store::Bank& bank, const std::string& name, const std::string& spec,
                   const std::vector<graph::Kernel>& kernels) {
  std::vector<store::ModelKernel> mk;
  std::map<std::string, size_t> pos;
  for (const graph::Kernel& k : kernels) {
    auto it = pos.find(k.workload_key);
    if (it != pos.end()) {
      mk[it->second].occurrences++;
      continue;
    }
    pos[k.workload_key] = mk.size();
    mk.push_back({store::workloadInfo(*k.dag, k.class_id, k.class_name), 1});
  }
  Status st = bank.addModel(name, spec, mk);
  if (!st.ok()) fail(st.error());
}

RefreshRun refreshHere(store::Bank& bank, const std::string& model, const graph::Graph& g,
                       const std::vector<graph::Kernel>& kernels, const schedule::Target& code, int candidates,
                       const Json& extra_settings, bool show, bool verbose, const WorkersMeasurement* remote) {
  schedule::TargetInfo here = currentTarget(code);
  if (remote) remote->onDevice(here);
  Json settings{
      {"candidates", candidates}, {"threads", here.threads}, {"isa", schedule::isaName(code.isa)}, {"cpu", here.cpu}};
  settings.update(extra_settings);
  auto run = bank.beginRun(store::RunKind::Refresh, model, settings);
  if (!run.ok()) fail(run.error());
  RefreshRun out;
  out.run_id = *run;
  transfer::RefreshOptions opt;
  opt.model = model;
  opt.run_id = *run;
  opt.target = here;
  opt.candidates = candidates;
  opt.measure.threads = here.threads;
  opt.measure.target = code;
  if (remote) {
    opt.measure.remote = remote->runner;
    opt.whole_model = false;
  }
  LiveView view(verbose);
  std::optional<InterruptGuard> guard(std::in_place);
  auto sink = [&](const std::vector<schedule::Record>& recs) {
    Status st = bank.addRecords(recs);
    if (!st.ok()) fail(st.error());
  };
  auto progress = [&](const transfer::TransferProgress& p) {
    (void)bank.updateRun(*run, p.measured, p.elapsed_s);
    if (show || verbose) showKernelPass(view, p.kernels_done, p.kernels_total, p.measured, p.elapsed_s, p.current);
    if (InterruptGuard::interrupted())
      throw Error("refresh of " + model + " interrupted; the bank's choice for it is unchanged");
  };
  Timer wall;
  try {
    out.outcome = transfer::refreshChoice(g, kernels, bank, opt, sink, progress, [&](const char* phase) {
      if (show) view.update(1, 1, wall.seconds(), phase);
    });
  } catch (const Error&) {
    guard.reset();
    (void)bank.finishRun(*run, store::RunStatus::Interrupted);
    throw;
  }
  guard.reset();
  view.finish();
  out.wall_s = wall.seconds();
  out.result = transfer::choiceResult(out.outcome.check.chosen);
  out.result["check"] = transfer::checkJson(out.outcome.check);
  Status st = bank.setRunResult(*run, out.result);
  if (st.ok()) st = bank.updateRun(*run, static_cast<int64_t>(out.outcome.refreshed.measured.size()), out.wall_s);
  if (st.ok()) st = bank.finishRun(*run, store::RunStatus::Finished);
  if (!st.ok()) fail(st.error());
  return out;
}

namespace {

// Validates the bank's records of `model` here and stores the outcome as this CPU's choice.
std::vector<schedule::Record> validateHere(store::Bank& bank, const std::string& model, const graph::Graph& g,
                                           const std::vector<graph::Kernel>& kernels, const schedule::Target& code,
                                           const BankUse& use) {
  schedule::TargetInfo here = currentTarget(code);
  registerModel(bank, model, use.spec.empty() ? model : use.spec, kernels);
  bool show = !use.quiet && stderrIsTerminal();
  if (show)
    std::cerr << "ttune: the bank's schedules for " << model
              << " were measured elsewhere or never checked in the whole model on this " << here.cpu << " ("
              << schedule::isaName(code.isa) << ", " << here.threads
              << " threads): validating them against the defaults once (--no-validate skips this)\n";
  RefreshRun r = refreshHere(bank, model, g, kernels, code, 2, {{"validation", true}}, show);
  std::string verdict = transfer::checkVerdict(r.result["check"], graph::tunableKernels(kernels).size());
  if (show)
    std::cerr << "ttune: validated in " << formatSeconds(r.wall_s) << " (run " << r.run_id << "): " << verdict << "\n";
  if (use.report) {
    *use.report = r.result["check"];
    (*use.report)["run_id"] = r.run_id;
    (*use.report)["wall_s"] = r.wall_s;
  }
  return r.outcome.check.chosen;
}

}  // namespace

executor::ScheduleProvider bankProvider(store::Bank& bank, const std::string& model, const graph::Graph& g,
                                        const schedule::Target& code, const BankUse& use) {
  if (use.report) *use.report = Json::object();
  schedule::TargetInfo here = currentTarget(code);
  if (std::optional<std::vector<schedule::Record>> own = transfer::inModelChoice(bank, model, here, use.baseline))
    return executor::recordsProvider(*own);
  std::vector<graph::Kernel> kernels = graph::partition(g);
  std::vector<std::string> keys;
  for (const graph::Kernel& k : kernels) keys.push_back(k.workload_key);
  std::map<std::string, schedule::Record> best = bank.bestRecordsFor(keys, here);
  if (best.empty()) return nullptr;  // nothing to validate: the defaults
  const bool strong = use.baseline == schedule::Baseline::Strong;
  if (strong && use.validate && codegen::runnable(code).ok())
    return executor::recordsProvider(validateHere(bank, model, g, kernels, code, use));
  if (strong && use.validate && !use.quiet)
    logWarning("the bank's schedules for ", model, " are used unvalidated: ", codegen::describe(code),
               " code cannot run on this machine");
  std::vector<schedule::Record> recs;
  for (auto& [k, r] : best) recs.push_back(r);
  return executor::recordsProvider(recs);
}

executor::ScheduleProvider scheduleOption(const std::string& records, const std::optional<std::string>& db,
                                          const std::string& model, const graph::Graph& g, const schedule::Target& code,
                                          const BankUse& use) {
  if (db) {
    if (!records.empty()) fail("--records and --db both give schedules; use one");
    // The provider reads the records now (recordsProvider keeps its own copy).
    store::Bank bank = openBank(*db);
    return bankProvider(bank, model, g, code, use);
  }
  if (use.report) *use.report = Json::object();
  if (records.empty()) return nullptr;
  auto recs = schedule::readRecordsFile(records);
  if (!recs.ok()) fail(recs.error());
  return executor::recordsProvider(*recs);
}

}  // namespace ttune::cli
