// Ctrl-C during a long command (tune, transfer): while an InterruptGuard lives, SIGINT only sets
// a flag, which the command polls between measurement batches so that it can close its run in
// the bank as interrupted (every committed record stays) instead of dying mid-write. The flag
// stays set after the guard ends (until the next guard starts), so a caller running several
// commands in a row can tell that a Ctrl-C came after the command's last poll.
#pragma once

namespace ttune::cli {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  static bool interrupted();
};

}  // namespace ttune::cli
