#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

#include "cli/output.h"
#include "support/strings.h"

namespace ttune::cli {

std::string progressBar(double f, int width) {
  f = std::max(0.0, std::min(1.0, f));
  int full = static_cast<int>(f * width);
  return "[" + std::string(full, '#') + std::string(width - full, '.') + "]";
}

LiveView::LiveView(bool verbose) : tty_(stderrIsTerminal()), verbose_(verbose) {}
LiveView::~LiveView() = default;

void LiveView::update(double done, double total, double elapsed, const std::string& headline,
                      const std::vector<std::string>& lines) {
  double f = total > 0 ? done / total : 0;
  std::string eta = f > 0 && f < 1 ? formatSeconds(elapsed / f - elapsed) : "-";
  std::string top = strFormat("%s %3.0f%%  %s elapsed, ETA %s  %s", progressBar(f, 30).c_str(), 100 * f,
                              formatSeconds(elapsed).c_str(), eta.c_str(), headline.c_str());
  if (!tty_) {
    if (verbose_ && elapsed - last_plain_ >= 5) {
      std::fprintf(stderr, "%s\n", top.c_str());
      last_plain_ = elapsed;
    }
    return;
  }
  // Move up over the previous view and redraw it.
  if (drawn_ > 0) std::fprintf(stderr, "\x1b[%dA", drawn_);
  std::fprintf(stderr, "\x1b[2K%s\n", top.c_str());
  for (const std::string& l : lines) std::fprintf(stderr, "\x1b[2K  %s\n", l.c_str());
  for (int i = static_cast<int>(lines.size()) + 1; i < drawn_; ++i) std::fprintf(stderr, "\x1b[2K\n");
  int now = static_cast<int>(lines.size()) + 1;
  if (now < drawn_) std::fprintf(stderr, "\x1b[%dA", drawn_ - now);
  drawn_ = now;
  std::fflush(stderr);
}

void LiveView::finish() { drawn_ = 0; }

}  // namespace ttune::cli
