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
#include "transfer/refine.h"
#include "transfer/refresh.h"

namespace ttune::transfer {
namespace {

// A bank record that looks fastest by its stored time but is slow here (the shipped bank after
// the defaults improved, or records from another machine) gives way to today's default once
// refreshed: re-measured side by side, re-ranked in the model, stored as a refresh run that the
// model's in-model choice then names.
TEST(Refresh, AStaleRecordGivesWayToTodaysDefault) {
  models::Builder b(5);
  int x = b.input("x", {1, 16, 14, 14});
  int y = b.relu("r1", b.conv2d("c1", x, {.out = 32, .k = 3, .pad = 1}));
  y = b.conv2d("c2", y, {.out = 32, .k = 1});
  graph::Graph g = b.finish({y});
  graph::optimizeGraph(g, {.channels_last = true, .winograd = false});
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
    // The plain loop nest (no parallel or vector loop), stored as if it took a nanosecond.
    schedule::Record stale;
    stale.workload_key = stale_kernel.workload_key;
    stale.kernel_class = stale_kernel.class_name;
    stale.class_id = stale_kernel.class_id;
    stale.target = here;
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
    o.measure.timing.repeat = 3;
    o.measure.check = true;
    RefreshResult res = refreshRecords(kernels, bank, o, [&](const std::vector<schedule::Record>& rs) {
      ASSERT_TRUE(bank.addRecords(rs).ok());
    });
    ASSERT_EQ(res.kernels.size(), 2u);
    EXPECT_EQ(res.kernels[0].candidates, 1);
    EXPECT_EQ(res.kernels[1].candidates, 0);  // nothing in the bank: the default alone
    ASSERT_TRUE(res.kernels[0].best);
    EXPECT_DOUBLE_EQ(res.kernels[0].stored_s, 1e-9);
    EXPECT_LT(res.kernels[0].default_s, res.kernels[0].best->result.median());
    ASSERT_EQ(res.measured.size(), 3u);
    for (const schedule::Record& r : res.measured) {
      EXPECT_TRUE(r.result.ok()) << r.kernel_class;
      EXPECT_EQ(r.provenance.run_id, *run);
      EXPECT_TRUE(r.provenance.source == "default" || (r.provenance.source == "tune" && r.provenance.origin == "m"));
    }

    // The in-model re-ranking runs on the global pool: one thread too (restored below).
    runtime::ThreadPool& pool = runtime::ThreadPool::global();
    const int pool_threads = pool.numThreads();
    pool.setNumThreads(1);
    RefineOptions ro;
    ro.rounds = 3;
    ro.target = code;
    RefineResult refined = refineInModel(g, res.measured, ro);
    pool.setNumThreads(pool_threads);
    ASSERT_TRUE(bank.setRunResult(*run, choiceResult(refined.chosen)).ok());
    ASSERT_TRUE(bank.finishRun(*run, store::RunStatus::Finished).ok());
    std::map<std::string, schedule::Record> chosen;
    for (schedule::Record& r : inModelChoice(bank, "m", here)) chosen[r.workload_key] = r;
    ASSERT_EQ(chosen.size(), 2u);
    EXPECT_EQ(chosen.at(stale_kernel.workload_key).provenance.source, "default");
    EXPECT_EQ(store::stepsKey(chosen.at(stale_kernel.workload_key).steps),
              store::stepsKey(measure::defaultScheduleFor(*stale_kernel.dag, code)));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ttune::transfer
