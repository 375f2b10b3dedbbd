// The schedule bank as the commands use it: opening the bank named by --db (or the default one,
// seeded once from the schedules shipped with ttune), registering a model's kernels, and a
// schedule provider serving the bank's best record per kernel for this machine.
#pragma once

#include <optional>
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
// Records measured here: this machine's CPU, the code's ISA level, the thread count.
schedule::TargetInfo currentTarget(const schedule::Target& code);
// Registers the model and its distinct kernels (with occurrences).
void registerModel(store::Bank& bank, const std::string& name, const std::string& spec,
                   const std::vector<graph::Kernel>& kernels);
// The schedule per kernel of `model` for code of `code`'s ISA level: the model's in-model choice
// when its newest run here made one (transfer/compare.h, inModelChoice), else the best record
// measured on this CPU when there is one, else on any CPU of that level (e.g. the shipped bank on
// a new machine).
executor::ScheduleProvider bankProvider(const store::Bank& bank, const std::string& model,
                                        const std::vector<graph::Kernel>& kernels, const schedule::Target& code);
// The schedules of the --records FILE / --db [FILE] options of the commands that compile a model:
// the records file's best record per kernel, the bank's for `model` (db set; "" the default
// bank), or none (every kernel its default schedule). Throws Error when both are given or the
// file is bad.
executor::ScheduleProvider scheduleOption(const std::string& records, const std::optional<std::string>& db,
                                          const std::string& model, const graph::Graph& g, const schedule::Target& code);

}  // namespace ttune::cli
