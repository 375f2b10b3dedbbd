// The machine's measured FMA peak: every GFLOP/s figure the benchmarks print, and the model
// latencies `ttune transfer` / `tune` report, are also given as a share of it. A loop of independent vector FMAs
// (enough accumulators to cover the latency of both FMA pipes) runs on `threads` threads at once for about `seconds`;
// the figure is the aggregate single-precision GFLOP/s. Measured for the ISA level of ttune's target, so an AVX2 build
// on an AVX-512 machine is compared with the AVX2 peak.
#pragma once

#include <string>

#include "schedule/target.h"

namespace ttune::measure {

// isa: "avx2" or "avx512" (0 when this machine lacks it, or for any other name).
double measurePeakGflops(const std::string& isa, int threads, double seconds = 0.3);
// The peak for code of `target`'s ISA level (0 when there is no such loop for it here).
double measurePeakGflops(const schedule::Target& target, int threads, double seconds = 0.3);

}  // namespace ttune::measure
