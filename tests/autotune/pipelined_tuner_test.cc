// The tuner keeps rounds in flight when measurement happens elsewhere (tuner.h): a fake batch
// runner stands in for the bank's workers and records how much was outstanding at once.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>

#include "autotune/tuner.h"
#include "ops/ops.h"
#include "schedule/record.h"

namespace ttune::autotune {
namespace {

std::shared_ptr<const te::ComputeDAG> matmul(int64_t n) {
  te::Tensor a = te::placeholder("A", {n, n});
  te::Tensor b = te::placeholder("B", {n, n}, te::DType::Float32, true);
  return std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, b},
                                                std::vector<te::Tensor>{ops::matmul(a, b)});
}

// Answers every request with a time derived from its code, and counts what was outstanding.
class FakeWorkers : public measure::BatchRunner {
 public:
  explicit FakeWorkers(int workers) : workers_(workers) {}
  int64_t submit(const std::vector<measure::RunRequest>& requests) override {
    std::vector<measure::RunResult> out;
    for (const measure::RunRequest& r : requests) {
      measure::RunResult res;
      const std::string bytes(r.code.bytes.begin(), r.code.bytes.end());
      const double t = 1e-4 * (1 + static_cast<double>(std::hash<std::string>{}(bytes) % 1000) / 100);
      res.timing.costs_s = {t, t, t};
      res.timing.median_s = res.timing.min_s = res.timing.max_s = t;
      out.push_back(res);
    }
    outstanding_requests_ += static_cast<int>(requests.size());
    max_requests_ = std::max(max_requests_, outstanding_requests_);
    rounds_[next_] = std::move(out);
    max_rounds_ = std::max(max_rounds_, static_cast<int>(rounds_.size()));
    return next_++;
  }
  std::vector<measure::RunResult> wait(int64_t round) override {
    auto it = rounds_.find(round);
    EXPECT_NE(it, rounds_.end()) << "round " << round << " waited for twice or never submitted";
    if (it == rounds_.end()) return {};
    EXPECT_EQ(it->first, rounds_.begin()->first) << "rounds are recorded in submission order";
    std::vector<measure::RunResult> out = std::move(it->second);
    rounds_.erase(it);
    outstanding_requests_ -= static_cast<int>(out.size());
    return out;
  }
  int parallelism() override { return workers_; }
  std::string describe() const override { return "fake workers"; }

  int workers_, outstanding_requests_ = 0, max_requests_ = 0, max_rounds_ = 0;
  int64_t next_ = 0;
  std::map<int64_t, std::vector<measure::RunResult>> rounds_;
};

struct PipelinedRun {
  std::vector<schedule::Record> records;
  int max_requests = 0, max_rounds = 0;
};

PipelinedRun tuneWith(int workers, int64_t trials) {
  auto fake = std::make_shared<FakeWorkers>(workers);
  measure::MeasureOptions mo;
  mo.remote = fake;
  measure::Measurer m(mo);
  TunerOptions opt;
  opt.trials = trials;
  opt.defaults_per_batch = 2;
  opt.search.population = 64;
  opt.search.min_population = 32;
  opt.search.generations = 1;
  RandomModel model(3);
  Tuner tuner({{"a", "c", "matmul", matmul(48), 4}, {"b", "c", "matmul", matmul(64), 1}}, opt, model, m);
  PipelinedRun out;
  TunerProgress end = tuner.run(
      [&](const std::vector<schedule::Record>& r) { out.records.insert(out.records.end(), r.begin(), r.end()); });
  EXPECT_EQ(end.trials, trials);
  EXPECT_TRUE(fake->rounds_.empty()) << "every round is recorded before run() returns";
  out.max_requests = fake->max_requests_;
  out.max_rounds = fake->max_rounds_;
  return out;
}

TEST(PipelinedTuner, KeepsTheWorkersBusyWithRoundsInFlight) {
  const int64_t trials = 2 + 6 * 8;
  PipelinedRun run = tuneWith(8, trials);
  // Two rounds at least, and more while fewer than 2 x 8 candidates are outstanding.
  EXPECT_GE(run.max_rounds, 2);
  EXPECT_GE(run.max_requests, 16);
  EXPECT_LE(run.max_requests, 2 * 8 + 8);  // the last round submitted started below 2 x 8
  ASSERT_EQ(static_cast<int64_t>(run.records.size()), trials);
  // Nothing is measured twice, although rounds were searched while others were in flight.
  std::set<std::pair<std::string, std::string>> seen;
  for (const schedule::Record& r : run.records)
    EXPECT_TRUE(seen.insert({r.workload_key, SearchTask::stepsKey(r.steps)}).second)
        << "measured twice: " << r.workload_key;
  // Records arrive in submission order, numbered by trial.
  for (size_t i = 0; i < run.records.size(); ++i)
    EXPECT_EQ(run.records[i].provenance.trial, static_cast<int64_t>(i + 1));
  EXPECT_EQ(run.records[0].provenance.source, "default");
  EXPECT_EQ(run.records[1].provenance.source, "default");
}

TEST(PipelinedTuner, OneWorkerStillHasTheNextRoundQueued) {
  PipelinedRun run = tuneWith(1, 2 + 4 * 8);
  EXPECT_EQ(run.max_rounds, 2);
}

TEST(PipelinedTuner, TheBudgetCountsCandidatesInFlight) {
  // A budget that ends inside a round: nothing beyond it is submitted.
  PipelinedRun run = tuneWith(8, 2 + 8 + 3);
  EXPECT_EQ(run.records.size(), 13u);
}

}  // namespace
}  // namespace ttune::autotune
