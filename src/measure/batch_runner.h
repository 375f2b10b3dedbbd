// Measurement somewhere else, many candidates at once: the Measurer hands a round of requests to
// a BatchRunner (a queue that measurement workers on other hosts take jobs from, cli/fleet.h)
// instead of timing them one by one in its own worker process, and gets one result per request,
// in order. A request that could not be measured comes back with its error kind and the reason;
// runAll throws Error only when the measurement cannot go on at all (e.g. the queue is gone).
#pragma once

#include <string>
#include <vector>

#include "measure/runner.h"

namespace ttune::measure {

class BatchRunner {
 public:
  virtual ~BatchRunner() = default;
  virtual std::vector<RunResult> runAll(const std::vector<RunRequest>& requests) = 0;
  // "3 workers of target znver4 in postgresql://..." (for messages).
  virtual std::string describe() const = 0;
};

}  // namespace ttune::measure
