// Fuzz target: .npy files (model inputs given on the command line).
#include <string_view>

#include "fuzz_targets.h"
#include "runtime/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto a = ttune::runtime::parseNpy(std::string_view(reinterpret_cast<const char*>(data), size), "input.npy");
  if (a.ok() && static_cast<size_t>(a->bytes()) > size) __builtin_trap();  // never more data than bytes given
  return 0;
}
