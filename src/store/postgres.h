// The PostgreSQL connection behind sql_db.h (libpq), private to store/: a bank that clients on
// several machines read and write at once.
//
// Placeholders `?N` and `?` are rewritten to `$N`; parameters are sent typed (bigint, double
// precision, text, bytea), results read as text (doubles print exactly: extra_float_digits).
// A write transaction is BEGIN plus a transaction-scoped advisory lock, so writers queue one
// after another as on SQLite, waiting at most the busy timeout (lock_timeout). A client that
// is killed loses its open transaction (the server rolls it back when the connection drops); one
// whose host hangs holding a transaction is cut off by idle_in_transaction_session_timeout and
// TCP keepalives, so it cannot block the other writers for long. A connection that broke
// between transactions is re-established before the next statement.
#pragma once

#include <string>

#include "store/sql_db.h"

struct pg_conn;
struct pg_result;

namespace ttune::store::sql {

// Whether `location` names a PostgreSQL database ("postgresql://..." or "postgres://...").
bool isPostgresUrl(const std::string& location);
// The URL without its password (user:secret@ -> user@, password=... dropped): how the bank is
// named in messages and in `db stats`.
std::string redactUrl(const std::string& url);

class PgDb : public Db {
 public:
  // Connects to `url`; throws SqlError (Failure::CannotOpen) naming the redacted URL.
  PgDb(const std::string& url, int lock_timeout_ms);
  ~PgDb() override;

  Dialect dialect() const override { return Dialect::Postgres; }
  void exec(const std::string& sql) override;
  std::unique_ptr<Cursor> prepare(const std::string& sql) override;
  int64_t changes() const override { return changes_; }
  void begin(bool write) override;
  void commit() override;
  void rollback() noexcept override;
  std::vector<std::string> tables() override;
  bool hasColumn(const std::string& table, const std::string& column) override;

  // Runs one statement with parameters (placeholders already `$N`); the caller owns the result.
  pg_result* execParams(const std::string& sql, const std::vector<Value>& params);

 private:
  void connect();
  void ensureConnected();
  // Throws SqlError for a failed result (freeing it), otherwise records its row count.
  pg_result* check(pg_result* res, const std::string& sql);

  std::string url_;
  int lock_timeout_ms_;
  pg_conn* conn_ = nullptr;
  bool in_transaction_ = false;
  int64_t changes_ = 0;
};

}  // namespace ttune::store::sql
