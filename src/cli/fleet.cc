#include "cli/fleet.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include "cli/interrupt.h"
#include "cli/output.h"
#include "cli/target_option.h"
#include "codegen/target.h"
#include "runtime/thread_pool.h"
#include "store/seed.h"
#include "support/assert.h"
#include "support/error.h"
#include "support/log.h"
#include "support/strings.h"
#include "support/timer.h"

namespace ttune::cli {

namespace {

std::string bankOrDefault(const std::string& db) { return db.empty() ? store::defaultBankPath() : db; }

store::JobQueue openQueue(const std::string& db, store::QueueTimes times = {}) {
  auto q = store::JobQueue::open(bankOrDefault(db), times);
  if (!q.ok()) fail(q.error());
  return std::move(q).value();
}

// Workers heartbeat every lease / 3 (default 10 s): one silent for this long is gone.
constexpr double kWorkerSilence = 90;

void sleepSeconds(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

QueueRunner::QueueRunner(const std::string& bank, const std::string& target)
    : queue_(openQueue(bank)), target_(target) {
  std::random_device rd;
  client_ = store::queueProcessId() + ":" + std::to_string(rd());
  auto live = queue_.liveWorkers(target_, kWorkerSilence);
  if (live.empty())
    fail("no measurement worker of target ", target_, " has announced itself in ", queue_.bank(), " in the last ",
         static_cast<int>(kWorkerSilence), " s; start one on the device with `ttune worker --db ", queue_.bank(),
         " --target ", target_, "` (docs/fleet.md)");
  worker_ = live.front();
  live_ = static_cast<int>(live.size());
  // Jobs stay queued while this tuner searches and compiles the next round, which may take longer
  // than the queue's client timeout: a thread of its own (with its own connection) keeps them.
  beat_ = std::thread([this, bank] {
    std::optional<store::JobQueue> q;
    while (!stop_beat_) {
      try {
        if (!q) q.emplace(openQueue(bank));
        q->touch(client_);
      } catch (const std::exception& e) {
        logWarning("could not tell the bank this tuner is alive: ", e.what());
        q.reset();
      }
      for (int i = 0; i < 100 && !stop_beat_; ++i) sleepSeconds(0.05);
    }
  });
}

QueueRunner::~QueueRunner() {
  stop_beat_ = true;
  beat_.join();
  try {
    queue_.cancel(client_);
  } catch (const std::exception& e) {
    logWarning("could not delete the unfinished measurement jobs of this tuner: ", e.what(),
               " (workers delete them once the tuner is silent)");
  }
}

std::string QueueRunner::describe() const {
  return "the measurement workers of target " + target_ + " in " + queue_.bank();
}

int64_t QueueRunner::submit(const std::vector<measure::RunRequest>& requests) {
  const int64_t round = next_round_++;
  Round& r = rounds_[round];
  r.results.resize(requests.size());
  r.left = requests.size();
  if (requests.empty()) return round;
  std::vector<std::vector<char>> msgs;
  std::vector<double> timeouts;
  for (const measure::RunRequest& q : requests) {
    msgs.push_back(measure::encodeRunRequest(q));
    timeouts.push_back(q.timeout_s);
  }
  try {
    std::vector<int64_t> ids = queue_.submit(client_, target_, msgs, timeouts);
    for (size_t i = 0; i < ids.size(); ++i) jobs_[ids[i]] = {round, i};
  } catch (...) {
    abandon();
    throw;
  }
  return round;
}

void QueueRunner::abandon() {
  jobs_.clear();
  rounds_.clear();
  try {
    queue_.cancel(client_);
  } catch (const std::exception&) {
    // The workers delete the jobs of a silent tuner.
  }
}

void QueueRunner::take(store::JobOutcome& o) {
  auto it = jobs_.find(o.id);
  if (it == jobs_.end()) return;
  Round& round = rounds_.at(it->second.first);
  measure::RunResult& r = round.results[it->second.second];
  if (o.reply.empty()) {
    r.error = schedule::parseErrorKind(o.error).value_or(schedule::ErrorKind::Unknown);
    r.message = o.note;
  } else if (!measure::decodeRunReply(o.reply, &r)) {
    r = measure::RunResult{};
    r.error = schedule::ErrorKind::Unknown;
    r.message = "malformed reply from a measurement worker";
  }
  jobs_.erase(it);
  --round.left;
}

void QueueRunner::upkeepEvery2s() {
  if (since_upkeep_.seconds() <= 2) return;
  since_upkeep_.reset();
  upkeep();
}

void QueueRunner::upkeep() {
  queue_.expire();
  live_ = static_cast<int>(queue_.liveWorkers(target_, kWorkerSilence).size());
  if (live_ > 0)
    since_live_.reset();
  else if (since_live_.seconds() > kWorkerSilence)
    fail("every measurement worker of target ", target_, " in ", queue_.bank(), " has been silent for ",
         static_cast<int>(kWorkerSilence), " s with ", jobs_.size(),
         " candidates left; start one with `ttune worker --db ", queue_.bank(), " --target ", target_, "`");
}

std::vector<measure::RunResult> QueueRunner::wait(int64_t round) {
  auto it = rounds_.find(round);
  TT_ASSERT(it != rounds_.end(), "QueueRunner::wait: a round that was not submitted, or waited for twice");
  try {
    double pause = 0.005;
    while (it->second.left > 0) {
      // Replies of every round in flight arrive together; the others keep theirs for later.
      std::vector<store::JobOutcome> got = queue_.collect(client_);
      for (store::JobOutcome& o : got) take(o);
      if (!got.empty()) pause = 0.005;
      if (it->second.left == 0) break;
      if (InterruptGuard::interrupted()) fail("measurement interrupted");
      upkeepEvery2s();
      sleepSeconds(pause);
      pause = std::min(pause * 2, 0.1);
    }
  } catch (...) {
    abandon();
    throw;
  }
  std::vector<measure::RunResult> out = std::move(it->second.results);
  rounds_.erase(it);
  return out;
}

int QueueRunner::parallelism() {
  upkeepEvery2s();
  return std::max(1, live_);
}

WorkersMeasurement workersMeasurement(const std::string& db, const std::string& label,
                                      const std::string& target_option) {
  WorkersMeasurement m;
  m.runner = std::make_shared<QueueRunner>(db, label);
  m.code = resolveTargetOption(target_option == "host" ? m.runner->worker().cpu : target_option, TargetUse::Compile);
  m.command.argv = {m.runner->describe()};
  m.command.shared_objects = true;
  return m;
}

void WorkersMeasurement::onDevice(schedule::TargetInfo& t) const {
  t.cpu = runner->worker().cpu;
  t.threads = static_cast<int>(runner->worker().threads);
}

namespace {

std::atomic<bool> g_stop{false};
extern "C" void onStopSignal(int) { g_stop = true; }

}  // namespace

int runWorker(const WorkerArgs& a) {
  if (a.lease_s <= 0) fail("--lease must be positive");
  if (a.latency_ms < 0) fail("--latency-ms cannot be negative");
  store::QueueTimes times;
  times.lease_s = a.lease_s;
  store::JobQueue queue = openQueue(a.db, times);
  const schedule::Target host = codegen::hostTarget();
  store::WorkerInfo me;
  me.id = store::queueProcessId();
  me.cpu = host.cpu;
  me.target = a.target.empty() ? host.cpu : a.target;
  me.isa = schedule::isaName(host.isa);
  me.cores = static_cast<int64_t>(std::thread::hardware_concurrency());
  if (a.threads > 0) runtime::ThreadPool::global().setNumThreads(a.threads);
  me.threads = runtime::ThreadPool::global().numThreads();
  me.latency_ms = a.latency_ms;
  queue.announce(me);
  std::cerr << "ttune worker " << me.id << ": target " << me.target << " (" << me.cpu << ", " << me.isa << ", "
            << me.cores << " cores, " << me.threads << " threads), jobs from " << queue.bank() << "\n";
  if (a.latency_ms > 0)
    std::cerr << "ttune worker: SIMULATION: " << a.latency_ms
              << " ms of device latency are added to every measurement (standing in for a slow device)\n";

  struct sigaction sa {};
  sa.sa_handler = onStopSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  // Heartbeats and lease renewals come from a thread of their own (with its own connection), so
  // a long measurement does not lose its job.
  std::atomic<int64_t> current{0};
  std::atomic<bool> done{false};
  std::thread beat([&] {
    std::optional<store::JobQueue> q;
    Timer since;
    while (!done) {
      try {
        if (!q) q.emplace(openQueue(a.db, times));
        int64_t job = current;
        q->heartbeat(me.id, job ? "busy" : "idle");
        if (job && !q->renew(job, me.id))
          logWarning("ttune worker: the lease of job ", job, " ran out; its result will be dropped");
      } catch (const std::exception& e) {
        logWarning("ttune worker: heartbeat failed: ", e.what());
        q.reset();
      }
      since = Timer();
      while (!done && since.seconds() < a.lease_s / 3) sleepSeconds(0.05);
    }
  });

  measure::Runner runner;
  int64_t jobs = 0;
  Timer since_expire;
  while (!g_stop) {
    try {
      if (since_expire.seconds() > a.lease_s / 3) {
        since_expire = Timer();
        queue.expire();
      }
      std::optional<store::Job> job = queue.claim(me.id, me.target);
      if (!job) {
        sleepSeconds(a.poll_s);
        continue;
      }
      current = job->id;
      Timer t;
      measure::RunResult r = runner.runEncoded(job->request, job->timeout_s);
      if (a.latency_ms > 0) sleepSeconds(a.latency_ms / 1e3);  // the simulated device latency
      bool kept = queue.complete(job->id, me.id, measure::encodeRunReply(r), schedule::errorKindName(r.error));
      current = 0;
      ++jobs;
      if (!kept)
        logWarning("ttune worker: job ", job->id,
                   " was given to another worker while this one measured it (its lease ran out); "
                   "this result is dropped");
      else if (a.verbose)
        std::cerr << "ttune worker: job " << job->id << " (attempt " << job->attempt
                  << "): " << schedule::errorKindName(r.error) << ", " << formatSeconds(t.seconds()) << "\n";
    } catch (const std::exception& e) {
      // The database may be restarting or unreachable: keep trying; the lease returns the job
      // in hand to the queue if this takes too long.
      current = 0;
      logWarning("ttune worker: ", e.what(), " (retrying in 2 s)");
      sleepSeconds(2);
    }
  }
  done = true;
  beat.join();
  try {
    queue.heartbeat(me.id, "stopped");
  } catch (const std::exception& e) {
    logWarning("ttune worker: ", e.what());
  }
  std::cerr << "ttune worker " << me.id << ": stopped after " << jobs << " jobs\n";
  return 0;
}

}  // namespace ttune::cli
