#include "executor/latency.h"

#include "measure/timing.h"
#include "support/timer.h"

namespace ttune::executor {

ModelTimings timeCompiled(std::vector<CompiledModel>& models, const std::vector<runtime::NDArray>& inputs,
                          const measure::RoundsProtocol& protocol, int per_round, RoundOrder order) {
  for (auto& m : models) m.run(inputs);  // warm-up
  std::vector<std::vector<double>> times(models.size());
  std::vector<std::vector<double>> ratios(models.size());
  ModelTimings out;
  for (int r = 0;; ++r) {
    std::vector<double> round_median(models.size());
    for (size_t j = 0; j < models.size(); ++j) {
      size_t i = order == RoundOrder::Rotating ? (j + static_cast<size_t>(r)) % models.size() : j;
      std::vector<double> mine;
      for (int k = 0; k < per_round; ++k) {
        Timer t;
        models[i].run(inputs);
        mine.push_back(t.seconds());
      }
      times[i].insert(times[i].end(), mine.begin(), mine.end());
      round_median[i] = measure::median(mine);
    }
    out.speedup.clear();
    for (size_t i = 0; i < models.size(); ++i) {
      ratios[i].push_back(round_median[0] / round_median[i]);
      out.speedup.push_back(measure::speedupOf(ratios[i], protocol.confidence));
    }
    if (measure::roundsDone(std::vector<measure::Speedup>(out.speedup.begin() + 1, out.speedup.end()), r + 1, protocol)) break;
  }
  for (size_t i = 0; i < models.size(); ++i) out.median_s.push_back(measure::median(times[i]));
  return out;
}

ModelTimings timeModels(const graph::Graph& g, std::vector<ModelOptions> configs, const measure::RoundsProtocol& protocol,
                        int per_round, RoundOrder order) {
  std::shared_ptr<KernelCache> cache = makeKernelCache();
  std::vector<CompiledModel> models;
  for (ModelOptions& c : configs) {
    if (!c.cache) c.cache = cache;
    models.push_back(CompiledModel::compile(g, c));
  }
  return timeCompiled(models, randomInputs(g, 1), protocol, per_round, order);
}

}  // namespace ttune::executor
