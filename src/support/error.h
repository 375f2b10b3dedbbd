// User-facing errors: a bad shape, an unknown operator, a malformed file. An Error carries one
// clear sentence naming the thing at fault; the command line prints it and exits non-zero.
// Deep code throws Error; boundaries (CLI, measurement) catch it. Never use it for bugs.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace ttune {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Concatenates its arguments with operator<< into a string.
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <class... Args>
[[noreturn]] void fail(const Args&... args) {
  throw Error(cat(args...));
}

// Throws Error(message) unless cond holds; for argument checking at API boundaries.
#define TT_CHECK_ARG(cond, ...)              \
  do {                                       \
    if (!(cond)) ::ttune::fail(__VA_ARGS__); \
  } while (0)

}  // namespace ttune
