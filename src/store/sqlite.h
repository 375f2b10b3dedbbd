// A thin RAII layer over the SQLite C API, private to store/: a connection (Db), a prepared
// statement (Stmt) and a write transaction (WriteTransaction).
//
// Every failure throws ttune::Error with one sentence naming the bank file and what SQLite said;
// the Bank catches it at its public boundary and turns it into a Status or a warning. A Db is
// used by one thread at a time (the Bank serializes access with a mutex). A WriteTransaction
// starts with BEGIN IMMEDIATE (takes the write lock up front, so it never fails half-way with
// SQLITE_BUSY on a lock upgrade) and rolls back in its destructor unless committed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "support/error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ttune::store::sql {

// An SQLite failure; `code` is the primary result code (SQLITE_BUSY, SQLITE_NOTADB, ...).
class SqlError : public Error {
 public:
  SqlError(const std::string& message, int code) : Error(message), code(code) {}
  int code;
};

// A value bound to a statement parameter; monostate is NULL.
using Value = std::variant<std::monostate, int64_t, double, std::string>;

class Db {
 public:
  // Opens (creating when `create` and the file is missing) the database at `path`. Throws Error
  // naming the file when SQLite cannot open it.
  Db(const std::string& path, bool create, int busy_timeout_ms);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  // Runs one or more statements without results.
  void exec(const std::string& sql);
  // The first column of the first row of a query, or nullopt when there is no row / it is NULL.
  std::optional<int64_t> queryInt(const std::string& sql);
  std::optional<std::string> queryText(const std::string& sql);
  int64_t changes() const;
  // "bank FILE: <context>: <SQLite message>"
  [[noreturn]] void fail(std::string_view context, int code) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Stmt {
 public:
  Stmt(Db& db, const std::string& sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Parameters are numbered from 1.
  Stmt& bind(int i, const Value& v);
  Stmt& bindAll(const std::vector<Value>& vs);  // parameters 1..n
  // Advances; true when a row is available.
  bool step();
  // Runs a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  bool isNull(int col) const;
  int64_t getInt(int col) const;     // 0 for NULL
  double getDouble(int col) const;   // 0 for NULL
  std::string getText(int col) const;  // "" for NULL
  std::optional<double> getOptDouble(int col) const;
  std::optional<int64_t> getOptInt(int col) const;

 private:
  Db& db_;
  sqlite3_stmt* st_ = nullptr;
  std::string sql_;
};

class WriteTransaction {
 public:
  explicit WriteTransaction(Db& db);  // BEGIN IMMEDIATE
  ~WriteTransaction();                // ROLLBACK unless committed
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  void commit();

 private:
  Db& db_;
  bool done_ = false;
};

// A consistent snapshot for several reads (BEGIN DEFERRED ... COMMIT).
class ReadTransaction {
 public:
  explicit ReadTransaction(Db& db);
  ~ReadTransaction();
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;

 private:
  Db& db_;
};

}  // namespace ttune::store::sql
