// The SQLite connection behind sql_db.h, private to store/: a bank file in WAL mode.
//
// Writers take the file's write lock up front (BEGIN IMMEDIATE), so a transaction never fails
// half-way with SQLITE_BUSY on a lock upgrade; they wait up to the busy timeout for another
// process's transaction. Failures throw sql::SqlError naming the file.
#pragma once

#include <string>
#include <string_view>

#include "store/sql_db.h"

struct sqlite3;

namespace ttune::store::sql {

class SqliteDb : public Db {
 public:
  // Opens (creating when `create` and the file is missing) the database at `path`.
  SqliteDb(const std::string& path, bool create, int busy_timeout_ms);
  ~SqliteDb() override;

  Dialect dialect() const override { return Dialect::Sqlite; }
  void exec(const std::string& sql) override;
  std::unique_ptr<Cursor> prepare(const std::string& sql) override;
  int64_t changes() const override;
  void begin(bool write) override;
  void commit() override;
  void rollback() noexcept override;
  std::vector<std::string> tables() override;
  bool hasColumn(const std::string& table, const std::string& column) override;
  bool readOnly() const;

  sqlite3* handle() const { return db_; }
  // "bank FILE: <context>: <SQLite message>"
  [[noreturn]] void fail(std::string_view context, int code) const;

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace ttune::store::sql
