#include "cli/target_option.h"

#include <CLI/CLI.hpp>

#include "codegen/target.h"
#include "measure/worker_command.h"
#include "support/error.h"

namespace ttune::cli {

void addTargetOption(CLI::App* cmd, std::string& target) {
  cmd->add_option("--target", target,
                  "Code for: host (default), x86-64-v3 (AVX2+FMA), x86-64-v4 (AVX-512), an LLVM CPU name (znver3, "
                  "skylake-avx512, ...), aarch64 or an AArch64 CPU (cortex-a72, neoverse-n1, ...; docs/edge.md)");
}

schedule::Target resolveTargetOption(const std::string& name, TargetUse use) {
  auto t = codegen::resolveTarget(name);
  if (!t.ok()) fail(t.error());
  if (use == TargetUse::RunHere) {
    Status can = codegen::runnable(*t);
    if (!can.ok()) fail(can.error());
  }
  if (use == TargetUse::Measure) {
    // Code this machine cannot run is measured by a worker for it (on the device, or emulated).
    auto worker = measure::workerCommandFor(*t);
    if (!worker.ok()) fail(worker.error());
  }
  return *t;
}

}  // namespace ttune::cli
