#include "cli/latency.h"

#include "measure/timing.h"

namespace ttune::cli {

double modelLatency(const graph::Graph& g, const executor::ModelOptions& options, int repeat) {
  executor::CompiledModel m = executor::CompiledModel::compile(g, options);
  auto inputs = executor::randomInputs(g, 1);
  m.run(inputs);
  measure::TimingOptions t;
  t.number = 1;
  t.repeat = repeat;
  t.min_repeat_ms = 0;
  return measure::timeFunction([&] { m.run(inputs); }, t).median_s;
}

}  // namespace ttune::cli
