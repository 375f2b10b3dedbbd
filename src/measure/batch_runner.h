// Measurement somewhere else, many candidates at once: the Measurer hands rounds of requests to a
// BatchRunner (a queue that measurement workers on other hosts take jobs from, cli/fleet.h)
// instead of timing them one by one in its own worker process, and gets one result per request,
// in order. A request that could not be measured comes back with its error kind and the reason;
// wait/runAll throw Error only when the measurement cannot go on at all (e.g. the queue is gone).
//
// Rounds are submitted without waiting, so several can be in flight: while the workers measure
// one, the tuner searches and compiles the next (autotune/tuner.h). Each submitted round is waited
// for exactly once, in any order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "measure/runner.h"

namespace ttune::measure {

class BatchRunner {
 public:
  virtual ~BatchRunner() = default;
  // Hands the requests over and returns the round's handle at once.
  virtual int64_t submit(const std::vector<RunRequest>& requests) = 0;
  // Blocks until every request of a submitted round has its result.
  virtual std::vector<RunResult> wait(int64_t round) = 0;
  // How many requests it measures at the same time (its live workers; at least 1).
  virtual int parallelism() = 0;
  // "3 workers of target znver4 in postgresql://..." (for messages).
  virtual std::string describe() const = 0;

  std::vector<RunResult> runAll(const std::vector<RunRequest>& requests) { return wait(submit(requests)); }
};

}  // namespace ttune::measure
