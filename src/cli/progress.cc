#include "cli/progress.h"

#include <sys/ioctl.h>
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

namespace {
// Columns of the terminal on stderr (80 when unknown). Lines are clipped to it: a wrapped line
// would take two rows and break the redraw, which moves up one row per line.
int terminalColumns() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}
std::string clip(const std::string& s, int columns) {
  return static_cast<int>(s.size()) < columns ? s : s.substr(0, static_cast<size_t>(std::max(1, columns - 1)));
}
}  // namespace

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
  int cols = terminalColumns();
  if (drawn_ > 0) std::fprintf(stderr, "\x1b[%dA", drawn_);
  std::fprintf(stderr, "\x1b[2K%s\n", clip(top, cols).c_str());
  for (const std::string& l : lines) std::fprintf(stderr, "\x1b[2K%s\n", clip("  " + l, cols).c_str());
  for (int i = static_cast<int>(lines.size()) + 1; i < drawn_; ++i) std::fprintf(stderr, "\x1b[2K\n");
  int now = static_cast<int>(lines.size()) + 1;
  if (now < drawn_) std::fprintf(stderr, "\x1b[%dA", drawn_ - now);
  drawn_ = now;
  std::fflush(stderr);
}

void LiveView::finish() { drawn_ = 0; }

void showKernelPass(LiveView& view, int kernels_done, int kernels_total, int64_t measured, double elapsed_s,
                    const std::string& current) {
  view.update(kernels_done, kernels_total, elapsed_s,
              strFormat("%d/%d kernels, %lld schedules measured", kernels_done, kernels_total,
                        static_cast<long long>(measured)),
              current.empty() ? std::vector<std::string>{} : std::vector<std::string>{"measuring " + current});
}

}  // namespace ttune::cli
