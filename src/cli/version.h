// `ttune --version`: what a bug report needs — ttune's version and commit, how it was built, the
// LLVM and XGBoost it runs with, the target it detects on this machine, the measurement worker and
// the banks it uses by default. One JSON object (versionJson) and its text rendering (versionText).
#pragma once

#include <string>

#include "support/json.h"

namespace ttune::cli {

Json versionJson();
std::string versionText(const Json& version);

}  // namespace ttune::cli
