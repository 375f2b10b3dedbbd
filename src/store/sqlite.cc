#include "store/sqlite.h"

#include <sqlite3.h>

namespace ttune::store::sql {

namespace {

Failure failureOf(int code) {
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Failure::Busy;
    case SQLITE_NOTADB:
      return Failure::NotADatabase;
    case SQLITE_CORRUPT:
      return Failure::Corrupt;
    case SQLITE_READONLY:
      return Failure::ReadOnly;
    case SQLITE_CANTOPEN:
      return Failure::CannotOpen;
    default:
      return Failure::Other;
  }
}

class SqliteCursor : public Cursor {
 public:
  SqliteCursor(SqliteDb& db, const std::string& sql) : db_(db) {
    int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &st_, nullptr);
    if (rc != SQLITE_OK) db_.fail("preparing a query", rc);
  }
  ~SqliteCursor() override { sqlite3_finalize(st_); }

  void bind(int i, const Value& v) override {
    int rc = SQLITE_OK;
    if (std::holds_alternative<std::monostate>(v))
      rc = sqlite3_bind_null(st_, i);
    else if (auto* x = std::get_if<int64_t>(&v))
      rc = sqlite3_bind_int64(st_, i, *x);
    else if (auto* d = std::get_if<double>(&v))
      rc = sqlite3_bind_double(st_, i, *d);
    else if (auto* b = std::get_if<Blob>(&v))
      rc = sqlite3_bind_blob64(st_, i, b->bytes.data(), b->bytes.size(), SQLITE_TRANSIENT);
    else {
      const std::string& s = std::get<std::string>(v);
      rc = sqlite3_bind_text(st_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    }
    if (rc != SQLITE_OK) db_.fail("binding a query parameter", rc);
  }
  bool step() override {
    int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    db_.fail("running a query", rc);
  }
  void reset() override {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  bool isNull(int col) const override { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
  int64_t getInt(int col) const override { return sqlite3_column_int64(st_, col); }
  double getDouble(int col) const override { return sqlite3_column_double(st_, col); }
  std::string getText(int col) const override {
    const unsigned char* p = sqlite3_column_text(st_, col);
    if (!p) return "";
    return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(st_, col)));
  }
  std::vector<char> getBlob(int col) const override {
    const char* p = static_cast<const char*>(sqlite3_column_blob(st_, col));
    if (!p) return {};
    return std::vector<char>(p, p + sqlite3_column_bytes(st_, col));
  }

 private:
  SqliteDb& db_;
  sqlite3_stmt* st_ = nullptr;
};

}  // namespace

SqliteDb::SqliteDb(const std::string& path, bool create, int busy_timeout_ms) : Db(path) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (create) flags |= SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    if ((rc & 0xff) == SQLITE_CANTOPEN && !create)
      throw SqlError("there is no schedule bank at " + path, Failure::CannotOpen);
    throw SqlError("cannot open the schedule bank " + path + ": " + msg, failureOf(rc));
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busy_timeout_ms);
}

SqliteDb::~SqliteDb() {
  // close_v2 defers the close until the last statement is finalized; every Cursor is RAII.
  if (db_) sqlite3_close_v2(db_);
}

void SqliteDb::fail(std::string_view context, int code) const {
  std::string msg = sqlite3_errmsg(db_);
  throw SqlError("bank " + path() + ": " + std::string(context) + ": " + msg, failureOf(code));
}

void SqliteDb::exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    std::string head = sql.substr(0, sql.find_first_of("(\n"));
    throw SqlError("bank " + path() + ": " + head + ": " + msg, failureOf(rc));
  }
}

std::unique_ptr<Cursor> SqliteDb::prepare(const std::string& sql) { return std::make_unique<SqliteCursor>(*this, sql); }

int64_t SqliteDb::changes() const { return sqlite3_changes64(db_); }

void SqliteDb::begin(bool write) { exec(write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED"); }

void SqliteDb::commit() { exec("COMMIT"); }

void SqliteDb::rollback() noexcept { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

std::vector<std::string> SqliteDb::tables() {
  std::vector<std::string> out;
  Stmt st(*this, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  while (st.step()) out.push_back(st.getText(0));
  return out;
}

bool SqliteDb::hasColumn(const std::string& table, const std::string& column) {
  Stmt st(*this, "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2");
  st.bindAll({table, column});
  return st.step() && st.getInt(0) > 0;
}

bool SqliteDb::readOnly() const { return sqlite3_db_readonly(db_, "main") == 1; }

}  // namespace ttune::store::sql
