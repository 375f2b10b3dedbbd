// Helpers for the store tests: a temporary folder removed at the end of a test, sample records,
// raw SQL on a bank (to corrupt it on purpose), and BankTest, the fixture of the tests that run
// on both backends (an SQLite file, a fresh database on the test PostgreSQL server).
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/pg_server.h"
#include "schedule/record.h"
#include "store/bank.h"

namespace ttune::store::testing {

class TempDir {
 public:
  TempDir() {
    std::string base = (std::filesystem::temp_directory_path() / "ttune-store-XXXXXX").string();
    std::vector<char> buf(base.begin(), base.end());
    buf.push_back('\0');
    char* p = mkdtemp(buf.data());
    EXPECT_NE(p, nullptr);
    path_ = p ? p : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::vector<schedule::Step> sampleSteps(int variant) {
  using namespace schedule;
  return {SplitStep{"C", "i", 64, {variant + 1, std::nullopt}, true},
          FollowSplitStep{"D", "i", 0, 2},
          FollowFusedSplitStep{"D", "j", {0, 1}, 1, false},
          FuseStep{"D", {"i.0", "j.0"}},
          ReorderStep{"C", {"i.0", "j.0", "k"}},
          AnnotationStep{"D", "i.0@j.0@", IterAnnotation::Parallel},
          AutoUnrollStep{"C", 16 * (variant + 1)},
          ComputeAtStep{"C", "D", "j.1"},
          ComputeInlineStep{"P"},
          ComputeRootStep{"Q"},
          CacheReadStep{"A", "local", {"C"}},
          CacheWriteStep{"C", "local"},
          RfactorStep{"S", "k.1", 1},
          LayoutRewriteStep{"C", "B"}};
}

// An ok record (costs around `median`) or, when error != None, a failed one.
inline schedule::Record makeRecord(const std::string& key, double median, const std::string& model, int64_t trial,
                                   schedule::ErrorKind error = schedule::ErrorKind::None) {
  schedule::Record r;
  r.workload_key = key;
  r.kernel_class = "conv2d_nchw+add+relu";
  r.target = schedule::TargetInfo{"sapphirerapids", 512, 2, schedule::Isa::Avx512};
  r.steps = sampleSteps(static_cast<int>(trial % 7));
  if (error == schedule::ErrorKind::None) {
    r.result.costs_s = {median * 1.01, median, median * 0.99 + 1e-12};
  } else {
    r.result.error = error;
    r.result.error_msg = std::string("failed: ") + schedule::errorKindName(error);
  }
  r.result.build_s = 0.03125;
  r.result.measure_s = 0.1 + static_cast<double>(trial) * 1e-3;
  r.result.timestamp = 1764470000 + trial;
  r.provenance = schedule::Provenance{model, "tune-20261130-1", "tune", trial, 1.5 * static_cast<double>(trial), model};
  return r;
}

inline void expectSameRecord(const schedule::Record& a, const schedule::Record& b) {
  EXPECT_EQ(a.workload_key, b.workload_key);
  EXPECT_EQ(a.kernel_class, b.kernel_class);
  EXPECT_EQ(a.target, b.target);
  EXPECT_TRUE(schedule::stepsEqual(a.steps, b.steps));
  EXPECT_EQ(a.result, b.result);
  EXPECT_EQ(a.provenance, b.provenance);
  EXPECT_EQ(schedule::recordToLine(a), schedule::recordToLine(b));
}

// Runs SQL on a bank (a file or a PostgreSQL URL) through a separate connection.
inline void rawSql(const std::string& path, const std::string& sql) {
  if (path.rfind("postgres", 0) == 0) {
    EXPECT_EQ(::ttune::testing::PgServer::exec(path, sql), "") << sql;
    return;
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

inline Bank openOrDie(const std::string& path) {
  auto b = Bank::open(path);
  if (!b.ok()) ADD_FAILURE() << b.error();
  return std::move(b).value();
}

enum class Backend { Sqlite, Postgres };

inline std::string backendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::Sqlite ? "Sqlite" : "Postgres";
}

// A test run once per backend; `location()` is a new bank's path or URL.
class BankTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::Postgres) TTUNE_REQUIRE_POSTGRES();
  }
  // SQLite: `file` in the test's folder; PostgreSQL: a new empty database (file is ignored).
  std::string location(const std::string& file = "bank.db") {
    if (GetParam() == Backend::Sqlite) return tmp.file(file);
    return ::ttune::testing::PgServer::get().freshDatabase();
  }
  TempDir tmp;
};

#define TTUNE_ON_BOTH_BACKENDS(suite)                                                                          \
  INSTANTIATE_TEST_SUITE_P(                                                                                    \
      , suite,                                                                                                 \
      ::testing::Values(::ttune::store::testing::Backend::Sqlite, ::ttune::store::testing::Backend::Postgres), \
      ::ttune::store::testing::backendName)

}  // namespace ttune::store::testing
