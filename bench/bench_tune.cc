// bench_tune: auto-schedules a 1024^3 matmul and four ResNet-50 convolutions (3x3 at 56x56 and
// 14x14, 1x1 at 56x56 and 7x7) with ttune's Ansor-style tuner, then times the best schedule of
// each next to oneDNN in the same process on the same threads, and prints GFLOP/s, the ratio,
// and the tuning throughput (trials per second, share of time searching, compiling, measuring).
//
//   bench_tune [--trials N] [--threads N] [--case NAME]... [--json] [--records FILE] [--seed S]
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "autotune/tuner.h"
#include "cases.h"
#include "measure/timing.h"
#include "runtime/thread_pool.h"
#include "support/json.h"
#include "support/timer.h"

using namespace ttune;

int main(int argc, char** argv) {
  CLI::App app{"ttune's tuner against oneDNN"};
  int64_t trials = 1000;
  int threads = runtime::defaultNumThreads();
  bool json = false;
  uint64_t seed = 0;
  std::string records;
  std::vector<std::string> only;
  app.add_option("--trials", trials, "Measurement trials per workload");
  app.add_option("--threads", threads, "Threads for ttune and oneDNN");
  app.add_option("--case", only, "Run only these workloads");
  app.add_option("--records", records, "Append every measured record to this file");
  app.add_option("--seed", seed, "Search seed");
  app.add_flag("--json", json, "One JSON object per workload");
  CLI11_PARSE(app, argc, argv);
  runtime::ThreadPool::global().setNumThreads(threads);
  bench::setOnednnThreads(threads);

  std::vector<bench::Workload> work = {bench::matmulWorkload(1024), bench::resnetConv("conv3x3_56_c64"),
                                       bench::resnetConv("conv3x3_14_c256"), bench::resnetConv("conv1x1_56_c64_k256"),
                                       bench::resnetConv("conv1x1_7_c512_k2048")};
  double log_sum = 0;
  int n = 0;
  if (!json)
    std::printf("%-22s %7s %9s %8s %10s %10s %7s %7s %7s %7s\n", "workload", "trials", "tune_s", "trials/s", "ttune_GF",
                "oneDNN_GF", "ratio", "search", "compile", "measure");
  for (const bench::Workload& w : work) {
    if (!only.empty() && std::find(only.begin(), only.end(), w.name) == only.end()) continue;
    measure::MeasureOptions mo;
    mo.threads = threads;
    measure::Measurer measurer(mo);
    autotune::XGBoostModel model;
    autotune::TunerOptions topt;
    topt.trials = trials;
    topt.seed = seed;
    topt.model = "bench_tune";
    topt.run_id = "bench_tune-" + w.name;
    topt.search.sketch.num_cores = threads;
    topt.search.sampler.num_cores = threads;
    autotune::Tuner tuner({{w.dag->workloadKey(), "", w.name, w.dag, 1}}, topt, model, measurer);
    Timer wall;
    auto p = tuner.run([&](const std::vector<schedule::Record>& recs) {
      if (!records.empty()) (void)schedule::appendRecordsFile(records, recs);
    });
    double tune_s = wall.seconds();
    const auto& best = tuner.tasks()[0]->bestState();
    if (!best) {
      std::fprintf(stderr, "bench_tune: %s: no valid schedule found\n", w.name.c_str());
      return 1;
    }
    measure::BuildResult b = measure::buildOne({w.dag, autotune::finalizeForMeasurement(*best)}, "kernel");
    if (!b.ok()) {
      std::fprintf(stderr, "bench_tune: %s: %s\n", w.name.c_str(), b.message.c_str());
      return 1;
    }
    bench::Timed tt = bench::timeBuild(*w.dag, b, 5, 100);
    bench::PeerKernel peer = w.peer();
    measure::TimingOptions opt;
    opt.repeat = 5;
    opt.min_repeat_ms = 100;
    double peer_gf = w.dag->flops() / measure::timeFunction(peer.run, opt).median_s * 1e-9;
    double ratio = tt.gflops / peer_gf;
    log_sum += std::log(ratio);
    ++n;
    double total = p.search_s + p.build_s + p.run_s;
    Json j{{"case", w.name},           {"trials", p.trials},
           {"tune_s", tune_s},         {"trials_per_s", p.trials / tune_s},
           {"ttune_gflops", tt.gflops}, {"onednn_gflops", peer_gf},
           {"ratio", ratio},           {"search_share", p.search_s / total},
           {"compile_share", p.build_s / total}, {"measure_share", p.run_s / total},
           {"threads", threads}};
    if (json) {
      std::cout << j.dump() << std::endl;
    } else {
      std::printf("%-22s %7lld %9.0f %8.2f %10.1f %10.1f %7.2f %6.0f%% %6.0f%% %6.0f%%\n", w.name.c_str(),
                  static_cast<long long>(p.trials), tune_s, p.trials / tune_s, tt.gflops, peer_gf, ratio,
                  100 * p.search_s / total, 100 * p.build_s / total, 100 * p.run_s / total);
      std::fflush(stdout);
    }
  }
  double geo = n ? std::exp(log_sum / n) : 0.0;
  if (json) std::cout << Json{{"summary", true}, {"geomean_ratio", geo}, {"threads", threads}}.dump() << std::endl;
  else std::printf("geomean ratio %.2f on %d threads\n", geo, threads);
  return 0;
}
