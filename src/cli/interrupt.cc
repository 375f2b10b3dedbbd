#include "cli/interrupt.h"

#include <atomic>
#include <csignal>

namespace ttune::cli {

namespace {
std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted = true; }
using Handler = void (*)(int);
Handler g_previous = SIG_DFL;
}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted = false;
  g_previous = std::signal(SIGINT, onInterrupt);
}

InterruptGuard::~InterruptGuard() { std::signal(SIGINT, g_previous); }

bool InterruptGuard::interrupted() { return g_interrupted; }

}  // namespace ttune::cli
