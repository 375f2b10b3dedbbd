// Fuzz target: record lines and step lists (the JSON read from records files and the bank).
#include <sstream>

#include "fuzz_targets.h"
#include "schedule/record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto r = ttune::schedule::recordFromLine(line);
    if (r.ok()) {
      // What is read must write back and read again to the same record.
      auto again = ttune::schedule::recordFromLine(ttune::schedule::recordToLine(*r));
      if (!again.ok() || ttune::schedule::recordToLine(*again) != ttune::schedule::recordToLine(*r)) __builtin_trap();
    }
    ttune::Json j = ttune::Json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_array())
      for (const ttune::Json& s : j) (void)ttune::schedule::stepFromJson(s);
  }
  return 0;
}
