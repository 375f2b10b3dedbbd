// Measuring on other hosts through the PostgreSQL bank's job queue (store/job_queue.h,
// docs/fleet.md): the tuner's side (QueueRunner, `tune --workers TARGET`) and the measurement
// host's side (`ttune worker`), which speak the measurement worker protocol (measure/runner.h)
// through rows instead of pipes.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "measure/batch_runner.h"
#include "measure/worker_command.h"
#include "schedule/target.h"
#include "store/job_queue.h"
#include "support/timer.h"

namespace ttune::cli {

// Measures rounds of candidates on the workers of one target: submits each round as jobs, waits for
// the replies (heartbeating its jobs, expiring dead workers' leases), gives each request its result.
// Several rounds may be in flight; their jobs share the queue, so N live workers measure N
// candidates at once whichever rounds they belong to. Throws Error when every worker of the target
// has been silent for 90 s, or on Ctrl-C; all its unfinished jobs are deleted then and when it is
// destroyed. Not thread-safe: one thread submits and waits.
class QueueRunner : public measure::BatchRunner {
 public:
  // Fails (Error, one sentence) when the bank is not PostgreSQL or no live worker announces
  // `target`.
  QueueRunner(const std::string& bank, const std::string& target);
  ~QueueRunner() override;
  int64_t submit(const std::vector<measure::RunRequest>& requests) override;
  std::vector<measure::RunResult> wait(int64_t round) override;
  // The target's live workers, counted at most every 2 s.
  int parallelism() override;
  std::string describe() const override;
  // A live worker of the target, as it announced itself (the code is compiled for its CPU).
  const store::WorkerInfo& worker() const { return worker_; }

 private:
  struct Round {
    std::vector<measure::RunResult> results;
    size_t left = 0;
  };
  void take(store::JobOutcome& outcome);
  // Re-queues expired leases, counts the live workers; fails when none has
  // been alive for 90 s.
  void upkeep();
  void upkeepEvery2s();  // upkeep() unless it ran in the last 2 s
  // Deletes every job of this tuner (after a failure).
  void abandon();

  store::JobQueue queue_;
  std::string target_, client_;
  store::WorkerInfo worker_;
  int live_ = 1;
  int64_t next_round_ = 0;
  std::map<int64_t, Round> rounds_;
  std::map<int64_t, std::pair<int64_t, size_t>> jobs_;  // job id -> (round, index in it)
  Timer since_upkeep_, since_live_;
  std::atomic<bool> stop_beat_{false};
  std::thread beat_;  // heartbeats the jobs every 5 s, also while this tuner compiles
};

// `--workers LABEL` of tune and transfer: measurement by the bank's workers of that target. The
// code is compiled for the workers' CPU (or for `target_option` when it names a target), the
// records are the workers' device's (its CPU name and thread count), and kernels decide alone, as
// for a device: the whole model cannot run on a worker.
struct WorkersMeasurement {
  std::shared_ptr<QueueRunner> runner;
  schedule::Target code;
  measure::WorkerCommand command;  // for the Measurer: nothing is started here, code goes as shared objects
  void onDevice(schedule::TargetInfo& records_target) const;
};
WorkersMeasurement workersMeasurement(const std::string& db, const std::string& label,
                                      const std::string& target_option);

struct WorkerArgs {
  std::string db;         // the bank (PostgreSQL URL); default $TTUNE_DB
  std::string target;     // label to take jobs for; default this host's CPU name
  int threads = 0;        // announced kernel thread count; default all cores
  double latency_ms = 0;  // simulated device latency added to every measurement (benchmarks)
  double lease_s = 30;    // job lease, renewed every lease_s / 3
  double poll_s = 0.2;    // wait between empty claims
  bool verbose = false;   // a line per job on stderr
};
// The measurement host's loop: announce, take jobs of the target, measure each in the local
// ttune-worker process, put the reply back; until SIGINT or SIGTERM (the job in hand is finished
// first). Returns the process exit status.
int runWorker(const WorkerArgs& a);

}  // namespace ttune::cli
