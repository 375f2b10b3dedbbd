// A database connection as the bank uses it, private to store/: the engine-neutral interface
// (Db, one prepared statement's Cursor) with the Stmt, WriteTransaction and ReadTransaction
// helpers written once over it. sqlite.h and postgres.h implement it.
//
// The bank writes its SQL once, in the subset both engines share: `?N` / `?` placeholders (the
// PostgreSQL connection numbers them `$N`), `INSERT ... ON CONFLICT`, no engine functions.
// Every failure throws SqlError with one sentence naming the bank (never a password) and what
// the engine said; the Bank catches it at its public boundary. A Db is used by one thread at a
// time (the Bank serializes access with a mutex).
//
// Transactions: a write transaction is serialized against every other writer of the bank,
// whichever process or host it runs on (SQLite: BEGIN IMMEDIATE takes the file's write lock up
// front; PostgreSQL: BEGIN and a transaction-scoped advisory lock), so read-then-write sequences
// such as claiming a run see no interleaved writer; it rolls back unless committed. A read
// transaction is one consistent snapshot.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "support/error.h"

namespace ttune::store::sql {

// What went wrong, where the caller acts on it; everything else is Other.
enum class Failure { Other, Busy, NotADatabase, Corrupt, ReadOnly, CannotOpen };

class SqlError : public Error {
 public:
  SqlError(const std::string& message, Failure failure) : Error(message), failure(failure) {}
  Failure failure;
};

// Bytes stored as a BLOB (SQLite) or BYTEA (PostgreSQL).
struct Blob {
  std::vector<char> bytes;
};

// A value bound to a statement parameter; monostate is NULL.
using Value = std::variant<std::monostate, int64_t, double, std::string, Blob>;

enum class Dialect { Sqlite, Postgres };

// One statement: parameters numbered from 1, rows read in order after step().
class Cursor {
 public:
  virtual ~Cursor() = default;
  virtual void bind(int i, const Value& v) = 0;
  virtual bool step() = 0;   // true when a row is available
  virtual void reset() = 0;  // back to before the first step, bindings cleared
  virtual bool isNull(int col) const = 0;
  virtual int64_t getInt(int col) const = 0;             // 0 for NULL
  virtual double getDouble(int col) const = 0;           // 0 for NULL
  virtual std::string getText(int col) const = 0;        // "" for NULL
  virtual std::vector<char> getBlob(int col) const = 0;  // empty for NULL
};

class Db {
 public:
  explicit Db(std::string path) : path_(std::move(path)) {}
  virtual ~Db() = default;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // How messages name the database: a file path, or a URL without its password.
  const std::string& path() const { return path_; }
  virtual Dialect dialect() const = 0;
  // Runs one or more statements without parameters or results.
  virtual void exec(const std::string& sql) = 0;
  virtual std::unique_ptr<Cursor> prepare(const std::string& sql) = 0;
  // Rows changed by the last INSERT, UPDATE or DELETE.
  virtual int64_t changes() const = 0;
  virtual void begin(bool write) = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // The user tables of the database (the bank's schema, for PostgreSQL).
  virtual std::vector<std::string> tables() = 0;
  virtual bool hasColumn(const std::string& table, const std::string& column) = 0;
  // The first column of the first row of a query, or nullopt when there is no row / it is NULL.
  std::optional<int64_t> queryInt(const std::string& sql);
  std::optional<std::string> queryText(const std::string& sql);

 private:
  std::string path_;
};

class Stmt {
 public:
  Stmt(Db& db, const std::string& sql) : cur_(db.prepare(sql)) {}
  Stmt& bind(int i, const Value& v) {
    cur_->bind(i, v);
    return *this;
  }
  Stmt& bindAll(const std::vector<Value>& vs);  // parameters 1..n
  bool step() { return cur_->step(); }
  // Runs a statement that returns no rows, then resets it for reuse.
  void run();
  void reset() { cur_->reset(); }
  bool isNull(int col) const { return cur_->isNull(col); }
  int64_t getInt(int col) const { return cur_->getInt(col); }
  double getDouble(int col) const { return cur_->getDouble(col); }
  std::string getText(int col) const { return cur_->getText(col); }
  std::vector<char> getBlob(int col) const { return cur_->getBlob(col); }
  std::optional<double> getOptDouble(int col) const;
  std::optional<int64_t> getOptInt(int col) const;

 private:
  std::unique_ptr<Cursor> cur_;
};

class WriteTransaction {
 public:
  explicit WriteTransaction(Db& db) : db_(db) { db_.begin(true); }
  ~WriteTransaction() {
    if (!done_) db_.rollback();
  }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  void commit() {
    db_.commit();
    done_ = true;
  }

 private:
  Db& db_;
  bool done_ = false;
};

class ReadTransaction {
 public:
  explicit ReadTransaction(Db& db) : db_(db) { db_.begin(false); }
  ~ReadTransaction() { db_.rollback(); }  // nothing was written: ending it either way is the same
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;

 private:
  Db& db_;
};

}  // namespace ttune::store::sql
