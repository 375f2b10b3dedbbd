#include "store/sqlite.h"

#include <sqlite3.h>

namespace ttune::store::sql {

Db::Db(const std::string& path, bool create, int busy_timeout_ms) : path_(path) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (create) flags |= SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    if ((rc & 0xff) == SQLITE_CANTOPEN && !create) throw SqlError("there is no schedule bank at " + path, rc & 0xff);
    throw SqlError("cannot open the schedule bank " + path + ": " + msg, rc & 0xff);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busy_timeout_ms);
}

Db::~Db() {
  // close_v2 defers the close until the last statement is finalized; every Stmt is RAII.
  if (db_) sqlite3_close_v2(db_);
}

void Db::fail(std::string_view context, int code) const {
  std::string msg = sqlite3_errmsg(db_);
  throw SqlError("bank " + path_ + ": " + std::string(context) + ": " + msg, code & 0xff);
}

void Db::exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    std::string head = sql.substr(0, sql.find_first_of("(\n"));
    throw SqlError("bank " + path_ + ": " + head + ": " + msg, rc & 0xff);
  }
}

std::optional<int64_t> Db::queryInt(const std::string& sql) {
  Stmt st(*this, sql);
  if (!st.step()) return std::nullopt;
  return st.getOptInt(0);
}

std::optional<std::string> Db::queryText(const std::string& sql) {
  Stmt st(*this, sql);
  if (!st.step() || st.isNull(0)) return std::nullopt;
  return st.getText(0);
}

int64_t Db::changes() const { return sqlite3_changes64(db_); }

Stmt::Stmt(Db& db, const std::string& sql) : db_(db), sql_(sql) {
  int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &st_, nullptr);
  if (rc != SQLITE_OK) db_.fail("preparing a query", rc);
}

Stmt::~Stmt() { sqlite3_finalize(st_); }

Stmt& Stmt::bind(int i, const Value& v) {
  int rc = SQLITE_OK;
  if (std::holds_alternative<std::monostate>(v)) rc = sqlite3_bind_null(st_, i);
  else if (auto* x = std::get_if<int64_t>(&v)) rc = sqlite3_bind_int64(st_, i, *x);
  else if (auto* d = std::get_if<double>(&v)) rc = sqlite3_bind_double(st_, i, *d);
  else {
    const std::string& s = std::get<std::string>(v);
    rc = sqlite3_bind_text(st_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  if (rc != SQLITE_OK) db_.fail("binding a query parameter", rc);
  return *this;
}

Stmt& Stmt::bindAll(const std::vector<Value>& vs) {
  for (size_t i = 0; i < vs.size(); ++i) bind(static_cast<int>(i + 1), vs[i]);
  return *this;
}

bool Stmt::step() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("running a query", rc);
}

void Stmt::run() {
  while (step()) {
  }
  reset();
}

void Stmt::reset() {
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
}

bool Stmt::isNull(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
int64_t Stmt::getInt(int col) const { return sqlite3_column_int64(st_, col); }
double Stmt::getDouble(int col) const { return sqlite3_column_double(st_, col); }

std::string Stmt::getText(int col) const {
  const unsigned char* p = sqlite3_column_text(st_, col);
  if (!p) return "";
  return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(st_, col)));
}

std::optional<double> Stmt::getOptDouble(int col) const {
  if (isNull(col)) return std::nullopt;
  return getDouble(col);
}

std::optional<int64_t> Stmt::getOptInt(int col) const {
  if (isNull(col)) return std::nullopt;
  return getInt(col);
}

WriteTransaction::WriteTransaction(Db& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

WriteTransaction::~WriteTransaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

ReadTransaction::ReadTransaction(Db& db) : db_(db) { db_.exec("BEGIN DEFERRED"); }

ReadTransaction::~ReadTransaction() { sqlite3_exec(db_.handle(), "COMMIT", nullptr, nullptr, nullptr); }

}  // namespace ttune::store::sql
