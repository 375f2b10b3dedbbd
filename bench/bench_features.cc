// Throughput of the cost model's feature extraction (a bottleneck of Ansor's implementation) on the
// states the search itself samples for the bench_tune workloads: extraction from already
// lowered IR, and lowering + extraction (what the search pays for each new state). Counters:
// states/s and stores/s (one feature row per store). The model/<name>/<kernel class> cases do
// what the search does per state on a zoo model's tunable kernels of that class: sample from
// the sketches, mutate (State replay included), lower and extract.
//
//   bench_features [--benchmark_filter=REGEX] [--benchmark_format=json] ...
#include <benchmark/benchmark.h>

#include <map>

#include "autotune/features.h"
#include "autotune/sampler.h"
#include "autotune/sketch.h"
#include "cases.h"
#include "graph/fusion.h"
#include "graph/passes.h"
#include "lower/lower.h"
#include "models/zoo.h"
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

// Lowering + extraction of each state in turn (what the search pays per new state).
void lowerAndExtractStates(benchmark::State& st, const std::vector<schedule::State>& states_in) {
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

void lowerAndExtract(benchmark::State& st, const std::string& workload) {
  lowerAndExtractStates(st, sampledStates(workload));
}

// States the search would score on a model's kernels of one class: sampled, then mutated.
struct ClassStates {
  std::vector<schedule::State> sampled, mutated;
};

std::map<std::string, ClassStates> modelStates(const std::string& model) {
  std::map<std::string, ClassStates> out;
  graph::Graph g = models::buildModel(model);
  graph::optimizeGraph(g, {.channels_last = true, .winograd = true});  // as `ttune tune` runs it
  std::vector<graph::Kernel> kernels = graph::partition(g);
  Rng rng(7);
  for (const graph::TunableKernel& t : graph::tunableKernels(kernels)) {
    ClassStates& cs = out[t.kernel->class_name];
    if (cs.sampled.size() >= 60) continue;
    std::vector<schedule::State> sketches = autotune::generateSketches(t.kernel->dag);
    if (sketches.empty()) continue;
    for (int i = 0; i < 400 && cs.sampled.size() < 60; ++i)
      if (auto s = autotune::sampleState(sketches[rng.index(sketches.size())], rng, {}))
        cs.sampled.push_back(std::move(*s));
  }
  for (auto& [name, cs] : out)
    for (size_t i = 0; i < cs.sampled.size() * 4 && cs.mutated.size() < cs.sampled.size(); ++i)
      if (auto m = autotune::mutateState(cs.sampled[i % cs.sampled.size()], rng, {}))
        cs.mutated.push_back(std::move(*m));
  return out;
}

void modelMutate(benchmark::State& st, const std::vector<schedule::State>& states) {
  int64_t n = 0;
  size_t i = 0;
  Rng rng(11);
  for (auto _ : st) {
    auto m = autotune::mutateState(states[i++ % states.size()], rng, {});
    benchmark::DoNotOptimize(m);
    ++n;
  }
  st.counters["states/s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}

const char* const kModels[] = {"googlenet", "resnet18"};

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
  // Kept alive for the whole run: the registered lambdas point into it.
  static std::map<std::string, std::map<std::string, ClassStates>> by_model;
  for (const char* m : kModels) {
    by_model[m] = modelStates(m);
    for (const auto& [cls, cs] : by_model[m]) {
      if (cs.sampled.empty()) continue;
      const ClassStates* p = &cs;
      std::string base = std::string("model/") + m + "/" + cls;
      benchmark::RegisterBenchmark((base + "/lower+extract").c_str(), [p](benchmark::State& st) {
        std::vector<schedule::State> all = p->sampled;
        all.insert(all.end(), p->mutated.begin(), p->mutated.end());
        lowerAndExtractStates(st, all);
      });
      benchmark::RegisterBenchmark((base + "/mutate").c_str(),
                                   [p](benchmark::State& st) { modelMutate(st, p->sampled); });
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
