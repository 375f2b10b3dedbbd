// `ttune experiment`: the transfer-tuning paper's evaluation over a set of models, leave-one-out,
// on this machine. Phase 1 tunes every model from scratch (cold runs labelled "experiment",
// resumable); phase 2 transfer-tunes every model from the others' tuning runs in each mode and
// compares each transfer run with the model's tuning run (transfer/compare.h). Modes: pool (the
// paper's protocol: every other model, same-class candidates only), auto (the single source
// covering the most untuned time), budget (a cap on candidate measurements), ranked (the few
// candidates per kernel a zero-cost prior ranks best), ranked-nearest (ranked, with nearest-class
// candidates for kernels without a same-class source: `ttune transfer --top-k K --rank prior`),
// refine (pool, then in-model re-ranking), beyond (pool with nearest-class candidates and
// in-model re-ranking) and
// then-tune (the tuner warm-started from one mode's transfer -- --then-tune-from, by default
// beyond's or else pool's -- for a quarter of the trials, compared as a curve of speedup against
// total search time). Every finished step is saved at once in
// OUT/results.json, so an interrupted experiment resumes where it stopped; OUT/results.md (a
// table) and OUT/results.svg (speedup against search time per model) are rewritten after each
// step. One results folder holds one host: the driver refuses to mix CPUs, ISA levels or thread
// counts in one table.
#include <CLI/CLI.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "cli/bank_access.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/fleet.h"
#include "cli/interrupt.h"
#include "cli/model_loader.h"
#include "cli/output.h"
#include "cli/plot_svg.h"
#include "cli/target_option.h"
#include "graph/fusion.h"
#include "measure/speedup.h"
#include "models/zoo.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/strings.h"
#include "support/timer.h"
#include "transfer/compare.h"

namespace ttune::cli {

namespace {

namespace fs = std::filesystem;

// The experiment's modes. then-tune is no transfer of its own: it tunes further from another
// mode's transfer (--then-tune-from).
enum class ExperimentMode { Pool, Auto, Budget, Ranked, RankedNearest, Refine, Beyond, ThenTune };

// Each mode's name (its --modes spelling and its key in results.json) and the transfer settings
// it implies (ttune transfer's options).
struct ModeInfo {
  ExperimentMode mode;
  const char* name;
  bool auto_sources;     // --sources auto (else pool)
  bool budget;           // --budget (the experiment's --budget, or two per tunable kernel)
  bool ranked;           // --top-k (the experiment's --ranked-k) --rank prior
  bool nearest_classes;  // nearest-class candidates for kernels without a same-class source
  bool refine;           // in-model re-ranking
};
constexpr ModeInfo kModes[] = {
    {ExperimentMode::Pool, "pool", false, false, false, false, false},
    {ExperimentMode::Auto, "auto", true, false, false, false, false},
    {ExperimentMode::Budget, "budget", false, true, false, false, false},
    {ExperimentMode::Ranked, "ranked", false, false, true, false, false},
    {ExperimentMode::RankedNearest, "ranked-nearest", false, false, true, true, false},
    {ExperimentMode::Refine, "refine", false, false, false, false, true},
    {ExperimentMode::Beyond, "beyond", false, false, false, true, true},
    {ExperimentMode::ThenTune, "then-tune", false, false, false, false, false},
};
constexpr bool tableInEnumOrder() {
  for (size_t i = 0; i < std::size(kModes); ++i)
    if (static_cast<size_t>(kModes[i].mode) != i) return false;
  return std::size(kModes) == static_cast<size_t>(ExperimentMode::ThenTune) + 1;
}
static_assert(tableInEnumOrder(), "kModes lists every ExperimentMode once, in the enum's order");

const ModeInfo& modeInfo(ExperimentMode m) { return kModes[static_cast<size_t>(m)]; }
std::string modeName(ExperimentMode m) { return modeInfo(m).name; }
std::optional<ExperimentMode> modeNamed(const std::string& name) {
  for (const ModeInfo& i : kModes)
    if (name == i.name) return i.mode;
  return std::nullopt;
}
bool runsMode(const std::vector<ExperimentMode>& modes, ExperimentMode m) {
  return std::find(modes.begin(), modes.end(), m) != modes.end();
}

struct ExperimentArgs {
  std::vector<std::string> models;
  int64_t trials = 2000;
  std::string out = "experiment", db;
  std::vector<std::string> modes = {"pool", "auto", "beyond", "then-tune"};  // parsed by parseModes
  int64_t budget = 0;            // budget mode: candidate measurements (0: two per tunable kernel)
  int ranked_k = 4;              // ranked mode: candidates per kernel the zero-cost prior ranks best
  int64_t then_tune_trials = 0;  // then-tune mode: trials of the warm-started run (0: a quarter of --trials)
  std::string then_tune_from;    // then-tune mode: the mode whose transfer it continues ("": beyond if run, else pool)
  double step_s = 60;
  int threads = 0;
  std::string target = "host";
  std::string workers;  // tuning and transfer runs measure on the bank's workers of this target
  schedule::Baseline defaults = schedule::Baseline::Strong;  // the untuned baseline of every run (schedule/baseline.h)
  bool json = false, verbose = false;
  bool report_only = false;  // rewrite results.md/.svg from results.json, run nothing
};

// The results file, written atomically (temporary file + rename) after every step.
class Results {
 public:
  Results(const std::string& dir, const Json& host) : path_(dir + "/results.json") {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) fail("cannot create the experiment folder ", dir, ": ", ec.message());
    if (fs::exists(path_)) {
      std::ifstream in(path_);
      j_ = Json::parse(in, nullptr, false);
      if (j_.is_discarded() || !j_.is_object() || !j_.contains("host"))
        fail(path_, " is not an experiment results file (remove it or choose another --out)");
      const Json& h = j_["host"];
      for (const char* k : {"cpu", "isa", "threads"})
        if (h.value(k, Json()) != host.value(k, Json()))
          fail("the results in ", dir, " were measured on ", h.value("description", std::string("?")), " with ",
               h.value("threads", 0), " threads; this is ", host.value("description", std::string("?")), " with ",
               host.value("threads", 0), " threads: one table holds one host, so choose another --out");
    } else {
      j_ = Json{{"version", 1}, {"host", host}, {"models", Json::object()}};
    }
  }
  Json& model(const std::string& m) {
    if (!j_["models"].contains(m)) j_["models"][m] = Json{{"modes", Json::object()}};
    return j_["models"][m];
  }
  Json& root() { return j_; }
  void save() {
    std::string tmp = path_ + ".tmp";
    {
      std::ofstream out(tmp);
      out << j_.dump(2) << "\n";
      if (!out.good()) fail("cannot write ", tmp);
    }
    std::error_code ec;
    fs::rename(tmp, path_, ec);
    if (ec) fail("cannot replace ", path_, ": ", ec.message());
  }

 private:
  std::string path_;
  Json j_;
};

double num(const Json& j, const char* k) { return j.contains(k) && j[k].is_number() ? j[k].get<double>() : NAN; }

std::string pct(double v) { return std::isfinite(v) ? strFormat("%.0f%%", 100 * v) : "-"; }

// A speedup of a comparison with its interval ("1.23x (1.19-1.27)"), from compare's JSON
// (prefix "tuned_" or "transfer_"); results of older runs carry the median only.
// %max with its interval, "no gain" where tuning showed no measurable gain (transfer/readout.h);
// results of older runs: the plain share.
std::string shareCell(const Json& c) {
  if (c.contains("measurable_gain") && !c["measurable_gain"].get<bool>()) return "no gain";
  if (c.contains("share_median"))
    return strFormat("%.0f%% (%.0f-%.0f%%)", 100 * num(c, "share_median"), 100 * num(c, "share_lo"),
                     100 * num(c, "share_hi"));
  return pct(num(c, "share_of_tuned_speedup"));
}

// Whether a comparison enters the %max averages: tuning gained beyond the spread (older results:
// S_max >= 1.05).
bool measurable(const Json& c) {
  if (c.contains("measurable_gain")) return c["measurable_gain"].get<bool>();
  return num(c, "speedup_tuned") >= 1.05;
}

// The share a comparison contributes to the averages: the per-round median when it has one.
double shareOf(const Json& c) {
  return c.contains("share_median") ? num(c, "share_median") : num(c, "share_of_tuned_speedup");
}

// Tuning time to match over the transfer time, with its plausible range (transfer/readout.h:
// the first checkpoint whose interval reaches S_tt's to the first wholly at or above it); a run
// that never matched gives the lower bound tune time / transfer time, "> 1.8x". `ratio` gets
// the value (NAN when never matched) and `bound` the lower bound.
std::string matchRatioCell(const Json& c, double& ratio, double& bound) {
  const double tt = num(c, "transfer_s");
  ratio = num(c, "time_to_match_ratio");
  bound = num(c, "tune_s") / tt;
  if (!std::isfinite(ratio)) return std::isfinite(bound) ? strFormat("> %.1fx", bound) : "-";
  std::string cell = strFormat("%.2fx", ratio);
  double early = num(c, "tune_s_to_match_early") / tt, late = num(c, "tune_s_to_match_late") / tt;
  if (std::isfinite(early))
    cell += strFormat(" (%.2f-%s)", early, std::isfinite(late) ? strFormat("%.2f", late).c_str() : "never");
  return cell;
}

// Time-to-match ratios of one mode over the models whose tuning gain is measurable: where the
// tuning run's speedup is inside the spread, "the tuning run reached the transfer's speedup" is
// a statement about noise, so such a model gets no ratio and stays out of the geomeans.
struct MatchRatios {
  std::vector<double> log_ratio, log_at_least;  // matched models; all, unmatched at their lower bound
  int unmatched = 0;
  int no_gain = 0;

  std::string add(const Json& c) {
    if (!measurable(c)) {
      ++no_gain;
      return "no gain";
    }
    double ratio = NAN, bound = NAN;
    std::string cell = matchRatioCell(c, ratio, bound);
    if (std::isfinite(ratio))
      log_ratio.push_back(std::log(ratio));
    else
      ++unmatched;
    if (std::isfinite(ratio) || std::isfinite(bound))
      log_at_least.push_back(std::log(std::isfinite(ratio) ? ratio : bound));
    return cell;
  }
};

std::string geomeanCell(const std::vector<double>& logs) {
  double s = 0;
  for (double x : logs) s += x;
  return logs.empty() ? std::string("-") : strFormat("%.2fx", std::exp(s / static_cast<double>(logs.size())));
}

std::string ratioCell(const Json& c, const char* prefix, const char* median_field) {
  if (!c.contains(std::string(prefix) + "rounds")) return strFormat("%.2fx", num(c, median_field));
  measure::Speedup s = measure::speedupFromJson(c, prefix);
  return strFormat("%.2fx (%.2f-%.2f)", s.median, s.lo, s.hi);
}

void writeReport(Results& r, const std::string& dir, const std::vector<std::string>& models,
                 const std::vector<ExperimentMode>& modes) {
  using enum ExperimentMode;
  const Json& root = r.root();
  std::ostringstream md;
  const Json& h = root["host"];
  md << "# Transfer-tuning experiment\n\nHost: " << h.value("description", std::string()) << ", "
     << h.value("threads", 0) << " threads. Baseline: " << root.value("defaults", std::string("strong"))
     << " default schedules (docs/measurement.md; basic: the paper's conditions). Tuning from scratch: "
     << root.value("trials", 0) << " trials per model, the cost model starting "
     << (root.value("cost_model", std::string("scratch")) == "scratch" ? "empty (Ansor's)" : "from the bank")
     << ". Transfer: leave-one-out "
     << "(each model from the tuning runs of the others). Speedups over the untuned model, timed interleaved in one "
     << "process per model (median of per-round ratios with its 90% interval, docs/measurement.md); "
     << "%max = (S_tt - 1) / (S_max - 1); match = tuning time after which the tuning run's "
     << "schedules reached the transferred speedup (checkpoints at 1/8, 1/4 and 1/2 of the transfer time, at it, then "
        "every "
     << root.value("step_s", 60.0) << " s).\n\n";
  md << "| model | S_max | tune time | pool S_tt | %max | TT time | tuning @TT | match | ratio |";
  for (ExperimentMode m : modes)
    if (m == ThenTune)
      md << " then-tune S | search time | reaches S_max |";
    else if (m != Pool)
      md << " " << modeName(m) << " %max | " << modeName(m) << " TT time | " << modeName(m) << " ratio |";
  md << "\n|---|---:|---:|---:|---:|---:|---:|---:|---:|";
  for (ExperimentMode m : modes)
    if (m != Pool) md << "---:|---:|---:|";
  md << "\n";
  // Per mode: (%max, whether tuning's gain was measurable in that comparison).
  std::map<ExperimentMode, std::vector<std::pair<double, bool>>> shares;
  std::map<ExperimentMode, MatchRatios> matches;
  std::vector<PlotPanel> panels;
  std::set<std::string> then_from;  // the modes whose transfers the then-tune runs continued
  for (const std::string& name : models) {
    if (!root["models"].contains(name)) continue;
    const Json& mj = root["models"][name];
    const Json& modesj = mj["modes"];
    const std::string pool = modeName(Pool);
    if (!modesj.contains(pool) || !modesj[pool].contains("comparison")) continue;
    const Json& c = modesj[pool]["comparison"];
    const std::string ratio_cell = matches[Pool].add(c);
    md << "| " << name << " | " << ratioCell(c, "tuned_", "speedup_tuned") << " | " << formatSeconds(num(c, "tune_s"))
       << " | " << ratioCell(c, "transfer_", "speedup_transfer") << " | " << shareCell(c) << " | "
       << formatSeconds(num(c, "transfer_s")) << " | " << strFormat("%.2fx", num(c, "tune_speedup_at_transfer_time"))
       << " | "
       << (c["tune_s_to_match_transfer"].is_number() ? formatSeconds(num(c, "tune_s_to_match_transfer")) : "never")
       << " | " << ratio_cell << " |";
    PlotPanel panel;
    panel.title = name;
    for (const Json& cp : c["checkpoints"]) panel.curve.push_back({num(cp, "elapsed_s"), num(cp, "speedup")});
    for (ExperimentMode m : modes) {
      const std::string key = modeName(m);
      if (!modesj.contains(key) || !modesj[key].contains("comparison")) {
        if (m != Pool) md << " - | - | - |";
        continue;
      }
      const Json& mc = modesj[key]["comparison"];
      if (m == ThenTune) {
        if (!mc.contains("continued")) continue;
        then_from.insert(modesj[key].value("from_mode", pool));
        for (const Json& cp : mc["continued"]) panel.continued.push_back({num(cp, "search_s"), num(cp, "speedup")});
        panel.continued.insert(panel.continued.begin(), {num(mc, "transfer_s"), num(mc, "speedup_transfer")});
        // Its share of the tuning run's speedup, both timed in this comparison (compare's
        // convention: 0 when the tuning run gained nothing).
        double s = num(mc, "continued_speedup"), smax = num(mc, "speedup_tuned");
        shares[m].push_back({smax > 1 ? (s - 1) / (smax - 1) : 0.0, measurable(mc)});
        // Results saved before compare started the curve at the transfer's point lack the match
        // of a transfer already at S_max.
        const bool at_transfer = num(mc, "speedup_transfer") >= smax;
        md << " " << strFormat("%.2fx", s)
           << (mc.contains("continued_speedup_lo")
                   ? strFormat(" (%.2f-%.2f)", num(mc, "continued_speedup_lo"), num(mc, "continued_speedup_hi"))
                   : std::string())
           << " | " << formatSeconds(num(mc, "continued_search_s")) << " | "
           << (at_transfer                                    ? formatSeconds(num(mc, "transfer_s"))
               : mc["continued_s_to_match_tuned"].is_number() ? formatSeconds(num(mc, "continued_s_to_match_tuned"))
                                                              : "never")
           << " |";
        continue;
      }
      shares[m].push_back({shareOf(mc), measurable(mc)});
      panel.points.push_back({key, num(mc, "transfer_s"), num(mc, "speedup_transfer")});
      if (m != Pool)
        md << " " << shareCell(mc) << " | " << formatSeconds(num(mc, "transfer_s")) << " | " << matches[m].add(mc)
           << " |";
    }
    md << "\n";
    panels.push_back(std::move(panel));
  }
  // %max divides by S_max - 1: where the tuning run's gain is inside the timing spread, the
  // quotient is noise over noise, so the averages are over the models with a measurable gain.
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? NAN : s / static_cast<double>(v.size());
  };
  md << "\nAverage %max (then-tune: its final speedup's share of S_max) over the models whose tuning gain is "
        "measurable "
        "(S_max's interval above 1), and over all:";
  for (ExperimentMode m : modes) {
    std::vector<double> all, strong;
    for (auto [share, gain] : shares[m]) {
      if (!std::isfinite(share)) continue;
      all.push_back(share);
      if (gain) strong.push_back(share);
    }
    md << " " << modeName(m) << " " << pct(mean(strong)) << " (" << strong.size() << " models), " << pct(mean(all))
       << " (" << all.size() << ");";
  }
  md << "\nTuning time to match the transfer, over the transfer time (geomean over the models whose tuning gain is "
        "measurable):";
  const char* sep = " ";
  for (ExperimentMode m : modes) {
    if (m == ThenTune || !matches.contains(m)) continue;
    const MatchRatios& r = matches[m];
    md << sep << modeName(m) << " " << geomeanCell(r.log_ratio) << " over " << r.log_ratio.size() << " matched";
    if (r.unmatched > 0)
      md << ", " << r.unmatched
         << " never matched within the tuning run (counted at their lower bound, tune time / transfer time: at least "
         << geomeanCell(r.log_at_least) << " over " << r.log_at_least.size() << ")";
    if (r.no_gain > 0) md << ", " << r.no_gain << " without a measurable tuning gain left out";
    sep = "; ";
  }
  md << ".\n";
  if (!then_from.empty())
    md << "\nthen-tune: the tuner warm-started from the "
       << join(then_from, ", ", [](const std::string& f) { return f; })
       << " transfer's choice; its search time counts that transfer's time too.\n";
  md << "\nCommand: `" << root.value("command", std::string()) << "`\n";
  std::ofstream(dir + "/results.md") << md.str();
  std::ofstream(dir + "/results.svg") << speedupPlotSvg(
      panels, "Speedup over untuned against search time (" + h.value("description", std::string()) + ")");
}

// A Ctrl-C that lands after a step's last check of its own guard leaves the flag set and the step
// finished (and saved); the experiment stops there instead of starting the next step.
void stopIfInterrupted(const std::string& step) {
  if (InterruptGuard::interrupted())
    fail("experiment interrupted after ", step, " (saved); run the same command again to resume");
}

// --modes, in the order given (the report's columns).
std::vector<ExperimentMode> parseModes(const ExperimentArgs& a) {
  std::vector<ExperimentMode> modes;
  for (const std::string& m : a.modes) {
    std::optional<ExperimentMode> mode = modeNamed(m);
    if (!mode)
      fail("--modes: unknown mode '", m, "' (",
           join(kModes, ", ", [](const ModeInfo& k) { return std::string(k.name); }), ")");
    modes.push_back(*mode);
  }
  if (!runsMode(modes, ExperimentMode::Pool)) fail("--modes must include pool (the paper's protocol)");
  return modes;
}

// The modes in the order they run: then-tune continues another mode's transfer, so it runs last.
std::vector<ExperimentMode> runOrder(std::vector<ExperimentMode> modes) {
  std::stable_partition(modes.begin(), modes.end(), [](ExperimentMode m) { return m != ExperimentMode::ThenTune; });
  return modes;
}

// The transfer mode that then-tune continues: --then-tune-from, else beyond when it runs, else pool.
ExperimentMode thenTuneSource(const ExperimentArgs& a, const std::vector<ExperimentMode>& modes) {
  const ExperimentMode fallback =
      runsMode(modes, ExperimentMode::Beyond) ? ExperimentMode::Beyond : ExperimentMode::Pool;
  const std::optional<ExperimentMode> from = a.then_tune_from.empty() ? fallback : modeNamed(a.then_tune_from);
  if (!from || *from == ExperimentMode::ThenTune || !runsMode(modes, *from))
    fail("--then-tune-from: ", a.then_tune_from.empty() ? modeName(fallback) : a.then_tune_from,
         " is not one of the transfer modes in --modes");
  return *from;
}

// Zoo models or ONNX files; results are keyed by model name, as the bank's runs are.
std::vector<std::string> modelNamesOf(const ExperimentArgs& a, const std::vector<std::string>& models) {
  std::vector<std::string> names;
  for (const std::string& m : models) {
    // A report names the models of its results; only a run needs them.
    if (!a.report_only && !models::isZooModel(m) && !fs::is_regular_file(m))
      fail("--models: ", m, " is neither a zoo model (see `ttune models`) nor a model file");
    names.push_back(modelName(m));
    if (std::count(names.begin(), names.end(), names.back()) > 1) fail("--models: two models are named ", names.back());
  }
  return names;
}

// What every step of one experiment shares.
struct ExperimentRun {
  const ExperimentArgs& a;
  std::string db;
  schedule::Target code;
  Results& res;
  std::vector<std::string> names;      // the models' names, for the report
  std::vector<ExperimentMode> listed;  // --modes as given, for the report

  void say(const std::string& s) const {
    if (!a.json) std::cerr << "experiment: " << s << "\n";
  }
  void report() { writeReport(res, a.out, names, listed); }

  // A tuning run of `spec` into the experiment's bank (json, labelled).
  TuneArgs tuneArgs(const std::string& spec, int64_t trials, const std::string& label) const {
    TuneArgs t;
    t.src.spec = spec;
    t.src.defaults = a.defaults;
    t.trials = trials;
    t.db = db;
    t.target = a.target;
    t.label = label;
    t.workers = a.workers;
    t.json = true;
    t.verbose = a.verbose;
    return t;
  }

  // A transfer run of `spec` in `mode` (kModes: its settings) into the experiment's bank.
  TransferArgs transferArgs(const std::string& spec, ExperimentMode mode, int tunable) const {
    const ModeInfo& info = modeInfo(mode);
    TransferArgs t;
    t.src.spec = spec;
    t.src.defaults = a.defaults;
    t.db = db;
    t.target = a.target;
    t.sources = info.auto_sources ? transfer::SourceMode::Auto : transfer::SourceMode::Pool;
    t.budget = info.budget ? (a.budget > 0 ? a.budget : 2 * tunable) : 0;
    if (info.ranked) {
      t.top_k = a.ranked_k;
      t.rank = transfer::Rank::Prior;
    }
    t.refine = info.refine;
    t.nearest_classes = info.nearest_classes;
    t.allow_no_source = true;
    t.label = "experiment:" + modeName(mode);
    t.workers = a.workers;
    t.json = true;
    t.verbose = a.verbose;
    return t;
  }

  // The comparison of model m's transfer run (and the tuning run that continued it, if any) with
  // its tuning run from scratch; `what` names the mode in a failure.
  Json compare(const graph::Graph& g, const std::string& m, const ModelSource& source, const std::string& what,
               const std::string& tune_run, const std::string& transfer_run,
               const std::string& continued_run = "") const {
    store::Bank bank = openBank(db);
    transfer::CompareOptions o;
    o.target = code;
    o.baseline = baselineOf(source);
    o.tune_run = tune_run;
    o.transfer_run = transfer_run;
    if (!continued_run.empty()) o.continued_run = continued_run;
    o.step_s = a.step_s;
    auto c = transfer::compareRuns(g, m, bank, o);
    if (!c.ok()) fail(m, " (", what, "): ", c.error());
    return comparisonJson(m, *c);
  }

  // Phase 1: every model tuned from scratch.
  void tuneFromScratch(const std::vector<std::string>& models) {
    for (const std::string& spec : models) {
      const std::string m = modelName(spec);
      Json& mj = res.model(m);
      if (mj.contains("tune")) continue;
      say("tuning " + m + " from scratch (" + std::to_string(a.trials) + " trials)");
      mj["tune"] = tuneModel(tuneArgs(spec, a.trials, "experiment"));
      res.save();
      report();
      stopIfInterrupted("tuning " + m);
    }
  }

  // then-tune: model m tuned further from its `continued_from` transfer, then compared.
  void thenTune(const graph::Graph& g, const std::string& spec, const ModelSource& source, Json& mj,
                ExperimentMode from, int64_t then_trials) {
    const std::string m = modelName(spec);
    const std::string continued_from = modeName(from);
    Json& md = mj["modes"][modeName(ExperimentMode::ThenTune)];
    const Json& base = mj["modes"][continued_from];
    // (md is null until this mode's first step.)
    const std::string saved_from =
        md.contains("continued") ? md.value("from_mode", modeName(ExperimentMode::Pool)) : continued_from;
    if (saved_from != continued_from)
      fail(m, "'s then-tune run in ", a.out, " continued its ", saved_from, " transfer; resume with --then-tune-from ",
           saved_from);
    if (!md.contains("continued")) {
      say("tuning " + m + " from its " + continued_from + " transfer (" + std::to_string(then_trials) + " trials)");
      TuneArgs t = tuneArgs(spec, then_trials, "experiment:" + modeName(ExperimentMode::ThenTune));
      t.warm_start_run = base["transfer"]["run_id"];
      t.new_run = true;
      md["from_mode"] = continued_from;
      md["continued"] = tuneModel(t);
      res.save();
      stopIfInterrupted("tuning " + m + " from its " + continued_from + " transfer");
    }
    if (!md.contains("comparison")) {
      say("comparing " + m + " (transfer, then tune) with its tuning run");
      md["comparison"] =
          compare(g, m, source, modeName(ExperimentMode::ThenTune), mj["tune"]["run_id"].get<std::string>(),
                  base["transfer"]["run_id"].get<std::string>(), md["continued"]["run_id"].get<std::string>());
      res.save();
      report();
    }
  }

  // A transfer mode: model m transfer-tuned from the others, then compared.
  void transferMode(const graph::Graph& g, const std::string& spec, const ModelSource& source, Json& mj,
                    ExperimentMode transfer_mode, int tunable) {
    const std::string m = modelName(spec);
    const std::string mode = modeName(transfer_mode);
    Json& md = mj["modes"][mode];
    if (!md.contains("transfer")) {
      say("transfer-tuning " + m + " (" + mode + ")");
      md["transfer"] = transferModel(transferArgs(spec, transfer_mode, tunable));
      res.save();
      stopIfInterrupted("transfer-tuning " + m + " (" + mode + ")");
    }
    if (!md.contains("comparison")) {
      say("comparing " + m + " (" + mode + ") with its tuning run");
      md["comparison"] = compare(g, m, source, mode, mj["tune"]["run_id"].get<std::string>(),
                                 md["transfer"]["run_id"].get<std::string>());
      res.save();
      report();
    }
  }
};

// --workers: the tuning and transfer runs measure on the workers, but the comparisons time
// whole models here, against the records those runs wrote: the workers must be this host's twins
// (same CPU, same thread count), or the records would name another machine.
void requireTwinWorkers(const std::string& db, const std::string& label, const schedule::Target& code, int threads) {
  WorkersMeasurement w = workersMeasurement(db, label, "host");
  const store::WorkerInfo& info = w.runner->worker();
  if (info.cpu != codegen::hostTarget().cpu || info.threads != threads || w.code.isa != code.isa)
    fail("--workers ", label, ": the experiment compares whole models on this host, so its workers must have this ",
         "host's CPU and thread count (", codegen::hostTarget().cpu, ", ", threads, " threads), but worker ", info.id,
         " has ", info.cpu, " with ", info.threads, " threads");
}

void experiment(const ExperimentArgs& a, const std::string& command) {
  if (a.threads > 0) runtime::ThreadPool::global().setNumThreads(a.threads);
  if (a.trials <= 0) fail("--trials must be positive");
  const std::vector<ExperimentMode> listed = parseModes(a);
  const std::vector<ExperimentMode> modes = runOrder(listed);
  const ExperimentMode continued_from = thenTuneSource(a, modes);
  const int64_t then_trials = a.then_tune_trials > 0 ? a.then_tune_trials : std::max<int64_t>(1, a.trials / 4);
  schedule::Target code = resolveTargetOption(a.target, TargetUse::RunHere);
  std::vector<std::string> models = a.models;
  if (models.empty()) models = models::paperModels();
  std::vector<std::string> names = modelNamesOf(a, models);
  std::string db = a.db.empty() ? a.out + "/bank.db" : a.db;
  int threads = runtime::ThreadPool::global().numThreads();
  if (!a.workers.empty()) requireTwinWorkers(db, a.workers, code, threads);
  Json host{{"cpu", codegen::hostTarget().cpu},
            {"isa", schedule::isaName(code.isa)},
            {"threads", threads},
            {"description", codegen::describe(code)}};
  if (a.report_only && !fs::exists(a.out + "/results.json"))
    fail("--report-only: ", a.out, " holds no experiment results (no ", a.out, "/results.json)");
  Results res(a.out, host);
  if (a.report_only) {
    writeReport(res, a.out, names, listed);
    if (a.json) printJson(res.root());
    return;
  }
  // One experiment, one baseline: its runs and comparisons all measure against it.
  if (res.root().contains("defaults") && res.root()["defaults"] != schedule::baselineName(a.defaults))
    fail("the experiment in ", a.out, " ran with --defaults ", res.root()["defaults"].get<std::string>(),
         "; resume it with the same baseline or use another --out");
  res.root()["defaults"] = schedule::baselineName(a.defaults);
  res.root()["trials"] = a.trials;
  res.root()["step_s"] = a.step_s;
  // The tuning runs are Ansor's baseline: their cost model starts empty and never sees the bank.
  res.root()["cost_model"] = spellingOf(kCostModelStarts, TuneArgs{}.cost_model);
  res.root()["command"] = command;
  res.root()["bank"] = db;
  res.save();
  ExperimentRun run{a, db, code, res, names, listed};

  run.tuneFromScratch(models);
  // Phase 2: transfer from the others, per mode, and compare.
  for (const std::string& spec : models) {
    Json& mj = res.model(modelName(spec));
    ModelSource source{spec, {}, {}};
    source.defaults = a.defaults;
    graph::Graph g = loadModel(source, code);
    int tunable = static_cast<int>(graph::tunableKernels(graph::partition(g)).size());
    for (ExperimentMode mode : modes) {
      if (mode == ExperimentMode::ThenTune)
        run.thenTune(g, spec, source, mj, continued_from, then_trials);
      else
        run.transferMode(g, spec, source, mj, mode, tunable);
    }
  }
  run.report();
  if (a.json) return printJson(res.root());
  std::ifstream md(a.out + "/results.md");
  std::cout << md.rdbuf();
  std::cout << "\n(written to " << a.out << "/results.md, results.json and results.svg)\n";
}

}  // namespace

void addExperimentCommand(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("experiment",
                         "The transfer-tuning evaluation over the zoo: tune each model, transfer each from the others, "
                         "compare (resumable)");
  auto a = std::make_shared<ExperimentArgs>();
  cmd->add_option("--models", a->models, "Zoo models or ONNX files (default: the zoo's 11 models)")->delimiter(',');
  cmd->add_option("--trials", a->trials, "Tuning trials per model (default 2000)");
  cmd->add_option("--out", a->out, "Folder of results.json/.md/.svg and, by default, the bank (default: experiment)");
  cmd->add_option("--db", a->db, "Schedule bank of the experiment (default: OUT/bank.db; never the default bank)");
  cmd->add_option("--modes", a->modes,
                  "Transfer modes: pool,auto,budget,ranked (pool measuring the --ranked-k candidates per kernel a "
                  "zero-cost prior ranks best),ranked-nearest (ranked, with nearest-class candidates for kernels "
                  "without a same-class source),refine,beyond,then-tune (default: pool,auto,beyond,then-tune)")
      ->delimiter(',');
  cmd->add_option("--then-tune-trials", a->then_tune_trials,
                  "Trials of the then-tune runs (default: a quarter of --trials)");
  cmd->add_option("--then-tune-from", a->then_tune_from,
                  "The transfer mode whose choice then-tune continues (default: beyond when in --modes, else pool)");
  cmd->add_option("--budget", a->budget, "Candidate measurements of the budget mode (default: two per tunable kernel)");
  cmd->add_option("--ranked-k", a->ranked_k, "Candidates per kernel of the ranked mode (default 4)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--step", a->step_s, "Seconds between tuning checkpoints after the transfer time (default 60)");
  cmd->add_option("--threads", a->threads, "Threads for kernels (default: all cores)");
  cmd->add_option("--workers", a->workers,
                  "Tuning and transfer runs measure on the measurement workers of this target (a PostgreSQL --db; "
                  "docs/fleet.md); they must have this host's CPU and thread count, since the comparisons run here");
  addTargetOption(cmd, a->target);
  addDefaultsOption(
      cmd, a->defaults,
      "Untuned baseline of every run: strong (ttune's default schedules, default) or basic (the paper's "
      "conditions: TVM-style fallback schedules, direct convolutions, a search not seeded with ttune's defaults)");
  cmd->add_flag("--json", a->json, "Print the results as JSON");
  cmd->add_flag("--report-only", a->report_only,
                "Rewrite OUT/results.md and results.svg from OUT/results.json (same host), run nothing");
  cmd->add_flag("--progress", a->verbose, "Print progress lines also when stderr is not a terminal");
  cmd->callback([a] { experiment(*a, commandLine()); });
}

}  // namespace ttune::cli
