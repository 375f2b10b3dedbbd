// bench_aa: an A/A test of the whole-model comparison that `compare`, `experiment` and a
// transfer's model check use (executor::timeModels). It compiles the same model with the same
// default schedules `--copies` times (identical code; each copy its own weights and workspace),
// times the copies exactly as a comparison times its configurations, and prints each copy's
// "speedup" over the first with its interval. Every true ratio is 1: an interval that excludes 1
// is a bias of the protocol (the slot a configuration runs in, or where its buffers landed), and
// its size is the smallest effect a comparison can claim. `--warm both` runs the comparisons with
// and without the block warm-up (executor::Interleave) alternately in one run. `--trace N` shows
// the cause instead: every copy's runs by their place in the block and each kernel's time, with
// no warm-up, optionally after 100 ms of sleep, scalar spinning or memory streaming.
//
//   bench_aa [--model alexnet] [--copies 3] [--repeats 3] [--other] [--order balanced|fixed|rotating|all]
//            [--warm on|off|both] [--per-round 3] [--threads N] [--json]
//   bench_aa --trace 10 [--per-round 6] [--other] [--interpose none|sleep|spin|stream]
//   bench_aa --kernels 8 [--repeats 2] [--order balanced|fixed|all]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <thread>

#include "cli/model_loader.h"
#include "codegen/target.h"
#include "executor/executor.h"
#include "executor/latency.h"
#include "graph/fusion.h"
#include "measure/builder.h"
#include "measure/measurer.h"
#include "measure/timing.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/json.h"
#include "support/timer.h"

using namespace ttune;

namespace {

// Per-kernel medians of each copy over `rounds` fixed-order rounds of profiled runs; prints the
// kernels whose time differs most between copies.
int traceKernels(const graph::Graph& g, const executor::ModelOptions& opt, int copies, bool other, int rounds,
                 int per_round, const std::string& interpose) {
  std::vector<char> big(interpose == "stream" ? size_t(256) << 20 : 0, 1);  // larger than the caches
  auto between = [&] {
    if (interpose == "sleep") std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (interpose == "spin") {
      Timer t;
      volatile double x = 1;
      while (t.seconds() < 0.1) x = x * 1.0000001 + 1e-9;
    }
    if (interpose == "stream") {
      Timer t;
      while (t.seconds() < 0.1) std::memset(big.data(), static_cast<int>(t.seconds() * 100), big.size());
    }
  };
  std::shared_ptr<executor::KernelCache> cache = executor::makeKernelCache();
  std::vector<executor::CompiledModel> models;
  for (int i = 0; i < copies + (other ? 1 : 0); ++i) {
    executor::ModelOptions o = opt;
    o.cache = cache;
    if (i == copies) o.baseline = schedule::Baseline::Basic;
    models.push_back(executor::CompiledModel::compile(g, o));
  }
  std::vector<runtime::NDArray> inputs = executor::randomInputs(g, 1);
  size_t nk = models[0].kernels().size();
  // times[copy][kernel] and totals[copy], one entry per run
  std::vector<std::vector<std::vector<double>>> times(models.size(), std::vector<std::vector<double>>(nk));
  std::vector<std::vector<double>> totals(models.size());
  std::vector<double> seconds;
  for (auto& m : models) m.run(inputs);
  for (int r = 0; r < rounds; ++r) {
    between();
    for (size_t i = 0; i < models.size(); ++i)
      for (int k = 0; k < per_round; ++k) {
        double total = 0;
        models[i].runProfiled(inputs, seconds, &total);
        totals[i].push_back(total);
        if (i < static_cast<size_t>(copies))
          for (size_t j = 0; j < nk; ++j) times[i][j].push_back(seconds[j]);
      }
  }
  for (size_t i = 0; i < models.size(); ++i) {
    std::printf("copy %zu%s: median %.3f ms over %zu runs; by run in its block:", i,
                i == static_cast<size_t>(copies) ? " (other)" : "", measure::median(totals[i]) * 1e3, totals[i].size());
    for (int k = 0; k < per_round; ++k) {
      std::vector<double> at;
      for (size_t n = static_cast<size_t>(k); n < totals[i].size(); n += static_cast<size_t>(per_round))
        at.push_back(totals[i][n]);
      std::printf(" %.3f", measure::median(at) * 1e3);
    }
    std::printf(" ms\n");
  }
  for (size_t j = 0; j < nk; ++j) {
    std::printf("%-60.60s", models[0].kernels()[j].workload_key.c_str());
    for (int i = 0; i < copies; ++i) std::printf(" %9.3f", measure::median(times[static_cast<size_t>(i)][j]) * 1e3);
    std::printf(" ms\n");
  }
  return 0;
}

// The kernel-level A/A: each of the model's `kernels` costliest tunable kernels timed side by
// side as a tuning run's re-timing decides a pick (one repeat per round, rounds until decided),
// with its default schedule twice (and, with --other, its basic default as a third input). The second
// copy's decision should be "neither gain nor loss"; a gain would keep a pick that is the default.
int kernelAA(const cli::ModelSource& src, const schedule::Target& target, int kernels, int repeats,
             const std::string& order_name, bool other, bool json) {
  graph::Graph g;
  bool staged = false;
  std::vector<graph::Kernel> all = cli::modelKernels(src, target, &g, &staged);
  std::vector<graph::TunableKernel> tk = graph::tunableKernels(all);
  std::sort(tk.begin(), tk.end(), [](const graph::TunableKernel& a, const graph::TunableKernel& b) {
    return a.kernel->dag->flops() * a.occurrences > b.kernel->dag->flops() * b.occurrences;
  });
  if (static_cast<int>(tk.size()) > kernels) tk.resize(static_cast<size_t>(kernels));
  std::vector<std::pair<std::string, measure::RoundOrder>> orders;
  if (order_name != "fixed") orders.push_back({"balanced", measure::RoundOrder::Balanced});
  if (order_name != "balanced") orders.push_back({"fixed", measure::RoundOrder::Fixed});
  Json out = {{"model", src.spec}, {"target", codegen::describe(target)}, {"kernels", Json::array()}};
  std::map<std::string, std::vector<double>> medians;
  std::map<std::string, int> wrong;
  for (const graph::TunableKernel& t : tk) {
    const te::ComputeDAG& dag = *t.kernel->dag;
    std::vector<measure::MeasureInput> inputs = {{t.kernel->dag, measure::defaultScheduleFor(dag, target)},
                                                 {t.kernel->dag, measure::defaultScheduleFor(dag, target)}};
    if (other) inputs.push_back({t.kernel->dag, measure::defaultScheduleFor(dag, target, schedule::Baseline::Basic)});
    for (int r = 0; r < repeats; ++r)
      for (const auto& [name, order] : orders) {
        measure::MeasureOptions mo;
        mo.timing.repeat = 1;  // as tune's re-timing: the rounds are the repeats
        mo.round_order = order;
        measure::Measurer m(mo);
        measure::SideBySide sbs = m.compareSideBySide(inputs, measure::decided(measure::kernelRounds()));
        const measure::Speedup& s = sbs.speedup[1];
        bool decided_wrong = s.gain() || s.loss();
        medians[name].push_back(s.median);
        wrong[name] += decided_wrong ? 1 : 0;
        out["kernels"].push_back({{"workload", t.kernel->workload_key},
                                  {"order", name},
                                  {"speedup", s.median},
                                  {"lo", s.lo},
                                  {"hi", s.hi},
                                  {"rounds", s.rounds()}});
        if (!json)
          std::printf("%-40.40s %s order: copy over default %.3fx (%.3f-%.3f, %d rounds)%s\n",
                      t.kernel->class_name.c_str(), name.c_str(), s.median, s.lo, s.hi, s.rounds(),
                      decided_wrong ? "  <- a decision" : "");
      }
  }
  if (json)
    std::cout << out.dump(2) << "\n";
  else
    for (const auto& [name, m] : medians)
      std::printf("%s order: copy ratios %.3f-%.3fx, %d of %zu decided gain or loss\n", name.c_str(),
                  *std::min_element(m.begin(), m.end()), *std::max_element(m.begin(), m.end()), wrong[name], m.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"A/A test of the whole-model comparison: identical copies of one model timed as configurations"};
  cli::ModelSource src;
  src.spec = "alexnet";
  int copies = 3, repeats = 3, per_round = 3, threads = runtime::defaultNumThreads();
  bool json = false, other = false;
  int trace_rounds = 0, kernel_aa = 0;
  double warm_s = executor::Interleave{}.block_warm_s;
  std::string interpose = "none";
  std::string order_name = "all", warm_name = "both";
  app.add_option("--model", src.spec, "Zoo model or .onnx file");
  app.add_option("--copies", copies, "Identical configurations per comparison (at least 2)")->check(CLI::Range(2, 16));
  app.add_option("--repeats", repeats, "Comparisons, one after another")->check(CLI::Range(1, 100));
  app.add_option("--per-round", per_round, "Runs of each configuration back to back in a round (the comparisons use 3)")
      ->check(CLI::Range(1, 50));
  app.add_option("--threads", threads, "Threads");
  app.add_flag("--other", other,
               "Time a different model (the basic defaults) last in each round, as a comparison's tuned "
               "checkpoints follow its untuned model");
  app.add_option("--order", order_name,
                 "Slot order of the rounds: balanced (what the comparisons use: rows of a Williams design), fixed "
                 "(the first configuration first in every round), rotating (round r starts at configuration r), "
                 "or all, alternating comparison by comparison in this run")
      ->check(CLI::IsMember({"balanced", "fixed", "rotating", "all"}));
  app.add_option("--warm-s", warm_s, "Length of the warm-up when it is on (the comparisons' default)")
      ->check(CLI::Range(0.0, 10.0));
  app.add_option("--warm", warm_name,
                 "Untimed runs before each block (on: what the comparisons do; off: the old protocol), or both, "
                 "alternating comparison by comparison in this run")
      ->check(CLI::IsMember({"on", "off", "both"}));
  app.add_option("--trace", trace_rounds,
                 "Instead of comparisons: this many fixed-order rounds of profiled runs without warm-up, then "
                 "every copy's median by its run's place in the block and each kernel's median per copy")
      ->check(CLI::Range(1, 1000));
  app.add_option("--kernels", kernel_aa,
                 "Instead of whole models: the kernel-level A/A of this many of the model's costliest kernels, "
                 "timed side by side as tune's re-timing decides a pick (default, default again; with --other "
                 "the basic default third); "
                 "--order balanced, fixed or all")
      ->check(CLI::Range(1, 1000));
  app.add_option("--interpose", interpose, "With --trace: what runs before each round's first copy")
      ->check(CLI::IsMember({"none", "sleep", "spin", "stream"}));
  app.add_flag("--json", json, "Print one JSON object");
  CLI11_PARSE(app, argc, argv);
  try {
    runtime::ThreadPool::global().setNumThreads(threads);
    executor::ModelOptions opt;
    graph::Graph g = cli::loadModel(src, opt.target);
    if (kernel_aa > 0)
      return kernelAA(src, opt.target, kernel_aa, repeats, order_name == "all" ? "both" : order_name, other, json);
    if (trace_rounds > 0) return traceKernels(g, opt, copies, other, trace_rounds, per_round, interpose);
    struct Variant {
      executor::Interleave how;
      std::vector<double> medians;
      int excluding = 0;
    };
    std::vector<Variant> variants;
    const std::vector<std::pair<std::string, measure::RoundOrder>> orders = {
        {"balanced", measure::RoundOrder::Balanced},
        {"fixed", measure::RoundOrder::Fixed},
        {"rotating", measure::RoundOrder::Rotating}};
    for (const auto& [o, order] : orders)
      for (const std::string& w : {std::string("on"), std::string("off")})
        if ((order_name == o || order_name == "all") && (warm_name == w || warm_name == "both")) {
          Variant v;
          v.how.per_round = per_round;
          v.how.order = order;
          v.how.block_warm_s = w == "on" ? warm_s : 0;
          variants.push_back(v);
        }
    auto orderName = [&](measure::RoundOrder order) {
      for (const auto& [o, x] : orders)
        if (x == order) return o;
      return std::string();
    };
    auto name = [&](const executor::Interleave& how) {
      return orderName(how.order) + " order, warm-up " + (how.block_warm_s > 0 ? "on" : "off");
    };
    Json out = {{"model", src.spec},
                {"threads", threads},
                {"target", codegen::describe(opt.target)},
                {"comparisons", Json::array()}};
    for (int r = 0; r < repeats; ++r)
      for (Variant& v : variants) {
        std::vector<executor::ModelOptions> configs(static_cast<size_t>(copies), opt);
        if (other) {
          configs.push_back(opt);
          configs.back().baseline = schedule::Baseline::Basic;
        }
        executor::ModelTimings t = executor::timeModels(g, configs, measure::modelRounds(), v.how);
        Json row = {{"order", orderName(v.how.order)}, {"block_warm_s", v.how.block_warm_s}, {"slots", Json::array()}};
        for (int i = 1; i < copies; ++i) {
          const measure::Speedup& s = t.speedup[static_cast<size_t>(i)];
          bool excludes = s.lo > 1 || s.hi < 1;
          v.medians.push_back(s.median);
          v.excluding += excludes ? 1 : 0;
          row["slots"].push_back(
              {{"slot", i}, {"speedup", s.median}, {"lo", s.lo}, {"hi", s.hi}, {"rounds", s.rounds()}});
          if (!json)
            std::printf("comparison %d (%s), slot %d over slot 0: %.3fx (%.3f-%.3f, %d rounds)%s\n", r + 1,
                        name(v.how).c_str(), i, s.median, s.lo, s.hi, s.rounds(), excludes ? "  <- excludes 1" : "");
        }
        out["comparisons"].push_back(row);
      }
    if (!json)
      for (const Variant& v : variants)
        std::printf("%s: slot ratios %.3f-%.3fx, %d of %zu intervals exclude 1\n", name(v.how).c_str(),
                    *std::min_element(v.medians.begin(), v.medians.end()),
                    *std::max_element(v.medians.begin(), v.medians.end()), v.excluding, v.medians.size());
    if (json) std::cout << out.dump(2) << "\n";
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_aa: %s\n", e.what());
    return 1;
  }
  return 0;
}
