#include <gtest/gtest.h>

#include "autotune/tuner.h"
#include "lower/lower.h"
#include "measure/builder.h"
#include "ops/ops.h"
#include "schedule/default_schedule.h"

namespace ttune::autotune {
namespace {

std::shared_ptr<const te::ComputeDAG> matmul(int64_t n) {
  te::Tensor a = te::placeholder("A", {n, n});
  te::Tensor b = te::placeholder("B", {n, n}, te::DType::Float32, true);
  return std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, b}, std::vector<te::Tensor>{ops::matmul(a, b)});
}

TEST(SearchTask, ProposesUniqueUnmeasuredValidCandidates) {
  SearchOptions opt;
  opt.population = 128;
  opt.generations = 2;
  SearchTask t(matmul(64), "mm", opt, 7);
  RandomModel model(3);
  auto batch = t.nextBatch(16, model);
  ASSERT_EQ(batch.size(), 16u);
  std::set<std::string> keys;
  for (const auto& c : batch) {
    keys.insert(SearchTask::stateKey(c.state));
    auto st = schedule::State::replay(t.dag(), c.build_steps);
    EXPECT_TRUE(st.ok()) << st.error();
    t.addMeasured(c.state, 1.0);
  }
  EXPECT_EQ(keys.size(), 16u);
  for (const auto& c : t.nextBatch(16, model)) EXPECT_FALSE(keys.count(SearchTask::stateKey(c.state)));
}

TEST(SearchTask, DeterministicForASeed) {
  SearchOptions opt;
  opt.population = 64;
  opt.generations = 1;
  auto run = [&] {
    SearchTask t(matmul(48), "mm", opt, 11);
    RandomModel model(5);
    std::vector<std::string> keys;
    for (const auto& c : t.nextBatch(8, model)) keys.push_back(SearchTask::stateKey(c.state));
    return keys;
  };
  EXPECT_EQ(run(), run());
}

// The search, measured for real, finds a matmul schedule far faster than the default schedule.
TEST(Tuner, SmallMatmulBeatsDefaultSchedule) {
  auto dag = matmul(256);
  measure::MeasureOptions mo;
  mo.timing.min_repeat_ms = 5;
  mo.timing.repeat = 3;
  measure::Measurer m(mo);
  auto def = m.measure({{dag, schedule::defaultSchedule(*dag)}});
  ASSERT_TRUE(def[0].ok()) << def[0].error_msg;
  TunerOptions opt;
  opt.trials = 96;
  opt.measures_per_round = 32;
  opt.search.population = 256;
  opt.search.generations = 2;
  XGBoostOptions xo;
  xo.num_warmup_samples = 16;
  XGBoostModel model(xo);
  Tuner tuner({{"mm", "c", "matmul", dag, 1}}, opt, model, m);
  int records = 0;
  auto p = tuner.run([&](const std::vector<schedule::Record>& r) { records += static_cast<int>(r.size()); });
  EXPECT_EQ(records, 96);
  EXPECT_EQ(p.trials, 96);
  double best = tuner.tasks()[0]->bestCost();
  ASSERT_TRUE(std::isfinite(best));
  EXPECT_LT(best * 2, def[0].median()) << "tuned " << best << " default " << def[0].median();
}

}  // namespace
}  // namespace ttune::autotune
