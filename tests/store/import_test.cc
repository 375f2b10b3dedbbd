// Records as JSON lines in and out of the bank, seeding from the shipped bank, default paths.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "store/bank.h"
#include "store/seed.h"
#include "store_test_util.h"
#include "support/strings.h"

namespace ttune::store {
namespace {

using schedule::ErrorKind;
using schedule::Record;
using testing::makeRecord;
using testing::TempDir;
using ImportOn = testing::BankTest;
TTUNE_ON_BOTH_BACKENDS(ImportOn);

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Record> sampleRecords() {
  std::vector<Record> rs;
  for (int i = 0; i < 5; ++i)
    rs.push_back(makeRecord(i < 3 ? "k1" : "k2", 0.01 * (5 - i), i % 2 ? "vgg" : "resnet", i));
  rs.push_back(makeRecord("k2", 0, "vgg", 5, ErrorKind::RuntimeTimeout));
  return rs;
}

TEST_P(ImportOn, ExportThenImportRoundTrips) {
  Bank a = testing::openOrDie(location("a.db"));
  std::vector<Record> in = sampleRecords();
  ASSERT_TRUE(a.addRecords(in).ok());
  std::string file = tmp.file("out.jsonl");
  size_t written = 0;
  ASSERT_TRUE(a.exportJsonl(file, {}, &written).ok());
  EXPECT_EQ(written, in.size());
  std::string expected;
  for (const Record& r : in) expected += schedule::recordToLine(r) + "\n";
  EXPECT_EQ(readText(file), expected);  // byte for byte, in insertion order

  Bank b = testing::openOrDie(location("b.db"));
  auto rep = b.importJsonl(file);
  ASSERT_TRUE(rep.ok()) << rep.error();
  EXPECT_EQ(rep->lines, 6);
  EXPECT_EQ(rep->imported, 6);
  EXPECT_EQ(rep->skipped, 0);
  auto out = b.records({});
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) testing::expectSameRecord(out[i], in[i]);

  rep = b.importJsonl(file);  // importing again adds nothing
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ(rep->imported, 0);
  EXPECT_EQ(rep->duplicates, 6);
  EXPECT_EQ(b.records({}).size(), in.size());
}

TEST_P(ImportOn, ExportsAQuery) {
  Bank a = testing::openOrDie(location("a.db"));
  ASSERT_TRUE(a.addRecords(sampleRecords()).ok());
  RecordQuery q;
  q.model = "vgg";
  q.ok_only = true;
  size_t n = 0;
  ASSERT_TRUE(a.exportJsonl(tmp.file("vgg.jsonl"), q, &n).ok());
  EXPECT_EQ(n, 2u);
  RecordQuery best;
  best.best_per_workload = true;
  ASSERT_TRUE(a.exportJsonl(tmp.file("best.jsonl"), best, &n).ok());
  EXPECT_EQ(n, 2u);
  auto back = schedule::readRecordsFile(tmp.file("best.jsonl"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)[0].provenance.trial, 2);  // k1: 0.03 is its fastest
  EXPECT_EQ((*back)[1].provenance.trial, 4);  // k2: 0.01
  Status s = a.exportJsonl(tmp.file("no/such/folder/x.jsonl"), {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("cannot write the records file " + tmp.file("no/such/folder/x.jsonl")), std::string::npos);
}

TEST_P(ImportOn, SkipsInvalidLinesAndReportsThem) {
  std::vector<Record> good = sampleRecords();
  Json wrong_version = schedule::recordToJson(good[1]);
  wrong_version["version"] = 2;
  std::string corrupted = schedule::recordToLine(good[2]);
  corrupted.resize(corrupted.size() / 2);
  Json bad_step = schedule::recordToJson(good[3]);
  bad_step["steps"][0]["kind"] = "teleport";
  std::string file = tmp.file("mixed.jsonl");
  {
    std::ofstream out(file);
    out << "# a comment\n"
        << schedule::recordToLine(good[0]) << "\n"
        << "\n"
        << wrong_version.dump() << "\n"
        << corrupted << "\n"
        << "garbage, not JSON at all\n"
        << bad_step.dump() << "\n"
        << schedule::recordToLine(good[4]) << "\n"
        << "[1, 2, 3]\n"
        << schedule::recordToLine(good[5]);  // no final newline
  }
  Bank bank = testing::openOrDie(location());
  ::testing::internal::CaptureStderr();
  auto rep = bank.importJsonl(file);
  std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(rep.ok()) << rep.error();
  EXPECT_EQ(rep->lines, 8);
  EXPECT_EQ(rep->imported, 3);
  EXPECT_EQ(rep->skipped, 5);
  ASSERT_EQ(rep->problems.size(), 5u);
  EXPECT_EQ(rep->problems[0], file + ":4: record format version 2 is not supported (this ttune reads version 1)");
  EXPECT_EQ(rep->problems[1], file + ":5: not valid JSON");
  EXPECT_EQ(rep->problems[2], file + ":6: not valid JSON");
  EXPECT_EQ(rep->problems[3], file + ":7: record step 0: unknown step kind \"teleport\"");
  EXPECT_EQ(rep->problems[4], file + ":9: a record must be a JSON object");
  EXPECT_NE(err.find(file + ":5: not valid JSON (line skipped)"), std::string::npos) << err;
  auto rs = bank.records({});
  ASSERT_EQ(rs.size(), 3u);
  testing::expectSameRecord(rs[0], good[0]);
  testing::expectSameRecord(rs[1], good[4]);
  testing::expectSameRecord(rs[2], good[5]);
}

TEST_P(ImportOn, UnknownWorkloadsAreCreated) {
  std::string file = tmp.file("r.jsonl");
  ASSERT_TRUE(schedule::appendRecordsFile(file, {makeRecord("fresh", 0.1, "m", 1)}).ok());
  Bank bank = testing::openOrDie(location());
  ASSERT_TRUE(bank.importJsonl(file).ok());
  auto w = bank.workload("fresh");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->class_id, "");
  EXPECT_FALSE(w->flops.has_value());
}

TEST_P(ImportOn, RefusesUnreadableFilesAndBareSchedules) {
  Bank bank = testing::openOrDie(location());
  auto rep = bank.importJsonl(tmp.file("missing.jsonl"));
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.error().rfind("cannot read the records file " + tmp.file("missing.jsonl"), 0), 0u) << rep.error();
  std::string steps = tmp.file("steps.json");
  std::ofstream(steps) << "[\n  {\"kind\": \"compute_inline\", \"stage\": \"P\"}\n]\n";
  rep = bank.importJsonl(steps);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.error().find("holds a bare list of steps"), std::string::npos);
}

TEST_P(ImportOn, SeedsEachShippedFileOnce) {
  std::string dir = tmp.file("shipped");
  std::filesystem::create_directories(dir);
  std::vector<Record> rs = sampleRecords();
  ASSERT_TRUE(schedule::appendRecordsFile(dir + "/resnet.jsonl", {rs[0], rs[2]}).ok());
  ASSERT_TRUE(schedule::appendRecordsFile(dir + "/vgg.jsonl", {rs[1], rs[3]}).ok());
  std::ofstream(dir + "/README.md") << "not a records file\n";
  Bank bank = testing::openOrDie(location());
  SeedReport rep;
  ASSERT_TRUE(seedFromDirectory(bank, dir, &rep).ok());
  EXPECT_EQ(rep.files_imported, 2);
  EXPECT_EQ(rep.records, 4);
  ASSERT_TRUE(seedFromDirectory(bank, dir, &rep).ok());
  EXPECT_EQ(rep.files_imported, 0);
  EXPECT_EQ(rep.files_known, 2);
  // A changed file is imported again; its old records are not duplicated.
  ASSERT_TRUE(schedule::appendRecordsFile(dir + "/vgg.jsonl", {rs[5]}).ok());
  ASSERT_TRUE(seedFromDirectory(bank, dir, &rep).ok());
  EXPECT_EQ(rep.files_imported, 1);
  EXPECT_EQ(rep.records, 1);
  EXPECT_EQ(bank.records({}).size(), 5u);
  EXPECT_EQ(bank.stats().seeded_files, 3);
  EXPECT_FALSE(seedFromDirectory(bank, tmp.file("nowhere"), &rep).ok());
}

TEST(Seed, DefaultPathsFollowTheEnvironment) {
  const char* saved_db = std::getenv("TTUNE_DB");
  const char* saved_xdg = std::getenv("XDG_DATA_HOME");
  std::string sdb = saved_db ? saved_db : "", sxdg = saved_xdg ? saved_xdg : "";
  setenv("TTUNE_DB", "/x/y.db", 1);
  EXPECT_EQ(defaultBankPath(), "/x/y.db");
  unsetenv("TTUNE_DB");
  setenv("XDG_DATA_HOME", "/data", 1);
  EXPECT_EQ(defaultBankPath(), "/data/ttune/bank.db");
  unsetenv("XDG_DATA_HOME");
  EXPECT_EQ(defaultBankPath(),
            std::string(std::getenv("HOME") ? std::getenv("HOME") : ".") + "/.local/share/ttune/bank.db");
  if (saved_db) setenv("TTUNE_DB", sdb.c_str(), 1);
  if (saved_xdg) setenv("XDG_DATA_HOME", sxdg.c_str(), 1);

  setenv("TTUNE_SHIPPED_BANK", "/shipped", 1);
  EXPECT_EQ(shippedBankDir(), "/shipped");
  unsetenv("TTUNE_SHIPPED_BANK");
  EXPECT_TRUE(endsWith(shippedBankDir(), "/bank"));
}

TEST(Seed, OpenBankSeedsTheDefaultBankOnly) {
  TempDir tmp;
  std::string dir = tmp.file("shipped");
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(schedule::appendRecordsFile(dir + "/a.jsonl", sampleRecords()).ok());
  setenv("TTUNE_SHIPPED_BANK", dir.c_str(), 1);
  setenv("TTUNE_DB", tmp.file("default/bank.db").c_str(), 1);
  {
    auto bank = openBank("");
    ASSERT_TRUE(bank.ok()) << bank.error();
    EXPECT_EQ(bank->path(), tmp.file("default/bank.db"));
    EXPECT_EQ(bank->stats().records, 6);
    auto other = openBank(tmp.file("explicit.db"));
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(other->stats().records, 0);
  }
  unsetenv("TTUNE_SHIPPED_BANK");
  unsetenv("TTUNE_DB");
}

// `db export | db import` between the backends: records move both ways unchanged, in order.
TEST(Import, RecordsMoveBetweenSqliteAndPostgres) {
  TTUNE_REQUIRE_POSTGRES();
  TempDir tmp;
  std::vector<Record> in = sampleRecords();
  Bank file_bank = testing::openOrDie(tmp.file("a.db"));
  ASSERT_TRUE(file_bank.addRecords(in).ok());
  ASSERT_TRUE(file_bank.addWorkload({"k1", "class-k1", "conv2d_nchw+add+relu", 1e6, Json()}).ok());
  ASSERT_TRUE(file_bank.exportJsonl(tmp.file("from-sqlite.jsonl"), {}).ok());
  Bank pg = testing::openOrDie(::ttune::testing::PgServer::get().freshDatabase());
  auto rep = pg.importJsonl(tmp.file("from-sqlite.jsonl"));
  ASSERT_TRUE(rep.ok()) << rep.error();
  EXPECT_EQ(rep->imported, static_cast<int64_t>(in.size()));
  ASSERT_TRUE(pg.exportJsonl(tmp.file("from-postgres.jsonl"), {}).ok());
  EXPECT_EQ(readText(tmp.file("from-postgres.jsonl")), readText(tmp.file("from-sqlite.jsonl")));
  // And back into a new file: the same records, and importing them again adds nothing.
  Bank back = testing::openOrDie(tmp.file("b.db"));
  ASSERT_TRUE(back.importJsonl(tmp.file("from-postgres.jsonl")).ok());
  auto out = back.records({});
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(schedule::recordToLine(out[i]), schedule::recordToLine(file_bank.records({})[i]));
  rep = pg.importJsonl(tmp.file("from-postgres.jsonl"));
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ(rep->duplicates, static_cast<int64_t>(in.size()));
  EXPECT_EQ(pg.stats().records, static_cast<int64_t>(in.size()));
  auto best = pg.bestRecord("k1");
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->class_id, "class-k1");
}

TEST(Seed, TheDefaultBankMayBeAPostgresUrl) {
  TTUNE_REQUIRE_POSTGRES();
  TempDir tmp;
  std::string dir = tmp.file("shipped");
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(schedule::appendRecordsFile(dir + "/a.jsonl", sampleRecords()).ok());
  std::string url = ::ttune::testing::PgServer::get().freshDatabase();
  setenv("TTUNE_SHIPPED_BANK", dir.c_str(), 1);
  setenv("TTUNE_DB", url.c_str(), 1);
  {
    auto bank = openBank("");
    ASSERT_TRUE(bank.ok()) << bank.error();
    EXPECT_EQ(bank->path(), url);
    EXPECT_EQ(bank->stats().records, 6);
    EXPECT_EQ(bank->stats().seeded_files, 1);
  }
  unsetenv("TTUNE_SHIPPED_BANK");
  unsetenv("TTUNE_DB");
}

}  // namespace
}  // namespace ttune::store
