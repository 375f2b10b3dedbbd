// The --target option of the commands that compile code: which machine the code is for
// (codegen/target.h). Commands that run a whole model in this process refuse a target this
// machine cannot execute; commands that only measure kernels accept one a worker can measure
// (measure/worker_command.h: the device, or an emulator).
#pragma once

#include <string>

#include "schedule/target.h"

namespace CLI {
class App;
}

namespace ttune::cli {

void addTargetOption(CLI::App* cmd, std::string& target);
enum class TargetUse {
  Compile,  // code is only generated (export, show-schedule)
  RunHere,  // a model runs in this process (run, compare, refresh, experiment)
  Measure,  // kernels are measured by a worker (tune, transfer, op)
};
// The named target; throws Error (one sentence) for an unknown name, or when its code cannot be
// used as `use` needs.
schedule::Target resolveTargetOption(const std::string& name, TargetUse use);

}  // namespace ttune::cli
