// The cost model's prior: what the bank already measured on this target, as training samples, so
// that tuning a new model starts from a cost model that has seen tens of thousands of schedules of
// the same kernel classes instead of from random guesses (TenSet, Zheng et al., NeurIPS 2021,
// pre-trains cost models on measured programs the same way).
//
// Which records: those of other models (store::RecordQuery::exclude_model: neither produced by
// tuning this model nor of a workload this model has), measured on this exact target (CPU,
// vector width, thread count). Records of the same ISA from other CPUs or thread counts only fill
// what the cap leaves: a weaker prior, used when this machine's own are few. Each group of
// (workload, CPU, threads) is its own task for the model's per-task normalization and ranking,
// so times from different machines are never compared with each other. A group needs two working
// schedules to say anything about order; per group the best quarter is kept and the rest is
// sampled evenly by time, failures included (as label 0), so that the model sees the whole range.
// Records are replayed on their kernel's DAG (source_dags.h) and featurized like the search's own
// states; records that no longer replay are skipped.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "autotune/cost_model.h"
#include "cli/source_dags.h"
#include "schedule/record.h"
#include "store/bank.h"

namespace ttune::cli {

struct CostPriorOptions {
  size_t max_samples = 6000;  // in all (training time grows with it: ~1 s per retraining at 6000)
  size_t per_group = 64;      // at most, per (workload, CPU, threads)
  int threads = 0;            // featurizing; 0: one per core
};

struct CostPrior {
  std::vector<autotune::TrainingSample> samples;
  size_t records = 0;       // records read
  size_t groups = 0;        // (workload, CPU, threads) groups used
  size_t other_groups = 0;  // of them, measured on another CPU or thread count
  size_t skipped = 0;       // chosen records whose kernel is unknown or that no longer replay
  double seconds = 0;
};

CostPrior bankCostPrior(const store::Bank& bank, const std::string& model, const schedule::TargetInfo& target,
                        SourceDags& dags, const CostPriorOptions& options = {});

}  // namespace ttune::cli
