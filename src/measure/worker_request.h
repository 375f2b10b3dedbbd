// The measurement worker's requests, parsed and validated (worker.cc answers them; the Runner
// writes them). Separate so that the parser can be fuzzed: any byte string either parses into a
// request whose every count and size is within bounds, or gives the reason it does not.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "codegen/codegen.h"
#include "measure/timing.h"
#include "support/expected.h"
#include "te/dtype.h"
#include "te/tensor.h"

namespace ttune::measure {

struct WorkerRequest {
  codegen::ObjectCode code;
  int32_t threads = 0;
  TimingOptions timing;
  uint64_t seed = 0;
  std::vector<std::pair<te::Shape, te::DType>> specs;  // every kernel argument
  std::vector<bool> is_output;
  std::vector<std::vector<char>> given;     // per argument: its bytes, or empty for seeded random data
  std::vector<std::vector<char>> expected;  // per output, in order: reference bytes (optional)
  double atol = 0, rtol = 0;
};

Expected<WorkerRequest> parseWorkerRequest(const std::vector<char>& message);

}  // namespace ttune::measure
