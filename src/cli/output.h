// Output helpers shared by commands: JSON printing, aligned text, number formatting, and whether
// stdout/stderr are terminals (progress bars only on terminals).
#pragma once

#include <string>

#include "support/json.h"

namespace ttune::cli {

void printJson(const Json& j);
bool stdoutIsTerminal();
bool stderrIsTerminal();
// "1.23 ms", "4.5 s", "2 min 3 s"
std::string formatSeconds(double s);
// "231.2 M", "4.1 G"
std::string formatCount(double v);
// The in-model refinement line of a `tune`/`transfer` summary (transfer::refineJson's fields), ""
// when the run did not refine.
std::string refineSummary(const Json& summary);

// A model's throughput against this machine's measured FMA peak (measure/peak.h), from the
// nominal FLOPs of its operators (a Winograd or other algorithmic rewrite counts as the direct
// convolution it replaces): "365 GFLOP/s, 91% of the float32 FMA peak" (int8 and bf16 kernels
// exceed it); without a peak, the rate only.
std::string throughputText(double flops, double seconds, double peak_gflops);

}  // namespace ttune::cli
