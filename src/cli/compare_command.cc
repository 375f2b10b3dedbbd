// `ttune compare`: the transfer-tuning evaluation of one model from what the bank holds — the
// latest finished tuning run against the latest finished transfer run (study §5: speedups over
// untuned, the share of the full-tuning speedup transfer reaches, and how long the tuning run
// took to reach the transfer latency).
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>

#include "cli/bank_access.h"
#include "cli/cli.h"
#include "cli/latency.h"
#include "cli/model_loader.h"
#include "cli/output.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/strings.h"

namespace ttune::cli {

namespace {

struct CompareArgs {
  ModelSource src;
  std::string db, tune_run, transfer_run;
  int checkpoints = 10;
  int threads = 0;
  bool json = false;
};

std::optional<store::RunInfo> latestRun(const store::Bank& bank, store::RunKind kind, const std::string& model,
                                        const std::string& wanted) {
  std::optional<store::RunInfo> out;
  for (const store::RunInfo& r : bank.runs()) {
    if (!wanted.empty()) {
      if (r.run_id == wanted) out = r;
      continue;
    }
    if (r.kind == kind && r.model == model && r.status == store::RunStatus::Finished) out = r;
  }
  if (out && out->kind != kind) fail("run ", wanted, " in ", bank.path(), " is a ", store::runKindName(out->kind), " run");
  return out;
}

// The fastest ok record per workload among `records` (optionally only those found by `limit_s`).
std::vector<schedule::Record> bestPerWorkload(const std::vector<schedule::Record>& records, double limit_s = -1) {
  std::map<std::string, const schedule::Record*> best;
  for (const schedule::Record& r : records) {
    if (!r.result.ok() || (limit_s >= 0 && r.provenance.elapsed_s > limit_s)) continue;
    auto& b = best[r.workload_key];
    if (!b || r.result.median() < b->result.median()) b = &r;
  }
  std::vector<schedule::Record> out;
  for (auto& [k, r] : best) out.push_back(*r);
  return out;
}

// The transfer run's choice per workload: its fastest transferred schedule when that beat the
// default schedule measured in the same run.
std::vector<schedule::Record> transferChoice(const std::vector<schedule::Record>& records) {
  std::map<std::string, double> default_s;
  std::vector<schedule::Record> transferred;
  for (const schedule::Record& r : records) {
    if (r.provenance.source == "default") default_s[r.workload_key] = r.result.median();
    else transferred.push_back(r);
  }
  std::vector<schedule::Record> out;
  for (schedule::Record& r : bestPerWorkload(transferred)) {
    auto it = default_s.find(r.workload_key);
    if (it == default_s.end() || r.result.median() < it->second) out.push_back(std::move(r));
  }
  return out;
}

void compare(const CompareArgs& a) {
  if (a.threads > 0) runtime::ThreadPool::global().setNumThreads(a.threads);
  if (a.checkpoints < 1) fail("--checkpoints must be at least 1");
  graph::Graph g = loadModel(a.src);
  std::string name = modelName(a.src.spec);
  store::Bank bank = openBank(a.db);
  auto tune = latestRun(bank, store::RunKind::Tune, name, a.tune_run);
  auto tr = latestRun(bank, store::RunKind::Transfer, name, a.transfer_run);
  if (!tune) fail("the bank ", bank.path(), " has no finished tuning run of ", name, "; run `ttune tune ", a.src.spec, "` first");
  if (!tr) fail("the bank ", bank.path(), " has no finished transfer run of ", name, "; run `ttune transfer ", a.src.spec, "` first");

  store::RecordQuery q;
  q.run_id = tune->run_id;
  std::vector<schedule::Record> tune_recs = bank.records(q);
  q.run_id = tr->run_id;
  std::vector<schedule::Record> tr_recs = bank.records(q);
  double tune_time = 0, tr_time = tr->wall_s;
  for (const auto& r : tune_recs) tune_time = std::max(tune_time, r.provenance.elapsed_s);
  for (const auto& r : tr_recs) tr_time = std::max(tr_time, r.provenance.elapsed_s);

  auto options = [](const std::vector<schedule::Record>& recs) {
    executor::ModelOptions o;
    o.schedules = executor::recordsProvider(recs);
    return o;
  };
  auto latency = [&](const std::vector<schedule::Record>& recs) { return modelLatency(g, options(recs)); };
  // The three compared configurations are timed interleaved; the checkpoints only locate when
  // tuning matched the transferred latency.
  std::vector<double> lat =
      modelLatencies(g, {executor::ModelOptions{}, options(transferChoice(tr_recs)), options(bestPerWorkload(tune_recs))});
  double untuned = lat[0], transferred = lat[1], tuned = lat[2];

  // The tuning run's model latency at checkpoints of its elapsed time.
  Json cps = Json::array();
  std::optional<double> match_s;
  for (int c = 1; c <= a.checkpoints; ++c) {
    double t = tune_time * c / a.checkpoints;
    double l = c == a.checkpoints ? tuned : latency(bestPerWorkload(tune_recs, t));
    cps.push_back({{"elapsed_s", t}, {"latency_ms", l * 1e3}});
    if (!match_s && l <= transferred) match_s = t;
  }
  double s_tt = untuned / transferred, s_max = untuned / tuned;
  double share = s_max > 1 ? (s_tt - 1) / (s_max - 1) : 0;
  Json j{{"model", name},
         {"db", bank.path()},
         {"tune_run", tune->run_id},
         {"transfer_run", tr->run_id},
         {"untuned_ms", untuned * 1e3},
         {"transferred_ms", transferred * 1e3},
         {"tuned_ms", tuned * 1e3},
         {"speedup_transfer", s_tt},
         {"speedup_tuned", s_max},
         {"share_of_tuned_speedup", share},
         {"transfer_s", tr_time},
         {"tune_s", tune_time},
         {"tune_s_to_match_transfer", match_s ? Json(*match_s) : Json(nullptr)},
         {"checkpoints", cps}};
  if (a.json) return printJson(j);
  std::cout << name << " (bank " << bank.path() << ")\n";
  std::cout << "  untuned      " << formatSeconds(untuned) << "\n";
  std::cout << "  transferred  " << formatSeconds(transferred) << strFormat("  %.2fx", s_tt) << "  after "
            << formatSeconds(tr_time) << " of transfer-tuning (run " << tr->run_id << ")\n";
  std::cout << "  tuned        " << formatSeconds(tuned) << strFormat("  %.2fx", s_max) << "  after " << formatSeconds(tune_time)
            << " of tuning (run " << tune->run_id << ")\n";
  std::cout << strFormat("  transfer-tuning reached %.0f%% of the tuned speedup in %.0f%% of the tuning time\n", 100 * share,
                         tune_time > 0 ? 100 * tr_time / tune_time : 0.0);
  if (match_s)
    std::cout << "  tuning matched the transferred latency after " << formatSeconds(*match_s)
              << strFormat(" (%.1fx the transfer time)\n", *match_s / std::max(tr_time, 1e-9));
  else
    std::cout << "  tuning never matched the transferred latency\n";
}

}  // namespace

void addCompareCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "Compare a model's transfer-tuning run with its tuning run (speedups, time to match)");
  auto a = std::make_shared<CompareArgs>();
  addSourceOptions(cmd, a->src);
  cmd->add_option("--db", a->db, kBankOptionHelp);
  cmd->add_option("--tune-run", a->tune_run, "The tuning run (default: the model's latest finished one)");
  cmd->add_option("--transfer-run", a->transfer_run, "The transfer run (default: the model's latest finished one)");
  cmd->add_option("--checkpoints", a->checkpoints, "Points of the tuning run at which the model is timed (default 10)");
  cmd->add_option("--threads", a->threads, "Threads for kernels (default: all cores)");
  cmd->add_flag("--json", a->json, "Print JSON");
  cmd->callback([a] { compare(*a); });
}

}  // namespace ttune::cli
