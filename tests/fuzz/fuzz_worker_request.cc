// Fuzz target: the measurement worker's request parser (what comes through its pipe).
#include <vector>

#include "fuzz_targets.h"
#include "measure/worker_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<char> msg(reinterpret_cast<const char*>(data), reinterpret_cast<const char*>(data) + size);
  auto r = ttune::measure::parseWorkerRequest(msg);
  if (r.ok()) {
    if (r->specs.size() != r->given.size() || r->specs.size() != r->is_output.size() ||
        r->expected.size() > r->specs.size())
      __builtin_trap();
  }
  return 0;
}
