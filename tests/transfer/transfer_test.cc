#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "autotune/cost_model.h"
#include "autotune/sampler.h"
#include "autotune/search_task.h"
#include "common/check.h"
#include "graph/fusion.h"
#include "graph/passes.h"
#include "models/builder.h"
#include "ops/elementwise.h"
#include "ops/nn.h"
#include "store/bank.h"
#include "transfer/adapt.h"
#include "transfer/compare.h"
#include "transfer/nearest.h"
#include "transfer/refine.h"
#include "transfer/transfer.h"

namespace ttune::transfer {
namespace {

std::shared_ptr<const te::ComputeDAG> conv(int64_t hw, int64_t k) {
  te::Tensor x = te::placeholder("x", {1, 16, hw, hw});
  te::Tensor w = te::placeholder("w", {k, 16, 3, 3}, te::DType::Float32, true);
  return std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w},
                                                std::vector<te::Tensor>{ops::conv2d_nchw(x, w, {1, 1}, {1, 1, 1, 1})});
}

graph::Kernel kernelOf(std::shared_ptr<const te::ComputeDAG> dag) {
  graph::Kernel k;
  k.dag = std::move(dag);
  k.class_name = graph::className(*k.dag);
  k.class_id = graph::classId(*k.dag);
  k.workload_key = k.dag->workloadKey();
  return k;
}

// An (m x k) by (k x n) matrix product with a constant right operand: another class than conv.
graph::Kernel matmulKernel(int64_t m, int64_t k, int64_t n) {
  te::Tensor a = te::placeholder("a", {m, k});
  te::Tensor b = te::placeholder("b", {k, n}, te::DType::Float32, true);
  return kernelOf(std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, b},
                                                         std::vector<te::Tensor>{ops::matmul(a, b)}));
}

// Sampled schedules of a source kernel, with synthetic times (the i-th is the i-th fastest).
std::vector<schedule::Record> sourceRecords(const graph::Kernel& k, const std::string& model, uint64_t seed, int n = 24,
                                            const schedule::Target& target = codegen::hostTarget()) {
  autotune::SearchOptions so;
  so.population = 64;
  so.generations = 1;
  so.target = target;
  autotune::SearchTask task(k.dag, k.workload_key, so, seed);
  autotune::RandomModel rm(seed);
  std::vector<schedule::Record> out;
  for (const auto& c : task.nextBatch(n, rm)) {
    schedule::Record r;
    r.workload_key = k.workload_key;
    r.kernel_class = k.class_name;
    r.class_id = k.class_id;
    r.steps = c.build_steps;
    r.target = schedule::targetInfo(target, codegen::hostTarget().cpu, 2);
    r.result.costs_s = {1e-3 * (1 + out.size())};
    r.provenance = {model, model + "-run", "tune", static_cast<int64_t>(out.size()), 0, ""};
    out.push_back(r);
  }
  return out;
}

struct TempBank {
  explicit TempBank(const std::filesystem::path& path) : bank(std::move(store::Bank::open(path.string()).value())) {}
  store::Bank bank;
};

class TransferTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ttune-transfer-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    auto b = store::Bank::open((dir_ / "bank.db").string());
    ASSERT_TRUE(b.ok()) << b.error();
    bank_.emplace(std::move(*b));
    sources_ = {kernelOf(conv(14, 32)), kernelOf(conv(12, 16)), kernelOf(conv(16, 48))};
    target_ = kernelOf(conv(10, 24));
    for (size_t i = 0; i < sources_.size(); ++i) {
      dags_[sources_[i].workload_key] = sources_[i].dag;
      ASSERT_TRUE(bank_->addRecords(sourceRecords(sources_[i], "src", 10 + i)).ok());
    }
    ASSERT_TRUE(bank_->addRecords(sourceRecords(sources_[0], "src2", 20)).ok());
    // The target model's own record of a source workload: never a candidate for the target.
    auto own = sourceRecords(sources_[0], "tgt", 30, 1);
    own[0].result.costs_s = {1e-9};
    ASSERT_TRUE(bank_->addRecords(own).ok());
  }
  void TearDown() override {
    bank_.reset();
    std::filesystem::remove_all(dir_);
  }
  TransferOptions options() const {
    TransferOptions o;
    o.model = "tgt";
    o.run_id = "transfer-test";
    o.measure.timing.min_repeat_ms = 1;
    o.measure.timing.repeat = 2;
    o.measure.check = true;
    return o;
  }
  TransferResult run(const TransferOptions& o, std::vector<schedule::Record>* sunk = nullptr) {
    std::vector<graph::Kernel> ks{target_};
    return transferTune(ks, *bank_, o, [&](const std::vector<schedule::Record>& rs) {
      if (sunk) sunk->insert(sunk->end(), rs.begin(), rs.end());
    });
  }

  std::filesystem::path dir_;
  std::optional<store::Bank> bank_;
  std::vector<graph::Kernel> sources_;
  graph::Kernel target_;
  std::map<std::string, std::shared_ptr<const te::ComputeDAG>> dags_;
};

// Adapted schedules replay on the new shapes, every concrete split divides its new extent, and
// the compiled kernels compute what the reference evaluator computes.
TEST_F(TransferTest, AdaptedSchedulesDivideAndAreCorrect) {
  testing::Checker checker(target_.dag);
  int checked = 0, changed = 0;
  for (const schedule::Record& r : sourceRecords(sources_[2], "src", 10)) {
    auto steps = adaptSplits(r.steps, target_.dag);
    ASSERT_TRUE(steps.ok()) << steps.error();
    for (size_t i = 0; i < steps->size(); ++i) {
      const auto* a = std::get_if<schedule::SplitStep>(&(*steps)[i]);
      const auto* b = std::get_if<schedule::SplitStep>(&r.steps[i]);
      changed += a && b && a->lengths != b->lengths;
    }
    auto st = schedule::State::replay(target_.dag, *steps);
    ASSERT_TRUE(st.ok()) << st.error();
    for (const schedule::Step& s : *steps) {
      const auto* sp = std::get_if<schedule::SplitStep>(&s);
      if (!sp || !sp->extent) continue;
      int64_t prod = 1;
      bool concrete = true;
      for (const auto& l : sp->lengths) concrete = concrete && l.has_value(), prod *= l.value_or(1);
      if (concrete) {
        EXPECT_EQ(*sp->extent % prod, 0) << schedule::stepToString(s);
      }
    }
    if (checked++ < 6) {
      auto c = checker.check(*st);
      ASSERT_TRUE(c.built) << c.error;
      EXPECT_TRUE(c.cmp.ok()) << c.cmp.max_abs_err;
    }
  }
  EXPECT_GT(changed, 0);  // the shapes differ, so some split lengths had to be re-factorized
}

TEST_F(TransferTest, MeasuresEveryOtherModelsBestOfTheClass) {
  std::vector<schedule::Record> sunk;
  TransferResult res = run(options(), &sunk);
  ASSERT_EQ(res.kernels.size(), 1u);
  const KernelOutcome& k = res.kernels[0];
  // Best of (3 workloads of src) + (1 of src2); the target's own record is excluded.
  EXPECT_EQ(k.candidates, 4);
  EXPECT_GE(k.measured, 4);  // verbatim and adapted, minus duplicates
  EXPECT_LE(k.measured, 8);
  EXPECT_EQ(k.failed, 0);
  EXPECT_TRUE(std::isfinite(k.default_s));
  ASSERT_TRUE(k.best.has_value());
  EXPECT_TRUE(k.best_source.rfind("src", 0) == 0) << k.best_source;
  ASSERT_EQ(sunk.size(), static_cast<size_t>(k.measured + 1));
  EXPECT_EQ(sunk[0].provenance.source, "default");
  for (size_t i = 1; i < sunk.size(); ++i) {
    EXPECT_EQ(sunk[i].provenance.source, "transfer");
    EXPECT_EQ(sunk[i].provenance.model, "tgt");
    EXPECT_EQ(sunk[i].workload_key, target_.workload_key);
    EXPECT_EQ(sunk[i].class_id, target_.class_id);
    EXPECT_TRUE(sunk[i].result.ok()) << sunk[i].result.error_msg;
  }
  auto st = schedule::State::replay(target_.dag, k.best->steps);
  ASSERT_TRUE(st.ok());
  auto c = testing::checkState(*st);
  ASSERT_TRUE(c.built) << c.error;
  EXPECT_TRUE(c.cmp.ok()) << c.cmp.max_abs_err;
  // chosenRecords holds the winner only when it beat the default.
  EXPECT_EQ(chosenRecords(res).size(), k.improved() ? 1u : 0u);
}

TEST_F(TransferTest, RestrictsToChosenSources) {
  TransferOptions o = options();
  o.sources = {"src2"};
  o.adapt = Adapt::Verbatim;
  TransferResult res = run(o);
  ASSERT_EQ(res.kernels.size(), 1u);
  EXPECT_EQ(res.kernels[0].candidates, 1);
  EXPECT_EQ(res.kernels[0].measured, 1);
  ASSERT_TRUE(res.kernels[0].best.has_value());
  EXPECT_TRUE(res.kernels[0].best_source.rfind("src2 ", 0) == 0);
}

// Candidates come only from tuning runs against the same baseline: the paper's basic-baseline
// experiment transfers what the search found from the basic defaults, and a strong transfer
// never sees those; the transfer's own records (defaults included) carry its baseline.
TEST_F(TransferTest, CandidatesComeOnlyFromRunsAgainstTheSameBaseline) {
  auto basic = sourceRecords(sources_[1], "src3", 40, 3);
  for (auto& r : basic) r.provenance.baseline = schedule::Baseline::Basic;
  ASSERT_TRUE(bank_->addRecords(basic).ok());
  TransferOptions o = options();
  o.adapt = Adapt::Verbatim;
  TransferResult strong = run(o);
  ASSERT_EQ(strong.kernels.size(), 1u);
  EXPECT_EQ(std::count(strong.sources.begin(), strong.sources.end(), "src3"), 0);
  o.baseline = schedule::Baseline::Basic;
  std::vector<schedule::Record> sunk;
  TransferResult res = run(o, &sunk);
  EXPECT_EQ(res.sources, std::vector<std::string>{"src3"});
  EXPECT_EQ(res.kernels[0].candidates, 1);  // the best of src3's records of the workload
  ASSERT_FALSE(sunk.empty());
  for (const schedule::Record& r : sunk) EXPECT_EQ(r.provenance.baseline, schedule::Baseline::Basic);
  EXPECT_TRUE(rankSources({target_}, *bank_, "tgt", schedule::Baseline::Basic).size() == 1u);
}

TEST_F(TransferTest, TopKMeasuresOnlyTheBestRanked) {
  TransferOptions o = options();
  o.top_k = 2;
  o.source_dag = [&](const std::string& key) {
    auto it = dags_.find(key);
    return it == dags_.end() ? nullptr : it->second;
  };
  TransferResult res = run(o);
  ASSERT_EQ(res.kernels.size(), 1u);
  EXPECT_EQ(res.kernels[0].candidates, 4);
  EXPECT_EQ(res.kernels[0].measured, 2);
  EXPECT_EQ(res.measured, 3);
}

TEST_F(TransferTest, KernelWithoutSourcesKeepsTheDefault) {
  TransferOptions o = options();
  o.model = "other";
  std::vector<graph::Kernel> ks{kernelOf(std::make_shared<const te::ComputeDAG>([] {
    te::Tensor a = te::placeholder("a", {32, 32});
    te::Tensor b = te::placeholder("b", {32, 32});
    return te::ComputeDAG({a, b}, {ops::matmul(a, b)});
  }()))};
  TransferResult res = transferTune(ks, *bank_, o, {});
  ASSERT_EQ(res.kernels.size(), 1u);
  EXPECT_EQ(res.kernels[0].candidates, 0);
  EXPECT_FALSE(res.kernels[0].best.has_value());
  EXPECT_FALSE(res.kernels[0].improved());
  EXPECT_TRUE(chosenRecords(res).empty());
}

// Records of the other x86 ISA level (the bank shipped from another machine): vector lengths
// keep their vector counts at the new width, register tiles are refitted, and the transferred
// schedules compute the reference's results.
TEST_F(TransferTest, OtherIsaRecordsAreAdaptedToTheTarget) {
  auto v3 = codegen::resolveTarget("x86-64-v3"), v4 = codegen::resolveTarget("x86-64-v4");
  ASSERT_TRUE(v3.ok() && v4.ok());
  for (const auto& [from, to] : {std::make_pair(*v4, *v3), std::make_pair(*v3, *v4)}) {
    std::string skip = testing::skipReason(to);
    if (!skip.empty()) {
      std::cout << "[  SKIPPED ] to " << schedule::isaName(to.isa) << ": " << skip << "\n";
      continue;
    }
    int adapted = 0;
    testing::Checker checker(target_.dag);
    for (const schedule::Record& r : sourceRecords(sources_[0], "src", 40, 12, from)) {
      auto steps = adaptLanes(r.steps, target_.dag, from.lanes(), to.lanes(), to.vector_registers);
      if (!steps.ok()) continue;
      ++adapted;
      auto st = schedule::State::replay(target_.dag, *steps);
      ASSERT_TRUE(st.ok()) << st.error();
      EXPECT_LE(autotune::tileRegisters(*st, to.lanes()), to.vector_registers);
      auto c = checker.check(*st, 3, 1e-4, 1e-4, {}, to);
      ASSERT_TRUE(c.built) << c.error;

      EXPECT_TRUE(c.cmp.ok()) << c.cmp.max_abs_err << " " << schedule::isaName(to.isa) << "\n" << c.lowered;
    }
    EXPECT_GE(adapted, 10);
    // Through transferTune: a bank holding only the other level's records.
    TempBank other(dir_ / ("other-" + std::string(schedule::isaName(from.isa)) + ".db"));
    ASSERT_TRUE(other.bank.addRecords(sourceRecords(sources_[1], "src", 41, 12, from)).ok());
    TransferOptions o = options();
    o.measure.target = to;
    o.target = schedule::targetInfo(to, codegen::hostTarget().cpu, 2);
    std::vector<graph::Kernel> ks{target_};
    TransferResult res = transferTune(ks, other.bank, o, {});
    ASSERT_EQ(res.kernels.size(), 1u);
    EXPECT_GT(res.kernels[0].other_isa, 0);
    EXPECT_GT(res.kernels[0].measured, 0);
    EXPECT_EQ(res.kernels[0].failed, 0);
  }
}

// Only tuning runs of other models are candidates: never a transfer or default record (a model's
// own schedules would come back to it through another model's transfer run), never a schedule
// whose lineage leads back to the target, never a warm-started run's records.
TEST_F(TransferTest, CandidatesComeOnlyFromColdTuningRunsOfOtherModels) {
  auto with = [&](const std::string& model, const std::string& source, const std::string& origin,
                  const std::string& run) {
    auto recs = sourceRecords(sources_[1], model, 50, 1);
    recs[0].provenance.source = source;
    recs[0].provenance.origin = origin;
    recs[0].provenance.run_id = run;
    recs[0].result.costs_s = {1e-6};  // the fastest of its workload and model
    return recs;
  };
  ASSERT_TRUE(bank_->addRecords(with("m3", "transfer", "tgt", "transfer-x")).ok());  // target's schedule via m3
  ASSERT_TRUE(bank_->addRecords(with("m4", "default", "", "transfer-y")).ok());
  ASSERT_TRUE(bank_->addRecords(with("m5", "tune", "tgt", "tune-z")).ok());  // lineage back to the target
  auto warm = bank_->beginRun(store::RunKind::Tune, "m6", Json{{"warm_start", true}});
  ASSERT_TRUE(warm.ok());
  ASSERT_TRUE(bank_->addRecords(with("m6", "tune", "m6", *warm)).ok());
  auto cold = bank_->beginRun(store::RunKind::Tune, "m7", Json{{"warm_start", false}});
  ASSERT_TRUE(cold.ok());
  ASSERT_TRUE(bank_->addRecords(with("m7", "tune", "m7", *cold)).ok());
  TransferOptions o = options();
  o.adapt = Adapt::Verbatim;
  std::vector<schedule::Record> sunk;
  TransferResult res = run(o, &sunk);
  ASSERT_EQ(res.kernels.size(), 1u);
  EXPECT_EQ(res.kernels[0].candidates, 5);  // the 4 of the fixture and m7's
  for (const auto& r : sunk) {
    if (r.provenance.source != "transfer") continue;
    EXPECT_TRUE(r.provenance.origin == "src" || r.provenance.origin == "src2" || r.provenance.origin == "m7")
        << r.provenance.origin;
  }
}

// `run` honours the in-model choice of the model's newest run measured like this machine, even
// where it is not the fastest record in isolation, until a later run without one supersedes it.
TEST_F(TransferTest, InModelChoiceOfTheNewestRunIsHonoured) {
  const schedule::Target code = codegen::hostTarget();
  const schedule::TargetInfo here = schedule::targetInfo(code, codegen::hostTarget().cpu, 2);
  Json settings{{"cpu", here.cpu}, {"isa", schedule::isaName(here.isa)}, {"threads", here.threads}};
  auto tune = bank_->beginRun(store::RunKind::Tune, "tgt2", settings);
  ASSERT_TRUE(tune.ok());
  auto recs = sourceRecords(sources_[1], "tgt2", 60, 3);
  for (auto& r : recs) r.provenance.run_id = *tune;
  ASSERT_TRUE(bank_->addRecords(recs).ok());
  EXPECT_FALSE(inModelChoice(*bank_, "tgt2", here));                      // still running
  ASSERT_TRUE(bank_->setRunResult(*tune, choiceResult({recs[2]})).ok());  // the slowest alone
  ASSERT_TRUE(bank_->finishRun(*tune, store::RunStatus::Finished).ok());

  auto found = inModelChoice(*bank_, "tgt2", here);
  ASSERT_TRUE(found);
  const std::vector<schedule::Record>& chosen = *found;
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_EQ(store::stepsKey(chosen[0].steps), store::stepsKey(recs[2].steps));
  EXPECT_EQ(chosen[0].workload_key, sources_[1].workload_key);
  schedule::TargetInfo other_threads = here;
  other_threads.threads = 4;
  EXPECT_FALSE(inModelChoice(*bank_, "tgt2", other_threads));
  EXPECT_FALSE(inModelChoice(*bank_, "tgt", here));

  // Another model's later run does not matter; the model's own later run without a choice does.
  auto other = bank_->beginRun(store::RunKind::Transfer, "tgt3", settings);
  ASSERT_TRUE(other.ok() && bank_->finishRun(*other, store::RunStatus::Finished).ok());
  EXPECT_EQ(inModelChoice(*bank_, "tgt2", here).value().size(), 1u);
  auto later = bank_->beginRun(store::RunKind::Transfer, "tgt2", settings);
  ASSERT_TRUE(later.ok() && bank_->finishRun(*later, store::RunStatus::Finished).ok());
  EXPECT_FALSE(inModelChoice(*bank_, "tgt2", here));
}

// In-model refinement picks one of each kernel's candidates (the few best in isolation and the
// default), then keeps the in-model picks only when that whole model is faster than the isolated
// picks beyond the spread.
TEST(RefineInModel, PicksAmongTheCandidatesAndKeepsInModelPicksOnlyBeyondTheSpread) {
  models::Builder b(5);
  int x = b.input("x", {1, 16, 14, 14});
  int y = b.relu("r1", b.conv2d("c1", x, {.out = 32, .k = 3, .pad = 1}));
  y = b.conv2d("c2", y, {.out = 32, .k = 1});
  graph::Graph g = b.finish({y});
  graph::optimizeGraph(g, {});
  std::vector<schedule::Record> recs;
  std::map<std::string, std::string> isolated;  // workload -> steps of its fastest record alone
  std::vector<graph::Kernel> kernels = graph::partition(g);
  for (const graph::TunableKernel& tk : graph::tunableKernels(kernels)) {
    const graph::Kernel& k = *tk.kernel;
    autotune::SearchOptions so;
    so.population = 32;
    so.generations = 1;
    autotune::SearchTask task(k.dag, k.workload_key, so, 3);
    autotune::RandomModel rm(3);
    std::vector<std::vector<schedule::Step>> steps;
    if (auto d = task.defaultCandidate()) steps.push_back(d->build_steps);
    for (const auto& c : task.nextBatch(3, rm)) steps.push_back(c.build_steps);
    for (size_t i = 0; i < steps.size(); ++i) {
      schedule::Record r;
      r.workload_key = k.workload_key;
      r.steps = steps[i];
      r.result.costs_s = {i == 0 ? 1.0 : 1e-3 * static_cast<double>(i)};  // the default slowest alone
      r.provenance = {"m", "tune-x", i == 0 ? "default" : "tune", static_cast<int64_t>(i), 0, "m"};
      recs.push_back(r);
    }
    ASSERT_GE(steps.size(), 2u);
    isolated[k.workload_key] = store::stepsKey(steps[1]);
  }
  ASSERT_GE(isolated.size(), 2u);
  RefineOptions o;
  o.rounds = 3;
  RefineResult res = refineInModel(g, recs, o);
  EXPECT_GE(res.variants, 2);
  ASSERT_EQ(res.chosen.size(), isolated.size());
  int differ = 0;
  for (const schedule::Record& c : res.chosen) {
    ASSERT_TRUE(isolated.count(c.workload_key));
    bool known = std::any_of(recs.begin(), recs.end(), [&](const schedule::Record& r) {
      return r.workload_key == c.workload_key && store::stepsKey(r.steps) == store::stepsKey(c.steps);
    });
    EXPECT_TRUE(known);
    differ += store::stepsKey(c.steps) != isolated[c.workload_key];
  }
  switch (res.choice) {
    case RefineResult::Choice::Isolated:
      EXPECT_EQ(differ, 0);
      EXPECT_EQ(res.changed, 0);
      // When in-model picks differed, they were timed against the isolated ones and lost or tied.
      if (res.in_model_speedup.rounds() > 0) {
        EXPECT_FALSE(res.in_model_speedup.gain());
      }
      break;
    case RefineResult::Choice::InModel:
      EXPECT_EQ(res.changed, differ);
      EXPECT_GT(differ, 0);
      EXPECT_TRUE(res.in_model_speedup.gain()) << measure::formatSpeedup(res.in_model_speedup);
      break;
  }
}

TEST_F(TransferTest, AutoModeUsesTheOneSourceCoveringTheMostUntunedTime) {
  // A second target kernel only "src" has a class for: src covers all the untuned time, src2 part.
  graph::Kernel mm = matmulKernel(64, 64, 64);
  graph::Kernel src_mm = matmulKernel(48, 64, 80);
  ASSERT_TRUE(bank_->addRecords(sourceRecords(src_mm, "src", 60, 4)).ok());
  TransferOptions o = options();
  o.source_mode = SourceMode::Auto;
  std::vector<graph::Kernel> ks{target_, mm};
  TransferResult res = transferTune(ks, *bank_, o, {});
  ASSERT_EQ(res.sources, std::vector<std::string>{"src"});
  ASSERT_GE(res.source_scores.size(), 2u);
  EXPECT_EQ(res.source_scores[0].first, "src");
  EXPECT_DOUBLE_EQ(res.source_scores[0].second, 1.0);
  EXPECT_LT(res.source_scores[1].second, 1.0);
  EXPECT_EQ(res.kernels[0].candidates, 3);  // src's three conv workloads, not src2's
  EXPECT_EQ(res.kernels[1].candidates, 1);
}

// Several kernels' candidates are built in one batch and timed kernel by kernel: each kernel's
// records, measurements and winner are its own, and each winner runs correctly on its kernel.
TEST_F(TransferTest, CandidatesBuiltTogetherAreMeasuredAndKeptPerKernel) {
  graph::Kernel mm = matmulKernel(64, 64, 64);
  graph::Kernel src_mm = matmulKernel(48, 64, 80);
  ASSERT_TRUE(bank_->addRecords(sourceRecords(src_mm, "src", 60, 4)).ok());
  TransferOptions o = options();
  o.top_k = 2;
  o.rank = Rank::Prior;
  std::vector<graph::Kernel> ks{target_, mm};
  std::vector<schedule::Record> sunk;
  TransferResult res = transferTune(
      ks, *bank_, o, [&](const std::vector<schedule::Record>& rs) { sunk.insert(sunk.end(), rs.begin(), rs.end()); });
  ASSERT_EQ(res.kernels.size(), 2u);
  EXPECT_EQ(res.measured, 2 + 2 + 2);  // two defaults, two candidates each
  for (size_t i = 0; i < 2; ++i) {
    const KernelOutcome& k = res.kernels[i];
    EXPECT_EQ(k.workload_key, ks[i].workload_key);
    EXPECT_EQ(k.measured, 2);
    EXPECT_EQ(k.failed, 0);
    int transferred = 0;
    for (const schedule::Record& r : sunk)
      if (r.workload_key == ks[i].workload_key && r.provenance.source == "transfer") {
        transferred++;
        EXPECT_TRUE(r.result.ok()) << r.result.error_msg;
        EXPECT_TRUE(schedule::State::replay(ks[i].dag, r.steps).ok());
      }
    EXPECT_EQ(transferred, 2);
    ASSERT_TRUE(k.best.has_value());
    EXPECT_EQ(k.best->workload_key, ks[i].workload_key);
    auto st = schedule::State::replay(ks[i].dag, k.best->steps);
    ASSERT_TRUE(st.ok());
    auto c = testing::checkState(*st);
    ASSERT_TRUE(c.built) << c.error;
    EXPECT_TRUE(c.cmp.ok()) << c.cmp.max_abs_err;
    // A winner faster than its default in the search was re-timed side by side with it.
    if (k.best->result.median() < k.default_s) {
      EXPECT_GE(k.retimed.rounds(), 5);
    }
  }
}

TEST_F(TransferTest, BudgetCapsCandidateMeasurementsHeaviestKernelFirst) {
  TransferOptions o = options();
  o.budget = 2;
  o.adapt = Adapt::Verbatim;
  TransferResult res = run(o);
  ASSERT_EQ(res.kernels.size(), 1u);
  EXPECT_EQ(res.kernels[0].measured, 2);
  EXPECT_EQ(res.measured, 1 + 2);  // the default, then the budget
}

TEST_F(TransferTest, RanksSourcesByCoveredFlops) {
  std::vector<graph::Kernel> ks{target_};
  auto cover = rankSources(ks, *bank_, "tgt");
  ASSERT_EQ(cover.size(), 2u);
  for (const auto& c : cover) {
    EXPECT_TRUE(c.model == "src" || c.model == "src2");
    EXPECT_DOUBLE_EQ(c.flops_share, 1.0);
    EXPECT_EQ(c.kernels, 1);
  }
}

// ---- nearest-class transfer ---------------------------------------------------------------------

// NHWC convolutions with a bias add and relu (the source class), and with a residual add too or
// without the relu (targets of neighbour classes).
// `r`: the window's size, padded to keep the image's (a 1x1 window has no padding stage).
std::shared_ptr<const te::ComputeDAG> convEpilogue(int64_t hw, int64_t k, bool residual, bool relu, int64_t r = 3) {
  te::Tensor x = te::placeholder("x", {1, hw, hw, 16});
  te::Tensor w = te::placeholder("w", {r, r, 16, k}, te::DType::Float32, true);
  te::Tensor b = te::placeholder("b", {k}, te::DType::Float32, true);
  std::vector<te::Tensor> in{x, w, b};
  const int64_t p = r / 2;
  te::Tensor y = ops::add(ops::conv2d_nhwc(x, w, {1, 1}, {p, p, p, p}), b);
  if (residual) {
    te::Tensor r = te::placeholder("r", {1, hw, hw, k});
    in.push_back(r);
    y = ops::add(y, r);
  }
  if (relu) y = ops::relu(y);
  return std::make_shared<const te::ComputeDAG>(in, std::vector<te::Tensor>{y});
}

// Tuned-style schedules of the source class, remapped onto both neighbours: most replay, and
// every one that does computes what the reference evaluator computes.
TEST(RemapStages, NeighbourClassSchedulesReplayAndAreCorrect) {
  graph::Kernel src = kernelOf(convEpilogue(14, 32, false, true));
  for (bool residual : {true, false}) {
    auto dag = convEpilogue(12, 24, residual, residual);
    ASSERT_EQ(classDistance(src.class_name, graph::className(*dag)), 1) << graph::className(*dag);
    testing::Checker checker(dag, 3);
    int remapped = 0, tried = 0;
    for (const schedule::Record& r : sourceRecords(src, "src", 5, 16)) {
      ++tried;
      auto steps = remapStages(r.steps, dag);
      if (!steps.ok()) continue;
      ++remapped;
      auto st = schedule::State::replay(dag, *steps);
      ASSERT_TRUE(st.ok()) << st.error();
      auto res = checker.check(*st, 1);
      ASSERT_TRUE(res.built) << res.error;
      EXPECT_TRUE(res.cmp.ok()) << "max abs err " << res.cmp.max_abs_err;
    }
    EXPECT_GE(remapped * 4, tried * 3) << remapped << " of " << tried << " remapped (residual " << residual << ")";
  }
}

TEST(RemapStages, RefusesSchedulesItCannotMap) {
  auto dag = convEpilogue(12, 24, true, true);
  // A stage neither this kernel nor the schedule's own steps define, other than an output.
  std::vector<schedule::Step> steps{schedule::ComputeInlineStep{"T_add"},
                                    schedule::AnnotationStep{"no_such", "i", schedule::IterAnnotation::Parallel},
                                    schedule::AnnotationStep{"T_relu", "i", schedule::IterAnnotation::Parallel}};
  auto refused = remapStages(steps, dag);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), "the schedule uses stage no_such, which this kernel lacks");
  // Without a step on this kernel's output, the one unknown stage is the source's output: renamed.
  auto renamed = remapStages({steps[0], steps[1]}, dag);
  ASSERT_TRUE(renamed.ok()) << renamed.error();
  int on_output = 0;
  for (const schedule::Step& st : *renamed) {
    EXPECT_NE(schedule::stepStage(st), "no_such");
    on_output += std::holds_alternative<schedule::AnnotationStep>(st) &&
                 schedule::stepStage(st) == dag->outputs()[0].op().name();
  }
  EXPECT_EQ(on_output, 1);
  // Two unknown stages cannot both be that output.
  steps[2] = schedule::AnnotationStep{"no_such_either", "i", schedule::IterAnnotation::Parallel};
  refused = remapStages(steps, dag);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), "the schedule uses 2 stages this kernel lacks");
}

// With nearest classes on, a kernel no same-class source covers is transferred from its
// neighbour class (and reports which); off, it keeps its default (the paper's protocol).
TEST_F(TransferTest, NearestClassCandidatesForKernelsWithoutASource) {
  graph::Kernel src = kernelOf(convEpilogue(14, 32, false, true));
  ASSERT_TRUE(bank_->addRecords(sourceRecords(src, "src", 7, 8)).ok());
  std::vector<graph::Kernel> ks{kernelOf(convEpilogue(12, 24, true, true))};
  TransferOptions o = options();
  o.adapt = Adapt::Verbatim;
  TransferResult plain = transferTune(ks, *bank_, o, {});
  ASSERT_EQ(plain.kernels.size(), 1u);
  EXPECT_EQ(plain.kernels[0].candidates, 0);
  o.nearest_classes = true;
  TransferResult near = transferTune(ks, *bank_, o, {});
  ASSERT_EQ(near.kernels.size(), 1u);
  EXPECT_GT(near.kernels[0].candidates, 0);
  EXPECT_EQ(near.kernels[0].nearest_class, src.class_name);
  EXPECT_GT(near.kernels[0].measured, near.kernels[0].failed);  // checked against the reference when measured
  ASSERT_TRUE(near.kernels[0].best.has_value());
  EXPECT_EQ(near.sources, std::vector<std::string>{"src"});
}

// The paper's classes carry no padding (TVM's convolutions hold it): the 3x3 residual
// convolutions of resnet18 ("pad+conv2d_nhwc+add+add+relu") take the schedules of resnet50's 1x1
// ones ("conv2d_nhwc+add+add+relu") without nearest classes, and the other way round; every
// measured candidate computes what the reference evaluator computes.
TEST_F(TransferTest, ClassesThatDifferOnlyInPaddingAreOneClass) {
  for (int64_t from : {1, 3}) {
    const int64_t to = from == 1 ? 3 : 1;
    graph::Kernel src = kernelOf(convEpilogue(14, 32, true, true, from));
    graph::Kernel dst = kernelOf(convEpilogue(12, 24, true, true, to));
    ASSERT_NE(src.class_id, dst.class_id);
    ASSERT_EQ(classDistance(src.class_name, dst.class_name), 0) << src.class_name << " / " << dst.class_name;
    const std::string model = "src" + std::to_string(from);
    ASSERT_TRUE(bank_->addRecords(sourceRecords(src, model, 40 + from, 8)).ok());
    std::vector<graph::Kernel> ks{dst};
    TransferOptions o = options();
    o.adapt = Adapt::Both;
    o.sources = {model};  // not the first direction's source, whose class is this one
    TransferResult res = transferTune(ks, *bank_, o, {});
    ASSERT_EQ(res.kernels.size(), 1u);
    EXPECT_GT(res.kernels[0].candidates, 0) << "from " << src.class_name << " to " << dst.class_name;
    EXPECT_GT(res.kernels[0].measured, res.kernels[0].failed);
    EXPECT_TRUE(res.kernels[0].best.has_value());
    auto cover = rankSources(ks, *bank_, "tgt");
    EXPECT_TRUE(std::any_of(cover.begin(), cover.end(),
                            [&](const SourceCoverage& c) { return c.model == model && c.kernels == 1; }));
  }
}

// The zero-cost prior: the kernel's own workload first, then the source records' throughput on
// their own workloads (FLOPs over time), unknown FLOPs last; at most k.
TEST(TopByPrior, ExactWorkloadFirstThenSourceThroughput) {
  graph::Kernel k = kernelOf(conv(10, 24));
  auto cand = [](const std::string& w, double s) {
    Candidate c;
    c.workload_key = w;
    c.source_s = s;
    c.source = w;
    return c;
  };
  // Throughputs: a 1e9/1e-3 = 1e12, b 4e9/2e-3 = 2e12, c unknown FLOPs, d 1e9/1e-2 = 1e11.
  std::vector<Candidate> cands{cand("a", 1e-3), cand("c", 1e-6), cand("b", 2e-3), cand(k.workload_key, 1.0),
                               cand("d", 1e-2)};
  std::map<std::string, double> flops{{"a", 1e9}, {"b", 4e9}, {"d", 1e9}};
  auto flops_of = [&](const std::string& w) { return flops.count(w) ? flops[w] : 0.0; };
  auto names = [](const std::vector<Candidate>& cs) {
    std::vector<std::string> out;
    for (const Candidate& c : cs) out.push_back(c.source);
    return out;
  };
  EXPECT_EQ(names(topByPrior(k, cands, flops_of, 3)), (std::vector<std::string>{k.workload_key, "b", "a"}));
  EXPECT_EQ(names(topByPrior(k, cands, flops_of, 5)).size(), 5u);   // all of them when k covers them, as given
  EXPECT_EQ(names(topByPrior(k, cands, flops_of, 4)).back(), "d");  // unknown FLOPs rank last
}

// The ranked transfer measures at most k candidates per kernel, chosen by the prior.
TEST_F(TransferTest, PriorRankedTransferMeasuresOnlyK) {
  TransferOptions o = options();
  o.top_k = 2;
  o.rank = Rank::Prior;
  TransferResult res = run(o);
  ASSERT_EQ(res.kernels.size(), 1u);
  EXPECT_GT(res.kernels[0].candidates, 2);
  EXPECT_EQ(res.kernels[0].measured, 2);
  EXPECT_TRUE(res.kernels[0].best.has_value());
}

}  // namespace
}  // namespace ttune::transfer
