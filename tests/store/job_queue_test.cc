// The queue of measurement jobs (store/job_queue.h) on the test PostgreSQL server: one worker per
// job, leases that run out, jobs given up, orphans of dead tuners, and the workers' list.
#include <gtest/gtest.h>
#include <unistd.h>

#include <set>

#include "store/job_queue.h"
#include "store_test_util.h"

namespace ttune::store {
namespace {

std::vector<char> bytes(const std::string& s) { return std::vector<char>(s.begin(), s.end()); }

JobQueue openQueue(QueueTimes times = {}) {
  auto q = JobQueue::open(::ttune::testing::PgServer::get().freshDatabase(), times);
  if (!q.ok()) ADD_FAILURE() << q.error();
  return std::move(q).value();
}

WorkerInfo worker(const std::string& id, const std::string& target) {
  WorkerInfo w;
  w.id = id;
  w.target = target;
  w.cpu = "znver4";
  w.isa = "avx512";
  w.cores = 2;
  w.threads = 2;
  return w;
}

TEST(JobQueue, EveryJobGoesToOneWorkerAndComesBackOnce) {
  TTUNE_REQUIRE_POSTGRES();
  JobQueue q = openQueue();
  auto ids = q.submit("tuner", "znver4", {bytes("a"), bytes("b"), bytes("c")}, {1, 2, 3});
  ASSERT_EQ(ids.size(), 3u);
  q.submit("tuner", "other-target", {bytes("x")}, {1});
  q.announce(worker("w1", "znver4"));
  q.announce(worker("w2", "znver4"));
  std::set<int64_t> taken;
  std::vector<Job> jobs;
  for (int i = 0; i < 3; ++i) {
    auto j = q.claim(i % 2 ? "w2" : "w1", "znver4");
    ASSERT_TRUE(j.has_value());
    EXPECT_EQ(j->attempt, 1);
    EXPECT_TRUE(taken.insert(j->id).second) << "job " << j->id << " taken twice";
    jobs.push_back(*j);
  }
  EXPECT_FALSE(q.claim("w1", "znver4").has_value()) << "the other target's job is not this worker's";
  EXPECT_EQ(std::string(jobs[0].request.begin(), jobs[0].request.end()), "a");
  EXPECT_EQ(jobs[2].timeout_s, 3);
  EXPECT_FALSE(q.complete(jobs[0].id, "w2", bytes("r"), "none")) << "w2 does not hold job " << jobs[0].id;
  for (size_t i = 0; i < jobs.size(); ++i)
    ASSERT_TRUE(q.complete(jobs[i].id, i % 2 ? "w2" : "w1", bytes("r" + std::to_string(i)), "none"));
  auto out = q.collect("tuner");
  ASSERT_EQ(out.size(), 3u);
  for (const JobOutcome& o : out) EXPECT_EQ(o.error, "none");
  EXPECT_TRUE(q.collect("tuner").empty()) << "results are collected once";
  auto ws = q.workers();
  ASSERT_EQ(ws.size(), 2u);
  int64_t done = 0;
  for (const WorkerInfo& w : ws) done += w.jobs_done;
  EXPECT_EQ(done, 3);
  EXPECT_EQ(q.liveWorkers("znver4", 60).size(), 2u);
  q.heartbeat("w1", "stopped");
  EXPECT_EQ(q.liveWorkers("znver4", 60).size(), 1u);
  EXPECT_EQ(q.pending("other-target"), 1);
}

// A worker that dies or hangs loses its job when the lease runs out: another worker measures it,
// the first one cannot finish it any more, and after max_attempts leases the job is given up.
TEST(JobQueue, ExpiredLeasesRequeueThenGiveUp) {
  TTUNE_REQUIRE_POSTGRES();
  QueueTimes t;
  t.lease_s = 0.3;
  t.max_attempts = 2;
  JobQueue q = openQueue(t);
  auto ids = q.submit("tuner", "t", {bytes("slow")}, {1});
  auto first = q.claim("hung", "t");
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(q.expire(), 0) << "the lease has not run out yet";
  EXPECT_TRUE(q.renew(first->id, "hung"));
  usleep(500000);
  EXPECT_FALSE(q.renew(first->id, "other")) << "only the holder renews";
  EXPECT_EQ(q.expire(), 1);
  EXPECT_FALSE(q.renew(first->id, "hung")) << "the lease ran out";
  auto second = q.claim("w2", "t");
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->id, first->id);
  EXPECT_EQ(second->attempt, 2);
  EXPECT_FALSE(q.complete(first->id, "hung", bytes("late"), "none"))
      << "a worker whose lease ran out cannot finish the job";
  usleep(500000);
  EXPECT_EQ(q.expire(), 1);
  auto out = q.collect("tuner");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, ids[0]);
  EXPECT_EQ(out[0].error, "runtime_timeout");
  EXPECT_TRUE(out[0].reply.empty());
  EXPECT_NE(out[0].note.find("the lease of worker hung ran out (attempt 1)"), std::string::npos) << out[0].note;
  EXPECT_NE(out[0].note.find("no worker finished the job in 2 attempts"), std::string::npos) << out[0].note;
}

TEST(JobQueue, JobsOfASilentTunerAreDeleted) {
  TTUNE_REQUIRE_POSTGRES();
  QueueTimes t;
  t.client_timeout_s = 0.3;
  JobQueue q = openQueue(t);
  q.submit("dead-tuner", "t", {bytes("a"), bytes("b")}, {1, 1});
  q.submit("live-tuner", "t", {bytes("c")}, {1});
  usleep(500000);
  q.touch("live-tuner");
  q.expire();
  EXPECT_EQ(q.pending("t"), 1);
  auto j = q.claim("w", "t");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(std::string(j->request.begin(), j->request.end()), "c");
  q.cancel("live-tuner");
  EXPECT_EQ(q.pending("t"), 0);
}

TEST(JobQueue, NeedsAPostgresBank) {
  auto q = JobQueue::open("/tmp/some/bank.db");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error(),
            "measurement workers share a PostgreSQL bank, and /tmp/some/bank.db is not one (use --db postgresql://...; "
            "docs/fleet.md)");
}

}  // namespace
}  // namespace ttune::store
