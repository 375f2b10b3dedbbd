// bench_aa: an A/A test of the whole-model comparison that `compare`, `experiment` and a
// transfer's model check use (executor::timeModels). It compiles the same model with the same
// default schedules `--copies` times (identical code; each copy its own weights and workspace),
// times the copies exactly as a comparison times its configurations, and prints each copy's
// "speedup" over the first with its interval. Every true ratio is 1: an interval that excludes 1
// is a bias of the protocol (the slot a configuration runs in, or where its buffers landed), and
// its size is the smallest effect a comparison can claim.
//
//   bench_aa [--model alexnet] [--copies 3] [--repeats 3] [--other] [--order rotating|fixed|both]
//            [--per-round 3] [--threads N] [--json]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "cli/model_loader.h"
#include "codegen/target.h"
#include "executor/executor.h"
#include "executor/latency.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/json.h"

using namespace ttune;

int main(int argc, char** argv) {
  CLI::App app{"A/A test of the whole-model comparison: identical copies of one model timed as configurations"};
  cli::ModelSource src;
  src.spec = "alexnet";
  int copies = 3, repeats = 3, per_round = 3, threads = runtime::defaultNumThreads();
  bool json = false, other = false;
  std::string order_name = "both";
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
                 "Slot order of the rounds: fixed (what the comparisons use: the first configuration first in "
                 "every round), rotating (round r starts at configuration r), or both, alternating comparison by comparison in this run")
      ->check(CLI::IsMember({"rotating", "fixed", "both"}));
  app.add_flag("--json", json, "Print one JSON object");
  CLI11_PARSE(app, argc, argv);
  try {
    runtime::ThreadPool::global().setNumThreads(threads);
    executor::ModelOptions opt;
    graph::Graph g = cli::loadModel(src, opt.target);
    Json out = {{"model", src.spec}, {"threads", threads}, {"target", codegen::describe(opt.target)}, {"comparisons", Json::array()}};
    for (int r = 0; r < repeats; ++r) {
      std::vector<executor::ModelOptions> configs(static_cast<size_t>(copies), opt);
      if (other) {
        configs.push_back(opt);
        configs.back().baseline = schedule::Baseline::Basic;
      }
      bool fixed = order_name == "fixed" || (order_name == "both" && r % 2 == 1);
      executor::ModelTimings t = executor::timeModels(g, configs, measure::modelRounds(), per_round,
                                                      fixed ? executor::RoundOrder::Fixed : executor::RoundOrder::Rotating);
      Json row = {{"order", fixed ? "fixed" : "rotating"}, {"slots", Json::array()}};
      for (int i = 1; i < copies; ++i) {
        const measure::Speedup& s = t.speedup[static_cast<size_t>(i)];
        row["slots"].push_back({{"slot", i}, {"speedup", s.median}, {"lo", s.lo}, {"hi", s.hi}, {"rounds", s.rounds()}});
        if (!json)
          std::printf("comparison %d (%s order), slot %d over slot 0: %.3fx (%.3f-%.3f, %d rounds)%s\n", r + 1,
                      fixed ? "fixed" : "rotating", i, s.median, s.lo, s.hi, s.rounds(),
                      s.lo > 1 || s.hi < 1 ? "  <- excludes 1" : "");
      }
      out["comparisons"].push_back(row);
    }
    if (json) std::cout << out.dump(2) << "\n";
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_aa: %s\n", e.what());
    return 1;
  }
  return 0;
}
