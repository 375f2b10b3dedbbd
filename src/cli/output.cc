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
  if (!j.contains("refine_choice")) return "";
  auto ratio = [&](const char* k) { return j.contains(k) ? strFormat("%.2fx", j[k].get<double>()) : std::string("-"); };
  std::string choice = j["refine_choice"];
  std::string what = choice == "in-model"   ? strFormat("kept its in-model picks (%d kernels changed)", j["refined_kernels_changed"].get<int>())
                     : choice == "defaults" ? "kept the default schedules"
                                            : "kept the isolated picks";
  return "  in-model refinement " + what + "; whole model over the isolated picks: in-model picks " +
         ratio("refine_in_model_speedup") + ", defaults " + ratio("refine_defaults_speedup") + "\n";
}

std::string formatCount(double v) {
  if (v >= 1e12) return strFormat("%.2f T", v / 1e12);
  if (v >= 1e9) return strFormat("%.2f G", v / 1e9);
  if (v >= 1e6) return strFormat("%.2f M", v / 1e6);
  if (v >= 1e3) return strFormat("%.2f K", v / 1e3);
  return strFormat("%.0f", v);
}

}  // namespace ttune::cli
