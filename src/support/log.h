// Leveled logging to stderr. Quiet by default (warnings and errors only); --verbose raises it.
#pragma once

#include <string>

#include "support/error.h"

namespace ttune {

enum class LogLevel { Debug = 0, Info = 1, Warning = 2, Error = 3, Silent = 4 };

void setLogLevel(LogLevel level);
LogLevel logLevel();
void logMessage(LogLevel level, const std::string& msg);

template <class... Args>
void logInfo(const Args&... args) {
  if (logLevel() <= LogLevel::Info) logMessage(LogLevel::Info, cat(args...));
}
template <class... Args>
void logDebug(const Args&... args) {
  if (logLevel() <= LogLevel::Debug) logMessage(LogLevel::Debug, cat(args...));
}
template <class... Args>
void logWarning(const Args&... args) {
  if (logLevel() <= LogLevel::Warning) logMessage(LogLevel::Warning, cat(args...));
}

}  // namespace ttune
