// Durability (store/bank.h): a writer killed at any moment (SIGKILL) loses nothing it committed and leaves
// a bank that opens and passes integrity_check; several processes write one bank at once. On
// both backends (an SQLite file; a PostgreSQL database whose clients are killed mid-transaction).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>

#include <limits>
#include <random>
#include <set>

#include "store/bank.h"
#include "store_test_util.h"

namespace ttune::store {
namespace {

using schedule::Record;
using testing::makeRecord;
using testing::TempDir;
using DurabilityOn = testing::BankTest;
TTUNE_ON_BOTH_BACKENDS(DurabilityOn);

constexpr int kBatch = 3;

// Child process: appends batches of records for `run_id` forever, writing the number of records
// committed so far to `fd` after each COMMIT. Never returns.
[[noreturn]] void writerChild(const std::string& path, const std::string& run_id, int fd, int64_t max_batches) {
  auto bank = Bank::open(path);
  if (!bank.ok()) {
    std::fprintf(stderr, "writer %s: %s\n", run_id.c_str(), bank.error().c_str());
    _exit(3);
  }
  for (int64_t b = 0; b < max_batches; ++b) {
    std::vector<Record> rs;
    for (int j = 0; j < kBatch; ++j) {
      rs.push_back(makeRecord("w-" + run_id, 0.001 * (1 + j), "m", b * kBatch + j));
      rs.back().provenance.run_id = run_id;
    }
    if (!bank->addRecords(rs).ok()) _exit(4);
    int64_t committed = (b + 1) * kBatch;
    if (fd >= 0 && write(fd, &committed, sizeof committed) != sizeof committed) _exit(5);
  }
  _exit(0);
}

// Reads counts from the child until one reaches `at_least` (or the pipe ends); returns the last.
int64_t readReports(int fd, int64_t last, int64_t at_least) {
  int64_t v = 0;
  while (last < at_least && read(fd, &v, sizeof v) == static_cast<ssize_t>(sizeof v)) last = v;
  return last;
}

struct KillPlan {
  int64_t after_records;  // wait until the child reported this many committed records
  int delay_us;           // then wait this long and kill it
};

TEST_P(DurabilityOn, KilledWriterLosesNothingCommitted) {
  std::string path = location();
  std::random_device rd;
  unsigned seed = rd();
  std::mt19937 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  // The first kills land while the child is still opening (and creating) the bank, the others in
  // the middle of its stream of transactions.
  std::vector<KillPlan> plans = {{0, 200}, {0, 2000}};
  for (int i = 0; i < 4; ++i)
    plans.push_back({std::uniform_int_distribution<int64_t>(1, 40)(rng) * kBatch,
                     std::uniform_int_distribution<int>(0, 20000)(rng)});
  int64_t total = 0;
  for (size_t round = 0; round < plans.size(); ++round) {
    const KillPlan& plan = plans[round];
    SCOPED_TRACE("round " + std::to_string(round) + ": kill " + std::to_string(plan.delay_us) + " us after " +
                 std::to_string(plan.after_records) + " records");
    std::string run_id = "kill-" + std::to_string(round);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      writerChild(path, run_id, fds[1], 1000000);
    }
    close(fds[1]);
    int64_t committed = readReports(fds[0], 0, plan.after_records);
    usleep(static_cast<useconds_t>(plan.delay_us));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer exited early with status " << WEXITSTATUS(status);
    committed = readReports(fds[0], committed, std::numeric_limits<int64_t>::max());
    close(fds[0]);
    EXPECT_GE(committed, plan.after_records);

    auto bank = Bank::open(path);
    ASSERT_TRUE(bank.ok()) << bank.error();
    Status integrity = bank->integrityCheck();
    ASSERT_TRUE(integrity.ok()) << integrity.error();
    RecordQuery q;
    q.run_id = run_id;
    std::vector<Record> rs = bank->records(q);
    // The kill may land between a COMMIT and its report: at most one batch more than reported.
    ASSERT_GE(static_cast<int64_t>(rs.size()), committed);
    ASSERT_LE(static_cast<int64_t>(rs.size()), committed + kBatch);
    ASSERT_EQ(rs.size() % kBatch, 0u) << "a batch was stored in part";
    std::set<int64_t> trials;
    for (const Record& r : rs) trials.insert(r.provenance.trial);
    for (int64_t t = 0; t < committed; ++t) ASSERT_TRUE(trials.count(t)) << "committed trial " << t << " is missing";
    total += static_cast<int64_t>(rs.size());
    EXPECT_EQ(bank->stats().records, total);
  }
}

TEST_P(DurabilityOn, ProcessesWriteOneBankConcurrently) {
  std::string path = location();
  constexpr int kWriters = 3;
  constexpr int64_t kBatches = 25;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) writerChild(path, "writer-" + std::to_string(w), -1, kBatches);
    pids.push_back(pid);
  }
  // Read while they write.
  int64_t seen = 0;
  for (int i = 0; i < 20; ++i) {
    auto bank = Bank::open(path);
    if (bank.ok()) {
      int64_t n = bank->stats().records;
      EXPECT_GE(n, seen);
      seen = n;
    }
    usleep(2000);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  Bank bank = testing::openOrDie(path);
  EXPECT_TRUE(bank.integrityCheck().ok());
  EXPECT_EQ(bank.stats().records, kWriters * kBatches * kBatch);
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(bank.trialsOfRun("writer-" + std::to_string(w)), kBatches * kBatch);
}

}  // namespace
}  // namespace ttune::store
