// The schedule bank as the commands use it: opening the bank named by --db (or the default one,
// seeded once from the schedules shipped with ttune), registering a model's kernels, and a
// schedule provider serving the bank's best record per kernel for this machine.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "executor/executor.h"
#include "graph/fusion.h"
#include "measure/worker_command.h"
#include "store/bank.h"
#include "support/json.h"
#include "support/temp_dir.h"
#include "transfer/refresh.h"

namespace ttune::cli {

// The help text of every --db option.
inline constexpr const char* kBankOptionHelp =
    "Schedule bank (default: $TTUNE_DB, else $XDG_DATA_HOME/ttune/bank.db, else ~/.local/share/ttune/bank.db)";

// The bank named by --db, or the default one (seeded once with the shipped schedules).
store::Bank openBank(const std::string& path);
// The worker that measures `code` (measure/worker_command.h) and the bank a run for it writes:
// the one --db names, or for an emulated worker a throw-away bank (holding a copy of the user's
// records when `copy_records`: transfer's candidates), so that emulated timings never reach the
// user's bank. Says so on stderr unless `quiet`.
struct RunBank {
  measure::WorkerCommand worker;
  bool foreign = false;              // code this process cannot run: kernels decide alone
  std::unique_ptr<TempDir> scratch;  // the throw-away bank's directory, when emulated
  store::Bank bank;
  bool stored() const { return !scratch; }
};
RunBank openRunBank(const std::string& db, const schedule::Target& code, bool copy_records, bool quiet);
struct WorkersMeasurement;  // cli/fleet.h
// What a tune or transfer run of a model writes to and measures with: `remote` (--workers) set,
// the bank --db names and the workers' measurement; otherwise openRunBank. The model and its
// kernels are registered in the bank, and `target` is what the run's records are measured on.
struct ModelRunBank {
  RunBank rb;
  schedule::TargetInfo target;
};
ModelRunBank openModelRunBank(const std::string& db, const schedule::Target& code, const WorkersMeasurement* remote,
                              bool copy_records, bool quiet, const std::string& name, const std::string& spec,
                              const std::vector<graph::Kernel>& kernels);
// Records measured here: this machine's CPU, the code's ISA level, the thread count.
schedule::TargetInfo currentTarget(const schedule::Target& code);
// Registers the model and its distinct kernels (with occurrences).
void registerModel(store::Bank& bank, const std::string& name, const std::string& spec,
                   const std::vector<graph::Kernel>& kernels);
// A refresh run of `model` here (transfer/refresh.h, refreshChoice): the bank's `candidates` best
// schedules of each kernel against today's defaults, stored with the outcome as the run's choice
// (and its check). `settings` join the run's; progress shows on a terminal when `show` (plain
// lines with `verbose`); Ctrl-C or an error closes the run as interrupted and throws.
struct RefreshRun {
  std::string run_id;
  transfer::RefreshOutcome outcome;
  Json result;  // what the run stored: {"choice": ..., "check": ...}
  double wall_s = 0;
};
// With `remote` (--workers) the kernels are measured by the bank's workers of that target and
// decide alone (transfer::RefreshOptions::whole_model).
RefreshRun refreshHere(store::Bank& bank, const std::string& model, const graph::Graph& g,
                       const std::vector<graph::Kernel>& kernels, const schedule::Target& code, int candidates,
                       const Json& settings, bool show, bool verbose = false,
                       const WorkersMeasurement* remote = nullptr);

// How a command that compiles a model uses the bank's schedules.
struct BankUse {
  std::string spec;        // the model's spec (registered with a validation run)
  bool validate = true;    // false (--no-validate): the bank's records as they are
  bool quiet = false;      // no progress display (--json, libraries)
  Json* report = nullptr;  // when set: what the validation did (empty object when it did not run)
  // The baseline of the model being compiled: a basic-baseline model (the paper's conditions,
  // an experiment's) takes its basic runs' choice, or the bank's records unvalidated.
  schedule::Baseline baseline = schedule::Baseline::Strong;
};

// The schedule per kernel of `model` for code of `code`'s ISA level. When the model has a choice
// of its own here (this CPU, ISA level and thread count: transfer/compare.h, inModelChoice),
// exactly that choice (kernels it does not name run their default schedule). Otherwise the
// bank's records (measured on this CPU, else on any CPU of the level, e.g. the shipped bank on a
// new machine) are candidates, not choices: they are validated here first -- each side by side
// with its default, then the whole model against its defaults (transfer/refresh.h,
// refreshChoice) -- and the outcome stored as this CPU's choice (a refresh run), so that the
// next run and `export` are instant. Without validation (use.validate false, or code this
// machine cannot run), the bank's best records as they are.
executor::ScheduleProvider bankProvider(store::Bank& bank, const std::string& model, const graph::Graph& g,
                                        const schedule::Target& code, const BankUse& use);
// The schedules of the --records FILE / --db [FILE] options of the commands that compile a model:
// the records file's best record per kernel, the bank's for `model` (db set; "" the default
// bank; bankProvider), or none (every kernel its default schedule). Throws Error when both are
// given or the file is bad.
executor::ScheduleProvider scheduleOption(const std::string& records, const std::optional<std::string>& db,
                                          const std::string& model, const graph::Graph& g, const schedule::Target& code,
                                          const BankUse& use);

}  // namespace ttune::cli
