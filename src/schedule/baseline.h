// Which default schedules are the untuned baseline. Strong: ttune's own (register tiles sized to
// the target, packed weights, Winograd convolutions, transpose blocks), what users run. Basic: the
// kind of schedule TVM falls back to without tuning logs (parallel outer loops, a vectorized inner
// loop, direct convolutions), the baseline of the transfer-tuning paper's experiment, where tuning
// and transfer-tuning start far from the machine's limits. Runs and records say which baseline
// they were measured against; comparisons refuse to mix them.
#pragma once

#include <optional>
#include <string>

namespace ttune::schedule {

enum class Baseline { Strong, Basic };

inline const char* baselineName(Baseline b) { return b == Baseline::Basic ? "basic" : "strong"; }

inline std::optional<Baseline> parseBaseline(const std::string& name) {
  for (Baseline b : {Baseline::Strong, Baseline::Basic})
    if (name == baselineName(b)) return b;
  return std::nullopt;
}

}  // namespace ttune::schedule
