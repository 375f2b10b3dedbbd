// `ttune compare`: the transfer-tuning evaluation of one model from what the bank holds — a
// from-scratch tuning run against a transfer run, measured on this machine (transfer/compare.h:
// speedups over untuned, the share of the tuning speedup transfer reaches, the tuning time it took
// to match, all timed interleaved in one process).
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/bank_access.h"
#include "cli/cli.h"
#include "cli/model_loader.h"
#include "cli/output.h"
#include "cli/target_option.h"
#include "measure/speedup.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/strings.h"
#include "transfer/compare.h"

namespace ttune::cli {

namespace {

struct CompareArgs {
  ModelSource src;
  std::string db, tune_run, transfer_run, continued_run, target = "host";
  double step_s = 60;
  int max_checkpoints = 12;
  int threads = 0;
  bool json = false;
};

}  // namespace

Json comparisonJson(const std::string& model, const transfer::Comparison& c) {
  // `time_key`: the tuning run's elapsed time, or the transfer-then-tune curve's total search time.
  auto point = [](const transfer::Checkpoint& cp, const char* time_key) {
    return Json{{time_key, cp.elapsed_s},
                {"latency_ms", cp.latency_s * 1e3},
                {"speedup", cp.speedup},
                {"speedup_lo", cp.interval.lo},
                {"speedup_hi", cp.interval.hi}};
  };
  Json cps = Json::array();
  for (const auto& cp : c.checkpoints) cps.push_back(point(cp, "elapsed_s"));
  Json j{{"model", model},
         {"tune_run", c.tune_run},
         {"transfer_run", c.transfer_run},
         {"untuned_ms", c.untuned_s * 1e3},
         {"transferred_ms", c.transferred_s * 1e3},
         {"tuned_ms", c.tuned_s * 1e3},
         {"speedup_transfer", c.s_tt},
         {"speedup_tuned", c.s_max},
         {"share_of_tuned_speedup", c.share},
         {"transfer_s", c.transfer_s},
         {"tune_s", c.tune_s},
         {"checkpoint_step_s", c.step_s},
         {"tune_s_to_match_transfer", c.match_s ? Json(*c.match_s) : Json(nullptr)},
         {"time_to_match_ratio", c.match_s && c.transfer_s > 0 ? Json(*c.match_s / c.transfer_s) : Json(nullptr)},
         {"tune_speedup_at_transfer_time", c.tune_speedup_at_transfer_s},
         {"checkpoints", cps}};
  j.update(measure::speedupJson(c.tt, "transfer_"));
  j.update(measure::speedupJson(c.max, "tuned_"));
  // transfer/readout.h: no %max without a measurable tuning gain; the match time's bounds.
  j["measurable_gain"] = c.readout.measurable_gain;
  if (c.readout.share.rounds() > 0) {
    j["share_median"] = c.readout.share.median;
    j["share_lo"] = c.readout.share.lo;
    j["share_hi"] = c.readout.share.hi;
  }
  auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  j["tune_s_to_match_early"] = opt(c.readout.match_early_s);
  j["tune_s_to_match_late"] = opt(c.readout.match_late_s);
  if (!c.continued_run.empty()) {
    Json cont = Json::array();
    for (const auto& cp : c.continued) cont.push_back(point(cp, "search_s"));
    j["continued_run"] = c.continued_run;
    j["continued"] = cont;
    j["continued_speedup"] = c.continued.back().speedup;
    j["continued_speedup_lo"] = c.continued.back().interval.lo;
    j["continued_speedup_hi"] = c.continued.back().interval.hi;
    j["continued_search_s"] = c.continued.back().elapsed_s;
    j["continued_s_to_match_tuned"] = c.continued_match_max_s ? Json(*c.continued_match_max_s) : Json(nullptr);
  }
  return j;
}

namespace {

void compare(const CompareArgs& a) {
  if (a.threads > 0) runtime::ThreadPool::global().setNumThreads(a.threads);
  if (a.step_s <= 0) fail("--step must be positive");
  if (a.max_checkpoints < 1) fail("--max-checkpoints must be at least 1");
  transfer::CompareOptions o;
  o.target = resolveTargetOption(a.target, TargetUse::RunHere);
  graph::Graph g = loadModel(a.src, o.target);
  std::string name = modelName(a.src);
  store::Bank bank = openBank(a.db);
  o.baseline = baselineOf(a.src);
  o.tune_run = a.tune_run;
  o.transfer_run = a.transfer_run;
  o.continued_run = a.continued_run;
  o.step_s = a.step_s;
  o.max_checkpoints = a.max_checkpoints;
  if (!a.json && stderrIsTerminal())
    std::cerr << "ttune: timing " << name << " untuned, transferred and tuning checkpoints...\n";
  auto c = transfer::compareRuns(g, name, bank, o);
  if (!c.ok()) fail(c.error());
  Json j = comparisonJson(name, *c);
  j["db"] = bank.path();
  j["target"] = codegen::describe(o.target);
  j["defaults"] = schedule::baselineName(o.baseline);
  if (a.json) return printJson(j);
  std::cout << name << " (bank " << bank.path() << ", " << codegen::describe(o.target) << ")\n";
  std::cout << "  untuned      " << formatSeconds(c->untuned_s) << "\n";
  std::cout << "  transferred  " << formatSeconds(c->transferred_s) << "  " << measure::formatSpeedup(c->tt)
            << "  after " << formatSeconds(c->transfer_s) << " of transfer-tuning (run " << c->transfer_run << ")\n";
  std::cout << "  tuned        " << formatSeconds(c->tuned_s) << "  " << measure::formatSpeedup(c->max) << "  after "
            << formatSeconds(c->tune_s) << " of tuning (run " << c->tune_run << ")\n";
  if (!c->readout.measurable_gain)
    std::cout << "  tuning shows no measurable gain (its speedup's interval contains 1): no share of it to reach\n";
  else
    std::cout << strFormat(
        "  transfer-tuning reached %.0f%% (%.0f-%.0f%%) of the tuned speedup in %.0f%% of the tuning time\n",
        100 * c->readout.share.median, 100 * c->readout.share.lo, 100 * c->readout.share.hi,
        c->tune_s > 0 ? 100 * c->transfer_s / c->tune_s : 0.0);
  std::cout << strFormat("  in the same search time (%s) tuning reached %.2fx\n", formatSeconds(c->transfer_s).c_str(),
                         c->tune_speedup_at_transfer_s);
  if (c->match_s)
    std::cout << "  tuning matched the transferred speedup after " << formatSeconds(*c->match_s)
              << strFormat(" (%.1fx the transfer time; between %s and %s within the intervals; checkpoints every %s)\n",
                           *c->match_s / std::max(c->transfer_s, 1e-9),
                           c->readout.match_early_s ? formatSeconds(*c->readout.match_early_s).c_str() : "-",
                           c->readout.match_late_s ? formatSeconds(*c->readout.match_late_s).c_str() : "after the run",
                           formatSeconds(c->step_s).c_str());
  else
    std::cout << "  tuning never matched the transferred speedup\n";
  std::cout << "  checkpoints (tuning time: speedup)";
  for (const auto& cp : c->checkpoints)
    std::cout << strFormat("  %s: %.2fx", formatSeconds(cp.elapsed_s).c_str(), cp.speedup);
  std::cout << "\n";
  if (!c->continued.empty()) {
    std::cout << "  transfer, then tune (run " << c->continued_run << "; search time: speedup)";
    for (const auto& cp : c->continued)
      std::cout << strFormat("  %s: %.2fx", formatSeconds(cp.elapsed_s).c_str(), cp.speedup);
    std::cout << "\n";
    if (c->continued_match_max_s)
      std::cout << "  it reached the tuned speedup after " << formatSeconds(*c->continued_match_max_s)
                << strFormat(" of search (%.0f%% of the tuning time)\n",
                             100 * *c->continued_match_max_s / std::max(c->tune_s, 1e-9));
    else
      std::cout << "  it did not reach the tuned speedup\n";
  }
}

}  // namespace

void addCompareCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare",
                                 "Compare a model's transfer-tuning run with its tuning run (speedups, time to match)");
  auto a = std::make_shared<CompareArgs>();
  addSourceOptions(cmd, a->src);
  cmd->add_option("--db", a->db, kBankOptionHelp);
  cmd->add_option("--tune-run", a->tune_run,
                  "The tuning run (default: the model's latest finished, from-scratch one measured here)");
  cmd->add_option("--transfer-run", a->transfer_run,
                  "The transfer run (default: the model's latest finished one measured here)");
  cmd->add_option("--continued-run", a->continued_run,
                  "A tuning run warm-started from the transfer run (tune --warm-start-run): also time its curve");
  cmd->add_option("--step", a->step_s,
                  "Seconds between checkpoints of the tuning run after the transfer time (default 60)");
  cmd->add_option("--max-checkpoints", a->max_checkpoints,
                  "At most this many checkpoints (the step widens; default 12)");
  cmd->add_option("--threads", a->threads, "Threads for kernels (default: all cores)");
  addTargetOption(cmd, a->target);
  cmd->add_flag("--json", a->json, "Print JSON");
  cmd->callback([a] { compare(*a); });
}

}  // namespace ttune::cli
