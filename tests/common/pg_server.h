// A throw-away PostgreSQL server for tests (scripts/pg_server.sh), and fresh databases on it.
//
// CTest starts one server for the whole suite (the PostgresServer fixture, its folder in
// $TTUNE_TEST_PG_DIR); a test binary run by hand starts its own on first use and stops it at
// exit. Tests that need it call TTUNE_REQUIRE_POSTGRES(), which skips them with the script's
// sentence only when the PostgreSQL binaries are absent; any other failure to start fails them.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#ifndef TTUNE_SOURCE_DIR
#error "tests using pg_server.h define TTUNE_SOURCE_DIR"
#endif

namespace ttune::testing {

class PgServer {
 public:
  // The suite's server, started on first use; its state tells whether it is usable.
  static PgServer& get() {
    static PgServer server;
    return server;
  }
  bool available() const { return !url_.empty(); }
  bool absent() const { return absent_; }  // the binaries are not installed: skip
  const std::string& problem() const { return problem_; }
  const std::string& url() const { return url_; }  // the server's maintenance database

  // A new, empty database; its URL.
  std::string freshDatabase() {
    static int n = 0;
    std::string name = "t_" + std::to_string(getpid()) + "_" + std::to_string(++n);
    std::string err = exec(url_, "CREATE DATABASE " + name);
    EXPECT_EQ(err, "") << "creating a test database";
    return url_.substr(0, url_.rfind('/') + 1) + name;
  }

  // Runs SQL on a database through its own connection; "" or the server's message.
  static std::string exec(const std::string& url, const std::string& sql) {
    PGconn* c = PQconnectdb(url.c_str());
    std::string err;
    if (PQstatus(c) != CONNECTION_OK) {
      err = PQerrorMessage(c);
    } else {
      PGresult* r = PQexec(c, sql.c_str());
      ExecStatusType st = PQresultStatus(r);
      if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) err = PQresultErrorMessage(r);
      PQclear(r);
    }
    PQfinish(c);
    return err;
  }
  // The first column of the first row of a query ("" when none).
  static std::string query(const std::string& url, const std::string& sql) {
    PGconn* c = PQconnectdb(url.c_str());
    std::string out;
    if (PQstatus(c) == CONNECTION_OK) {
      PGresult* r = PQexec(c, sql.c_str());
      if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0) out = PQgetvalue(r, 0, 0);
      PQclear(r);
    }
    PQfinish(c);
    return out;
  }

  ~PgServer() {
    if (own_dir_.empty()) return;
    script("stop " + own_dir_);
    std::error_code ec;
    std::filesystem::remove_all(own_dir_, ec);
  }

 private:
  PgServer() {
    const char* shared = std::getenv("TTUNE_TEST_PG_DIR");
    if (shared && *shared) {
      std::ifstream in(std::string(shared) + "/url");
      if (std::getline(in, url_) && !url_.empty()) return;
      url_.clear();
    }
    char dir[] = "/tmp/ttune-pg-XXXXXX";
    if (!mkdtemp(dir)) {
      problem_ = "cannot create a folder for the test PostgreSQL server";
      return;
    }
    own_dir_ = dir;
    int status = 0;
    std::string out = script("start " + own_dir_, &status);
    if (status == 77) {
      absent_ = true;
      problem_ = out;
    } else if (status != 0) {
      problem_ = "the test PostgreSQL server did not start: " + out;
    } else {
      std::ifstream in(own_dir_ + "/url");
      std::getline(in, url_);
      if (url_.empty()) problem_ = "the test PostgreSQL server wrote no URL";
    }
  }
  // Runs scripts/pg_server.sh; its output (stdout and stderr), trimmed.
  static std::string script(const std::string& args, int* status = nullptr) {
    std::string cmd = std::string(TTUNE_SOURCE_DIR) + "/scripts/pg_server.sh " + args + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    std::array<char, 512> buf;
    while (p && fgets(buf.data(), buf.size(), p)) out += buf.data();
    int st = p ? pclose(p) : -1;
    if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
  }

  std::string url_, problem_, own_dir_;
  bool absent_ = false;
};

}  // namespace ttune::testing

// Skips the test (with the reason) when PostgreSQL is not installed; fails it when it is but the
// server cannot be started.
#define TTUNE_REQUIRE_POSTGRES()                                                     \
  do {                                                                               \
    ::ttune::testing::PgServer& pg_ = ::ttune::testing::PgServer::get();             \
    if (pg_.absent()) GTEST_SKIP() << "PostgreSQL tests skipped: " << pg_.problem(); \
    ASSERT_TRUE(pg_.available()) << pg_.problem();                                   \
  } while (0)
