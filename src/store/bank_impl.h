// Internals of Bank shared by bank.cc (open, schema, writes), bank_read.cc (queries) and
// bank_io.cc (JSON lines). Not part of the store's interface.
//
// Internal functions throw ttune::Error (sql::SqlError for database failures) and expect the caller
// to hold `mu`; the public Bank methods take the lock and convert exceptions with writeGuard
// (into a Status) or readGuard (into a warning; the read returns what it has).
#pragma once

#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/bank.h"
#include "store/sql_db.h"
#include "support/expected.h"
#include "support/log.h"

namespace ttune::store {

struct Bank::Impl {
  std::string path;
  std::unique_ptr<sql::Db> db;
  std::mutex mu;

  // Stores records in one transaction; returns how many were new. Throws on invalid records.
  size_t insertRecords(const std::vector<schedule::Record>& records);
  // Records matching the query; corrupt rows are skipped with a warning.
  std::vector<StoredRecord> queryRecords(const RecordQuery& q);
};

template <class F>
Status writeGuard(Bank::Impl& im, F&& f) {
  std::lock_guard<std::mutex> lock(im.mu);
  try {
    f();
    return okStatus();
  } catch (const Error& e) {
    return Unexpected(e.what());
  } catch (const std::exception& e) {
    return Unexpected("bank " + im.path + ": " + e.what());
  }
}

template <class F>
void readGuard(Bank::Impl& im, F&& f) {
  std::lock_guard<std::mutex> lock(im.mu);
  try {
    f();
  } catch (const Error& e) {
    logWarning(e.what(), " (the read stopped there)");
  } catch (const std::exception& e) {
    logWarning("bank ", im.path, ": ", e.what(), " (the read stopped there)");
  }
}

// A record's digest: a hash of its canonical JSON line with the class id left out (the bank
// back-fills class ids, so a record read back and imported again must hash the same).
std::string recordDigest(const schedule::Record& r);
// The origin the bank stores for a record: its own, or its model for a tuning record without one.
std::string recordOrigin(const schedule::Record& r);
// Decodes one records row selected with recordColumns() (bank_read.cc).
const char* recordColumns();
Expected<StoredRecord> decodeRecordRow(const sql::Stmt& st);
int64_t unixNow();
// Run ownership: "host:pid:process start time" of this process; whether such an owner still runs
// (on this host: the process exists with that start time; elsewhere: its heartbeat is recent).
inline constexpr int64_t kRunHeartbeatTimeout = 600;
std::string processOwner();
bool ownerAlive(const std::string& owner, int64_t heartbeat);
std::string describeOwner(const std::string& owner);

}  // namespace ttune::store
