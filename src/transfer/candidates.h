// Transfer candidates: which bank records may be transferred to a target model, and how each
// becomes steps for a target kernel.
//
// A record may serve when a cold tuning run of another model measured it against the same
// baseline (schedule/baseline.h: the paper's basic-baseline experiment transfers only what Ansor
// found from the basic defaults) and its lineage does not lead back to the target (CandidateRule); per (workload,
// source model) the best one is taken (this CPU's when there is one: times of different CPUs do not compare). The bank
// is searched by tiers: records measured for this ISA level on any CPU (every candidate is measured here), else other
// levels (their vector lengths adapted). Each record is replayed on the target kernel verbatim and/or with its splits
// re-factorized for the new extents; a cost model trained on the source kernels' records can rank them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autotune/cost_model.h"
#include "graph/fusion.h"
#include "schedule/record.h"
#include "store/bank.h"

namespace ttune::transfer {

enum class Adapt { Verbatim, Adapted, Both };

// A schedule to measure on a target kernel.
struct Candidate {
  std::vector<schedule::Step> steps;
  std::string source;  // "<model> <workload key>"
  std::string model;   // the source model
  std::string origin;  // the model whose tuning found the steps
  bool adapted = false;
  std::string workload_key;  // the source record's workload
  double source_s = 0;       // the source record's time on that workload
};

// The best candidate record of every (workload, source model) of a class (CandidateRule).
std::vector<schedule::Record> classCandidates(const store::Bank& bank, const std::string& class_id,
                                              const std::string& target_model, const store::TargetFilter& target,
                                              const std::string& preferred_cpu = "",
                                              schedule::Baseline baseline = schedule::Baseline::Strong);

// The records of tier `tier` (0 this ISA level, any CPU; 1 any level).
store::TargetFilter candidateTier(const schedule::TargetInfo& target, int tier);

// classCandidates of one transfer, each class read once: a class's candidates do not depend on
// the kernel, and a bank holds every trial of every run (reading a class per kernel cost a
// ranked resnet50 transfer half its search time).
class ClassCandidates {
 public:
  ClassCandidates(const store::Bank& bank, std::string target_model, store::TargetFilter target,
                  std::string preferred_cpu = "", schedule::Baseline baseline = schedule::Baseline::Strong)
      : bank_(bank),
        model_(std::move(target_model)),
        target_(std::move(target)),
        cpu_(std::move(preferred_cpu)),
        baseline_(baseline) {}
  const std::vector<schedule::Record>& of(const std::string& class_id);

 private:
  const store::Bank& bank_;
  std::string model_;
  store::TargetFilter target_;
  std::string cpu_;
  schedule::Baseline baseline_;
  std::map<std::string, std::vector<schedule::Record>> read_;
};

// Records per kernel (index into `kernels`) by the tiers above, restricted to `sources` when not
// empty; records of classes that differ from the kernel's only in padding (nearest.h) count as
// the kernel's class, their steps remapped onto it. `tier` receives what was used: 0 this ISA
// level, 1 other levels.
std::vector<std::vector<schedule::Record>> collectCandidates(const std::vector<const graph::Kernel*>& kernels,
                                                             const store::Bank& bank, const std::string& target_model,
                                                             const schedule::TargetInfo& target,
                                                             const std::vector<std::string>& sources, int* tier,
                                                             schedule::Baseline baseline = schedule::Baseline::Strong);

struct BuildStats {
  int failed = 0;     // records whose steps do not apply to the kernel
  int other_isa = 0;  // records of another ISA level (adapted)
};
// The distinct candidates of records for `kernel` on `code`.
std::vector<Candidate> buildCandidates(const graph::Kernel& kernel, const std::vector<schedule::Record>& records,
                                       Adapt adapt, const schedule::Target& code, BuildStats* stats);

// A model ranking candidates, trained on the source workloads' records (their own DAGs); null
// when fewer than 20 usable samples.
std::unique_ptr<autotune::XGBoostModel> trainRanker(
    const std::vector<schedule::Record>& source_records,
    const std::function<std::shared_ptr<const te::ComputeDAG>(const std::string&)>& source_dag);
// The k best-ranked candidates.
std::vector<Candidate> topRanked(const graph::Kernel& kernel, std::vector<Candidate> cands,
                                 autotune::XGBoostModel& ranker, int k);

// The k candidates a zero-cost prior ranks best, in that order: schedules of the kernel's own
// workload first (exact reuse), then by the throughput the source record reached on its own
// workload (`flops_of` a workload key; unknown, 0, ranks last). A record's verbatim and adapted
// variants rank together.
std::vector<Candidate> topByPrior(const graph::Kernel& kernel, std::vector<Candidate> cands,
                                  const std::function<double(const std::string&)>& flops_of, int k);

}  // namespace ttune::transfer
