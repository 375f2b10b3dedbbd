#include "cli/target_option.h"

#include <CLI/CLI.hpp>

#include "codegen/target.h"
#include "support/error.h"

namespace ttune::cli {

void addTargetOption(CLI::App* cmd, std::string& target) {
  cmd->add_option("--target", target,
                  "Code for: host (default), x86-64-v3 (AVX2+FMA), x86-64-v4 (AVX-512), or an LLVM CPU name (znver3, "
                  "skylake-avx512, ...)");
}

schedule::Target resolveTargetOption(const std::string& name, bool to_run) {
  auto t = codegen::resolveTarget(name);
  if (!t.ok()) fail(t.error());
  if (to_run) {
    Status can = codegen::runnable(*t);
    if (!can.ok()) fail(can.error());
  }
  return *t;
}

}  // namespace ttune::cli
