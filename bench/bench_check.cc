// bench_check: how often the whole-model check (transfer/model_check.h) keeps one set of picks
// when it runs again and again on the same machine, and how far its verdicts spread. The picks
// and the defaults are records files (e.g. `ttune db export --run RUN --ok-only` of a transfer:
// the picks filtered to the workloads it kept, the defaults to provenance source "default").
// Each repetition runs, back to back, a full check (compiles both models, decides as transfer
// does) and the same decision rule on one pair of models compiled once at the start. If the
// reused pair's verdicts spread as widely as the fresh checks', the spread comes from the
// machine's state over time (other tenants' memory traffic on a shared host), not from where a
// compile placed code and buffers. The figure is the rate at which picks are kept and the range
// of the check's medians: a check samples seconds, so picks whose advantage depends on that
// state are kept in some checks and not in others (docs/measurement.md, "What a check cannot
// see").
//
//   bench_check --model alexnet --picks P.rec --defaults D.rec [--checks 10] [--threads N] [--json]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/model_loader.h"
#include "codegen/target.h"
#include "executor/executor.h"
#include "executor/latency.h"
#include "measure/speedup.h"
#include "runtime/thread_pool.h"
#include "schedule/record.h"
#include "support/error.h"
#include "support/json.h"
#include "support/timer.h"
#include "transfer/model_check.h"

using namespace ttune;

namespace {

std::vector<schedule::Record> readOrDie(const std::string& path) {
  auto r = schedule::readRecordsFile(path);
  if (!r) fail(r.error());
  return *r;
}

struct Tally {
  int kept = 0;
  std::vector<double> medians, defaults_ms;
  void add(bool kept_picks, const measure::Speedup& s, double defaults_s) {
    kept += kept_picks;
    medians.push_back(s.median);
    defaults_ms.push_back(defaults_s * 1e3);
  }
  Json json(int checks) const {
    return {{"kept", kept},
            {"checks", checks},
            {"median_lo", *std::min_element(medians.begin(), medians.end())},
            {"median_hi", *std::max_element(medians.begin(), medians.end())},
            {"defaults_ms_lo", *std::min_element(defaults_ms.begin(), defaults_ms.end())},
            {"defaults_ms_hi", *std::max_element(defaults_ms.begin(), defaults_ms.end())}};
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"How often the whole-model check keeps the same picks when it runs again and again"};
  cli::ModelSource src;
  src.spec = "alexnet";
  std::string picks_path, defaults_path;
  int checks = 10, threads = runtime::defaultNumThreads();
  bool json = false;
  app.add_option("--model", src.spec, "Zoo model or .onnx file");
  app.add_option("--picks", picks_path, "Records of the picks (one per workload)")->required();
  app.add_option("--defaults", defaults_path, "Records of the default schedules (one per workload)")->required();
  app.add_option("--checks", checks, "Repetitions (each a fresh check and a decision on the reused pair)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--threads", threads, "Threads");
  app.add_flag("--json", json, "Print one JSON object");
  CLI11_PARSE(app, argc, argv);
  try {
    runtime::ThreadPool::global().setNumThreads(threads);
    const transfer::ModelCheckOptions o;
    graph::Graph g = cli::loadModel(src, o.target);
    const std::vector<schedule::Record> picks = readOrDie(picks_path), defaults = readOrDie(defaults_path);

    executor::ModelOptions dm;
    dm.target = o.target;
    dm.cache = executor::makeKernelCache();
    dm.schedules = executor::recordsProvider(defaults);
    executor::ModelOptions pm = dm;
    pm.schedules = executor::recordsProvider(picks);
    std::vector<executor::CompiledModel> pair;
    pair.push_back(executor::CompiledModel::compile(g, dm));
    pair.push_back(executor::CompiledModel::compile(g, pm));
    const std::vector<runtime::NDArray> inputs = executor::randomInputs(g, 1);

    Tally fresh, reused;
    Json out = {{"model", src.spec},
                {"threads", threads},
                {"target", codegen::describe(o.target)},
                {"repetitions", Json::array()}};
    Timer clock;
    for (int c = 0; c < checks; ++c) {
      const double at_s = clock.seconds();
      transfer::ModelCheck mc = transfer::checkModel(g, picks, defaults, o);
      fresh.add(mc.kept_picks, mc.speedup, mc.defaults_s);
      executor::ModelTimings t = executor::timeCompiled(pair, inputs, o.protocol, {.per_round = o.per_round});
      reused.add(t.speedup[1].gain(), t.speedup[1], t.median_s[0]);
      out["repetitions"].push_back({{"at_s", at_s},
                                    {"fresh", measure::speedupJson(mc.speedup)},
                                    {"fresh_defaults_ms", mc.defaults_s * 1e3},
                                    {"reused", measure::speedupJson(t.speedup[1])},
                                    {"reused_defaults_ms", t.median_s[0] * 1e3}});
      if (!json)
        std::printf("%4.0f s  fresh check %-34s defaults %5.2f ms | reused pair %-34s defaults %5.2f ms\n", at_s,
                    (measure::formatSpeedup(mc.speedup) + (mc.kept_picks ? " kept" : "")).c_str(), mc.defaults_s * 1e3,
                    (measure::formatSpeedup(t.speedup[1]) + (t.speedup[1].gain() ? " kept" : "")).c_str(),
                    t.median_s[0] * 1e3);
    }
    out["fresh"] = fresh.json(checks);
    out["reused"] = reused.json(checks);
    if (json) {
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    for (const auto& [name, y] :
         {std::pair<const char*, const Tally&>{"fresh checks", fresh}, {"reused pair", reused}}) {
      Json j = y.json(checks);
      std::printf("%s: picks kept in %d of %d; medians %.3f-%.3fx; defaults %.2f-%.2f ms\n", name, y.kept, checks,
                  j["median_lo"].get<double>(), j["median_hi"].get<double>(), j["defaults_ms_lo"].get<double>(),
                  j["defaults_ms_hi"].get<double>());
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_check: %s\n", e.what());
    return 1;
  }
}
