#include "support/assert.h"

#include <cstdio>
#include <cstdlib>

namespace ttune::detail {

void assertFail(const char* cond, const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "ttune internal error: %s:%d: assertion '%s' failed%s%s\n", file, line, cond,
               msg.empty() ? "" : ": ", msg.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace ttune::detail
