// The rule of cli/bank_access.h: a record measured on another CPU is a candidate, never a choice.
// A bank holding deliberately slow records from a "foreign" CPU (the plain loop nest, stored as
// if it took a nanosecond there) must not slow a model down: the first use validates them here,
// keeps the defaults, and stores that as this CPU's choice so that the next use is instant.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cli/bank_access.h"
#include "codegen/target.h"
#include "graph/fusion.h"
#include "graph/passes.h"
#include "measure/builder.h"
#include "models/builder.h"
#include "runtime/thread_pool.h"
#include "store/bank.h"
#include "store/types.h"
#include "transfer/compare.h"

namespace ttune::cli {
namespace {

class BankAccess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ttune-bank-access-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    // One thread: a parallel kernel timed while other tests load the machine waits at its
    // barriers and could lose to the single-threaded loop nest.
    threads_ = runtime::ThreadPool::global().numThreads();
    runtime::ThreadPool::global().setNumThreads(1);
    models::Builder b(5);
    int x = b.input("x", {1, 16, 14, 14});
    int y = b.relu("r1", b.conv2d("c1", x, {.out = 32, .k = 3, .pad = 1}));
    y = b.conv2d("c2", y, {.out = 32, .k = 1});
    g_ = b.finish({y});
    graph::optimizeGraph(g_, {.channels_last = true, .winograd = false});
    kernels_ = graph::partition(g_);
  }
  void TearDown() override {
    runtime::ThreadPool::global().setNumThreads(threads_);
    std::filesystem::remove_all(dir_);
  }
  // Slow records of every tunable kernel, measured on `cpu` (the code's ISA level).
  std::vector<schedule::Record> slowRecords(const std::string& cpu) const {
    std::vector<schedule::Record> out;
    for (const graph::TunableKernel& t : graph::tunableKernels(kernels_)) {
      schedule::Record r;
      r.workload_key = t.kernel->workload_key;
      r.kernel_class = t.kernel->class_name;
      r.class_id = t.kernel->class_id;
      r.target = currentTarget(code_);
      r.target.cpu = cpu;
      r.result.costs_s = {1e-9};
      r.provenance = {"m", "tune-elsewhere", "tune", 1, 0, "m"};
      out.push_back(r);
    }
    return out;
  }
  std::filesystem::path dir_;
  int threads_ = 1;
  const schedule::Target code_ = codegen::hostTarget();
  graph::Graph g_;
  std::vector<graph::Kernel> kernels_;
};

TEST_F(BankAccess, SlowRecordsFromAnotherCpuAreValidatedAndNeverSlowTheModel) {
  auto opened = store::Bank::open((dir_ / "bank.db").string());
  ASSERT_TRUE(opened.ok()) << opened.error();
  store::Bank bank = std::move(*opened);
  ASSERT_TRUE(bank.addRecords(slowRecords("some-other-cpu")).ok());
  const schedule::TargetInfo here = currentTarget(code_);
  ASSERT_FALSE(transfer::inModelChoice(bank, "m", here));

  // Without validation (--no-validate): the records as they are.
  Json report;
  executor::ScheduleProvider raw = bankProvider(bank, "m", g_, code_, BankUse{"m", false, true, &report});
  ASSERT_TRUE(raw);
  EXPECT_TRUE(report.empty());
  for (const graph::TunableKernel& t : graph::tunableKernels(kernels_)) EXPECT_EQ(raw(*t.kernel).value().size(), 0u);

  // With it: validated once, the defaults kept and stored as this CPU's choice.
  executor::ScheduleProvider checked = bankProvider(bank, "m", g_, code_, BankUse{"m", true, true, &report});
  ASSERT_FALSE(report.empty());
  EXPECT_FALSE(report["picks_kept"].get<bool>());
  EXPECT_EQ(report["kernels_changed"], 0);
  ASSERT_TRUE(checked);
  for (const graph::TunableKernel& t : graph::tunableKernels(kernels_)) {
    auto steps = checked(*t.kernel);
    ASSERT_TRUE(steps) << t.kernel->class_name;
    EXPECT_EQ(store::stepsKey(*steps), store::stepsKey(measure::defaultScheduleFor(*t.kernel->dag, code_)))
        << t.kernel->class_name;
  }
  auto run = bank.run(report["run_id"].get<std::string>());
  ASSERT_TRUE(run);
  EXPECT_EQ(run->kind, store::RunKind::Refresh);
  EXPECT_EQ(run->status, store::RunStatus::Finished);
  ASSERT_TRUE(transfer::inModelChoice(bank, "m", here));

  // The next use is instant: the stored choice, no second validation.
  executor::ScheduleProvider again = bankProvider(bank, "m", g_, code_, BankUse{"m", true, true, &report});
  EXPECT_TRUE(report.empty());
  for (const graph::TunableKernel& t : graph::tunableKernels(kernels_))
    EXPECT_EQ(store::stepsKey(again(*t.kernel).value()),
              store::stepsKey(measure::defaultScheduleFor(*t.kernel->dag, code_)));
}

// Nothing in the bank for the model's kernels: nothing to validate, the defaults, no run.
TEST_F(BankAccess, ABankWithoutRecordsOfTheModelChangesNothing) {
  auto opened = store::Bank::open((dir_ / "empty.db").string());
  ASSERT_TRUE(opened.ok()) << opened.error();
  store::Bank bank = std::move(*opened);
  Json report;
  EXPECT_FALSE(bankProvider(bank, "m", g_, code_, BankUse{"m", true, true, &report}));
  EXPECT_TRUE(report.empty());
  EXPECT_TRUE(bank.runs().empty());
}

}  // namespace
}  // namespace ttune::cli
