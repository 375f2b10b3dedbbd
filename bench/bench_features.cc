// Throughput of the cost model's feature extraction (Ansor's bottleneck, ansor-study §9) on the
// states the search itself samples for the bench_tune workloads: extraction from already
// lowered IR, and lowering + extraction (what the search pays for each new state). Counters:
// states/s and stores/s (one feature row per store).
//
//   bench_features [--benchmark_filter=REGEX] [--benchmark_format=json] ...
#include <benchmark/benchmark.h>

#include "autotune/features.h"
#include "autotune/sampler.h"
#include "autotune/sketch.h"
#include "cases.h"
#include "lower/lower.h"
#include "support/rng.h"

namespace {

using namespace ttune;

// 200 states sampled from the workload's sketches with a fixed seed.
std::vector<schedule::State> sampledStates(const std::string& workload) {
  bench::Workload w = workload == "matmul_1024" ? bench::matmulWorkload(1024) : bench::resnetConv(workload);
  std::vector<schedule::State> sketches = autotune::generateSketches(w.dag);
  Rng rng(42);
  std::vector<schedule::State> out;
  for (int i = 0; out.size() < 200 && i < 4000; ++i)
    if (auto s = autotune::sampleState(sketches[rng.index(sketches.size())], rng, {})) out.push_back(std::move(*s));
  return out;
}

void report(benchmark::State& st, int64_t states, int64_t stores) {
  st.counters["states/s"] = benchmark::Counter(static_cast<double>(states), benchmark::Counter::kIsRate);
  st.counters["stores/s"] = benchmark::Counter(static_cast<double>(stores), benchmark::Counter::kIsRate);
}

void extractOnly(benchmark::State& st, const std::string& workload) {
  std::vector<std::pair<lower::LoweredFunc, schedule::State>> funcs;
  for (const schedule::State& s : sampledStates(workload))
    if (auto f = lower::lower(s, "kernel"); f.ok()) funcs.emplace_back(std::move(*f), s);
  if (funcs.empty()) {
    st.SkipWithError("no state lowered");
    return;
  }
  int64_t states = 0, stores = 0;
  size_t i = 0;
  for (auto _ : st) {
    const auto& [f, s] = funcs[i++ % funcs.size()];
    autotune::StateFeatures feats = autotune::extractFeatures(f, &s);
    benchmark::DoNotOptimize(feats.data.data());
    ++states;
    stores += feats.n_stores;
  }
  report(st, states, stores);
}

void lowerAndExtract(benchmark::State& st, const std::string& workload) {
  std::vector<schedule::State> states_in = sampledStates(workload);
  if (states_in.empty()) {
    st.SkipWithError("no state sampled");
    return;
  }
  int64_t states = 0, stores = 0;
  size_t i = 0;
  for (auto _ : st) {
    auto feats = autotune::featuresOf(states_in[i++ % states_in.size()]);
    if (feats.ok()) stores += feats->n_stores;
    ++states;
  }
  report(st, states, stores);
}

const char* const kWorkloads[] = {"matmul_1024", "conv3x3_56_c64", "conv3x3_14_c256", "conv1x1_56_c64_k256",
                                  "conv1x1_7_c512_k2048"};

}  // namespace

int main(int argc, char** argv) {
  for (const char* w : kWorkloads) {
    std::string name = w;
    benchmark::RegisterBenchmark(("extract/" + name).c_str(), [name](benchmark::State& st) { extractOnly(st, name); });
    benchmark::RegisterBenchmark(("lower+extract/" + name).c_str(),
                                 [name](benchmark::State& st) { lowerAndExtract(st, name); });
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
