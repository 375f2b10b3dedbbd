#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include <chrono>
#include <thread>
#include "autotune/sampler.h"
#include "autotune/tuner.h"
#include "lower/lower.h"
#include "measure/builder.h"
#include "ops/ops.h"

namespace ttune::autotune {
namespace {

std::shared_ptr<const te::ComputeDAG> matmul(int64_t n, bool constant_b = true) {
  te::Tensor a = te::placeholder("A", {n, n});
  te::Tensor b = te::placeholder("B", {n, n}, te::DType::Float32, constant_b);
  return std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, b},
                                                std::vector<te::Tensor>{ops::matmul(a, b)});
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

// The first batch measures the default schedule, and mutations of it are valid states, so the
// search can refine it (a conv with a fused relu: tile, compute-at and fused parallel loop).
TEST(SearchTask, FirstBatchHoldsTheDefaultScheduleAndEvolvesFromIt) {
  te::Tensor x = te::placeholder("X", {1, 32, 14, 14});
  te::Tensor w = te::placeholder("W", {64, 32, 3, 3}, te::DType::Float32, true);
  te::Tensor y = ops::relu(ops::conv2d_nchw(x, w, {1, 1}, {1, 1, 1, 1}));
  auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w}, std::vector<te::Tensor>{y});
  SearchOptions opt;
  opt.population = 64;
  opt.generations = 1;
  SearchTask t(dag, "conv", opt, 3);
  RandomModel model(1);
  auto batch = t.nextBatch(8, model);
  ASSERT_FALSE(batch.empty());
  std::vector<schedule::Step> plain = withoutLayoutRewrites(measure::defaultScheduleFor(*dag));
  EXPECT_EQ(SearchTask::stateKey(batch[0].state), SearchTask::stepsKey(plain));
  Rng rng(5);
  std::set<std::string> distinct;
  // The default's register tile already fills the register file on a 32-register target, so
  // mutations that grow it are rejected; the rest still give many distinct states.
  for (int i = 0; i < 100; ++i)
    if (auto m = mutateState(batch[0].state, rng, SamplerOptions{})) distinct.insert(SearchTask::stateKey(*m));
  distinct.erase(SearchTask::stateKey(batch[0].state));
  EXPECT_GT(distinct.size(), 8u);
  SearchOptions off = opt;
  off.seed_with_default = false;
  SearchTask u(dag, "conv", off, 3);
  for (const auto& c : u.nextBatch(8, model)) EXPECT_NE(SearchTask::stateKey(c.state), SearchTask::stepsKey(plain));
}

// The default the tuner measures first is the untuned schedule exactly as everything else runs
// it, in both baselines: a dense layer's basic default has no weight layout rewrite, and the
// search must not add one to what it records as "default" (it ran 6x faster than untuned).
TEST(SearchTask, TheDefaultIsMeasuredExactlyAsTheUntunedSchedule) {
  te::Tensor x = te::placeholder("X", {1, 256});
  te::Tensor w = te::placeholder("W", {512, 256}, te::DType::Float32, true);
  auto dag = std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w},
                                                    std::vector<te::Tensor>{ops::relu(ops::dense(x, w))});
  for (schedule::Baseline b : {schedule::Baseline::Basic, schedule::Baseline::Strong}) {
    SearchOptions opt;
    opt.population = 32;
    opt.generations = 1;
    opt.baseline = b;
    std::vector<schedule::Step> untuned = measure::defaultScheduleFor(*dag, opt.target, b);
    SearchTask t(dag, "dense", opt, 3);
    auto d = t.defaultCandidate();
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(SearchTask::stepsKey(d->build_steps), SearchTask::stepsKey(untuned)) << schedule::baselineName(b);
    RandomModel model(1);
    auto batch = t.nextBatch(4, model);
    ASSERT_FALSE(batch.empty());
    EXPECT_EQ(SearchTask::stepsKey(batch[0].build_steps), SearchTask::stepsKey(untuned)) << schedule::baselineName(b);
  }
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
  const std::vector<std::string> first = run();
  ASSERT_FALSE(first.empty()) << "the batch proposed no candidate";
  EXPECT_EQ(first, run());
}

// The search, measured for real and started without the default schedule, finds a matmul
// schedule far faster than the plain loop nest and close to the default schedule (a register
// tile shaped for the target, near the FMA peak). B is an activation (as in attention), so
// neither side can pack it at load time.
TEST(Tuner, SmallMatmulFromScratchNearsDefaultSchedule) {
  auto dag = matmul(512, /*constant_b=*/false);
  measure::MeasureOptions mo;
  mo.timing.min_repeat_ms = 5;
  mo.timing.repeat = 3;
  measure::Measurer m(mo);
  auto def = m.measure({{dag, measure::defaultScheduleFor(*dag)}});
  ASSERT_TRUE(def[0].ok()) << def[0].error_msg;
  TunerOptions opt;
  opt.trials = 96;
  opt.measures_per_round = 32;
  opt.search.population = 256;
  opt.search.generations = 2;
  opt.search.seed_with_default = false;
  XGBoostOptions xo;
  xo.num_warmup_samples = 16;
  XGBoostModel model(xo);
  Tuner tuner({{"mm", "c", "matmul", dag, 1}}, opt, model, m);
  std::vector<schedule::Record> records;
  auto p =
      tuner.run([&](const std::vector<schedule::Record>& r) { records.insert(records.end(), r.begin(), r.end()); });
  EXPECT_EQ(records.size(), 96u);
  EXPECT_EQ(p.trials, 96);
  ASSERT_TRUE(std::isfinite(tuner.tasks()[0]->bestCost()));
  // One measurement of a 1 ms kernel on a shared machine can flatter a schedule, so the four
  // fastest records are timed again next to the default (three rounds, best of each; load from
  // other processes slows all alike) and the fastest of them is the search's result.
  std::erase_if(records, [](const schedule::Record& r) { return !r.result.ok(); });
  std::sort(records.begin(), records.end(), [](auto& a, auto& b) { return a.result.median() < b.result.median(); });
  records.resize(std::min<size_t>(records.size(), 4));
  ASSERT_FALSE(records.empty());
  std::vector<measure::MeasureInput> batch{{dag, measure::defaultScheduleFor(*dag)}};
  for (const auto& r : records) batch.push_back({dag, r.steps});
  std::vector<double> best_of(batch.size(), 1e9);
  for (int round = 0; round < 3; ++round) {
    auto r = m.measure(batch);
    for (size_t i = 0; i < r.size(); ++i)
      if (r[i].ok()) best_of[i] = std::min(best_of[i], r[i].median());
  }
  double deflt = best_of[0];
  double best = *std::min_element(best_of.begin() + 1, best_of.end());
  // The default schedule runs near the FMA peak (90-99% on the development machines); 96 trials
  // of search from scratch reach 0.75-1.0x of it there. Over the plain loop nest the gain is two
  // orders of magnitude.
  EXPECT_LT(best, 1.6 * deflt) << "tuned " << best << " default " << deflt;
  auto plain = m.measure({{dag, {}}});
  ASSERT_TRUE(plain[0].ok());
  EXPECT_LT(best * 20, plain[0].median()) << "tuned " << best << " plain " << plain[0].median();
  std::cout << "tuned " << best << " s, default " << deflt << " s\n";
}

// A tuning run in which some compiles crash and one hangs: each costs its candidate (recorded
// with its kind) and the run finishes with every trial accounted for.
TEST(Tuner, CrashingAndHangingCompilesCostOneCandidateAndTheRunFinishes) {
  measure::MeasureOptions mo;
  mo.timing.min_repeat_ms = 1;
  mo.timing.repeat = 1;
  mo.build_timeout_s = 1;
  measure::Measurer m(mo);
  // By content, so that the build process (a fork) decides alone: auto-unroll 512 crashes the
  // compiler, auto-unroll 16 with a parallel annotation on the first stage hangs it.
  measure::Builder::setFaultHookForTesting([](const measure::MeasureInput& in) {
    bool u512 = false, u16 = false;
    for (const auto& st : in.steps)
      if (const auto* u = std::get_if<schedule::AutoUnrollStep>(&st))
        u512 |= u->max_step == 512, u16 |= u->max_step == 16;
    if (u512) std::abort();
    if (u16 && SearchTask::stepsKey(in.steps).back() == '7') std::this_thread::sleep_for(std::chrono::hours(1));
  });
  TunerOptions opt;
  opt.trials = 40;
  opt.search.population = 64;
  opt.search.min_population = 32;
  opt.search.generations = 1;
  RandomModel model(4);
  Tuner tuner({{"mm", "c", "matmul", matmul(64), 1}}, opt, model, m);
  std::vector<schedule::Record> records;
  auto p =
      tuner.run([&](const std::vector<schedule::Record>& r) { records.insert(records.end(), r.begin(), r.end()); });
  measure::Builder::setFaultHookForTesting({});
  EXPECT_EQ(p.trials, 40);
  ASSERT_EQ(records.size(), 40u);
  int crashed = 0, ok = 0;
  for (const auto& r : records) {
    crashed += r.result.error == schedule::ErrorKind::CompileError &&
               r.result.error_msg.find("the compiler crashed") != std::string::npos;
    ok += r.result.ok();
  }
  EXPECT_GT(crashed, 0) << "no candidate with auto-unroll 512 was drawn";
  EXPECT_GT(ok, 10);
  EXPECT_TRUE(std::isfinite(tuner.tasks()[0]->bestCost()));
}

// Every task's default is measured first, in batches across tasks committed as they complete;
// the estimated latency is finite from the end of that phase; then the rounds go first to the
// task where the model spends the most time (weight x time), and no task ends slower than its
// default.
TEST(Tuner, MeasuresEveryDefaultFirstThenSpendsWhereTheTimeIs) {
  measure::MeasureOptions mo;
  mo.timing.min_repeat_ms = 2;
  mo.timing.repeat = 2;
  measure::Measurer m(mo);
  // The 64x64 matmul runs 40 times in the "model": the most time despite the fewest FLOPs.
  std::vector<TuneTaskSpec> specs = {{"small", "c", "matmul", matmul(64), 40},
                                     {"mid", "c", "matmul", matmul(96), 1},
                                     {"big", "c", "matmul", matmul(128), 1}};
  TunerOptions opt;
  opt.trials = 3 + 8;
  opt.defaults_per_batch = 2;
  opt.search.population = 128;
  opt.search.min_population = 64;
  opt.search.generations = 1;
  RandomModel model(2);
  Tuner tuner(specs, opt, model, m);
  std::vector<std::vector<schedule::Record>> batches;
  std::vector<TunerProgress> views;
  tuner.run([&](const std::vector<schedule::Record>& r) { batches.push_back(r); },
            [&](const TunerProgress& p) { views.push_back(p); });
  ASSERT_EQ(batches.size(), 3u);  // defaults in two batches (2 + 1), then one round of 8
  EXPECT_EQ(batches[0].size(), 2u);
  EXPECT_EQ(batches[1].size(), 1u);
  std::set<std::string> defaults;
  for (int b = 0; b < 2; ++b)
    for (const auto& r : batches[b]) {
      defaults.insert(r.workload_key);
      EXPECT_TRUE(r.result.ok()) << r.result.error_msg;
    }
  EXPECT_EQ(defaults.size(), 3u);
  // The first default batch holds the heaviest tasks by FLOPs x occurrences.
  std::set<std::string> first;
  for (const auto& r : batches[0]) first.insert(r.workload_key);
  EXPECT_TRUE(first.count("small") && first.count("big"));
  ASSERT_GE(views.size(), 2u);
  EXPECT_FALSE(std::isfinite(views[0].estimated_latency_s));  // one task still unmeasured
  EXPECT_TRUE(std::isfinite(views[1].estimated_latency_s));
  EXPECT_DOUBLE_EQ(views[1].estimated_latency_s, views[1].untuned_latency_s);
  // The round went to the task with the most weighted time.
  ASSERT_EQ(batches[2].size(), 8u);
  const TunerProgress& end = views.back();
  int heaviest = 0;
  for (int i = 1; i < 3; ++i)
    if (end.tasks[i].weight * end.tasks[i].default_s > end.tasks[heaviest].weight * end.tasks[heaviest].default_s)
      heaviest = i;
  EXPECT_EQ(batches[2][0].workload_key, specs[heaviest].workload_key);
  EXPECT_EQ(end.current_task, heaviest);
  for (const TaskProgress& t : end.tasks) EXPECT_LE(t.best_s, t.default_s) << t.workload_key;
  EXPECT_LE(end.estimated_latency_s, end.untuned_latency_s);
}

}  // namespace
}  // namespace ttune::autotune
