// Refreshing a bank's schedules of a model against the schedules ttune would use without them.
// A record's time was measured once, on some machine, against the default schedules of the
// ttune that tuned it; when the defaults improve (or the records come from another machine, as
// the shipped bank does on a new host) the stored times no longer say whether the record beats
// today's default here. refreshRecords re-measures, on this host and in one batch per kernel,
// today's default schedule and the bank's few best distinct schedules of each of the model's
// kernels (records of this CPU and ISA level, else of any CPU of the level), side by side in
// interleaved rounds until their ratios are known (measure/speedup.h). The new records go
// to the sink: today's default (provenance source "default") and the bank's schedules (their
// source and origin kept, the refresh as their run). The caller then re-ranks them inside the
// compiled model (refine.h) and stores the choice as a refresh run, which `ttune run --db`
// honours (compare.h, inModelChoice). In this bank the re-measured records are no transfer
// candidates (their run is no cold tuning run, candidates.h); exported without their run (the
// shipped bank's files) the tuning ones are again, with times measured side by side with today's
// defaults.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graph/fusion.h"
#include "measure/measurer.h"
#include "schedule/record.h"
#include "store/bank.h"
#include "transfer/model_check.h"
#include "transfer/refine.h"
#include "transfer/transfer.h"

namespace ttune::transfer {

struct RefreshOptions {
  std::string model, run_id;
  schedule::TargetInfo target;  // where the records are measured (and which ones are looked up)
  measure::MeasureOptions measure;
  int candidates = 2;  // the bank's best distinct schedules per kernel, by stored time
  measure::RoundsProtocol protocol = measure::decided(measure::kernelRounds());  // each kernel's side-by-side rounds
  // false when the kernels are measured on another device (measure.remote: the bank's workers):
  // the model cannot be timed here, so each kernel's side-by-side re-timing decides alone
  // (kernelLevelCheck), as in `tune --workers`.
  bool whole_model = true;
};

struct RefreshedKernel {
  std::string workload_key, class_name;
  int occurrences = 0;
  int candidates = 0;                    // bank schedules re-measured (0: none in the bank)
  double default_s = 0;                  // today's default, measured now (inf when it failed)
  std::optional<schedule::Record> best;  // the fastest re-measured bank schedule, when one worked
  measure::Speedup speedup;              // best over the default, side by side
  double stored_s = 0;                   // that schedule's time as the bank had it
};

struct RefreshResult {
  std::vector<RefreshedKernel> kernels;
  std::vector<schedule::Record> measured;  // every new record, defaults included
  double wall_s = 0;
};

RefreshResult refreshRecords(const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                             const RefreshOptions& opt, const RecordSink& sink, const ProgressFn& progress = {});

// The whole refresh: refreshRecords, then the bank schedules that beat their default side by
// side re-ranked inside the model (refine.h), then the whole-model check against the defaults
// (model_check.h). check.chosen is the choice to store (choiceResult) with checkJson(check) as
// the run's result; `phase` names the steps after the kernels for a progress display.
struct RefreshOutcome {
  RefreshResult refreshed;
  RefineResult refined;
  ModelCheck check;
  double wall_s = 0;  // of the kernel measurements
};
RefreshOutcome refreshChoice(const graph::Graph& g, const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                             const RefreshOptions& opt, const RecordSink& sink, const ProgressFn& progress = {},
                             const std::function<void(const char*)>& phase = {});

}  // namespace ttune::transfer
