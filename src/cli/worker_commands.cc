// `ttune worker` (a measurement host taking jobs from the bank, cli/fleet.h) and `ttune db
// workers` (who is measuring). docs/fleet.md.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/bank_access.h"
#include "cli/cli.h"
#include "cli/fleet.h"
#include "cli/output.h"
#include "store/seed.h"
#include "support/error.h"
#include "support/strings.h"

namespace ttune::cli {

namespace {

void listWorkers(const std::string& db, bool json) {
  auto q = store::JobQueue::open(db.empty() ? store::defaultBankPath() : db);
  if (!q.ok()) fail(q.error());
  std::vector<store::WorkerInfo> ws = q->workers();
  if (json) {
    Json arr = Json::array();
    for (const store::WorkerInfo& w : ws)
      arr.push_back({{"worker", w.id},
                     {"target", w.target},
                     {"cpu", w.cpu},
                     {"isa", w.isa},
                     {"cores", w.cores},
                     {"threads", w.threads},
                     {"state", w.state},
                     {"heartbeat_age_s", w.heartbeat_age_s},
                     {"jobs_done", w.jobs_done},
                     {"simulated_latency_ms", w.latency_ms}});
    printJson({{"bank", q->bank()}, {"workers", arr}});
    return;
  }
  if (ws.empty()) {
    std::cout << "no measurement worker has announced itself in " << q->bank() << "\n";
    return;
  }
  for (const store::WorkerInfo& w : ws) {
    std::cout << w.id << "  target " << w.target << " (" << w.cpu << ", " << w.isa << ", " << w.cores << " cores, "
              << w.threads << " threads)  " << w.state << ", last heartbeat " << formatSeconds(w.heartbeat_age_s)
              << " ago, " << w.jobs_done << " jobs done";
    if (w.latency_ms > 0) std::cout << ", simulated latency " << w.latency_ms << " ms";
    std::cout << "\n";
  }
}

}  // namespace

void addDbWorkersCommand(CLI::App* db) {
  auto* cmd = db->add_subcommand(
      "workers", "List the measurement workers of a PostgreSQL bank: target, last heartbeat, jobs done");
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--db", *path, kBankOptionHelp);
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([=] { listWorkers(*path, *json); });
}

void addWorkerCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "worker",
      "Measure candidates for tuners on other hosts: take measurement jobs of a target from a PostgreSQL "
      "bank's queue until SIGINT or SIGTERM (docs/fleet.md)");
  auto a = std::make_shared<WorkerArgs>();
  cmd->add_option("--db", a->db, kBankOptionHelp);
  cmd->add_option("--target", a->target, "Label tuners ask for with --workers (default: this host's CPU name)");
  cmd->add_option("--threads", a->threads, "Threads for kernels (default: all cores)");
  cmd->add_option("--latency-ms", a->latency_ms,
                  "SIMULATION for benchmarks: add this many milliseconds of device latency to every measurement");
  cmd->add_option("--lease", a->lease_s, "Seconds a job stays this worker's without a heartbeat (default 30)");
  cmd->add_flag("--progress", a->verbose, "Print a line per job");
  cmd->callback([a] {
    int status = runWorker(*a);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

}  // namespace ttune::cli
