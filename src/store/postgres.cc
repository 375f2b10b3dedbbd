#include "store/postgres.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ttune::store::sql {

namespace {

// Built-in type OIDs (pg_type.h is a server header).
constexpr Oid kInt8 = 20, kFloat8 = 701, kText = 25, kBytea = 17;
// The key of the advisory lock every write transaction of a bank takes ("ttune").
constexpr const char* kWriteLock = "SELECT pg_advisory_xact_lock(499968570981)";

// `?N` -> `$N`, bare `?` -> `$1`, `$2`, ... outside string literals and quoted identifiers.
std::string numberPlaceholders(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 8);
  int next = 0;
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (quote) {
      if (c == quote) quote = 0;
      out += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out += c;
      continue;
    }
    if (c != '?') {
      out += c;
      continue;
    }
    out += '$';
    if (i + 1 < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i + 1]))) continue;
    out += std::to_string(++next);
  }
  return out;
}

std::string oneLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  return s;
}

Failure failureOf(const char* sqlstate) {
  std::string s = sqlstate ? sqlstate : "";
  if (s == "55P03" || s == "40001" || s == "40P01") return Failure::Busy;
  if (s == "25006") return Failure::ReadOnly;
  if (s.rfind("08", 0) == 0) return Failure::CannotOpen;
  return Failure::Other;
}

class PgCursor : public Cursor {
 public:
  PgCursor(PgDb& db, const std::string& sql) : db_(db), sql_(numberPlaceholders(sql)) {}
  ~PgCursor() override { PQclear(res_); }

  void bind(int i, const Value& v) override {
    if (static_cast<int>(params_.size()) < i) params_.resize(static_cast<size_t>(i));
    params_[static_cast<size_t>(i - 1)] = v;
  }
  bool step() override {
    if (!res_) {
      res_ = db_.execParams(sql_, params_);
      row_ = -1;
    }
    ++row_;
    return row_ < PQntuples(res_);
  }
  void reset() override {
    PQclear(res_);
    res_ = nullptr;
    params_.clear();
  }
  bool isNull(int col) const override { return PQgetisnull(res_, row_, col) == 1; }
  int64_t getInt(int col) const override { return std::strtoll(PQgetvalue(res_, row_, col), nullptr, 10); }
  double getDouble(int col) const override { return std::strtod(PQgetvalue(res_, row_, col), nullptr); }
  std::string getText(int col) const override {
    return std::string(PQgetvalue(res_, row_, col), static_cast<size_t>(PQgetlength(res_, row_, col)));
  }
  std::vector<char> getBlob(int col) const override {
    if (isNull(col)) return {};
    size_t n = 0;
    unsigned char* p = PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(res_, row_, col)), &n);
    if (!p) return {};
    std::vector<char> out(reinterpret_cast<char*>(p), reinterpret_cast<char*>(p) + n);
    PQfreemem(p);
    return out;
  }

 private:
  PgDb& db_;
  std::string sql_;
  std::vector<Value> params_;
  PGresult* res_ = nullptr;
  int row_ = -1;
};

}  // namespace

bool isPostgresUrl(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

std::string redactUrl(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  size_t start = scheme + 3;
  size_t end = url.find_first_of("/?#", start);
  if (end == std::string::npos) end = url.size();
  std::string authority = url.substr(start, end - start);
  size_t at = authority.rfind('@');
  if (at != std::string::npos) {
    size_t colon = authority.find(':');
    if (colon < at) authority.erase(colon, at - colon);
  }
  std::string rest = url.substr(end);
  // Query parameters: drop password=...
  size_t q = rest.find('?');
  if (q != std::string::npos) {
    std::string head = rest.substr(0, q + 1), query = rest.substr(q + 1), kept;
    size_t pos = 0;
    while (pos <= query.size()) {
      size_t amp = query.find('&', pos);
      if (amp == std::string::npos) amp = query.size();
      std::string param = query.substr(pos, amp - pos);
      if (!param.empty() && param.rfind("password=", 0) != 0) kept += (kept.empty() ? "" : "&") + param;
      pos = amp + 1;
    }
    rest = kept.empty() ? head.substr(0, head.size() - 1) : head + kept;
  }
  return url.substr(0, start) + authority + rest;
}

PgDb::PgDb(const std::string& url, int lock_timeout_ms)
    : Db(redactUrl(url)), url_(url), lock_timeout_ms_(lock_timeout_ms) {
  connect();
}

PgDb::~PgDb() {
  if (conn_) PQfinish(conn_);
}

void PgDb::connect() {
  if (conn_) PQfinish(conn_);
  // The URL comes last: its own parameters override these defaults.
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {"10", "ttune", url_.c_str(), nullptr};
  conn_ = PQconnectdbParams(keys, values, 1);
  if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
    std::string why = conn_ ? oneLine(PQerrorMessage(conn_)) : "out of memory";
    throw SqlError("cannot connect to the schedule bank " + path() + ": " + why, Failure::CannotOpen);
  }
  in_transaction_ = false;
  // A client whose host hangs inside a transaction would hold the bank's write lock: the server
  // ends such a session after a minute, and finds dead peers through keepalives.
  exec("SET client_min_messages = warning; SET extra_float_digits = 3; SET lock_timeout = " +
       std::to_string(std::max(lock_timeout_ms_, 1)) +
       "; SET idle_in_transaction_session_timeout = 60000; SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = "
       "10; "
       "SET tcp_keepalives_count = 3");
}

void PgDb::ensureConnected() {
  if (PQstatus(conn_) == CONNECTION_OK) return;
  if (in_transaction_)
    throw SqlError("bank " + path() + ": the connection to the server was lost during a transaction",
                   Failure::CannotOpen);
  connect();
}

PGresult* PgDb::check(PGresult* res, const std::string& sql) {
  ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
    const char* n = PQcmdTuples(res);
    if (n && *n) changes_ = std::strtoll(n, nullptr, 10);
    return res;
  }
  std::string msg =
      res ? oneLine(PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
                                                                     : PQresultErrorMessage(res))
          : oneLine(PQerrorMessage(conn_));
  Failure f = res ? failureOf(PQresultErrorField(res, PG_DIAG_SQLSTATE)) : Failure::CannotOpen;
  if (PQstatus(conn_) != CONNECTION_OK) f = Failure::CannotOpen;
  PQclear(res);
  std::string head = oneLine(sql.substr(0, sql.find_first_of("(\n")));
  throw SqlError("bank " + path() + ": " + head + ": " + msg, f);
}

void PgDb::exec(const std::string& sql) {
  ensureConnected();
  PQclear(check(PQexec(conn_, sql.c_str()), sql));
}

PGresult* PgDb::execParams(const std::string& sql, const std::vector<Value>& params) {
  ensureConnected();
  size_t n = params.size();
  std::vector<Oid> types(n, 0);
  std::vector<std::string> text(n);
  std::vector<const char*> values(n, nullptr);
  std::vector<int> lengths(n, 0), formats(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Value& v = params[i];
    if (auto* x = std::get_if<int64_t>(&v)) {
      types[i] = kInt8;
      text[i] = std::to_string(*x);
    } else if (auto* d = std::get_if<double>(&v)) {
      types[i] = kFloat8;
      char buf[64];
      if (std::isnan(*d))
        std::snprintf(buf, sizeof buf, "NaN");
      else if (std::isinf(*d))
        std::snprintf(buf, sizeof buf, *d > 0 ? "Infinity" : "-Infinity");
      else
        std::snprintf(buf, sizeof buf, "%.17g", *d);
      text[i] = buf;
    } else if (auto* s = std::get_if<std::string>(&v)) {
      types[i] = kText;
      text[i] = *s;
    } else if (auto* b = std::get_if<Blob>(&v)) {
      types[i] = kBytea;
      formats[i] = 1;
      lengths[i] = static_cast<int>(b->bytes.size());
      values[i] = b->bytes.data();
      continue;
    } else {
      continue;  // NULL
    }
    values[i] = text[i].c_str();
  }
  return check(PQexecParams(conn_, sql.c_str(), static_cast<int>(n), types.data(), values.data(), lengths.data(),
                            formats.data(), 0),
               sql);
}

std::unique_ptr<Cursor> PgDb::prepare(const std::string& sql) { return std::make_unique<PgCursor>(*this, sql); }

void PgDb::begin(bool write) {
  exec(write ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  in_transaction_ = true;
  if (!write) return;
  try {
    exec(kWriteLock);
  } catch (...) {
    rollback();  // the caller's transaction object was never built: nobody else ends it
    throw;
  }
}

void PgDb::commit() {
  exec("COMMIT");
  in_transaction_ = false;
}

void PgDb::rollback() noexcept {
  if (conn_ && PQstatus(conn_) == CONNECTION_OK) PQclear(PQexec(conn_, "ROLLBACK"));
  in_transaction_ = false;
}

std::vector<std::string> PgDb::tables() {
  std::vector<std::string> out;
  Stmt st(*this,
          "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() "
          "AND table_type = 'BASE TABLE' ORDER BY 1");
  while (st.step()) out.push_back(st.getText(0));
  return out;
}

bool PgDb::hasColumn(const std::string& table, const std::string& column) {
  Stmt st(*this,
          "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
          "AND table_name = ?1 AND column_name = ?2");
  st.bindAll({table, column});
  return st.step() && st.getInt(0) > 0;
}

}  // namespace ttune::store::sql
