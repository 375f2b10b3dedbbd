#include "executor/latency.h"

#include "measure/timing.h"
#include "support/timer.h"

namespace ttune::executor {

ModelTimings timeCompiled(std::vector<CompiledModel>& models, const std::vector<runtime::NDArray>& inputs, int rounds,
                          int per_round) {
  for (auto& m : models) m.run(inputs);  // warm-up
  std::vector<std::vector<double>> times(models.size());
  std::vector<std::vector<double>> ratios(models.size());
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> round_median(models.size());
    for (size_t i = 0; i < models.size(); ++i) {
      std::vector<double> mine;
      for (int k = 0; k < per_round; ++k) {
        Timer t;
        models[i].run(inputs);
        mine.push_back(t.seconds());
      }
      times[i].insert(times[i].end(), mine.begin(), mine.end());
      round_median[i] = measure::median(mine);
    }
    for (size_t i = 0; i < models.size(); ++i) ratios[i].push_back(round_median[0] / round_median[i]);
  }
  ModelTimings out;
  for (size_t i = 0; i < models.size(); ++i) {
    out.median_s.push_back(measure::median(times[i]));
    out.speedup_vs_first.push_back(measure::median(ratios[i]));
  }
  return out;
}

ModelTimings timeModels(const graph::Graph& g, std::vector<ModelOptions> configs, int rounds, int per_round) {
  std::shared_ptr<KernelCache> cache = makeKernelCache();
  std::vector<CompiledModel> models;
  for (ModelOptions& c : configs) {
    if (!c.cache) c.cache = cache;
    models.push_back(CompiledModel::compile(g, c));
  }
  return timeCompiled(models, randomInputs(g, 1), rounds, per_round);
}

}  // namespace ttune::executor
