// Transfer-tuning (reference/transfer-tuning-study.md): tune a model by re-measuring schedules
// the bank already holds for kernels of the same class in *other* models.
//
// For each distinct kernel of the target that has a reduction: the candidates are the best
// record of every same-class workload in the bank, from models other than the target (never the
// target's own records), optionally restricted to chosen source models; each is replayed on the
// target kernel verbatim and/or with its splits re-factorized for the new extents (adapt.h).
// Candidates and the kernel's default schedule are built and timed on the target; the fastest
// wins, and kernels with no working candidate keep the default. With top_k, a cost model trained
// on the source kernels' records ranks each kernel's candidates and only the best k are
// measured. The search time is the wall clock of building and timing; every measurement becomes
// a record (source "transfer", or "default" for the default schedule) of the target's workloads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/fusion.h"
#include "measure/measurer.h"
#include "schedule/record.h"
#include "store/bank.h"

namespace ttune::transfer {

enum class Adapt { Verbatim, Adapted, Both };

struct TransferOptions {
  std::vector<std::string> sources;  // source models; empty: every other model in the bank
  Adapt adapt = Adapt::Both;
  int top_k = 0;                     // measure the k best-ranked candidates per kernel (0: all)
  std::string model, run_id;         // provenance of the records
  schedule::TargetInfo target;
  measure::MeasureOptions measure;
  // The DAG of a source workload (to train the ranking model on its records); may be empty.
  std::function<std::shared_ptr<const te::ComputeDAG>(const std::string& workload_key)> source_dag;
};

struct KernelOutcome {
  std::string workload_key, class_name, class_id;
  int occurrences = 0;
  double flops = 0;
  double default_s = 0;          // the default schedule on the target (inf if it failed)
  int candidates = 0;            // found in the bank
  int measured = 0, failed = 0;  // transferred candidates timed, and those that did not work
  int other_isa = 0;             // candidates measured for another ISA level (vector lengths adapted)
  std::optional<schedule::Record> best;  // fastest transferred schedule, when one worked
  std::string best_source;               // "<model> <workload key>" it came from
  bool improved() const;                 // a transferred schedule beat the default
};

struct TransferResult {
  std::vector<KernelOutcome> kernels;
  double search_s = 0;  // building and timing candidates
  int64_t measured = 0;
};

struct TransferProgress {
  int kernels_done = 0, kernels_total = 0;
  int64_t measured = 0;
  double elapsed_s = 0;
  std::string current;  // class of the kernel being measured
};

using RecordSink = std::function<void(const std::vector<schedule::Record>&)>;
using ProgressFn = std::function<void(const TransferProgress&)>;

TransferResult transferTune(const std::vector<graph::Kernel>& kernels, const store::Bank& bank, const TransferOptions& options,
                            const RecordSink& sink, const ProgressFn& progress = {});

// The schedule per workload key the transfer chose (transferred ones that beat the default).
std::vector<schedule::Record> chosenRecords(const TransferResult& result);

// Source models in the bank ranked by how much of the target's FLOPs their kernels' classes cover.
struct SourceCoverage {
  std::string model;
  double flops_share = 0;  // of the target's tunable FLOPs (weighted by occurrences)
  int kernels = 0;         // target kernels with a same-class workload in this model
};
std::vector<SourceCoverage> rankSources(const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                                        const std::string& target_model);

}  // namespace ttune::transfer
