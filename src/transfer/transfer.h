// Transfer-tuning (Gibson and Cano, PACT 2022): tune a model by re-measuring schedules
// the bank already holds for kernels of the same class in *other* models.
//
// For each distinct kernel of the target that has a reduction, the candidates are the best
// records of same-class workloads of other models' cold tuning runs (candidates.h: never the
// target's own schedules, whatever the path). The run measures every kernel's default schedule
// first, in one batch: the untuned time of each kernel orders what follows and picks the source
// in Auto mode (the one model whose tuned kernels cover the most untuned time -- the paper's
// heuristic, with time instead of FLOPs). Then kernels are transferred in order of untuned time:
// candidates replayed verbatim and/or adapted (adapt.h) -- with nearest_classes, a kernel no
// same-class source covers takes those of its nearest neighbour class (nearest.h) --, optionally only the top_k a cost
// model or a zero-cost prior ranks best, and at most `budget` candidate measurements in all. The fastest candidate is
// re-timed side by side with the default (measure/speedup.h) and wins only when it beats the
// default beyond the spread of the rounds. The search time is the wall clock of building and timing; every
// measurement becomes a record (source "transfer", or "default") of the target's workloads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "executor/executor.h"
#include "graph/fusion.h"
#include "measure/measurer.h"
#include "schedule/record.h"
#include "store/bank.h"
#include "transfer/candidates.h"

namespace ttune::transfer {

// Pool: every allowed source model (or `sources`); Auto: the single best-covering one.
enum class SourceMode { Pool, Auto };
// What ranks the candidates when only the top k are measured: a cost model trained on the
// source workloads' records, or a zero-cost prior (candidates.h: topByPrior).
enum class Rank { CostModel, Prior };

struct TransferOptions {
  std::vector<std::string> sources;  // source models; empty: every other model in the bank
  SourceMode source_mode = SourceMode::Pool;
  Adapt adapt = Adapt::Both;
  int top_k = 0;                // measure the k best-ranked candidates per kernel (0: all)
  Rank rank = Rank::CostModel;  // what ranks them
  int64_t budget = 0;           // at most this many candidate measurements (0: no limit)
  // Kernels without a same-class source take candidates from the nearest neighbour classes
  // (nearest.h), their stages remapped.
  bool nearest_classes = false;
  std::string model, run_id;  // provenance of the records
  schedule::TargetInfo target;
  schedule::Baseline baseline = schedule::Baseline::Strong;  // the defaults measured and the candidates' baseline
  measure::MeasureOptions measure;
  // The DAG of a source workload (to train the ranking model on its records); may be empty.
  std::function<std::shared_ptr<const te::ComputeDAG>(const std::string& workload_key)> source_dag;
};

struct KernelOutcome {
  std::string workload_key, class_name, class_id;
  int occurrences = 0;
  double flops = 0;
  double default_s = 0;                  // the default schedule on the target (inf if it failed)
  int candidates = 0;                    // found in the bank
  int measured = 0, failed = 0;          // transferred candidates timed, and those that did not work
  int other_isa = 0;                     // candidates measured for another ISA level (vector lengths adapted)
  std::optional<schedule::Record> best;  // fastest transferred schedule, when one worked
  std::string best_source;               // "<model> <workload key>" it came from
  std::string nearest_class;             // candidates came from this neighbour class (no same-class source)
  // The best candidate re-timed side by side with the default (when its one measurement beat
  // it): its speedup with the interval, and both median times over the rounds.
  measure::Speedup retimed;
  double retimed_default_s = 0, retimed_best_s = 0;
  bool improved() const;  // the best candidate beat the default beyond the spread
};

struct TransferResult {
  std::vector<KernelOutcome> kernels;  // in the order of the kernels given
  double search_s = 0;                 // building and timing candidates
  int64_t measured = 0;
  std::vector<std::string> sources;  // the source models candidates came from
  // Auto mode: every source model's share of the untuned time it covers, best first.
  std::vector<std::pair<std::string, double>> source_scores;
  // The measured code of every kernel's default and re-timed winner, for the whole-model check
  // (ModelCheckOptions::cache): it need not compile them again. Null for code that does not run here.
  std::shared_ptr<executor::KernelCache> compiled;
};

struct TransferProgress {
  int kernels_done = 0, kernels_total = 0;
  int64_t measured = 0;
  double elapsed_s = 0;
  std::string current;  // class of the kernel being measured
};

using RecordSink = std::function<void(const std::vector<schedule::Record>&)>;
using ProgressFn = std::function<void(const TransferProgress&)>;

TransferResult transferTune(const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                            const TransferOptions& options, const RecordSink& sink, const ProgressFn& progress = {});

// The schedule per workload key the transfer chose (transferred ones that beat the default).
std::vector<schedule::Record> chosenRecords(const TransferResult& result);

// Source models in the bank ranked by how much of the target's FLOPs their kernels' classes cover.
struct SourceCoverage {
  std::string model;
  double flops_share = 0;  // of the target's tunable FLOPs (weighted by occurrences)
  int kernels = 0;         // target kernels with a same-class workload in this model (padding aside)
};
std::vector<SourceCoverage> rankSources(const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                                        const std::string& target_model,
                                        schedule::Baseline baseline = schedule::Baseline::Strong);

}  // namespace ttune::transfer
