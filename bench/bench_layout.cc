// bench_layout: whole-model latency with convolutions channels-last (NHWC, ttune's default) against
// the models' own NCHW, both untuned (default schedules), compiled in one process and timed
// interleaved (alternating blocks of runs), so that the ratio shows what the layout choice in
// graph/layout.h is worth on this machine.
//
//   bench_layout [--model NAME]... [--threads N] [--rounds R] [--json]
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cases.h"
#include "executor/executor.h"
#include "graph/passes.h"
#include "models/zoo.h"
#include "runtime/thread_pool.h"
#include "support/json.h"

using namespace ttune;

int main(int argc, char** argv) {
  CLI::App app{"Whole-model latency: channels-last (NHWC) against NCHW, untuned"};
  std::vector<std::string> models = {"resnet18",     "resnet50",        "vgg16",     "googlenet",
                                     "mobilenet_v2", "efficientnet_b0", "mnasnet1_0"};
  int threads = runtime::defaultNumThreads();
  int rounds = 10;
  bool json = false;
  app.add_option("--model", models, "Zoo models to time");
  app.add_option("--threads", threads, "Threads");
  app.add_option("--rounds", rounds, "Interleaved rounds (each one block of runs per layout)");
  app.add_flag("--json", json, "One JSON object per model");
  CLI11_PARSE(app, argc, argv);
  runtime::ThreadPool::global().setNumThreads(threads);

  if (!json) std::printf("%-18s %10s %10s %8s\n", "model", "nhwc_ms", "nchw_ms", "speedup");
  double log_sum = 0;
  int n = 0;
  for (const std::string& name : models) {
    graph::Graph nhwc = models::buildModel(name), nchw = nhwc;
    graph::optimizeGraph(nhwc, {.channels_last = true});
    graph::optimizeGraph(nchw, {.channels_last = false});
    executor::CompiledModel a = executor::CompiledModel::compile(nhwc), b = executor::CompiledModel::compile(nchw);
    auto inputs = executor::randomInputs(nhwc, 1);
    bench::Interleaved t = bench::timeInterleaved([&] { a.run(inputs); }, [&] { b.run(inputs); }, rounds, 200);
    log_sum += std::log(t.speed_ratio);
    ++n;
    if (json) {
      std::cout << Json{{"model", name},
                        {"nhwc_ms", t.a_s * 1e3},
                        {"nchw_ms", t.b_s * 1e3},
                        {"speedup", t.speed_ratio},
                        {"threads", threads}}
                       .dump()
                << std::endl;
    } else {
      std::printf("%-18s %10.2f %10.2f %8.2f\n", name.c_str(), t.a_s * 1e3, t.b_s * 1e3, t.speed_ratio);
      std::fflush(stdout);
    }
  }
  double geo = n ? std::exp(log_sum / n) : 0;
  if (json)
    std::cout << Json{{"summary", true}, {"geomean_speedup", geo}, {"threads", threads}}.dump() << std::endl;
  else
    std::printf("geomean speedup of NHWC over NCHW %.2f on %d threads\n", geo, threads);
  return 0;
}
