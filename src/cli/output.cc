#include "cli/output.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "measure/speedup.h"
#include "support/strings.h"

namespace ttune::cli {

void printJson(const Json& j) { std::cout << j.dump() << std::endl; }

bool stdoutIsTerminal() { return isatty(STDOUT_FILENO); }
bool stderrIsTerminal() { return isatty(STDERR_FILENO); }

std::string formatSeconds(double s) {
  if (s < 1e-3) return strFormat("%.1f us", s * 1e6);
  if (s < 1) return strFormat("%.3f ms", s * 1e3);
  if (s < 120) return strFormat("%.2f s", s);
  int m = static_cast<int>(s / 60);
  return strFormat("%d min %d s", m, static_cast<int>(s - 60 * m));
}

std::string refineSummary(const Json& j) {
  if (!j.contains("refine_choice")) return "";
  if (!j.contains("refine_in_model_rounds"))
    return "  in-model refinement: every kernel's in-model pick is its isolated pick\n";
  std::string ratio = measure::formatSpeedup(measure::speedupFromJson(j, "refine_in_model_"));
  if (j["refine_choice"] == "in-model")
    return strFormat("  in-model refinement kept its picks (%d kernels changed): %s over the isolated picks\n",
                     j["refined_kernels_changed"].get<int>(), ratio.c_str());
  return "  in-model refinement kept the isolated picks: its picks " + ratio + ", not faster beyond the spread\n";
}

std::string throughputText(double flops, double seconds, double peak_gflops) {
  if (seconds <= 0) return "";
  double gflops = flops / seconds * 1e-9;
  if (peak_gflops <= 0) return strFormat("%.0f GFLOP/s", gflops);
  return strFormat("%.0f GFLOP/s, %.0f%% of the float32 FMA peak", gflops, 100 * gflops / peak_gflops);
}

std::string formatCount(double v) {
  if (v >= 1e12) return strFormat("%.2f T", v / 1e12);
  if (v >= 1e9) return strFormat("%.2f G", v / 1e9);
  if (v >= 1e6) return strFormat("%.2f M", v / 1e6);
  if (v >= 1e3) return strFormat("%.2f K", v / 1e3);
  return strFormat("%.0f", v);
}

}  // namespace ttune::cli
