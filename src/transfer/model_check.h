// The whole-model check that ends everything that picks schedules for a model: `tune`,
// `transfer` in every mode, `db refresh` and the validation of imported records on first use.
// Kernel picks are made on isolated times; inside the model a kernel reads what the previous one
// left in the caches, and the picks interact, so a set of picks that each won alone can still
// make the model slower. checkModel times the model with the picks against the model with its
// default schedules, interleaved until the ratio is known (executor/latency.h, measure/speedup.h),
// and keeps the picks only when the whole interval of the speedup lies above 1: a choice inside
// the spread keeps the defaults. The chosen records name every workload that has a default
// record (its pick, or its default), so a stored choice leaves no kernel to the bank's other
// records.
#pragma once

#include <string>
#include <vector>

#include "codegen/target.h"
#include "executor/latency.h"
#include "graph/graph.h"
#include "measure/speedup.h"
#include "schedule/baseline.h"
#include "schedule/record.h"
#include "support/json.h"

namespace ttune::transfer {

struct ModelCheckOptions {
  schedule::Target target = codegen::hostTarget();
  schedule::Baseline baseline = schedule::Baseline::Strong;  // kernels without a record run these defaults
  measure::RoundsProtocol protocol = measure::decided(measure::modelRounds());
  int per_round = 3;
  double single_run_from_s = executor::kSingleRunFromS;  // executor::Interleave
  std::shared_ptr<executor::KernelCache> cache;          // kernels compiled before (TransferResult::compiled)
};

struct ModelCheck {
  std::vector<schedule::Record> chosen;  // the picks (when kept), else the default records
  bool kept_picks = false;
  bool picks_differ = false;           // some pick is not its default (else nothing was timed against)
  measure::Speedup speedup;            // the picks over the defaults
  double defaults_s = 0, picks_s = 0;  // median whole-model latencies over all runs
  // The kept model's latency as the comparison reads it: the defaults' median over the picks'
  // paired speedup when they are kept (so it agrees with the printed ratio), else the defaults'.
  double chosenSeconds() const { return kept_picks ? defaults_s / speedup.median : defaults_s; }
  int kernels_changed = 0;  // workloads whose kept choice is not the default schedule
  bool whole_model = true;  // false: the kernels' times stand in (kernelLevelCheck)
};

// For code this process cannot run (another machine's, measured by a worker for it): the whole
// model cannot be timed here, so the kernels' side-by-side re-timing decides alone (each kernel's
// pick kept when it beat its default beyond the spread) and the model's figures are the
// occurrence-weighted sums of the kernels' times, `defaults_s` and `picks_s`.
ModelCheck kernelLevelCheck(const std::vector<schedule::Record>& chosen, double defaults_s, double picks_s,
                            int kernels_changed);

// `picks`: at most one record per workload (default records allowed); `defaults`: records of
// the default schedules (provenance source "default"), one per workload. Compiles and times
// both whole models.
ModelCheck checkModel(const graph::Graph& g, const std::vector<schedule::Record>& picks,
                      const std::vector<schedule::Record>& defaults, const ModelCheckOptions& options = {});

// The default records (source "default") among `records`, one per workload (the last wins).
std::vector<schedule::Record> defaultRecords(const std::vector<schedule::Record>& records);

// JSON fields of a check for summaries and run results: untuned_ms, chosen_ms (the model as
// kept), picks_ms, picks_kept, kernels_changed and the picks' speedup over the defaults with
// its interval and rounds (speedup, speedup_lo, speedup_hi, rounds, round_ratios).
Json checkJson(const ModelCheck& c);

// The printed verdict: "1.23x (1.19-1.27 over 9 rounds), 5 of 27 kernels changed" or
// "no gain beyond the spread: 0.99x (0.97-1.01 over 15 rounds), defaults kept".
std::string checkVerdict(const Json& check_json, size_t kernels);

}  // namespace ttune::transfer
