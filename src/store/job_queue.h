// The queue of measurement jobs in a PostgreSQL bank's database: tuners on one host submit
// candidates (the measurement worker protocol's encoded requests, measure/runner.h), measurement
// workers on other hosts take them, measure them on their device and put the encoded reply back.
// Its tables (measure_workers, measure_jobs) hold transient state and are not part of the bank's
// versioned schema; they are created on first use. docs/fleet.md is the operator's view.
//
// Guarantees:
//  - A job is taken by one worker at a time: claim() locks the oldest queued job of the target
//    with FOR UPDATE SKIP LOCKED, so workers never wait on each other or take the same job.
//  - A taken job has a lease that its worker renews while it measures. When the lease runs out
//    (the worker died, hung, or its host vanished) expire() puts the job back in the queue; after
//    `max_attempts` leases ran out it is finished as runtime_timeout with a note. A worker whose
//    lease ran out cannot finish the job any more (complete() refuses it): each job gets exactly
//    one result.
//  - A tuner heartbeats its jobs while it waits (touch()); the jobs of a tuner that stopped doing
//    so (killed, host gone) are deleted by expire(), so a dead tuner leaves no orphaned jobs.
//  - Times are the database server's clock, so hosts with skewed clocks agree on leases.
// Every call is one short transaction on the object's own connection (not thread-safe: one
// JobQueue per thread). Failures throw Error naming the bank.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/expected.h"

namespace ttune::store {

namespace sql {
class Db;
}

// What a worker announces: the target label tuners ask for (`--workers LABEL`), what the device
// is, and how it is doing.
struct WorkerInfo {
  std::string id;      // "host:pid:start", unique per worker process
  std::string target;  // label tuners select workers by (default: the CPU name)
  std::string cpu;     // LLVM CPU name of the device
  std::string isa;     // avx512, avx2, neon, ...
  int64_t cores = 0;
  int64_t threads = 0;         // kernel threads it measures with
  double latency_ms = 0;       // simulated device latency per measurement (benchmarks; 0: none)
  std::string state;           // idle, busy, stopped
  double heartbeat_age_s = 0;  // seconds since its last heartbeat (server clock)
  int64_t jobs_done = 0;
  double started = 0;  // unix seconds
};

struct Job {
  int64_t id = 0;
  std::vector<char> request;  // encoded RunRequest
  double timeout_s = 0;       // the candidate's run timeout
  int64_t attempt = 0;        // 1 for the first worker to take it
};

struct JobOutcome {
  int64_t id = 0;
  std::vector<char> reply;  // the worker's encoded reply; empty when the queue gave up on it
  std::string error;        // error kind name ("none", "runtime_timeout", ...)
  std::string note;         // why the queue gave up, or what happened to earlier attempts
};

struct QueueTimes {
  double lease_s = 30;            // a worker renews its job's lease every lease_s / 3
  int max_attempts = 3;           // leases that may run out before a job is given up
  double client_timeout_s = 120;  // a tuner silent this long is gone: its jobs are deleted
};

class JobQueue {
 public:
  // Connects to the bank's database and creates the queue's tables when missing. Fails (one
  // sentence) when `bank` is not a PostgreSQL URL or cannot be reached.
  static Expected<JobQueue> open(const std::string& bank, QueueTimes times = {});
  JobQueue(JobQueue&&) noexcept;
  JobQueue& operator=(JobQueue&&) noexcept;
  ~JobQueue();

  const std::string& bank() const;  // the URL without its password
  const QueueTimes& times() const { return times_; }

  // ---- workers -----------------------------------------------------------------------------
  void announce(const WorkerInfo& w);  // inserts or replaces the worker's row, heartbeat now
  void heartbeat(const std::string& worker_id, const std::string& state);
  // Takes the oldest queued job of `target`, leased to the worker; nullopt when none is queued.
  std::optional<Job> claim(const std::string& worker_id, const std::string& target);
  // Extends the lease; false when the worker no longer holds the job.
  bool renew(int64_t job_id, const std::string& worker_id);
  // Finishes the job with the worker's reply; false (nothing written) when its lease ran out.
  bool complete(int64_t job_id, const std::string& worker_id, const std::vector<char>& reply, const std::string& error);

  // ---- tuners ------------------------------------------------------------------------------
  // Queues the requests (one transaction); their job ids, in order.
  std::vector<int64_t> submit(const std::string& client, const std::string& target,
                              const std::vector<std::vector<char>>& requests, const std::vector<double>& timeouts_s);
  // Removes and returns the client's finished jobs.
  std::vector<JobOutcome> collect(const std::string& client);
  void touch(const std::string& client);   // the client is alive: its jobs stay
  void cancel(const std::string& client);  // deletes every job of the client

  // ---- both --------------------------------------------------------------------------------
  // Re-queues jobs whose lease ran out (or gives them up after max_attempts) and deletes the
  // jobs of silent clients. Returns how many jobs it re-queued or gave up.
  int64_t expire();
  // Every worker that announced itself, newest heartbeat first.
  std::vector<WorkerInfo> workers();
  // Workers of `target` whose heartbeat is at most `within_s` old.
  std::vector<WorkerInfo> liveWorkers(const std::string& target, double within_s);
  // Jobs queued or running for a target.
  int64_t pending(const std::string& target);

 private:
  JobQueue(std::unique_ptr<sql::Db> db, QueueTimes times);
  std::unique_ptr<sql::Db> db_;
  QueueTimes times_;
};

// The name a process goes by in the queue: "host:pid:start" (as run owners, bank.h).
std::string queueProcessId();

}  // namespace ttune::store
