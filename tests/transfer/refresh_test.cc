#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "codegen/target.h"
#include "graph/fusion.h"
#include "graph/passes.h"
#include "measure/builder.h"
#include "models/builder.h"
#include "runtime/thread_pool.h"
#include "store/bank.h"
#include "transfer/compare.h"
#include "transfer/model_check.h"
#include "transfer/refine.h"
#include "transfer/refresh.h"

namespace ttune::transfer {
namespace {

graph::Graph twoConvs() {
  models::Builder b(5);
  int x = b.input("x", {1, 16, 14, 14});
  int y = b.relu("r1", b.conv2d("c1", x, {.out = 32, .k = 3, .pad = 1}));
  y = b.conv2d("c2", y, {.out = 32, .k = 1});
  graph::Graph g = b.finish({y});
  graph::optimizeGraph(g, {.channels_last = true, .winograd = false});
  return g;
}

// A bank record from another CPU that looks fastest by its stored time but is slow here (the
// shipped bank on a new host, or after the defaults improved) gives way to today's default once
// refreshed: re-measured side by side (it loses beyond the spread), left out of the model's
// picks, and the stored choice, which `run --db` then honours, names the default.
TEST(Refresh, ASlowRecordFromAnotherCpuNeverReplacesTheDefault) {
  graph::Graph g = twoConvs();
  std::vector<graph::Kernel> kernels = graph::partition(g);
  std::vector<graph::TunableKernel> todo = graph::tunableKernels(kernels);
  ASSERT_EQ(todo.size(), 2u);
  const graph::Kernel& stale_kernel = *todo[0].kernel;

  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ttune-refresh-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    auto opened = store::Bank::open((dir / "bank.db").string());
    ASSERT_TRUE(opened.ok()) << opened.error();
    store::Bank bank = std::move(*opened);
    const schedule::Target code = codegen::hostTarget();
    // One thread: a parallel kernel timed while other tests load the machine waits at its
    // barriers and could lose to the single-threaded loop nest.
    const schedule::TargetInfo here = schedule::targetInfo(code, code.cpu, 1);
    schedule::TargetInfo foreign = here;
    foreign.cpu = "some-other-cpu";
    // The plain loop nest (no parallel or vector loop), stored as if it took a nanosecond there.
    schedule::Record stale;
    stale.workload_key = stale_kernel.workload_key;
    stale.kernel_class = stale_kernel.class_name;
    stale.class_id = stale_kernel.class_id;
    stale.target = foreign;
    stale.result.costs_s = {1e-9};
    stale.provenance = {"m", "tune-elsewhere", "tune", 1, 0, "m"};
    ASSERT_TRUE(bank.addRecords({stale}).ok());
    EXPECT_EQ(bank.bestRecordsFor({stale_kernel.workload_key}, here).at(stale_kernel.workload_key).steps.size(), 0u);

    auto run = bank.beginRun(store::RunKind::Refresh, "m",
                             {{"cpu", here.cpu}, {"isa", schedule::isaName(here.isa)}, {"threads", here.threads}});
    ASSERT_TRUE(run.ok()) << run.error();
    RefreshOptions o;
    o.model = "m";
    o.run_id = *run;
    o.target = here;
    o.measure.threads = 1;
    o.measure.target = code;
    o.measure.check = true;
    runtime::ThreadPool& pool = runtime::ThreadPool::global();  // the model timings run on it
    const int pool_threads = pool.numThreads();
    pool.setNumThreads(1);
    RefreshOutcome out = refreshChoice(
        g, kernels, bank, o, [&](const std::vector<schedule::Record>& rs) { ASSERT_TRUE(bank.addRecords(rs).ok()); });
    pool.setNumThreads(pool_threads);
    const RefreshResult& res = out.refreshed;
    ASSERT_EQ(res.kernels.size(), 2u);
    EXPECT_EQ(res.kernels[0].candidates, 1);
    EXPECT_EQ(res.kernels[1].candidates, 0);  // nothing in the bank: the default alone
    ASSERT_TRUE(res.kernels[0].best);
    EXPECT_DOUBLE_EQ(res.kernels[0].stored_s, 1e-9);
    EXPECT_TRUE(res.kernels[0].speedup.loss()) << measure::formatSpeedup(res.kernels[0].speedup);
    EXPECT_GE(res.kernels[0].speedup.rounds(), o.protocol.min_rounds);
    EXPECT_LT(res.kernels[0].default_s, res.kernels[0].best->result.median());
    ASSERT_EQ(res.measured.size(), 3u);
    for (const schedule::Record& r : res.measured) {
      EXPECT_TRUE(r.result.ok()) << r.kernel_class;
      EXPECT_EQ(r.provenance.run_id, *run);
      EXPECT_EQ(r.target.cpu, here.cpu);
      EXPECT_TRUE(r.provenance.source == "default" || (r.provenance.source == "tune" && r.provenance.origin == "m"));
    }
    // Nothing beat its default: nothing to keep, the defaults are the choice.
    EXPECT_FALSE(out.check.picks_differ);
    EXPECT_FALSE(out.check.kept_picks);
    EXPECT_EQ(out.check.kernels_changed, 0);
    ASSERT_EQ(out.check.chosen.size(), 2u);

    Json result = choiceResult(out.check.chosen);
    result["check"] = checkJson(out.check);
    ASSERT_TRUE(bank.setRunResult(*run, result).ok());
    ASSERT_TRUE(bank.finishRun(*run, store::RunStatus::Finished).ok());
    auto found = inModelChoice(bank, "m", here);
    ASSERT_TRUE(found);
    std::map<std::string, schedule::Record> chosen;
    for (schedule::Record& r : *found) chosen[r.workload_key] = r;
    ASSERT_EQ(chosen.size(), 2u);
    EXPECT_EQ(chosen.at(stale_kernel.workload_key).provenance.source, "default");
    EXPECT_EQ(store::stepsKey(chosen.at(stale_kernel.workload_key).steps),
              store::stepsKey(measure::defaultScheduleFor(*stale_kernel.dag, code)));
  }
  std::filesystem::remove_all(dir);
}

// The whole-model check keeps the defaults when the picks lose: every kernel's pick the plain
// loop nest (no parallel or vector loop) against the default schedules.
TEST(ModelCheck, KeepsTheDefaultsWhenThePicksLose) {
  graph::Graph g = twoConvs();
  const schedule::Target code = codegen::hostTarget();
  std::vector<schedule::Record> defaults, slow;
  std::vector<graph::Kernel> kernels = graph::partition(g);  // the tunable kernels point into it
  for (const graph::TunableKernel& t : graph::tunableKernels(kernels)) {
    schedule::Record r;
    r.workload_key = t.kernel->workload_key;
    r.result.costs_s = {1e-3};
    r.provenance.source = "default";
    r.steps = measure::defaultScheduleFor(*t.kernel->dag, code);
    defaults.push_back(r);
    r.provenance.source = "transfer";
    r.steps = {};
    slow.push_back(r);
  }
  ModelCheckOptions o;
  o.target = code;
  // One thread (the model runs on the global pool): a parallel default timed while other tests
  // load the machine waits at its barriers and could lose to the single-threaded loop nest.
  runtime::ThreadPool& pool = runtime::ThreadPool::global();
  const int pool_threads = pool.numThreads();
  pool.setNumThreads(1);
  ModelCheck c = checkModel(g, slow, defaults, o);
  EXPECT_TRUE(c.picks_differ);
  EXPECT_FALSE(c.kept_picks);
  EXPECT_TRUE(c.speedup.loss()) << measure::formatSpeedup(c.speedup);
  EXPECT_GE(c.speedup.rounds(), o.protocol.min_rounds);
  EXPECT_LE(c.speedup.rounds(), o.protocol.max_rounds);
  EXPECT_EQ(c.kernels_changed, 0);
  ASSERT_EQ(c.chosen.size(), defaults.size());
  for (const schedule::Record& r : c.chosen) EXPECT_EQ(r.provenance.source, "default");
  Json j = checkJson(c);
  EXPECT_EQ(j["round_ratios"].size(), static_cast<size_t>(c.speedup.rounds()));
  EXPECT_NE(checkVerdict(j, 2).find("defaults kept"), std::string::npos) << checkVerdict(j, 2);
  // The same check with the defaults as picks changes nothing.
  ModelCheck same = checkModel(g, defaults, defaults, o);
  pool.setNumThreads(pool_threads);
  EXPECT_FALSE(same.picks_differ);
  EXPECT_FALSE(same.kept_picks);
}

}  // namespace
}  // namespace ttune::transfer
