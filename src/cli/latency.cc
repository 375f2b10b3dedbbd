#include "cli/latency.h"

#include "measure/timing.h"
#include "support/timer.h"

namespace ttune::cli {

double modelLatency(const graph::Graph& g, const executor::ModelOptions& options, int repeat) {
  return modelLatencies(g, {options}, 1, repeat)[0];
}

std::vector<double> modelLatencies(const graph::Graph& g, const std::vector<executor::ModelOptions>& configs, int rounds,
                                   int per_round) {
  std::vector<executor::CompiledModel> models;
  for (const auto& c : configs) models.push_back(executor::CompiledModel::compile(g, c));
  auto inputs = executor::randomInputs(g, 1);
  for (auto& m : models) m.run(inputs);  // warm-up
  std::vector<std::vector<double>> times(models.size());
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < models.size(); ++i)
      for (int k = 0; k < per_round; ++k) {
        Timer t;
        models[i].run(inputs);
        times[i].push_back(t.seconds());
      }
  std::vector<double> out;
  for (auto& t : times) out.push_back(measure::median(t));
  return out;
}

}  // namespace ttune::cli
