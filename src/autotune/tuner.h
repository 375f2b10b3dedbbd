// Tuner: auto-schedules a set of kernels (the tasks of a model) within a trial and time budget,
// sharing one cost model. It first measures every task's default schedule, in batches across
// tasks (heaviest first, each batch committed at once): the model's estimated latency is known
// from the first batch, a small budget is never wasted on per-task warm-up rounds, and no task
// ends slower than untuned. Then rounds of measurements go to the task with the steepest
// expected gain per Ansor's gradient task scheduler (Zheng et al., OSDI 2020, §6; weights are
// occurrences, so early rounds go where the model's time is), with per-task early stopping and
// dead tasks (no valid schedule, or search space exhausted). Rounds shrink with the budget per
// task (at least 8 candidates), and the search's population with the round. Every measured
// candidate becomes a Record handed to the sink (the bank) as soon as its batch is measured, so
// an interrupted run loses nothing committed; a run resumes by preloading those records.
//
// When measurement happens elsewhere (Measurer::overlaps: the bank's workers), rounds are kept in
// flight: at least two, and more while fewer candidates are outstanding than twice the live
// workers, so the workers always have the next round queued while this process searches and
// compiles the one after it. Results are recorded in submission order; candidates in flight are
// never proposed again, and count against the trial budget. The price is a cost model that has
// not yet seen the rounds in flight. Measured here, one round is in flight at a time, as before.
#pragma once

#include <deque>
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
  double time_budget_s = 0;     // 0: no wall-clock limit
  int measures_per_round = 64;  // at most; see roundSize()
  int min_measures_per_round = 8;
  int defaults_per_batch = 8;    // tasks whose defaults are measured (and committed) together
  int64_t early_stopping = -1;   // per task: trials without improvement before it stops (-1: never)
  double alpha = 0.2, beta = 2;  // gradient scheduler
  int backward_window = 3;
  SearchOptions search;
  uint64_t seed = 0;
  // Provenance of the records (origin = model) and the run's time before this process resumed
  // it: record times and the run's wall time continue from there.
  std::string model, run_id;
  double elapsed_offset_s = 0;
  schedule::TargetInfo target;
};

struct TaskProgress {
  std::string workload_key, class_name;
  double weight = 1;
  int trials = 0;
  double best_s = 0;     // +inf until a valid schedule is found
  double default_s = 0;  // the default schedule's time (+inf until measured, or if it failed)
  bool dead = false;
};

struct TunerProgress {
  int64_t trials = 0, trials_total = 0;
  double elapsed_s = 0;
  // Sum over tasks of weight x best time, the default's time for tasks without a better one
  // (inf while some task has no valid measurement at all).
  double estimated_latency_s = 0;
  double untuned_latency_s = 0;                 // the same with every task's default time
  double search_s = 0, build_s = 0, run_s = 0;  // search includes cost-model training
  int current_task = -1;                        // the task of the last round (-1: defaults)
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
  using Batch = std::vector<std::pair<int, Candidate>>;  // (task, candidate)
  // A round handed to the measurer whose results are not recorded yet.
  struct InFlight {
    measure::Measurer::RoundId id = 0;
    Batch batch;
    const char* source = "tune";  // the records' provenance: "default" for default schedules
    int task = -1;                // the round's task; -1 for a batch of defaults
    double submit_s = 0;          // spent in Measurer::submit (building; locally also timing)
  };
  enum class Next { Submitted, Skipped, Exhausted };

  int chooseTask();
  int roundSize() const;
  bool outOfBudget() const;
  // Whether another round should be submitted before the oldest one is recorded.
  bool wantsMore() const;
  int64_t inFlightTrials() const;
  bool inFlight(int task) const;  // some candidate of the task is in flight
  // The next round: the defaults (heaviest tasks first, several tasks per batch), then one round
  // for each task without any measurement, then rounds for the task the gradient picks.
  Next submitNext();
  Next submitDefaults();
  Next submitRound(int task);
  void submit(Batch batch, const char* source, int task);
  // Waits for the oldest round in flight, hands its records to the sink, updates the tasks and
  // trains the cost model.
  void recordOldest(const RecordSink& sink);
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
  std::deque<InFlight> in_flight_;
  std::vector<int> default_order_;  // tasks whose default is still to be submitted, heaviest first
  size_t default_at_ = 0;
  int current_ = -1;
  int64_t trials_ = 0, trials_at_start_ = 0;
  double search_s_ = 0, build_s_ = 0, run_s_ = 0;
  double start_ = 0;
  Rng rng_;
};

}  // namespace ttune::autotune
