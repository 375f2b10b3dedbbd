// The schedule bank as the commands use it: opening the bank named by --db (or the default one,
// seeded once from the schedules shipped with ttune), registering a model's kernels, and a
// schedule provider serving the bank's best record per kernel for this machine.
#pragma once

#include <string>
#include <vector>

#include "executor/executor.h"
#include "graph/fusion.h"
#include "store/bank.h"

namespace ttune::cli {

// The help text of every --db option.
inline constexpr const char* kBankOptionHelp =
    "Schedule bank (default: $TTUNE_DB, else $XDG_DATA_HOME/ttune/bank.db, else ~/.local/share/ttune/bank.db)";

// The bank named by --db, or the default one (seeded once with the shipped schedules).
store::Bank openBank(const std::string& path);
// This machine as a record target (CPU, vector width, thread count).
schedule::TargetInfo currentTarget();
// Registers the model and its distinct kernels (with occurrences).
void registerModel(store::Bank& bank, const std::string& name, const std::string& spec,
                   const std::vector<graph::Kernel>& kernels);
executor::ScheduleProvider bankProvider(const store::Bank& bank, const std::vector<graph::Kernel>& kernels);

}  // namespace ttune::cli
