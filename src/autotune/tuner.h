// Tuner: auto-schedules a set of kernels (the tasks of a model) within a trial and time budget,
// sharing one cost model. Rounds of measurements go to the task with the steepest expected gain
// per the reference's gradient task scheduler (ansor-study §6): weights are occurrences, with
// warm-up (one round per task), per-task early stopping and dead tasks (no valid schedule, or
// search space exhausted). Every measured candidate becomes a Record handed to the sink (the
// bank) as soon as its batch is measured, so an interrupted run loses nothing committed; a run
// resumes by preloading those records.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autotune/search_task.h"
#include "measure/measurer.h"
#include "schedule/record.h"

namespace ttune::autotune {

struct TuneTaskSpec {
  std::string workload_key;
  std::string class_id, class_name;
  std::shared_ptr<const te::ComputeDAG> dag;
  double weight = 1;  // occurrences in the model
};

struct TunerOptions {
  int64_t trials = 1000;
  double time_budget_s = 0;        // 0: no wall-clock limit
  int measures_per_round = 64;
  int64_t early_stopping = -1;     // per task: trials without improvement before it stops (-1: never)
  double alpha = 0.2, beta = 2;    // gradient scheduler
  int backward_window = 3;
  SearchOptions search;
  uint64_t seed = 0;
  // Provenance of the records.
  std::string model, run_id;
  schedule::TargetInfo target;
};

struct TaskProgress {
  std::string workload_key, class_name;
  double weight = 1;
  int trials = 0;
  double best_s = 0;  // +inf until a valid schedule is found
  bool dead = false;
};

struct TunerProgress {
  int64_t trials = 0, trials_total = 0;
  double elapsed_s = 0;
  double estimated_latency_s = 0;  // sum of weight x best time over tasks (inf until all found)
  double search_s = 0, build_s = 0, run_s = 0;
  std::vector<TaskProgress> tasks;
};

class Tuner {
 public:
  Tuner(std::vector<TuneTaskSpec> tasks, TunerOptions options, CostModel& model, measure::Measurer& measurer);

  // Previously measured records of these workloads (resuming): they count as measured, train the
  // cost model and seed the populations. Returns how many were usable.
  int preload(const std::vector<schedule::Record>& records, int64_t trials_already_done);

  using RecordSink = std::function<void(const std::vector<schedule::Record>&)>;
  using ProgressFn = std::function<void(const TunerProgress&)>;
  TunerProgress run(const RecordSink& sink, const ProgressFn& progress = {});

  const std::vector<std::unique_ptr<SearchTask>>& tasks() const { return search_; }

 private:
  int chooseTask();
  void runRound(int task, const RecordSink& sink);
  TunerProgress snapshot() const;

  std::vector<TuneTaskSpec> specs_;
  TunerOptions opt_;
  CostModel& model_;
  measure::Measurer& measurer_;
  std::vector<std::unique_ptr<SearchTask>> search_;
  std::vector<std::vector<double>> best_history_;  // best cost after each round, per task
  std::vector<int> rounds_, trials_of_;
  std::vector<int64_t> last_improve_trial_;
  std::vector<bool> dead_;
  int64_t trials_ = 0, trials_at_start_ = 0;
  double search_s_ = 0, build_s_ = 0, run_s_ = 0;
  double start_ = 0;
  Rng rng_;
};

}  // namespace ttune::autotune
