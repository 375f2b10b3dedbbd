// The --target option of the commands that compile code: which machine the code is for
// (codegen/target.h). Commands that run the code refuse a target this machine cannot execute.
#pragma once

#include <string>

#include "schedule/target.h"

namespace CLI {
class App;
}

namespace ttune::cli {

void addTargetOption(CLI::App* cmd, std::string& target);
// The named target; throws Error (one sentence) for an unknown name, or when `to_run` and this
// machine cannot execute its code.
schedule::Target resolveTargetOption(const std::string& name, bool to_run);

}  // namespace ttune::cli
