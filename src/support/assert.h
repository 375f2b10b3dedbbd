// Internal invariant checks. TT_ASSERT is always on (also in Release): a failed assertion is a bug
// in ttune, never a user error, and aborts with the file, line and message. User-facing failures
// use ttune::Error (error.h) instead.
#pragma once

#include <string>

namespace ttune::detail {
[[noreturn]] void assertFail(const char* cond, const char* file, int line, const std::string& msg);
}

#define TT_ASSERT(cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond)) ::ttune::detail::assertFail(#cond, __FILE__, __LINE__, std::string(__VA_ARGS__)); \
  } while (0)

#define TT_UNREACHABLE(msg) ::ttune::detail::assertFail("unreachable", __FILE__, __LINE__, msg)
