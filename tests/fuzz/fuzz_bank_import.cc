// Fuzz target: importing a records file into a bank (one bank per process; every input is
// written to a file and imported). The bank must stay consistent whatever it is given.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fuzz_targets.h"
#include "store/bank.h"
#include "support/log.h"

namespace {
struct Scratch {
  std::filesystem::path dir;
  std::optional<ttune::store::Bank> bank;
  Scratch() {
    ttune::setLogLevel(ttune::LogLevel::Silent);  // every skipped line would print a warning
    dir = std::filesystem::temp_directory_path() / ("ttune-fuzz-bank-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto b = ttune::store::Bank::open((dir / "bank.db").string());
    if (!b.ok()) __builtin_trap();
    bank.emplace(std::move(*b));
  }
  ~Scratch() {
    bank.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Scratch s;
  std::string file = (s.dir / "input.jsonl").string();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  (void)s.bank->importJsonl(file);
  if (!s.bank->integrityCheck().ok()) __builtin_trap();
  return 0;
}
