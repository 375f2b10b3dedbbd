// A live view for long operations on a terminal: a block of lines redrawn in place (progress
// bar with ETA and the best result so far, plus detail lines, clipped to the terminal's width so
// that redrawing in place stays exact). Off a terminal it prints nothing unless verbose, then
// one plain line per update at most every few seconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ttune::cli {

class LiveView {
 public:
  explicit LiveView(bool verbose = false);
  ~LiveView();
  // done/total drive the bar and the ETA; lines are printed below it.
  void update(double done, double total, double elapsed_s, const std::string& headline,
              const std::vector<std::string>& lines = {});
  void finish();  // leaves the last view on screen

 private:
  bool tty_, verbose_;
  int drawn_ = 0;
  double last_plain_ = -1e9;
};

std::string progressBar(double fraction, int width);

// A pass over a model's kernels (transfer, refresh): the bar over kernels, the schedules measured
// so far, and the kernel being measured (its class; "" when none).
void showKernelPass(LiveView& view, int kernels_done, int kernels_total, int64_t measured, double elapsed_s,
                    const std::string& current);

}  // namespace ttune::cli
