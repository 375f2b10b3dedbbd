// `ttune transfer`: transfer-tune a model from the schedule bank (transfer/transfer.h), and
// `ttune sources`: which models in the bank could serve as sources for a model.
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "cli/bank_access.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/enum_option.h"
#include "cli/fleet.h"
#include "cli/interrupt.h"
#include "cli/model_loader.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/source_dags.h"
#include "cli/target_option.h"
#include "codegen/target.h"
#include "executor/executor.h"
#include "executor/latency.h"
#include "measure/peak.h"
#include "measure/worker_command.h"
#include "runtime/thread_pool.h"
#include "store/bank.h"
#include "support/error.h"
#include "support/log.h"
#include "support/strings.h"
#include "support/temp_dir.h"
#include "support/timer.h"
#include "transfer/compare.h"
#include "transfer/model_check.h"
#include "transfer/nearest.h"
#include "transfer/refine.h"
#include "transfer/transfer.h"

namespace ttune::cli {

namespace {

// The spellings of --sources, --rank and --adapt (and of the run settings and JSON that record them).
constexpr Spelling<transfer::SourceMode> kSourceModes[] = {{transfer::SourceMode::Pool, "pool"},
                                                           {transfer::SourceMode::Auto, "auto"}};
constexpr Spelling<transfer::Rank> kRanks[] = {{transfer::Rank::CostModel, "model"}, {transfer::Rank::Prior, "prior"}};
constexpr Spelling<transfer::Adapt> kAdapts[] = {
    {transfer::Adapt::Verbatim, "verbatim"}, {transfer::Adapt::Adapted, "adapted"}, {transfer::Adapt::Both, "both"}};

// The value `name` spells, else fails with "OPTION must be A, B or C, not 'name'".
template <class E, size_t N>
E parseSpelling(const Spelling<E> (&table)[N], const std::string& name, const char* option) {
  if (std::optional<E> v = spelledValue(table, name)) return *v;
  std::string names;
  for (size_t i = 0; i < N; ++i) names += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + table[i].name;
  fail(option, " must be ", names, ", not '", name, "'");
}

Json kernelJson(const transfer::KernelOutcome& k) {
  Json j{{"workload_key", k.workload_key},
         {"class", k.class_name},
         {"occurrences", k.occurrences},
         {"flops", k.flops},
         {"candidates", k.candidates},
         {"measured", k.measured},
         {"failed", k.failed},
         {"improved", k.improved()},
         {"other_isa_candidates", k.other_isa}};
  j["default_ms"] = std::isfinite(k.default_s) ? Json(k.default_s * 1e3) : Json(nullptr);
  if (k.best) {
    j["transferred_ms"] = k.best->result.median() * 1e3;
    j["source"] = k.best_source;
  }
  if (k.retimed.rounds() > 0) {
    j["retimed_default_ms"] = k.retimed_default_s * 1e3;
    j["retimed_transferred_ms"] = k.retimed_best_s * 1e3;
    j.update(measure::speedupJson(k.retimed, "retimed_"));
  }
  if (!k.nearest_class.empty()) j["nearest_class"] = k.nearest_class;
  return j;
}

// Fails unless the bank holds schedules of other models for some kernel class of the model (or,
// with nearest classes, of a nearby class); an evaluation (allow_no_source) records the transfer
// that found nothing instead: S_tt is then 1.
void requireSources(const TransferArgs& a, const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                    const std::string& name, schedule::Baseline baseline) {
  std::vector<transfer::SourceCoverage> cover = transfer::rankSources(kernels, bank, name, baseline);
  bool any_neighbour = false;
  if (cover.empty() && a.nearest_classes) {
    std::map<std::string, std::string> classes = bank.recordClasses();
    for (const graph::TunableKernel& t : graph::tunableKernels(kernels))
      any_neighbour = any_neighbour || !transfer::nearestClasses(t.kernel->class_name, classes).empty();
  }
  if (cover.empty() && !any_neighbour && !a.allow_no_source)
    fail("the bank ", bank.path(), " holds no schedules of other models for the kernel classes of ", name,
         baseline == schedule::Baseline::Basic
             ? " tuned against the basic defaults; tune another model with --defaults basic first"
             : "; tune another model first (ttune tune MODEL) or import records (ttune db import FILE)");
}

transfer::TransferOptions transferOptions(const TransferArgs& a, const std::string& name, const std::string& run_id,
                                          const schedule::TargetInfo& target, const schedule::Target& code,
                                          schedule::Baseline baseline, const std::optional<WorkersMeasurement>& remote,
                                          SourceDags& dags) {
  transfer::TransferOptions opt;
  opt.sources = a.from;
  opt.source_mode = a.sources;
  opt.budget = a.budget;
  opt.adapt = a.adapt;
  opt.top_k = a.top_k;
  opt.rank = a.rank;
  opt.nearest_classes = a.nearest_classes;
  opt.model = name;
  opt.run_id = run_id;
  opt.target = target;
  opt.baseline = baseline;
  opt.measure.threads = target.threads;
  opt.measure.target = code;
  if (remote) opt.measure.remote = remote->runner;
  opt.source_dag = [&dags](const std::string& key) { return dags(key); };
  return opt;
}

// Runs the transfer, storing records as they are measured (and collecting them in `measured`);
// an interrupt leaves the run marked interrupted with what was measured so far.
transfer::TransferResult runTransfer(const std::vector<graph::Kernel>& kernels, store::Bank& bank,
                                     const transfer::TransferOptions& opt, const std::string& run_id,
                                     const TransferArgs& a, std::vector<schedule::Record>& measured) {
  LiveView view(a.verbose);
  std::optional<InterruptGuard> guard(std::in_place);
  auto sink = [&](const std::vector<schedule::Record>& recs) {
    Status st = bank.addRecords(recs);
    if (!st.ok()) fail(st.error());
    measured.insert(measured.end(), recs.begin(), recs.end());
  };
  int64_t trials = 0;
  auto progress = [&](const transfer::TransferProgress& p) {
    trials = p.measured;
    (void)bank.updateRun(run_id, p.measured, p.elapsed_s);
    if (!a.json) showKernelPass(view, p.kernels_done, p.kernels_total, p.measured, p.elapsed_s, p.current);
    if (InterruptGuard::interrupted())
      throw Error("transfer-tuning interrupted; the schedules measured so far are in the bank");
  };
  transfer::TransferResult res;
  try {
    res = transfer::transferTune(kernels, bank, opt, sink, progress);
  } catch (const Error&) {
    guard.reset();
    (void)bank.updateRun(run_id, trials, 0);
    (void)bank.finishRun(run_id, store::RunStatus::Interrupted);
    throw;
  }
  guard.reset();
  view.finish();
  return res;
}

// For code this process cannot run, or a staged model: the kernels' side-by-side re-timing decides
// alone (a kept pick at its re-timed speed, every other kernel at its default's).
transfer::ModelCheck kernelCheck(const transfer::TransferResult& res, const std::vector<schedule::Record>& choice) {
  double def_s = 0, pick_s = 0;
  int changed = 0;
  for (const auto& k : res.kernels) {
    const bool kept = k.improved();
    def_s += k.occurrences * (kept ? k.retimed_default_s : k.default_s);
    pick_s += k.occurrences * (kept ? k.retimed_best_s : k.default_s);
    changed += kept;
  }
  return transfer::kernelLevelCheck(choice, def_s, pick_s, changed);
}

// The kernels' outcomes, each with what the check kept: "transferred" or "default".
Json keptKernelsJson(const transfer::TransferResult& res, const transfer::ModelCheck& check) {
  std::map<std::string, const schedule::Record*> kept;
  for (const schedule::Record& r : check.chosen) kept[r.workload_key] = &r;
  Json kj = Json::array();
  for (const auto& k : res.kernels) {
    Json e = kernelJson(k);
    auto it = kept.find(k.workload_key);
    e["kept"] = it != kept.end() && it->second->provenance.source != "default" ? "transferred" : "default";
    kj.push_back(e);
  }
  return kj;
}

// The work the reported times cover: the whole model's, or without a whole-model time the
// transferred kernels' only.
double reportedFlops(const transfer::ModelCheck& check, const std::vector<graph::Kernel>& kernels,
                     const transfer::TransferResult& res) {
  double flops = 0;
  if (check.whole_model) {
    for (const graph::Kernel& k : kernels) flops += k.dag->flops();
  } else {
    std::map<std::string, double> kernel_flops;
    for (const graph::Kernel& k : kernels) kernel_flops[k.workload_key] = k.dag->flops();
    for (const auto& k : res.kernels) flops += k.occurrences * kernel_flops[k.workload_key];
  }
  return flops;
}

}  // namespace

Json transferModel(const TransferArgs& a) {
  if (a.threads > 0) runtime::ThreadPool::global().setNumThreads(a.threads);
  if (a.top_k < 0) fail("--top-k must not be negative");
  if (a.budget < 0) fail("--budget must not be negative");
  // --workers: compiled here, measured by the bank's workers of that target (cli/fleet.h).
  std::optional<WorkersMeasurement> remote;
  if (!a.workers.empty()) remote = workersMeasurement(a.db, a.workers, a.target);
  schedule::Target code = remote ? remote->code : resolveTargetOption(a.target, TargetUse::Measure);
  std::string name = modelName(a.src);
  // A model that runs in stages: the kernels of one run's stages, checked at the kernel level.
  graph::Graph g;
  bool staged = false;
  std::vector<graph::Kernel> kernels = modelKernels(a.src, code, &g, &staged);
  if (staged && remote)
    fail("model ", name, " runs in stages, so its kernels are transfer-tuned with measurements here, not by --workers");
  if (graph::tunableKernels(kernels).empty()) fail("model ", name, " has no kernel to tune");

  // As in `tune`: another machine's code is measured by a worker for it, and an emulated run
  // goes to a throw-away copy of the bank (its records are the candidates).
  ModelRunBank mrb = openModelRunBank(a.db, code, remote ? &*remote : nullptr, true, a.json, name, a.src.spec, kernels);
  store::Bank& bank = mrb.rb.bank;
  const schedule::TargetInfo& target = mrb.target;
  std::set<std::string> known = bank.recordModels();
  for (const std::string& m : bank.models()) known.insert(m);
  for (const std::string& m : a.from)
    if (!known.count(m)) fail("--from: the bank ", bank.path(), " has no model named ", m, " (see `ttune db models`)");
  const schedule::Baseline baseline = baselineOf(a.src);
  // Finding which sources cover the model reads the bank: it counts as search time, like the rest.
  Timer sources_timer;
  requireSources(a, kernels, bank, name, baseline);

  Json settings{{"sources", a.from},
                {"source_mode", spellingOf(kSourceModes, a.sources)},
                {"top_k", a.top_k},
                {"rank", spellingOf(kRanks, a.rank)},
                {"budget", a.budget},
                {"refine", a.refine},
                {"adapt", spellingOf(kAdapts, a.adapt)},
                {"threads", target.threads},
                {"nearest_classes", a.nearest_classes},
                {"isa", schedule::isaName(code.isa)},
                {"cpu", target.cpu},
                {"label", a.label},
                {"defaults", schedule::baselineName(baseline)}};
  if (remote) settings["workers"] = a.workers;
  const double sources_s = sources_timer.seconds();
  auto run = bank.beginRun(store::RunKind::Transfer, name, settings);
  if (!run.ok()) fail(run.error());

  SourceDags dags(bank, code, baseline);
  transfer::TransferOptions opt = transferOptions(a, name, *run, target, code, baseline, remote, dags);
  std::vector<schedule::Record> measured;
  transfer::TransferResult res = runTransfer(kernels, bank, opt, *run, a, measured);
  // In-model refinement and the whole-model check are part of the method: their time counts as
  // search time. Every mode ends with the check: the transferred choice is kept only when the
  // whole model is faster than with its defaults beyond the spread (transfer/model_check.h).
  Timer rt;
  std::vector<schedule::Record> choice = transfer::chosenRecords(res);
  transfer::RefineResult refined;
  const bool refine = a.refine && !mrb.rb.foreign && !staged;
  if (refine) {
    if (!a.json && stderrIsTerminal())
      std::cerr << "ttune: re-ranking each kernel's best candidates inside the model...\n";
    transfer::RefineOptions ro;
    ro.target = code;
    ro.baseline = baseline;
    // Only candidates that beat their default side by side compete in the model.
    std::set<std::string> improved_keys;
    for (const auto& k : res.kernels)
      if (k.improved()) improved_keys.insert(k.workload_key);
    std::vector<schedule::Record> cands;
    for (const schedule::Record& r : measured)
      if (r.provenance.source == "default" || improved_keys.count(r.workload_key)) cands.push_back(r);
    refined = transfer::refineInModel(g, cands, ro);
    choice = refined.chosen;
  }
  if (!a.json && stderrIsTerminal())
    std::cerr << "ttune: timing " << name << " with its defaults and with the transferred choice...\n";
  transfer::ModelCheckOptions co;
  co.target = code;
  co.baseline = baseline;
  co.cache = res.compiled;
  transfer::ModelCheck check = mrb.rb.foreign || staged
                                   ? kernelCheck(res, choice)
                                   : transfer::checkModel(g, choice, transfer::defaultRecords(measured), co);
  res.search_s += sources_s + rt.seconds();
  Json result = transfer::choiceResult(check.chosen);
  result["check"] = transfer::checkJson(check);
  Status st = bank.setRunResult(*run, result);
  if (st.ok()) st = bank.updateRun(*run, res.measured, res.search_s);
  if (st.ok()) st = bank.finishRun(*run, store::RunStatus::Finished);
  if (!st.ok()) fail(st.error());

  Json j{{"model", name},
         {"staged", staged},
         {"run_id", *run},
         {"db", bank.path()},
         {"flops", reportedFlops(check, kernels, res)},
         {"peak_gflops", measure::measurePeakGflops(code, target.threads)},
         {"untuned_ms", check.defaults_s * 1e3},
         {"transferred_ms", check.chosenSeconds() * 1e3},
         // What the user gets: the picks' speedup when kept, else the defaults' 1 (check: the picks').
         {"speedup", check.kept_picks ? check.speedup.median : 1.0},
         {"check", result["check"]},
         {"search_s", res.search_s},
         {"measured", res.measured},
         {"kernels_improved", check.kernels_changed},
         {"threads", target.threads},
         {"defaults", schedule::baselineName(baseline)},
         {"sources", res.sources},
         {"source_mode", spellingOf(kSourceModes, a.sources)},
         {"kernels", keptKernelsJson(res, check)}};
  if (a.sources == transfer::SourceMode::Auto) {
    Json sc = Json::array();
    for (const auto& [m, share] : res.source_scores) sc.push_back({{"model", m}, {"untuned_time_covered", share}});
    j["source_scores"] = sc;
  }
  if (refine) j.update(transfer::refineJson(refined));
  j["target"] = codegen::describe(code);
  j["worker"] = mrb.rb.worker.describe();
  j["emulated"] = mrb.rb.worker.emulated;
  if (!mrb.rb.stored()) j["db"] = nullptr;
  return j;
}

namespace {

void printTransfer(const Json& j) {
  std::cout << j["model"].get<std::string>() << ": transfer-tuned " << j["kernels"].size() << " kernels from the bank "
            << (j["db"].is_string() ? j["db"].get<std::string>() : std::string("(a throw-away copy: emulated timings)"))
            << " in " << formatSeconds(j["search_s"].get<double>()) << " (" << j["measured"].get<int64_t>()
            << " schedules measured, run " << j["run_id"].get<std::string>() << ")\n";
  std::cout << "  sources: ";
  for (size_t i = 0; i < j["sources"].size(); ++i) std::cout << (i ? ", " : "") << j["sources"][i].get<std::string>();
  std::cout << (j["source_mode"] == "auto" ? " (auto: the one covering the most untuned time)\n" : "\n");
  std::cout << strFormat("  %-44s %4s %10s %12s %-35s  %s\n", "kernel class", "x", "default", "transferred",
                         "side by side (rounds)", "kept");
  for (const Json& k : j["kernels"]) {
    std::string cls = ellipsize(k["class"].get<std::string>(), 44);
    bool retimed = k.contains("retimed_rounds");
    double def_ms = retimed                     ? k["retimed_default_ms"].get<double>()
                    : k["default_ms"].is_null() ? -1
                                                : k["default_ms"].get<double>();
    std::string def = def_ms < 0 ? "failed" : formatSeconds(def_ms * 1e-3);
    std::string tr = retimed                        ? formatSeconds(k["retimed_transferred_ms"].get<double>() * 1e-3)
                     : k.contains("transferred_ms") ? formatSeconds(k["transferred_ms"].get<double>() * 1e-3)
                     : k["candidates"].get<int>()   ? "none worked"
                                                    : "no source";
    std::string gain = retimed ? measure::formatSpeedup(measure::speedupFromJson(k, "retimed_")) : "-";
    std::string kept = k["kept"] == "transferred"  ? k["source"].get<std::string>()
                       : k["improved"].get<bool>() ? "default (the model was not faster)"
                       : retimed && measure::speedupFromJson(k, "retimed_").hi < 1 ? "default (slower side by side)"
                       : retimed                                                   ? "default (inside the spread)"
                                                                                   : "default";
    std::cout << strFormat("  %-44s %4d %10s %12s %-35s  %s\n", cls.c_str(), k["occurrences"].get<int>(), def.c_str(),
                           tr.c_str(), gain.c_str(), kept.c_str());
    if (k.contains("nearest_class") && k["candidates"].get<int>() > 0)
      std::cout << strFormat("  %-44s %4s   (candidates from the nearest class %s)\n", "", "",
                             k["nearest_class"].get<std::string>().c_str());
  }
  std::cout << refineSummary(j);
  if (j.value("staged", false))
    std::cout
        << "  model runs in stages (shapes depend on run-time values): the kernels of one run's stages, side by side\n";
  const Json& c = j["check"];
  double flops = j["flops"], peak = j["peak_gflops"];
  std::cout << "  untuned      " << formatSeconds(c["untuned_ms"].get<double>() * 1e-3) << "  ("
            << throughputText(flops, c["untuned_ms"].get<double>() * 1e-3, peak) << ")\n  transferred  "
            << formatSeconds(c["chosen_ms"].get<double>() * 1e-3) << "  ("
            << transfer::checkVerdict(c, j["kernels"].size()) << ")\n";
}

// `ttune transfer MODEL --dim seq=1..512`: a model for ranges of sizes runs in each bucket the
// schedules the bank holds for the model at the bucket's largest sizes (cli/range_run.h), so each
// of those sizes is transfer-tuned in turn (from the bank's runs of the other sizes and models),
// unless it has runs of its own in the bank (a size tuned or transferred before keeps its choice).
void transferRanges(const TransferArgs& a) {
  std::vector<graph::SizeRange> ranges = sizeRanges(a.src);
  std::set<std::vector<int64_t>> seen;
  Json out{{"model", modelName(a.src)}, {"sizes", Json::array()}};
  for (const std::vector<graph::SizeRange>& bucket : bucketCombinations(ranges)) {
    std::vector<int64_t> top;
    for (const graph::SizeRange& r : bucket) top.push_back(r.max);
    if (!seen.insert(top).second) continue;
    TransferArgs at = a;
    at.src = atSizes(a.src, top);
    std::string name = modelName(at.src), sizes = graph::sizesText(ranges, top);
    std::vector<std::string> own = openBank(a.db).models();
    if (std::find(own.begin(), own.end(), name) != own.end()) {
      out["sizes"].push_back({{"sizes", sizes}, {"model", name}, {"skipped", "has runs of its own in the bank"}});
      if (!a.json) std::cout << name << ": has runs of its own in the bank; kept\n";
      continue;
    }
    if (!a.json) std::cout << name << ": transfer-tuning the buckets up to " << sizes << "\n";
    Json j = transferModel(at);
    if (!a.json) printTransfer(j);
    out["sizes"].push_back({{"sizes", sizes}, {"model", name}, {"transfer", j}});
  }
  if (a.json) printJson(out);
}

void transferCmd(const TransferArgs& a) {
  if (!sizeRanges(a.src).empty()) return transferRanges(a);
  Json j = transferModel(a);
  if (a.json) return printJson(j);
  printTransfer(j);
}

void sourcesCmd(const ModelSource& src, const std::string& db, const std::string& target, bool json) {
  graph::Graph g;
  bool staged = false;
  std::vector<graph::Kernel> kernels = modelKernels(src, resolveTargetOption(target, TargetUse::Compile), &g, &staged);
  std::string name = modelName(src);
  store::Bank bank = openBank(db);
  std::vector<transfer::SourceCoverage> cover = transfer::rankSources(kernels, bank, name, baselineOf(src));
  if (json) {
    Json arr = Json::array();
    for (const auto& c : cover)
      arr.push_back({{"model", c.model}, {"flops_share", c.flops_share}, {"kernels", c.kernels}});
    return printJson(Json{{"model", name}, {"db", bank.path()}, {"sources", arr}});
  }
  if (cover.empty()) {
    std::cout << "the bank " << bank.path() << " holds no schedules of other models for " << name
              << "'s kernel classes\n";
    return;
  }
  std::cout << "sources for " << name << " in " << bank.path()
            << " (share of its tunable FLOPs whose kernel class they cover):\n";
  for (const auto& c : cover)
    std::cout << strFormat("  %-24s %5.1f%%  %3d kernels\n", c.model.c_str(), 100 * c.flops_share, c.kernels);
}

}  // namespace

transfer::SourceMode parseSourceMode(const std::string& name) { return parseSpelling(kSourceModes, name, "--sources"); }
transfer::Rank parseRank(const std::string& name) { return parseSpelling(kRanks, name, "--rank"); }
transfer::Adapt parseAdapt(const std::string& name) { return parseSpelling(kAdapts, name, "--adapt"); }

void addTransferCommands(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("transfer", "Transfer-tune a model: re-measure the bank's schedules of other models' kernels");
  auto a = std::make_shared<TransferArgs>();
  // --rank, --adapt and --sources as spelled, parsed into *a before the command runs.
  struct Spelled {
    std::string rank = "model", adapt = "both", sources = "pool";
  };
  auto spelled = std::make_shared<Spelled>();
  addSourceOptions(cmd, a->src);
  cmd->add_option("--db", a->db, kBankOptionHelp);
  cmd->add_option("--from", a->from, "Use only these source models (default: every other model in the bank)")
      ->delimiter(',');
  cmd->add_option("--top-k", a->top_k, "Measure only the k candidates per kernel ranked best (default: all)");
  cmd->add_option("--rank", spelled->rank,
                  "What ranks the --top-k candidates: model (a cost model trained on the sources' records; default) or "
                  "prior (zero-cost: exact workloads, then the source's own throughput)");
  cmd->add_option("--adapt", spelled->adapt, "Replay schedules verbatim, adapted to the new shapes, or both (default)");
  cmd->add_option(
      "--sources", spelled->sources,
      "pool: candidates of every other model (default); auto: only the model covering the most untuned time");
  cmd->add_option("--budget", a->budget,
                  "At most this many candidate measurements, heaviest kernels first (default: no limit)");
  cmd->add_flag(
      "!--no-nearest-classes", a->nearest_classes,
      "Leave kernels without a same-class source at their default (the paper's protocol); by default they take "
      "candidates from the nearest class (same operator, another fused epilogue)");
  cmd->add_flag("--refine", a->refine,
                "Re-rank each kernel's best candidates inside the compiled model (time counts as search)");
  cmd->add_option("--threads", a->threads, "Threads for kernels (default: all cores)");
  cmd->add_flag("--json", a->json, "Print a JSON summary");
  cmd->add_flag("--progress", a->verbose, "Print progress lines also when stderr is not a terminal");
  addTargetOption(cmd, a->target);
  cmd->add_option("--workers", a->workers,
                  "Measure on the measurement workers of this target that take jobs from the bank (a PostgreSQL bank; "
                  "docs/fleet.md); code is compiled here for their CPU");
  cmd->callback([a, spelled] {
    a->rank = parseRank(spelled->rank);
    a->adapt = parseAdapt(spelled->adapt);
    a->sources = parseSourceMode(spelled->sources);
    transferCmd(*a);
  });

  auto* src = app.add_subcommand("sources", "List the bank's models that can serve as transfer sources for a model");
  auto s = std::make_shared<TransferArgs>();
  addSourceOptions(src, s->src);
  src->add_option("--db", s->db, kBankOptionHelp);
  addTargetOption(src, s->target);
  src->add_flag("--json", s->json, "Print JSON");
  src->callback([s] { sourcesCmd(s->src, s->db, s->target, s->json); });
}

}  // namespace ttune::cli
