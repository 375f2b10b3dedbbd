// The transfer-tuning evaluation of one model (the paper's protocol): a transfer run against a
// from-scratch tuning run of the same model, on the same machine and ISA level.
//
// Every latency of one comparison is timed the same way, in one interleaved group (executor/
// latency.h): untuned, transferred (the transfer run's choice per kernel: its fastest transferred
// schedule when that beat the default measured in the same run), and the tuning run's best
// schedules found by checkpoints of its elapsed time -- an eighth, a quarter and half of the
// transfer run's search time (so a tuning run that matches sooner shows a ratio below 1), the
// transfer's time, then every `step_s` after it (the paper: TT + 60 s, + 120 s, ...), up to the
// end of the tuning run. Speedups are medians of per-round paired ratios against untuned. The
// tuning time to match is the first checkpoint whose speedup reaches the transferred one, so its
// resolution is step_s after the transfer's time (a factor of 2 before it).
//
// Runs are refused, with the reason, when they cannot give an honest comparison: a tuning run
// warm-started from the bank is no from-scratch baseline, and runs measured on another CPU or
// ISA level than the target's do not compare with timings taken here.
//
// Transfer, then tune: with a continued run (a tuning run warm-started from the transfer run,
// `ttune tune --warm-start-run`), the same group also times its checkpoints -- the transfer
// choice improved by what the continued run found by each time -- at total search times
// (transfer time + the continued run's elapsed time), the curve that starts at transfer's point
// and should end at or above the from-scratch tuning run's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "executor/latency.h"
#include "graph/graph.h"
#include "measure/speedup.h"
#include "store/bank.h"
#include "support/expected.h"
#include "transfer/readout.h"

namespace ttune::transfer {

struct CompareOptions {
  schedule::Target target = codegen::hostTarget();
  // Both runs must have measured against this baseline (their settings' "defaults"); the
  // untuned model runs its defaults.
  schedule::Baseline baseline = schedule::Baseline::Strong;
  std::string tune_run, transfer_run;  // empty: the model's latest finished ones that qualify
  std::string continued_run;           // optional: a tuning run warm-started from the transfer run
  double step_s = 60;
  int max_checkpoints = 12;  // the step widens when the tuning run is longer
  measure::RoundsProtocol protocol = measure::modelRounds();
  int per_round = 3;
  double single_run_from_s = executor::kSingleRunFromS;  // executor::Interleave
};

struct Checkpoint {
  double elapsed_s = 0;  // of the tuning run
  double latency_s = 0;
  double speedup = 0;  // against untuned (the median of interval)
  measure::Speedup interval;
};

struct Comparison {
  std::string tune_run, transfer_run;
  double untuned_s = 0, transferred_s = 0, tuned_s = 0;  // median latencies
  double s_tt = 0, s_max = 0;                            // speedups over untuned (medians)
  measure::Speedup tt, max;                              // with their intervals
  double share = 0;                                      // (S_tt - 1) / (S_max - 1), 0 when S_max <= 1
  ShareReadout readout;                                  // %max and time to match with intervals (readout.h)
  double transfer_s = 0, tune_s = 0;                     // search times
  double step_s = 0;
  std::optional<double> match_s;          // tuning time at which it reached S_tt
  double tune_speedup_at_transfer_s = 0;  // what tuning reached in the transfer run's search time
  std::vector<Checkpoint> checkpoints;    // the last one is the whole tuning run
  // Transfer, then tune (when a continued run was given): elapsed_s is the total search time.
  std::string continued_run;
  std::vector<Checkpoint> continued;
  std::optional<double> continued_match_max_s;  // total search time at which it reached S_max
};

// The finished run of `model` and `kind` that compareRuns would use (latest qualifying), or the
// reason there is none. A tuning run must not be warm-started; both must be measured on this
// target's CPU and ISA level.
Expected<store::RunInfo> comparableRun(const store::Bank& bank, store::RunKind kind, const std::string& model,
                                       const std::string& wanted, const schedule::Target& target,
                                       schedule::Baseline baseline = schedule::Baseline::Strong);
// The baseline a run measured against (its settings' "defaults"; strong when absent).
schedule::Baseline runBaseline(const store::RunInfo& run);

// The transfer run's choice per workload, from its records: the one its result names (in-model
// refinement stores {"choice": {workload key: steps}}), else its fastest transferred schedule
// when that beat the default measured in the same run.
std::vector<schedule::Record> transferChoice(const std::vector<schedule::Record>& records,
                                             const Json& run_result = Json());
// The run result naming a choice of records (written only by in-model refinement).
Json choiceResult(const std::vector<schedule::Record>& chosen);
// The choice the commands that compile `model` honour (cli/bank_access.h): when the newest
// finished run of the model measured like `here` (same CPU, ISA level, threads) stored a choice
// (tune, transfer, db refresh and the validation on first use all do, after their whole-model
// check), the records it chose, default schedules included (possibly none: a model with no
// tunable kernel); else nullopt. A later finished run without a choice supersedes it. Runs
// against another baseline do not count (a basic-baseline choice beat only the basic defaults).
std::optional<std::vector<schedule::Record>> inModelChoice(const store::Bank& bank, const std::string& model,
                                                           const schedule::TargetInfo& here,
                                                           schedule::Baseline baseline = schedule::Baseline::Strong);
// The fastest ok record per workload, optionally only those measured by `limit_s` of the run.
std::vector<schedule::Record> bestPerWorkload(const std::vector<schedule::Record>& records, double limit_s = -1);

Expected<Comparison> compareRuns(const graph::Graph& g, const std::string& model, const store::Bank& bank,
                                 const CompareOptions& options);

}  // namespace ttune::transfer
