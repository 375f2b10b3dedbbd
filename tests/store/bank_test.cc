// The bank's records, queries, models, runs, and its handling of corrupt rows and bad files.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "store/bank.h"
#include "store_test_util.h"

namespace ttune::store {
namespace {

using schedule::ErrorKind;
using schedule::Record;
using testing::makeRecord;
using testing::TempDir;
using BankOn = testing::BankTest;
TTUNE_ON_BOTH_BACKENDS(BankOn);

TEST(Bank, CreatesFoldersAndSchema) {
  TempDir tmp;
  std::string path = tmp.file("a/b/bank.db");
  {
    auto bank = Bank::open(path);
    ASSERT_TRUE(bank.ok()) << bank.error();
    EXPECT_EQ(bank->stats().records, 0);
    EXPECT_TRUE(bank->integrityCheck().ok());
  }
  auto again = Bank::open(path);  // reopening an existing bank
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->stats().schema_version, kSchemaVersion);
}

TEST_P(BankOn, RecordsOfEveryErrorKindRoundTrip) {
  Bank bank = testing::openOrDie(location());
  std::vector<Record> in;
  for (int i = 0; i <= static_cast<int>(ErrorKind::Unknown); ++i)
    in.push_back(makeRecord("k1", 0.001 * (i + 1), "resnet50", i, static_cast<ErrorKind>(i)));
  in.push_back(makeRecord("k2", 0.5, "bert", 42));
  in.back().steps.clear();  // an empty schedule is a record too
  size_t inserted = 0;
  ASSERT_TRUE(bank.addRecords(in, &inserted).ok());
  EXPECT_EQ(inserted, in.size());
  std::vector<Record> out = bank.records({});
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) testing::expectSameRecord(out[i], in[i]);

  RecordQuery ok;
  ok.ok_only = true;
  EXPECT_EQ(bank.records(ok).size(), 2u);
  Stats s = bank.stats();
  EXPECT_EQ(s.records, static_cast<int64_t>(in.size()));
  EXPECT_EQ(s.ok_records, 2);
  EXPECT_EQ(s.failed_by_error.size(), static_cast<size_t>(ErrorKind::Unknown));
  EXPECT_EQ(s.failed_by_error["runtime_crash"], 1);
  EXPECT_EQ(s.workloads, 2);
}

TEST_P(BankOn, DuplicatesAreStoredOnce) {
  Bank bank = testing::openOrDie(location());
  std::vector<Record> in = {makeRecord("k", 0.1, "m", 1), makeRecord("k", 0.2, "m", 2)};
  ASSERT_TRUE(bank.addRecords(in).ok());
  size_t inserted = 7;
  ASSERT_TRUE(bank.addRecords(in, &inserted).ok());
  EXPECT_EQ(inserted, 0u);
  EXPECT_EQ(bank.records({}).size(), 2u);
}

TEST_P(BankOn, InvalidBatchWritesNothing) {
  Bank bank = testing::openOrDie(location());
  std::vector<Record> in = {makeRecord("k", 0.1, "m", 1), makeRecord("k", 0.2, "m", 2)};
  in[1].result.costs_s[0] = std::numeric_limits<double>::quiet_NaN();
  Status s = bank.addRecords(in);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("record 1 of the batch has a non-finite cost"), std::string::npos) << s.error();
  in[1] = makeRecord("", 0.1, "m", 3);
  EXPECT_FALSE(bank.addRecords(in).ok());
  EXPECT_EQ(bank.records({}).size(), 0u);
}

TEST_P(BankOn, BestRecordIsTheFastestOkOneOnTheTarget) {
  Bank bank = testing::openOrDie(location());
  std::vector<Record> in = {makeRecord("k", 0.30, "m", 1), makeRecord("k", 0.10, "m", 2),
                            makeRecord("k", 0.01, "m", 3, ErrorKind::WrongAnswer), makeRecord("k", 0.20, "m", 4),
                            makeRecord("other", 0.05, "m", 5)};
  in[1].target.threads = 8;  // the fastest, but on 8 threads
  ASSERT_TRUE(bank.addRecords(in).ok());
  auto best = bank.bestRecord("k");
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->provenance.trial, 2);
  TargetFilter two;
  two.threads = 2;
  best = bank.bestRecord("k", two);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->provenance.trial, 4);
  TargetFilter avx2;
  avx2.vector_bits = 256;
  EXPECT_FALSE(bank.bestRecord("k", avx2).has_value());
  EXPECT_FALSE(bank.bestRecord("missing").has_value());

  auto all = bank.bestRecords(RecordQuery{});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all["k"].provenance.trial, 2);
  EXPECT_EQ(all["other"].provenance.trial, 5);
  auto some = bank.bestRecords(std::vector<std::string>{"other", "missing"});
  ASSERT_EQ(some.size(), 1u);
  EXPECT_EQ(some.begin()->first, "other");

  RecordQuery fastest;
  fastest.workload_key = "k";
  fastest.best_first = true;
  fastest.limit = 2;
  auto rs = bank.records(fastest);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].provenance.trial, 2);
  EXPECT_EQ(rs[1].provenance.trial, 4);
}

TEST_P(BankOn, TransferCandidatesExcludeTheTargetModel) {
  Bank bank = testing::openOrDie(location());
  // Class C holds workloads a (resnet), b (vgg), shared (a kernel of both) and t (mobilenet);
  // class D holds d (vgg).
  auto wl = [](const std::string& key, const std::string& cls) { return WorkloadInfo{key, cls, "conv", 1e6, Json()}; };
  ASSERT_TRUE(bank.addModel("resnet", "resnet50", {{wl("a", "C"), 3}, {wl("shared", "C"), 1}}).ok());
  ASSERT_TRUE(bank.addModel("vgg", "vgg16", {{wl("b", "C"), 1}, {wl("d", "D"), 2}, {wl("shared", "C"), 1}}).ok());
  ASSERT_TRUE(bank.addModel("mobilenet", "mobilenet_v2", {{wl("t", "C"), 1}, {wl("t", "C"), 4}}).ok());
  std::vector<Record> in = {makeRecord("a", 0.2, "resnet", 1),    makeRecord("a", 0.1, "resnet", 2),
                            makeRecord("b", 0.3, "vgg", 3),       makeRecord("d", 0.3, "vgg", 4),
                            makeRecord("shared", 0.2, "vgg", 5),  makeRecord("t", 0.01, "mobilenet", 6),
                            makeRecord("a", 0.05, "mobilenet", 7)};  // produced while tuning mobilenet
  ASSERT_TRUE(bank.addRecords(in).ok());

  auto cands = bank.bestPerWorkloadOfClass("C", "mobilenet");
  ASSERT_EQ(cands.size(), 3u);  // a, b, shared; not t
  EXPECT_EQ(cands[0].workload_key, "a");
  EXPECT_EQ(cands[0].provenance.trial, 2);  // not trial 7, which came from mobilenet
  EXPECT_EQ(cands[1].workload_key, "b");
  EXPECT_EQ(cands[2].workload_key, "shared");
  cands = bank.bestPerWorkloadOfClass("C", "vgg");
  ASSERT_EQ(cands.size(), 2u);  // a and t: b and shared are vgg kernels
  EXPECT_EQ(cands[0].workload_key, "a");
  EXPECT_EQ(cands[0].provenance.trial, 7);
  EXPECT_EQ(cands[1].workload_key, "t");
  EXPECT_TRUE(bank.bestPerWorkloadOfClass("", "vgg").empty());

  auto ks = bank.modelKernels("vgg");
  ASSERT_EQ(ks.size(), 3u);
  EXPECT_EQ(ks[1].workload.workload_key, "d");
  EXPECT_EQ(ks[1].occurrences, 2);
  EXPECT_EQ(ks[1].workload.class_id, "D");
  ASSERT_EQ(bank.modelKernels("mobilenet").size(), 1u);
  EXPECT_EQ(bank.modelKernels("mobilenet")[0].occurrences, 5);
  EXPECT_EQ(bank.models(), (std::vector<std::string>{"mobilenet", "resnet", "vgg"}));

  RecordQuery of_vgg;
  of_vgg.kernels_of_model = "vgg";
  EXPECT_EQ(bank.records(of_vgg).size(), 3u);
  Stats s = bank.stats();
  EXPECT_EQ(s.classes, 2);
  EXPECT_EQ(s.models, 3);
}

TEST_P(BankOn, RecordsStoredBeforeTheirWorkloadGetItsClass) {
  Bank bank = testing::openOrDie(location());
  ASSERT_TRUE(bank.addRecords({makeRecord("late", 0.1, "m", 1)}).ok());
  auto w = bank.workload("late");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->class_id, "");
  EXPECT_EQ(w->class_name, "conv2d_nchw+add+relu");
  EXPECT_FALSE(w->flops.has_value());
  EXPECT_TRUE(bank.bestPerWorkloadOfClass("X", "other").empty());
  Json sig = {{"inputs", Json::array({{{"shape", {1, 3}}, {"dtype", "float32"}}})}, {"outputs", Json::array()}};
  ASSERT_TRUE(bank.addWorkload({"late", "X", "", 123.0, sig}).ok());
  w = bank.workload("late");
  EXPECT_EQ(w->class_id, "X");
  EXPECT_EQ(w->class_name, "conv2d_nchw+add+relu");  // not overwritten by an unknown name
  EXPECT_EQ(w->flops, 123.0);
  EXPECT_EQ(w->signature, sig);
  EXPECT_EQ(bank.bestPerWorkloadOfClass("X", "other").size(), 1u);
}

TEST_P(BankOn, RunsAndResume) {
  Bank bank = testing::openOrDie(location());
  auto id1 = bank.beginRun(RunKind::Tune, "resnet50", {{"trials", 2000}});
  auto id2 = bank.beginRun(RunKind::Transfer, "mobilenet_v2", Json::object());
  auto id3 = bank.beginRun(RunKind::Tune, "resnet50", Json());
  ASSERT_TRUE(id1.ok() && id2.ok() && id3.ok());
  EXPECT_EQ(id1->rfind("tune-", 0), 0u);
  EXPECT_EQ(id2->rfind("transfer-", 0), 0u);
  EXPECT_NE(*id1, *id3);

  std::vector<Record> in = {makeRecord("k", 0.1, "resnet50", 0),
                            makeRecord("k", 0.2, "resnet50", 1, ErrorKind::CompileError)};
  for (auto& r : in) r.provenance.run_id = *id1;
  ASSERT_TRUE(bank.addRecords(in).ok());
  ASSERT_TRUE(bank.updateRun(*id1, 2, 12.5).ok());
  EXPECT_EQ(bank.trialsOfRun(*id1), 2);
  auto measured = bank.measuredStepStrings("k");
  EXPECT_EQ(measured.size(), 2u);
  EXPECT_TRUE(measured.count(stepsKey(in[1].steps)));
  EXPECT_FALSE(measured.count(stepsKey(testing::sampleSteps(5))));

  ASSERT_TRUE(bank.finishRun(*id1, RunStatus::Interrupted).ok());
  auto r = bank.run(*id1);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, RunStatus::Interrupted);
  EXPECT_TRUE(r->finished.has_value());
  EXPECT_EQ(r->trials_done, 2);
  EXPECT_EQ(r->wall_s, 12.5);
  EXPECT_EQ(r->records, 2);
  EXPECT_EQ(r->settings["trials"], 2000);
  ASSERT_TRUE(bank.resumeRun(*id1).ok());
  EXPECT_EQ(bank.run(*id1)->status, RunStatus::Running);
  EXPECT_FALSE(bank.run(*id1)->finished.has_value());
  ASSERT_TRUE(bank.finishRun(*id2, RunStatus::Finished).ok());

  auto all = bank.runs();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].run_id, *id1);
  EXPECT_EQ(all[1].kind, RunKind::Transfer);
  EXPECT_EQ(all[1].status, RunStatus::Finished);
  Status missing = bank.updateRun("no-such-run", 1, 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("has no run no-such-run"), std::string::npos);

  RecordQuery of_run;
  of_run.run_id = *id1;
  EXPECT_EQ(bank.records(of_run).size(), 2u);
}

TEST_P(BankOn, CorruptRowsAreSkippedWithAWarning) {
  std::string path = location();
  {
    Bank bank = testing::openOrDie(path);
    std::vector<Record> in;
    for (int i = 0; i < 6; ++i) in.push_back(makeRecord("k", 0.1 * (i + 1), "m", i));
    ASSERT_TRUE(bank.addRecords(in).ok());
  }
  // Row 1 is the fastest: its corruption must make bestRecord fall back to row 2.
  testing::rawSql(path,
                  "UPDATE records SET steps = '[{\"kind\": \"split\", garbage' WHERE id = 1;"
                  "UPDATE records SET error = 'teleported' WHERE id = 3;"
                  "UPDATE records SET costs = '[1, \"x\"]' WHERE id = 4;"
                  "UPDATE records SET steps = '[{\"kind\": \"warp\", \"stage\": \"C\"}]' WHERE id = 5;");
  Bank bank = testing::openOrDie(path);
  ::testing::internal::CaptureStderr();
  std::vector<StoredRecord> rs = bank.storedRecords({});
  std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].id, 2);
  EXPECT_EQ(rs[1].id, 6);
  EXPECT_NE(err.find("bank " + path + ": record 1 skipped: its steps are not a JSON list"), std::string::npos) << err;
  EXPECT_NE(err.find("record 3 skipped: its error kind \"teleported\" is unknown"), std::string::npos) << err;
  EXPECT_NE(err.find("record 4 skipped"), std::string::npos) << err;
  EXPECT_NE(err.find("record 5 skipped: its step 0 is invalid"), std::string::npos) << err;

  ::testing::internal::CaptureStderr();
  auto best = bank.bestRecord("k");
  ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->provenance.trial, 1);
  EXPECT_TRUE(bank.integrityCheck().ok());
}

TEST(Bank, RefusesFilesThatAreNotBanks) {
  TempDir tmp;
  std::string text = tmp.file("notes.txt");
  std::ofstream(text) << "this is not a database, just some text that is long enough to have a header\n";
  auto b = Bank::open(text);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error(), text + " is not a ttune schedule bank: it is not an SQLite database");

  std::string other = tmp.file("other.db");
  testing::rawSql(other, "CREATE TABLE t(x); INSERT INTO t VALUES(1);");
  b = Bank::open(other);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error(), other + " is an SQLite database but not a ttune schedule bank (it has no meta table)");

  b = Bank::open(tmp.path());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error(), tmp.path() + " is a folder, not a schedule bank file");

  std::string under_file = text + "/sub/bank.db";
  b = Bank::open(under_file);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("cannot create the folder " + text + "/sub for the schedule bank " + under_file),
            std::string::npos)
      << b.error();

  OpenOptions no_create;
  no_create.create = false;
  b = Bank::open(tmp.file("missing.db"), no_create);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error(), "there is no schedule bank at " + tmp.file("missing.db"));
}

TEST_P(BankOn, RefusesANewerSchema) {
  std::string path = location();
  { testing::openOrDie(path); }
  testing::rawSql(path, "UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  auto b = Bank::open(path);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error(), "the schedule bank " + path +
                           " has schema version 7, written by a newer ttune (this one reads up to version " +
                           std::to_string(kSchemaVersion) + ")");
}

TEST_P(BankOn, ExportedRecordsImportedIntoTheSameBankAreNotDuplicated) {
  // The bank back-fills class ids after a record is stored; a record exported with its class id
  // and imported again is the same record.
  Bank bank = testing::openOrDie(location());
  ASSERT_TRUE(bank.addRecords({testing::makeRecord("w1", 1e-3, "m", 0), testing::makeRecord("w1", 2e-3, "m", 1)}).ok());
  ASSERT_TRUE(bank.addWorkload({"w1", "class-of-w1", "conv2d_nchw+add+relu", std::nullopt, Json()}).ok());
  std::string file = tmp.file("out.jsonl");
  ASSERT_TRUE(bank.exportJsonl(file, RecordQuery{}).ok());
  auto rep = bank.importJsonl(file);
  ASSERT_TRUE(rep.ok()) << rep.error();
  EXPECT_EQ(bank.stats().records, 2);
}

TEST(Bank, MigratesVersion1Files) {
  // A version-1 file: no target_isa column, digests over lines that include class ids, and the
  // duplicate that version 1 stored when a record came back with its class id filled in.
  TempDir tmp;
  std::string path = tmp.file("bank.db");
  {
    Bank bank = testing::openOrDie(path);
    schedule::Record avx2 = testing::makeRecord("w1", 1e-3, "m", 0);
    avx2.target = schedule::TargetInfo{"znver3", 256, 2, schedule::Isa::Avx2};
    ASSERT_TRUE(bank.addRecords({testing::makeRecord("w1", 2e-3, "m", 1), avx2}).ok());
  }
  testing::rawSql(
      path,
      "ALTER TABLE records DROP COLUMN target_isa;"
      "ALTER TABLE records DROP COLUMN origin;"
      "ALTER TABLE records DROP COLUMN baseline;"
      "ALTER TABLE runs DROP COLUMN result;"
      "ALTER TABLE runs DROP COLUMN owner;"
      "ALTER TABLE runs DROP COLUMN heartbeat;"
      "UPDATE records SET digest = 'v1-' || id;"
      "INSERT INTO records(workload_key, class_id, kernel_class, target_cpu, target_vector_bits, target_threads, "
      "steps, costs, median_s, error, error_msg, build_s, measure_s, timestamp, model, run_id, source, trial, "
      "elapsed_s, digest) SELECT workload_key, 'cls', kernel_class, target_cpu, target_vector_bits, target_threads, "
      "steps, costs, median_s, error, error_msg, build_s, measure_s, timestamp, model, run_id, source, trial, "
      "elapsed_s, 'v1-dup' FROM records WHERE id = 1;"
      "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  Bank bank = testing::openOrDie(path);
  Stats st = bank.stats();
  EXPECT_EQ(st.schema_version, kSchemaVersion);
  EXPECT_EQ(st.records, 2);  // the duplicate is gone
  RecordQuery q;
  q.target.isa = schedule::Isa::Avx2;
  auto avx2 = bank.records(q);
  ASSERT_EQ(avx2.size(), 1u);
  EXPECT_EQ(avx2[0].target.cpu, "znver3");
  EXPECT_EQ(avx2[0].provenance.origin, "m");  // a tuning record's origin is its own model
  q.target.isa = schedule::Isa::Avx512;
  EXPECT_EQ(bank.records(q).size(), 1u);
  // Writing after the migration works, and stays deduplicated.
  ASSERT_TRUE(bank.addRecords({testing::makeRecord("w1", 2e-3, "m", 1)}).ok());
  EXPECT_EQ(bank.stats().records, 2);
}

TEST(Bank, MigratesVersion2FilesToRefreshRuns) {
  // A version-2 file: its runs table accepts only tune and transfer runs.
  TempDir tmp;
  std::string path = tmp.file("bank.db");
  std::string run;
  {
    Bank bank = testing::openOrDie(path);
    auto id = bank.beginRun(RunKind::Tune, "m", {{"trials", 5}});
    ASSERT_TRUE(id.ok());
    run = *id;
    ASSERT_TRUE(bank.finishRun(run, RunStatus::Finished).ok());
  }
  testing::rawSql(
      path,
      "CREATE TABLE runs_v2(run_id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK(kind IN ('tune', 'transfer')), "
      "model TEXT NOT NULL, settings TEXT NOT NULL, started INTEGER NOT NULL, finished INTEGER, "
      "status TEXT NOT NULL CHECK(status IN ('running', 'finished', 'interrupted')), "
      "trials_done INTEGER NOT NULL DEFAULT 0, wall_s REAL NOT NULL DEFAULT 0, result TEXT NOT NULL DEFAULT '{}', "
      "owner TEXT NOT NULL DEFAULT '', heartbeat INTEGER NOT NULL DEFAULT 0);"
      "INSERT INTO runs_v2 SELECT * FROM runs; DROP TABLE runs; ALTER TABLE runs_v2 RENAME TO runs;"
      "ALTER TABLE records DROP COLUMN baseline;"
      "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
  Bank bank = testing::openOrDie(path);
  EXPECT_EQ(bank.stats().schema_version, kSchemaVersion);
  auto old = bank.run(run);
  ASSERT_TRUE(old);
  EXPECT_EQ(old->kind, RunKind::Tune);
  EXPECT_EQ(old->settings.value("trials", 0), 5);
  EXPECT_EQ(old->status, RunStatus::Finished);
  auto refresh = bank.beginRun(RunKind::Refresh, "m", Json::object());
  ASSERT_TRUE(refresh.ok()) << refresh.error();
  EXPECT_EQ(bank.run(*refresh)->kind, RunKind::Refresh);
}

// Version 3 files lack records.baseline: every record they hold was measured against the strong
// defaults; basic-baseline records written after the migration keep theirs, through export too.
TEST(Bank, MigratesVersion3FilesToRecordsWithABaseline) {
  TempDir tmp;
  std::string path = tmp.file("bank.db");
  {
    Bank bank = testing::openOrDie(path);
    ASSERT_TRUE(bank.addRecords({testing::makeRecord("w1", 2e-3, "m", 1)}).ok());
  }
  testing::rawSql(path,
                  "ALTER TABLE records DROP COLUMN baseline; UPDATE meta SET value = '3' WHERE key = 'schema_version'");
  Bank bank = testing::openOrDie(path);
  EXPECT_EQ(bank.stats().schema_version, kSchemaVersion);
  auto old = bank.records(RecordQuery{});
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].provenance.baseline, schedule::Baseline::Strong);
  schedule::Record basic = testing::makeRecord("w1", 1e-3, "m", 2);
  basic.provenance.baseline = schedule::Baseline::Basic;
  ASSERT_TRUE(bank.addRecords({basic}).ok());
  int basics = 0;
  for (const schedule::Record& r : bank.records(RecordQuery{}))
    basics += r.provenance.baseline == schedule::Baseline::Basic;
  EXPECT_EQ(basics, 1);
  std::string line = schedule::recordToLine(basic);
  EXPECT_NE(line.find("\"baseline\":\"basic\""), std::string::npos) << line;
  EXPECT_EQ(schedule::recordToLine(old[0]).find("baseline"), std::string::npos);  // strong records as before
  auto back = schedule::recordFromLine(line);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->provenance.baseline, schedule::Baseline::Basic);
}

// Regression: two tuners on one model both took over the same run (no owner, no liveness
// check), spending the budget twice with last-writer-wins counters.
TEST_P(BankOn, ARunIsResumedOnlyWhenItsOwnerIsGone) {
  std::string path = location();
  Bank bank = testing::openOrDie(path);
  auto run = bank.beginRun(RunKind::Tune, "m", Json::object());
  ASSERT_TRUE(run.ok());
  auto info = bank.run(*run);
  ASSERT_TRUE(info.has_value());
  EXPECT_FALSE(info->owner.empty());
  // This process owns it and is alive: another claimant (same owner string here) is refused.
  Status again = bank.resumeRun(*run);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().find("is being worked on by process " + std::to_string(getpid())), std::string::npos)
      << again.error();
  EXPECT_NE(again.error().find("--new-run"), std::string::npos);
  // Owned by a process that is gone (a child that exited): claimed.
  pid_t child = fork();
  if (child == 0) _exit(0);
  int st = 0;
  ASSERT_EQ(waitpid(child, &st, 0), child);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  testing::rawSql(path, "UPDATE runs SET owner = '" + std::string(host) + ":" + std::to_string(child) + ":12345'");
  EXPECT_TRUE(bank.resumeRun(*run).ok());
  // A process on another host with a recent heartbeat counts as alive; with an old one, gone.
  testing::rawSql(path, "UPDATE runs SET owner = 'elsewhere:42:1', heartbeat = " + std::to_string(std::time(nullptr)) +
                            ", status = 'running'");
  EXPECT_FALSE(bank.resumeRun(*run).ok());
  testing::rawSql(path, "UPDATE runs SET heartbeat = 1000");
  EXPECT_TRUE(bank.resumeRun(*run).ok());
  // An interrupted run is claimed whoever owned it.
  ASSERT_TRUE(bank.finishRun(*run, RunStatus::Interrupted).ok());
  EXPECT_TRUE(bank.resumeRun(*run).ok());
}

// Regression: best records were compared across thread counts (a 1-thread time against a
// 2-thread time says nothing about which schedule is better with 2 threads).
TEST_P(BankOn, BestRecordsForHereCompareOnlyLikeWithLike) {
  Bank bank = testing::openOrDie(location());
  auto rec = [](const char* key, double t, const char* cpu, int threads, int trial) {
    schedule::Record r = testing::makeRecord(key, t, "m", trial);
    r.target = schedule::TargetInfo{cpu, 512, threads, schedule::Isa::Avx512};
    return r;
  };
  ASSERT_TRUE(bank.addRecords({rec("w", 1e-3, "znver4", 1, 0), rec("w", 2e-3, "znver4", 2, 1),
                               rec("v", 1e-3, "sapphirerapids", 2, 2), rec("v", 3e-3, "znver4", 1, 3)})
                  .ok());
  auto best = bank.bestRecordsFor({"w", "v"}, schedule::TargetInfo{"znver4", 512, 2, schedule::Isa::Avx512});
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best["w"].target.threads, 2) << "the 2-thread record, though the 1-thread one is faster";
  EXPECT_EQ(best["v"].target.cpu, "sapphirerapids")
      << "same ISA and thread count before this CPU at another thread count";
  auto avx2 = bank.bestRecordsFor({"w"}, schedule::TargetInfo{"znver4", 256, 2, schedule::Isa::Avx2});
  EXPECT_TRUE(avx2.empty()) << "never another ISA level's code";
}

// Regression: bank read errors became a warning with partial data, so a resumed run could
// start from less than it had done.
TEST_P(BankOn, ReadsForResumeFailInsteadOfReturningPartialData) {
  std::string path = location();
  {
    Bank bank = testing::openOrDie(path);
    ASSERT_TRUE(bank.addRecords({testing::makeRecord("w", 1e-3, "m", 0), testing::makeRecord("w", 2e-3, "m", 1)}).ok());
  }
  testing::rawSql(path, "UPDATE records SET steps = 'not json' WHERE id = 2");
  Bank bank = testing::openOrDie(path);
  EXPECT_EQ(bank.records({}).size(), 1u);  // the tolerant read skips the row (with a warning)
  auto strict = bank.recordsOrError({});
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.error().find("record 2 cannot be read"), std::string::npos) << strict.error();
}

TEST(Bank, UsesWriteAheadLogging) {
  TempDir tmp;
  std::string path = tmp.file("bank.db");
  Bank bank = testing::openOrDie(path);
  ASSERT_TRUE(bank.addRecords({makeRecord("k", 0.1, "m", 1)}).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST_P(BankOn, CreatesTheSchemaOnceAndReopens) {
  std::string path = location();
  {
    auto bank = Bank::open(path);
    ASSERT_TRUE(bank.ok()) << bank.error();
    EXPECT_EQ(bank->stats().records, 0);
    EXPECT_TRUE(bank->integrityCheck().ok());
  }
  auto again = Bank::open(path);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->stats().schema_version, kSchemaVersion);
}

// A PostgreSQL bank is named by its URL without the password, in paths and in every message.
TEST(PostgresBank, RefusesDatabasesThatAreNotBanksAndHidesPasswords) {
  TTUNE_REQUIRE_POSTGRES();
  std::string url = ::ttune::testing::PgServer::get().freshDatabase();
  testing::rawSql(url, "CREATE TABLE t(x int); INSERT INTO t VALUES(1)");
  auto b = Bank::open(url);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error(), url + " is a PostgreSQL database but not a ttune schedule bank (it has no meta table)");

  std::string empty = ::ttune::testing::PgServer::get().freshDatabase();
  OpenOptions no_create;
  no_create.create = false;
  b = Bank::open(empty, no_create);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error(), "there is no schedule bank in " + empty);

  // The server accepts any password (trust): the bank opens, and its path hides it.
  std::string with_password = empty;
  with_password.replace(with_password.find("ttune@"), 6, "ttune:s3cret@");
  b = Bank::open(with_password + "?application_name=x&password=s3cret");
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ(b->path(), empty + "?application_name=x");
  EXPECT_EQ(b->path().find("s3cret"), std::string::npos);

  b = Bank::open("postgresql://ttune:s3cret@127.0.0.1:1/nowhere?connect_timeout=2");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().rfind(
                "cannot connect to the schedule bank postgresql://ttune@127.0.0.1:1/nowhere?connect_timeout=2: ", 0),
            0u)
      << b.error();
  EXPECT_EQ(b.error().find("s3cret"), std::string::npos) << b.error();
}

}  // namespace
}  // namespace ttune::store
