// A tuning run killed with SIGKILL loses no committed record, and a new run resumes from them
// without measuring any of them again. The run under test is this binary re-executed with
// TTUNE_RESUME_BANK set (a fresh process), reporting each committed batch on a pipe.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <set>

#include "autotune/tuner.h"
#include "ops/ops.h"
#include "store/bank.h"

extern char** environ;

namespace ttune::autotune {
namespace {

std::shared_ptr<const te::ComputeDAG> matmul() {
  te::Tensor a = te::placeholder("A", {48, 48});
  te::Tensor b = te::placeholder("B", {48, 48}, te::DType::Float32, true);
  return std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, b},
                                                std::vector<te::Tensor>{ops::matmul(a, b)});
}

TunerOptions options(int64_t trials) {
  TunerOptions o;
  o.trials = trials;
  o.measures_per_round = 4;
  o.search.population = 64;
  o.search.generations = 1;
  o.model = "test";
  o.run_id = "run-1";
  return o;
}

measure::MeasureOptions quick() {
  measure::MeasureOptions m;
  m.timing.min_repeat_ms = 1;
  m.timing.repeat = 1;
  return m;
}

TEST(ResumeChild, Run) {
  const char* path = std::getenv("TTUNE_RESUME_BANK");
  if (!path) GTEST_SKIP() << "only run as the child of Resume.KilledRunLosesNothingAndResumes";
  int fd = std::atoi(std::getenv("TTUNE_RESUME_FD"));
  auto bank = store::Bank::open(path);
  ASSERT_TRUE(bank.ok()) << bank.error();
  auto dag = matmul();
  measure::Measurer m(quick());
  RandomModel model(1);
  Tuner t({{dag->workloadKey(), "c", "matmul", dag, 1}}, options(100000), model, m);
  size_t committed = 0;
  t.run([&](const std::vector<schedule::Record>& recs) {
    ASSERT_TRUE(bank->addRecords(recs).ok());
    committed += recs.size();
    std::string line = std::to_string(committed) + "\n";
    ASSERT_EQ(write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  });
}

TEST(Resume, KilledRunLosesNothingAndResumes) {
  std::string path = ::testing::TempDir() + "/resume_bank.db";
  std::remove(path.c_str());
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::string env_bank = "TTUNE_RESUME_BANK=" + path, env_fd = "TTUNE_RESUME_FD=" + std::to_string(fds[1]);
  std::vector<char*> env;
  for (char** e = environ; *e; ++e) env.push_back(*e);
  env.push_back(env_bank.data());
  env.push_back(env_fd.data());
  env.push_back(nullptr);
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  self[n] = 0;
  std::string filter = "--gtest_filter=ResumeChild.Run";
  char* argv[] = {self, filter.data(), nullptr};
  pid_t pid;
  ASSERT_EQ(posix_spawn(&pid, self, nullptr, nullptr, argv, env.data()), 0);
  close(fds[1]);
  // Wait for a few committed batches, then kill the run mid-flight.
  FILE* in = fdopen(fds[0], "r");
  size_t reported = 0;
  char line[64];
  while (reported < 12 && std::fgets(line, sizeof line, in)) reported = std::strtoul(line, nullptr, 10);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  std::fclose(in);
  ASSERT_GE(reported, 12u);

  auto bank = store::Bank::open(path);
  ASSERT_TRUE(bank.ok()) << bank.error();
  ASSERT_TRUE(bank->integrityCheck().ok());
  auto dag = matmul();
  store::RecordQuery q;
  q.workload_key = dag->workloadKey();
  std::vector<schedule::Record> before = bank->records(q);
  ASSERT_GE(before.size(), reported);  // nothing committed was lost
  std::set<std::string> seen;
  for (const auto& r : before) seen.insert(SearchTask::stepsKey(r.steps));

  // Resume: the previous records count as measured, and the run continues to its budget.
  measure::Measurer m(quick());
  RandomModel model(2);
  int64_t total = static_cast<int64_t>(before.size()) + 8;
  Tuner t({{dag->workloadKey(), "c", "matmul", dag, 1}}, options(total), model, m);
  EXPECT_EQ(t.preload(before, static_cast<int64_t>(before.size())), static_cast<int>(before.size()));
  std::vector<schedule::Record> added;
  auto p = t.run([&](const std::vector<schedule::Record>& recs) {
    ASSERT_TRUE(bank->addRecords(recs).ok());
    added.insert(added.end(), recs.begin(), recs.end());
  });
  EXPECT_EQ(p.trials, total);
  EXPECT_EQ(added.size(), 8u);
  for (const auto& r : added)
    EXPECT_FALSE(seen.count(SearchTask::stepsKey(r.steps))) << "re-measured a committed schedule";
  EXPECT_EQ(bank->records(q).size(), before.size() + 8);
}

}  // namespace
}  // namespace ttune::autotune
