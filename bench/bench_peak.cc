// bench_peak: the machine's measured single-precision FMA peak per ISA level and thread count
// (the denominator of every "% of peak" the other benchmarks print), with the CPU it ran on.
//
//   bench_peak [--threads N] [--json]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "codegen/target.h"
#include "measure/peak.h"
#include "support/json.h"

using namespace ttune;

int main(int argc, char** argv) {
  CLI::App app{"Measured FMA peak of this machine"};
  int threads = codegen::hostTarget().cores;
  bool json = false;
  app.add_option("--threads", threads, "Threads running FMAs at once (default: all cores)");
  app.add_flag("--json", json, "One JSON object");
  CLI11_PARSE(app, argc, argv);
  Json j{{"cpu", codegen::describe(codegen::hostTarget())}, {"threads", threads}};
  for (const char* isa : {"avx2", "avx512"}) {
    double one = measure::measurePeakGflops(isa, 1), all = measure::measurePeakGflops(isa, threads);
    j[isa] = {{"gflops_1_thread", one}, {"gflops", all}};
    if (!json) {
      if (one > 0)
        std::printf("%-7s %8.1f GFLOP/s on 1 thread, %8.1f on %d threads\n", isa, one, all, threads);
      else
        std::printf("%-7s not supported by this machine\n", isa);
    }
  }
  if (json)
    std::cout << j.dump() << std::endl;
  else
    std::printf("cpu     %s\n", j["cpu"].get<std::string>().c_str());
  return 0;
}
