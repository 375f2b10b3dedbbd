// Cost models: rank correlation, the random model, the pack-sum objective on synthetic additive
// scores, save/load, warm-up, adaptive retraining, training speed, and the real test: trained on
// measured random schedules of a matmul and a convolution, the model ranks held-out schedules far
// better than chance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <numeric>
#include <thread>

#include "autotune/cost_model.h"
#include "codegen/codegen.h"
#include "codegen/jit.h"
#include "common/random_schedule.h"
#include "lower/lower.h"
#include "measure/timing.h"
#include "ops/registry.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/hash.h"
#include "support/timer.h"

namespace ttune::autotune {
namespace {

TEST(RankCorrelation, Basics) {
  EXPECT_DOUBLE_EQ(rankCorrelation({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(rankCorrelation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_DOUBLE_EQ(rankCorrelation({1, 2, 3, 4}, {1, 1, 1, 1}), 0.0);         // constant side
  EXPECT_NEAR(rankCorrelation({1, 2, 2, 3}, {1, 2, 3, 4}), 0.9486833, 1e-6);  // tie: average rank
  EXPECT_DOUBLE_EQ(rankCorrelation({1, 2, 3}, {1, 4, 9}), 1.0);               // monotone, not linear
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(rankCorrelation({-inf, 0, 1}, {0, 1, 2}), 1.0);
}

// Synthetic state features: n_stores rows with a few informative columns.
StateFeatures syntheticState(Rng& rng, int n_stores, double* score) {
  StateFeatures f;
  f.n_stores = n_stores;
  f.data.assign(static_cast<size_t>(n_stores) * kNumFeatures, 0.f);
  *score = 0;
  for (int r = 0; r < n_stores; ++r) {
    float* row = f.data.data() + static_cast<size_t>(r) * kNumFeatures;
    for (int c = 0; c < 6; ++c) row[c] = static_cast<float>(rng.uniform());
    // Additive per-store score.
    *score += 0.2 + 0.8 * row[0] + (row[1] > 0.5 ? 0.6 : 0.0) + 0.3 * row[2] * row[3];
  }
  return f;
}

TEST(RandomModel, SeededAndInvalidIsMinusInfinity) {
  RandomModel a(7), b(7);
  std::vector<StateFeatures> states(5);
  states[0].n_stores = 1;
  states[0].data.assign(kNumFeatures, 0.f);
  states[2] = states[0];
  std::vector<double> pa = a.predict(states), pb = b.predict(states);
  EXPECT_EQ(pa, pb);
  EXPECT_GE(pa[0], 0.0);
  EXPECT_LT(pa[0], 1.0);
  EXPECT_TRUE(std::isinf(pa[1]) && pa[1] < 0);
  EXPECT_EQ(a.name(), "random");
}

TEST(NormalizedThroughputs, PerTask) {
  std::vector<TrainingSample> s(5);
  s[0] = {{}, "a", 2.0};
  s[1] = {{}, "a", 1.0};
  s[2] = {{}, "b", 10.0};
  s[3] = {{}, "b", 40.0};
  s[4] = {{}, "a", std::numeric_limits<double>::infinity()};  // failed
  std::vector<double> l = normalizedThroughputs(s);
  EXPECT_EQ(l, (std::vector<double>{0.5, 1.0, 1.0, 0.25, 0.0}));
}

XGBoostOptions quickOptions() {
  XGBoostOptions o;
  o.num_warmup_samples = 0;
  o.retrain_growth = 0;
  return o;
}

TEST(XGBoostModel, PackSumLearnsAdditiveScores) {
  // Each state's score is the sum of its stores' scores; the label is score / best score. A
  // model that learned the per-store function predicts held-out sums, whatever the pack sizes.
  Rng rng(3);
  std::vector<TrainingSample> train;
  std::vector<double> scores;
  for (int i = 0; i < 600; ++i) {
    double score;
    StateFeatures f = syntheticState(rng, 1 + static_cast<int>(rng.index(4)), &score);
    train.push_back({f, "synthetic", 1.0 / score});
    scores.push_back(score);
  }
  double best = *std::max_element(scores.begin(), scores.end());
  XGBoostOptions opt = quickOptions();
  opt.objective = XGBoostObjective::kPackSumSquare;  // labels are additive: the sum is learned
  XGBoostModel model(opt);
  model.update(train);
  ASSERT_TRUE(model.trained());
  std::vector<StateFeatures> test;
  std::vector<double> truth;
  for (int i = 0; i < 200; ++i) {
    double score;
    test.push_back(syntheticState(rng, 1 + static_cast<int>(rng.index(4)), &score));
    truth.push_back(score / best);
  }
  std::vector<double> pred = model.predict(test);
  double rho = rankCorrelation(pred, truth);
  double se = 0;
  for (size_t i = 0; i < pred.size(); ++i) se += (pred[i] - truth[i]) * (pred[i] - truth[i]);
  double rmse = std::sqrt(se / static_cast<double>(pred.size()));
  std::printf("[ pack-sum ] held-out spearman %.3f, rmse %.3f (labels in (0, 1]), %d rounds, %.3f s\n", rho, rmse,
              model.lastTraining().best_round, model.lastTraining().seconds);
  EXPECT_GT(rho, 0.95);
  EXPECT_LT(rmse, 0.08);
  // One store alone scores its own share.
  Rng one(11);
  double s1;
  StateFeatures single = syntheticState(one, 1, &s1);
  EXPECT_NEAR(model.predict({single})[0], s1 / best, 0.1);
}

TEST(XGBoostModel, WarmupSaveLoadDeterminism) {
  Rng rng(5);
  std::vector<TrainingSample> train;
  for (int i = 0; i < 120; ++i) {
    double score;
    StateFeatures f = syntheticState(rng, 2, &score);
    train.push_back({f, i % 2 ? "t1" : "t2", 1.0 / score});
  }
  std::vector<StateFeatures> probe;
  for (int i = 0; i < 20; ++i) probe.push_back(train[i].features);
  probe.push_back(StateFeatures{});  // failed features

  XGBoostOptions opt;
  opt.num_warmup_samples = 100;
  XGBoostModel model(opt);
  model.update({train.begin(), train.begin() + 50});
  EXPECT_FALSE(model.trained());
  std::vector<double> warm = model.predict(probe);  // random during warm-up
  for (size_t i = 0; i + 1 < warm.size(); ++i) EXPECT_TRUE(warm[i] >= 0 && warm[i] < 1);
  EXPECT_TRUE(std::isinf(warm.back()) && warm.back() < 0);

  model.update({train.begin() + 50, train.end()});
  ASSERT_TRUE(model.trained());
  EXPECT_EQ(model.lastTraining().packs, 120u);
  std::vector<double> p1 = model.predict(probe);
  EXPECT_TRUE(std::isinf(p1.back()) && p1.back() < 0);

  XGBoostModel again(opt);  // same data, same seed: same scores
  again.update(train);
  EXPECT_EQ(again.predict(probe), p1);

  std::string path = (std::filesystem::temp_directory_path() / "ttune_cost_model_test.model").string();
  model.save(path);
  XGBoostModel loaded(opt);
  loaded.load(path);  // a loaded model skips warm-up
  EXPECT_EQ(loaded.predict(probe), p1);

  std::ofstream(path) << "ttune-xgboost-model 2 features 999 " << kNumFeatures << " calibration 0 1 0 bytes 0\n";
  try {
    loaded.load(path);
    ADD_FAILURE() << "loading a model of another feature layout must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("feature layout v999"), std::string::npos) << e.what();
  }
  std::ofstream(path) << "garbage";
  EXPECT_THROW(loaded.load(path), Error);
  std::filesystem::remove(path);
}

TEST(XGBoostModel, AdaptiveTrainingWaitsForGrowth) {
  Rng rng(9);
  auto batch = [&](int n) {
    std::vector<TrainingSample> b;
    for (int i = 0; i < n; ++i) {
      double score;
      b.push_back({syntheticState(rng, 1, &score), "t", 1.0 / score});
    }
    return b;
  };
  XGBoostOptions opt;
  opt.num_warmup_samples = 10;
  opt.retrain_growth = 0.2;
  XGBoostModel model(opt);
  model.update(batch(100));
  EXPECT_EQ(model.lastTraining().packs, 100u);
  model.update(batch(10));  // 110 < 120: keep the model
  EXPECT_EQ(model.lastTraining().packs, 100u);
  model.update(batch(10));  // 120: retrain from scratch on everything
  EXPECT_EQ(model.lastTraining().packs, 120u);
}

// A prior of other workloads that follow the same cost function ranks a new workload's states
// before the model has seen any of them; without it the predictions are random until warm-up.
TEST(XGBoostModel, APriorRanksANewWorkloadFromTheStart) {
  Rng rng(21);
  std::vector<TrainingSample> prior;
  for (int task = 0; task < 6; ++task)
    for (int i = 0; i < 60; ++i) {
      double score;
      StateFeatures f = syntheticState(rng, 1 + static_cast<int>(rng.index(3)), &score);
      prior.push_back({f, "other" + std::to_string(task), 1.0 / score});
    }
  std::vector<StateFeatures> fresh;
  std::vector<double> truth;
  for (int i = 0; i < 200; ++i) {
    double score;
    fresh.push_back(syntheticState(rng, 1 + static_cast<int>(rng.index(3)), &score));
    truth.push_back(score);
  }
  XGBoostOptions opt = quickOptions();
  opt.num_warmup_samples = 100;
  XGBoostModel with(opt), without(opt);
  with.setPrior(prior);
  EXPECT_TRUE(with.trained());
  EXPECT_EQ(with.numPriorSamples(), prior.size());
  EXPECT_EQ(with.lastTraining().packs, prior.size());
  double rho_with = rankCorrelation(with.predict(fresh), truth);
  double rho_without = rankCorrelation(without.predict(fresh), truth);
  EXPECT_GT(rho_with, 0.6);
  EXPECT_LT(std::abs(rho_without), 0.3);  // random before warm-up
}

// Retraining follows the growth of the task's own samples, not of the prior's: a prior ten times
// larger than the own data does not stop the model from learning them.
TEST(XGBoostModel, RetrainingWithAPriorFollowsTheOwnSamples) {
  Rng rng(5);
  auto batch = [&](int n, const std::string& task) {
    std::vector<TrainingSample> b;
    for (int i = 0; i < n; ++i) {
      double score;
      b.push_back({syntheticState(rng, 1, &score), task, 1.0 / score});
    }
    return b;
  };
  XGBoostOptions opt;
  opt.num_warmup_samples = 50;
  opt.retrain_growth = 0.2;
  XGBoostModel model(opt);
  model.setPrior(batch(400, "prior"));
  EXPECT_EQ(model.lastTraining().packs, 400u);
  model.update(batch(8, "own"));  // below warm-up, but the prior makes the model warm: train
  EXPECT_EQ(model.lastTraining().packs, 408u);
  model.update(batch(1, "own"));  // 9 < 8 x 1.2: keep
  EXPECT_EQ(model.lastTraining().packs, 408u);
  model.update(batch(1, "own"));  // 10 >= 9.6: retrain on prior and own
  EXPECT_EQ(model.lastTraining().packs, 410u);
}

// ---- Measured schedules ----------------------------------------------------------------------------

struct Measured {
  StateFeatures features;
  double cost_s = 0;
};

// Schedules whose code explodes at compile time (unrolled x vectorized bodies, vector loops
// around other loops, which the code generator unrolls lane by lane) take seconds to build; the
// test leaves them out.
bool quickToCompile(const std::vector<StoreFeatures>& stores) {
  for (const StoreFeatures& f : stores) {
    const ComputeFeatures& c = f.compute;
    if (std::max(1.f, c.unroll_prod) * std::max(1.f, c.vec_prod) > 512) return false;
    if (c.vec_num > 0 && c.vec_pos_inner_spatial == 0 && c.vec_pos_inner_reduce == 0) return false;
  }
  return true;
}

// CPU seconds of the calling thread: unlike wall time, not inflated while other processes hold
// the core (the kernels run on this thread: the pool is set to one thread while timing).
double threadSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Seconds per run: the minimum over 3 repeats of back-to-back runs lasting >= 0.5 ms each (one
// run per repeat for slow, pathological schedules).
double timeKernel(const std::function<void()>& run) {
  double best = std::numeric_limits<double>::infinity();
  int number = 1;
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = threadSeconds();
    for (int i = 0; i < number; ++i) run();
    double dt = threadSeconds() - t0;
    while (dt < 5e-4) {  // grow the batch until it is long enough to time
      number = std::max(number * 2, static_cast<int>(number * 6e-4 / std::max(dt, 1e-9)));
      t0 = threadSeconds();
      for (int i = 0; i < number; ++i) run();
      dt = threadSeconds() - t0;
    }
    best = std::min(best, dt / number);
  }
  return best;
}

struct Task {
  std::string name;
  std::vector<Measured> data;
  std::vector<schedule::State> states;
};

// Random valid schedules of each DAG (deterministic for the seed), with their features.
std::vector<Task> sampleSchedules(
    const std::vector<std::pair<std::string, std::shared_ptr<const te::ComputeDAG>>>& dags, int n, uint64_t seed) {
  std::vector<Task> tasks;
  for (const auto& [name, dag] : dags) {
    Task t{name, {}, {}};
    for (uint64_t s = seed; static_cast<int>(t.states.size()) < n; ++s) {
      schedule::State st = testing::randomSchedule(dag, s);
      auto f = lower::lower(st, "kernel");
      if (!f.ok() || !quickToCompile(extractStoreFeatures(*f, &st))) continue;
      t.data.push_back({extractFeatures(*f, &st), std::numeric_limits<double>::infinity()});
      t.states.push_back(st);
    }
    tasks.push_back(std::move(t));
  }
  return tasks;
}

// Compiles every schedule (LLVM -O2, two threads), then times them in shuffled rounds over all
// kernels of all tasks on one thread, keeping each kernel's minimum: a slow phase of a shared
// machine then does not shift a range of consecutive candidates.
void measure(std::vector<Task>& tasks) {
  struct Candidate {
    Measured* out;
    const schedule::State* state;
    Expected<codegen::ObjectCode> obj = Unexpected("not built");
    std::shared_ptr<codegen::LoadedKernel> kernel;
    std::vector<runtime::NDArray> arrays;
    std::vector<void*> args;
  };
  std::vector<Candidate> cands;
  for (Task& t : tasks)
    for (size_t i = 0; i < t.states.size(); ++i)
      cands.push_back({&t.data[i], &t.states[i], Unexpected("not built"), nullptr, {}, {}});
  Timer build_timer;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < cands.size(); i = next++) {
      auto f = lower::lower(*cands[i].state, "kernel");
      if (f.ok()) cands[i].obj = codegen::compile(*f, codegen::CompileOptions{2});
    }
  };
  std::thread helper(work);
  work();
  helper.join();
  double build_s = build_timer.seconds();

  Timer run_timer;
  runtime::ThreadPool& pool = runtime::ThreadPool::global();
  int threads = pool.numThreads();
  pool.setNumThreads(1);
  for (Candidate& c : cands) {
    if (!c.obj.ok()) continue;
    auto k = codegen::loadKernel(*c.obj);
    if (!k.ok()) continue;
    c.kernel = *k;
    for (const te::Tensor& t : c.state->dag().tensors()) {
      c.arrays.emplace_back(t.shape(), t.dtype());
      c.arrays.back().fill(0.5);
      c.args.push_back(c.arrays.back().data());
    }
  }
  std::vector<size_t> order(cands.size());
  std::iota(order.begin(), order.end(), 0);
  Rng rng(1);
  for (int round = 0; round < 4; ++round) {
    rng.shuffle(order);
    for (size_t i : order) {
      Candidate& c = cands[i];
      if (c.kernel) c.out->cost_s = std::min(c.out->cost_s, timeKernel([&] { (*c.kernel)(c.args.data()); }));
    }
  }
  pool.setNumThreads(threads);
  std::printf("[ measured ] %zu kernels built in %.1f s, timed in %.1f s\n", cands.size(), build_s,
              run_timer.seconds());
}

// TTUNE_COST_MODEL_TEST_CACHE=<file>: reuse the measured costs across runs (for work on the model;
// features are recomputed from the regenerated schedules). Entries are keyed by a hash of the
// lowered kernel, so a change of the lowering invalidates them.
uint64_t kernelHash(const schedule::State& s) {
  auto f = lower::lower(s, "kernel");
  return Hasher().add(f.ok() ? lower::toString(*f) : f.error()).value();
}

bool readCache(const std::string& path, std::vector<Task>& tasks) {
  std::ifstream in(path);
  for (Task& t : tasks)
    for (size_t i = 0; i < t.data.size(); ++i) {
      std::string hash;
      if (!(in >> hash >> t.data[i].cost_s) || hash != toHex(kernelHash(t.states[i]))) return false;
    }
  return true;
}

void writeCache(const std::string& path, const std::vector<Task>& tasks) {
  std::ofstream out(path);
  out.precision(9);
  for (const Task& t : tasks)
    for (size_t i = 0; i < t.data.size(); ++i) out << toHex(kernelHash(t.states[i])) << " " << t.data[i].cost_s << "\n";
}

const std::vector<Task>& measuredTasks() {
  static const std::vector<Task> tasks = [] {
    Timer t;
    auto dag = [](const char* op, std::vector<std::string> params) {
      return std::make_shared<const te::ComputeDAG>(ops::buildOp(op, params).dag());
    };
    std::vector<Task> v =
        sampleSchedules({{"matmul 64x64x64", dag("matmul", {"M=64", "N=64", "K=64"})},
                         {"conv2d 16x16x16 k16 3x3", dag("conv2d", {"C=16", "H=16", "W=16", "K=16", "pad=1"})}},
                        300, 1);
    const char* cache = std::getenv("TTUNE_COST_MODEL_TEST_CACHE");
    if (cache && readCache(cache, v)) return v;
    measure(v);
    std::printf("[ measured ] %zu + %zu schedules sampled, built and timed in %.1f s\n", v[0].data.size(),
                v[1].data.size(), t.seconds());
    if (cache) writeCache(cache, v);
    return v;
  }();
  return tasks;
}

TEST(XGBoostModel, TrainingSpeed) {
  // 3000 random schedules (matmul and conv, ~8000 stores) with random costs, the worst case for
  // tree growth: a retrain must stay well under a second.
  auto dag = [](const char* op, std::vector<std::string> params) {
    return std::make_shared<const te::ComputeDAG>(ops::buildOp(op, params).dag());
  };
  Timer sample_timer;
  std::vector<Task> tasks = sampleSchedules({{"matmul", dag("matmul", {"M=64", "N=64", "K=64"})},
                                             {"conv", dag("conv2d", {"C=16", "H=16", "W=16", "K=16", "pad=1"})}},
                                            1500, 1000);
  double sample_s = sample_timer.seconds();
  Rng rng(1);
  std::vector<TrainingSample> train;
  for (const Task& t : tasks)
    for (const Measured& m : t.data) train.push_back({m.features, t.name, std::exp(rng.uniform(0, 6))});
  for (XGBoostObjective objective : {XGBoostObjective::kPackSumRank, XGBoostObjective::kPackSumSquare}) {
    XGBoostOptions opt = quickOptions();
    opt.objective = objective;
    XGBoostModel model(opt);
    model.update(train);
    const TrainStats& st = model.lastTraining();
    std::printf(
        "[ training ] %s: %zu states (%zu rows, sampled and featurized in %.2f s): %d rounds in %.3f s, nthread %d\n",
        objective == XGBoostObjective::kPackSumRank ? "rank" : "square", st.packs, st.rows, sample_s, st.rounds,
        st.seconds, model.options().nthread);
    EXPECT_LT(st.seconds, 3.0);  // loose bound for shared CI cores; ~0.6 s when idle
  }
}

// 5-fold cross-validation: one model trained on 80% of both tasks ranks the held-out 20% of each.
// Returns the mean Spearman correlation of predicted scores with measured throughputs per task.
std::vector<double> crossValidatedSpearman(const std::vector<Task>& tasks,
                                           const std::function<std::unique_ptr<CostModel>(int)>& make,
                                           double* train_s = nullptr) {
  constexpr int kFolds = 5;
  std::vector<double> rho(tasks.size(), 0);
  for (int fold = 0; fold < kFolds; ++fold) {
    std::vector<TrainingSample> train;
    for (const Task& t : tasks)
      for (size_t i = 0; i < t.data.size(); ++i)
        if (static_cast<int>(i % kFolds) != fold) train.push_back({t.data[i].features, t.name, t.data[i].cost_s});
    std::unique_ptr<CostModel> model = make(fold);
    Timer timer;
    model->update(train);
    if (train_s) *train_s += timer.seconds() / kFolds;
    for (size_t k = 0; k < tasks.size(); ++k) {
      std::vector<StateFeatures> test;
      std::vector<double> throughput;
      for (size_t i = fold; i < tasks[k].data.size(); i += kFolds) {
        test.push_back(tasks[k].data[i].features);
        throughput.push_back(1.0 / tasks[k].data[i].cost_s);
      }
      rho[k] += rankCorrelation(model->predict(test), throughput) / kFolds;
    }
  }
  return rho;
}

TEST(XGBoostModel, RanksHeldOutMeasuredSchedules) {
  const std::vector<Task>& tasks = measuredTasks();
  double train_s = 0;
  auto xgb = [](XGBoostObjective objective) {
    return [objective](int) {
      XGBoostOptions o = quickOptions();
      o.objective = objective;
      return std::unique_ptr<CostModel>(std::make_unique<XGBoostModel>(o));
    };
  };
  std::vector<double> rank = crossValidatedSpearman(tasks, xgb(XGBoostObjective::kPackSumRank), &train_s);
  std::vector<double> square = crossValidatedSpearman(tasks, xgb(XGBoostObjective::kPackSumSquare));
  std::vector<double> rnd = crossValidatedSpearman(
      tasks, [](int fold) { return std::unique_ptr<CostModel>(std::make_unique<RandomModel>(fold)); });
  // Calibration (300 schedules per task, 5 runs on a shared 2-core machine): rank objective
  // 0.50-0.57 (matmul) and 0.61-0.72 (conv), Ansor's objective 0.39-0.43 and 0.32-0.38, random ~0.
  // Measurement noise alone (two runs of the same schedules) gives 0.91-0.97.
  double mean = 0;
  for (size_t k = 0; k < tasks.size(); ++k) {
    std::printf("[ ranking  ] %-24s held-out spearman: xgboost rank %.3f, xgboost square (Ansor) %.3f, random %.3f\n",
                tasks[k].name.c_str(), rank[k], square[k], rnd[k]);
    EXPECT_GT(rank[k], 0.4) << tasks[k].name;
    EXPECT_GT(rank[k], rnd[k] + 0.3) << tasks[k].name;
    EXPECT_GT(square[k], rnd[k] + 0.1) << tasks[k].name;
    mean += rank[k] / static_cast<double>(tasks.size());
  }
  EXPECT_GT(mean, 0.5);
  std::printf("[ ranking  ] mean training time (rank objective, %zu states) %.3f s\n",
              (tasks[0].data.size() + tasks[1].data.size()) * 4 / 5, train_s);
}

}  // namespace
}  // namespace ttune::autotune
