// `ttune db refresh MODEL`: re-measure the bank's schedules of a model against today's default
// schedules on this host (transfer/refresh.h), re-rank them inside the compiled model
// (transfer/refine.h) and store the choice as a refresh run, which `ttune run --db` then uses.
// With --workers the bank's workers measure them and each kernel decides alone.
#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>

#include "cli/bank_access.h"
#include "cli/cli.h"
#include "cli/fleet.h"
#include "cli/model_loader.h"
#include "cli/output.h"
#include "cli/target_option.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/strings.h"
#include "transfer/compare.h"
#include "transfer/model_check.h"
#include "transfer/refine.h"
#include "transfer/refresh.h"

namespace ttune::cli {

namespace {

struct RefreshArgs {
  ModelSource src;
  std::string db, target = "host";
  std::string workers;  // measure on the bank's workers of this target (cli/fleet.h)
  int threads = 0, candidates = 2;
  bool json = false, verbose = false;
};

Json refreshModel(const RefreshArgs& a) {
  if (a.threads > 0) runtime::ThreadPool::global().setNumThreads(a.threads);
  if (a.candidates < 1) fail("--candidates must be at least 1");
  // --workers: compiled here, measured by the bank's workers of that target; the kernels decide
  // alone, as in `tune --workers` (the whole model runs only here).
  std::optional<WorkersMeasurement> remote;
  if (!a.workers.empty()) remote = workersMeasurement(a.db, a.workers, a.target);
  schedule::Target code = remote ? remote->code : resolveTargetOption(a.target, TargetUse::RunHere);
  if (baselineOf(a.src) != schedule::Baseline::Strong)
    fail(
        "db refresh measures the bank's schedules against the strong default schedules users run; drop --defaults "
        "basic");
  graph::Graph g = loadModel(a.src, code);
  std::string name = modelName(a.src);
  std::vector<graph::Kernel> kernels = graph::partition(g);
  if (graph::tunableKernels(kernels).empty()) fail("model ", name, " has no kernel to tune");
  store::Bank bank = openBank(a.db);
  registerModel(bank, name, a.src.spec, kernels);
  schedule::TargetInfo target = currentTarget(code);
  if (remote) remote->onDevice(target);
  RefreshRun run =
      refreshHere(bank, name, g, kernels, code, a.candidates, remote ? Json{{"workers", a.workers}} : Json::object(),
                  !a.json && stderrIsTerminal(), a.verbose, remote ? &*remote : nullptr);
  const transfer::RefreshOutcome& out = run.outcome;
  const transfer::RefreshResult& res = out.refreshed;
  const Json& result = run.result;

  std::map<std::string, const schedule::Record*> chosen;
  for (const schedule::Record& r : out.check.chosen) chosen[r.workload_key] = &r;
  int with_bank = 0, kept = 0;
  Json kj = Json::array();
  for (const transfer::RefreshedKernel& k : res.kernels) {
    auto c = chosen.find(k.workload_key);
    bool bank_kept = c != chosen.end() && c->second->provenance.source != "default";
    with_bank += k.candidates > 0;
    kept += bank_kept;
    Json e{{"workload_key", k.workload_key},
           {"class", k.class_name},
           {"occurrences", k.occurrences},
           {"bank_schedules", k.candidates},
           {"kept", bank_kept ? "bank" : "default"}};
    e["default_ms"] = std::isfinite(k.default_s) ? Json(k.default_s * 1e3) : Json(nullptr);
    if (k.best) {
      e["bank_ms"] = k.best->result.median() * 1e3;
      e["bank_stored_ms"] = k.stored_s * 1e3;
      e.update(measure::speedupJson(k.speedup, "bank_"));
    }
    kj.push_back(e);
  }
  Json j{{"model", name},
         {"run_id", run.run_id},
         {"db", bank.path()},
         {"kernels", kj},
         {"measured", static_cast<int64_t>(res.measured.size())},
         {"kernels_with_bank_schedules", with_bank},
         {"kernels_keeping_bank_schedules", kept},
         {"defaults_ms", out.check.defaults_s * 1e3},
         {"refreshed_ms", out.check.chosenSeconds() * 1e3},
         {"speedup", out.check.kept_picks ? out.check.speedup.median : 1.0},
         {"check", result["check"]},
         {"wall_s", res.wall_s},
         {"threads", target.threads}};
  j.update(transfer::refineJson(out.refined));
  return j;
}

void printRefresh(const Json& j) {
  std::cout << j["model"].get<std::string>() << ": re-measured the bank's schedules of " << j["kernels"].size()
            << " kernels in " << j["db"].get<std::string>() << " against today's defaults in "
            << formatSeconds(j["wall_s"].get<double>()) << " (" << j["measured"].get<int64_t>() << " schedules, run "
            << j["run_id"].get<std::string>() << ")\n";
  std::cout << strFormat("  %-44s %4s %10s %10s %10s %-35s  %s\n", "kernel class", "x", "default", "bank now",
                         "bank was", "side by side (rounds)", "kept");
  for (const Json& k : j["kernels"]) {
    std::string cls = ellipsize(k["class"].get<std::string>(), 44);
    std::string def = k["default_ms"].is_null() ? "failed" : formatSeconds(k["default_ms"].get<double>() * 1e-3);
    bool has = k.contains("bank_ms");
    std::string now =
        has ? formatSeconds(k["bank_ms"].get<double>() * 1e-3) : (k["bank_schedules"].get<int>() ? "failed" : "none");
    std::string was = has ? formatSeconds(k["bank_stored_ms"].get<double>() * 1e-3) : "-";
    std::string ratio = has ? measure::formatSpeedup(measure::speedupFromJson(k, "bank_")) : "-";
    std::cout << strFormat("  %-44s %4d %10s %10s %10s %-35s  %s\n", cls.c_str(), k["occurrences"].get<int>(),
                           def.c_str(), now.c_str(), was.c_str(), ratio.c_str(), k["kept"].get<std::string>().c_str());
  }
  std::cout << refineSummary(j);
  const Json& c = j["check"];
  std::cout << "  defaults   " << formatSeconds(c["untuned_ms"].get<double>() * 1e-3) << "\n  refreshed  "
            << formatSeconds(c["chosen_ms"].get<double>() * 1e-3) << "  ("
            << transfer::checkVerdict(c, j["kernels"].size())
            << strFormat("; %d of %d kernels with bank schedules keep one)\n",
                         j["kernels_keeping_bank_schedules"].get<int>(), j["kernels_with_bank_schedules"].get<int>());
}

}  // namespace

void addDbRefreshCommand(CLI::App* db) {
  auto* cmd = db->add_subcommand(
      "refresh",
      "Re-measure the bank's schedules of a model against today's default schedules on this host and keep, "
      "per kernel, what the model runs fastest with (after upgrading ttune or importing records)");
  auto a = std::make_shared<RefreshArgs>();
  addSourceOptions(cmd, a->src);
  cmd->add_option("--db", a->db, kBankOptionHelp);
  cmd->add_option("--candidates", a->candidates,
                  "The bank's best distinct schedules per kernel to re-measure (default 2)");
  cmd->add_option("--threads", a->threads, "Threads for kernels (default: all cores)");
  cmd->add_flag("--json", a->json, "Print a JSON summary");
  cmd->add_flag("--progress", a->verbose, "Print progress lines also when stderr is not a terminal");
  addTargetOption(cmd, a->target);
  cmd->add_option("--workers", a->workers,
                  "Measure on the measurement workers of this target that take jobs from the bank (a PostgreSQL bank; "
                  "docs/fleet.md); each kernel then keeps the bank's schedule only when it beat its default side by "
                  "side there");
  cmd->callback([a] {
    Json j = refreshModel(*a);
    if (a->json) return printJson(j);
    printRefresh(j);
  });
}

}  // namespace ttune::cli
