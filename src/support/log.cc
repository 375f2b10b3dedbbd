#include "support/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace ttune {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::Warning)};
std::mutex g_mu;
}  // namespace

void setLogLevel(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel logLevel() { return static_cast<LogLevel>(g_level.load()); }

void logMessage(LogLevel level, const std::string& msg) {
  static const char* names[] = {"debug", "info", "warning", "error", ""};
  std::lock_guard<std::mutex> lock(g_mu);
  std::fprintf(stderr, "ttune %s: %s\n", names[static_cast<int>(level)], msg.c_str());
}

}  // namespace ttune
