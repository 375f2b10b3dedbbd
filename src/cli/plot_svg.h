// A small SVG plot for the experiment's results: one panel per model, speedup over untuned
// against search time (log scale), the tuning run's checkpoints as a line, transfer-then-tune as a
// dashed line, and each transfer mode as a marked point. Plain SVG text, no dependencies; readable in any browser.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ttune::cli {

struct PlotPoint {
  std::string label;  // legend entry, e.g. "pool"
  double time_s = 0, speedup = 1;
};

struct PlotPanel {
  std::string title;
  std::vector<std::pair<double, double>> curve;      // tuning: (time_s, speedup), time ascending
  std::vector<std::pair<double, double>> continued;  // transfer, then tune: (total search time, speedup)
  std::vector<PlotPoint> points;                     // transfer modes
};

std::string speedupPlotSvg(const std::vector<PlotPanel>& panels, const std::string& title);

}  // namespace ttune::cli
