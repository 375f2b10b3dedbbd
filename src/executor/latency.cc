#include "executor/latency.h"

#include "measure/timing.h"
#include "support/timer.h"

namespace ttune::executor {
namespace {

// What ran just before a configuration leaves the core slower for tens of milliseconds: on a
// Zen 5 VM, alexnet's first run after the basic-defaults model took 20% longer and its runs
// recovered over about 70 ms (after 100 ms of scalar code: 40 ms), at 1 and 2 threads alike
// (bench_aa --trace). Timed from a block's first run in a fixed order, the configuration that
// follows a different one in every round paid that transient every round: identical copies of
// alexnet differed by 2.5-13%. So rounds run in balanced orders (measure/round_order.h), which
// alone turns the bias into spread, and each block starts with untimed runs of its own
// configuration for Interleave::block_warm_s (0.1 s by default), which removes most of it. A
// configuration whose run takes kNoWarmFromS or more is not warmed: the transient (about 5 ms of
// extra time) is then under 0.5% of one run, and a warm-up run would double the comparison's time.
constexpr double kNoWarmFromS = 1.0;

}  // namespace

ModelTimings timeCompiled(std::vector<CompiledModel>& models, const std::vector<runtime::NDArray>& inputs,
                          const measure::RoundsProtocol& protocol, const Interleave& how) {
  std::vector<std::function<void()>> runs;
  for (CompiledModel& m : models) runs.push_back([&m, &inputs] { m.run(inputs); });
  return timeRuns(runs, protocol, how);
}

ModelTimings timeRuns(const std::vector<std::function<void()>>& models, const measure::RoundsProtocol& protocol,
                      const Interleave& how) {
  std::vector<double> last_run_s(models.size());
  for (size_t i = 0; i < models.size(); ++i) {  // warm-up
    Timer t;
    models[i]();
    last_run_s[i] = t.seconds();
  }
  std::vector<std::vector<double>> times(models.size());
  std::vector<std::vector<double>> ratios(models.size());
  ModelTimings out;
  for (int r = 0;; ++r) {
    std::vector<double> round_median(models.size());
    std::vector<size_t> order = measure::roundOrder(how.order, models.size(), r);
    for (size_t j = 0; j < models.size(); ++j) {
      size_t i = order[j];
      for (double warmed = 0; warmed < how.block_warm_s && last_run_s[i] < kNoWarmFromS;) {
        Timer t;
        models[i]();
        last_run_s[i] = t.seconds();
        warmed += last_run_s[i];
      }
      std::vector<double> mine;
      const bool single = how.single_run_from_s > 0 && last_run_s[i] >= how.single_run_from_s;
      for (int k = 0; k < (single ? 1 : how.per_round); ++k) {
        Timer t;
        models[i]();
        mine.push_back(t.seconds());
        last_run_s[i] = mine.back();
      }
      times[i].insert(times[i].end(), mine.begin(), mine.end());
      round_median[i] = measure::median(mine);
    }
    out.speedup.clear();
    for (size_t i = 0; i < models.size(); ++i) {
      ratios[i].push_back(round_median[0] / round_median[i]);
      out.speedup.push_back(measure::speedupOf(ratios[i], protocol.confidence));
    }
    if (measure::roundsDone(std::vector<measure::Speedup>(out.speedup.begin() + 1, out.speedup.end()), r + 1, protocol))
      break;
  }
  for (size_t i = 0; i < models.size(); ++i) {
    out.median_s.push_back(measure::median(times[i]));
    out.timed_runs.push_back(static_cast<int>(times[i].size()));
  }
  return out;
}

ModelTimings timeModels(const graph::Graph& g, std::vector<ModelOptions> configs,
                        const measure::RoundsProtocol& protocol, const Interleave& how) {
  std::shared_ptr<KernelCache> cache = makeKernelCache();
  std::vector<CompiledModel> models;
  for (ModelOptions& c : configs) {
    if (!c.cache) c.cache = cache;
    models.push_back(CompiledModel::compile(g, c));
  }
  return timeCompiled(models, randomInputs(g, 1), protocol, how);
}

}  // namespace ttune::executor
