#include "cli/output.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

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
  if (!j.contains("refined_kernels_changed")) return "";
  double s = j.value("refine_speedup_over_isolated", 1.0);
  if (!j.value("refine_kept", true))
    return strFormat("  in-model refinement kept the isolated picks (its own picks ran the model %.2fx as fast)\n", s);
  return strFormat("  in-model refinement changed the choice of %d kernels (whole model %.2fx over the isolated picks)\n",
                   j["refined_kernels_changed"].get<int>(), s);
}

std::string formatCount(double v) {
  if (v >= 1e12) return strFormat("%.2f T", v / 1e12);
  if (v >= 1e9) return strFormat("%.2f G", v / 1e9);
  if (v >= 1e6) return strFormat("%.2f M", v / 1e6);
  if (v >= 1e3) return strFormat("%.2f K", v / 1e3);
  return strFormat("%.0f", v);
}

}  // namespace ttune::cli
