// Bank: opening, the schema, and every write.
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>

#include "store/bank_impl.h"
#include "support/hash.h"
#include "support/strings.h"

namespace ttune::store {

namespace fs = std::filesystem;

namespace {

// Schema version 4 (see migrateFrom1, migrateFrom2 and addBaseline for what changed). Every statement is idempotent so that two processes creating a bank at the
// same moment both succeed. JSON columns hold compact JSON text.
const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS workloads(
  workload_key TEXT PRIMARY KEY,
  class_id     TEXT NOT NULL DEFAULT '',
  class_name   TEXT NOT NULL DEFAULT '',
  flops        REAL,
  signature    TEXT);
CREATE INDEX IF NOT EXISTS workloads_class ON workloads(class_id);
CREATE TABLE IF NOT EXISTS records(
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
  workload_key       TEXT NOT NULL,
  class_id           TEXT NOT NULL DEFAULT '',
  kernel_class       TEXT NOT NULL DEFAULT '',
  target_cpu         TEXT NOT NULL,
  target_vector_bits INTEGER NOT NULL,
  target_threads     INTEGER NOT NULL,
  target_isa         TEXT NOT NULL DEFAULT '',
  steps              TEXT NOT NULL,
  costs              TEXT NOT NULL,
  median_s           REAL,
  error              TEXT NOT NULL,
  error_msg          TEXT NOT NULL DEFAULT '',
  build_s            REAL NOT NULL DEFAULT 0,
  measure_s          REAL NOT NULL DEFAULT 0,
  timestamp          INTEGER NOT NULL DEFAULT 0,
  model              TEXT NOT NULL DEFAULT '',
  run_id             TEXT NOT NULL DEFAULT '',
  source             TEXT NOT NULL DEFAULT '',
  trial              INTEGER NOT NULL DEFAULT -1,
  elapsed_s          REAL NOT NULL DEFAULT 0,
  digest             TEXT NOT NULL UNIQUE,
  origin             TEXT NOT NULL DEFAULT '',
  baseline           TEXT NOT NULL DEFAULT 'strong');
CREATE INDEX IF NOT EXISTS records_workload_median ON records(workload_key, median_s);
CREATE INDEX IF NOT EXISTS records_class ON records(class_id);
CREATE INDEX IF NOT EXISTS records_run ON records(run_id);
CREATE TABLE IF NOT EXISTS models(
  name  TEXT PRIMARY KEY,
  spec  TEXT NOT NULL,
  added INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS model_kernels(
  model        TEXT NOT NULL,
  kernel_index INTEGER NOT NULL,
  workload_key TEXT NOT NULL,
  occurrences  INTEGER NOT NULL,
  PRIMARY KEY(model, kernel_index));
CREATE INDEX IF NOT EXISTS model_kernels_workload ON model_kernels(workload_key);
CREATE TABLE IF NOT EXISTS runs(
  run_id      TEXT PRIMARY KEY,
  kind        TEXT NOT NULL CHECK(kind IN ('tune', 'transfer', 'refresh')),
  model       TEXT NOT NULL,
  settings    TEXT NOT NULL,
  started     INTEGER NOT NULL,
  finished    INTEGER,
  status      TEXT NOT NULL CHECK(status IN ('running', 'finished', 'interrupted')),
  trials_done INTEGER NOT NULL DEFAULT 0,
  wall_s      REAL NOT NULL DEFAULT 0,
  result      TEXT NOT NULL DEFAULT '{}',
  owner       TEXT NOT NULL DEFAULT '',
  heartbeat   INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS seeded_files(
  name         TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  records      INTEGER NOT NULL,
  imported     INTEGER NOT NULL,
  PRIMARY KEY(name, content_hash));
INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '4');
)sql";

// Version 1 -> 2: records gain target_isa (from the vector width, the only ISA levels version 1
// knew) and origin (the model itself for tuning records; unknown otherwise), and digests no
// longer cover the class id. Recomputing them merges the duplicates that
// version 1 stored when a record came back through export/import after its class id was filled.
void migrateFrom1(sql::Db& db) {
  db.exec("ALTER TABLE records ADD COLUMN target_isa TEXT NOT NULL DEFAULT ''");
  db.exec("UPDATE records SET target_isa = CASE WHEN target_vector_bits >= 512 THEN 'avx512' "
          "WHEN target_vector_bits >= 256 THEN 'avx2' ELSE 'sse' END");
  db.exec("ALTER TABLE records ADD COLUMN origin TEXT NOT NULL DEFAULT ''");
  db.exec("ALTER TABLE runs ADD COLUMN result TEXT NOT NULL DEFAULT '{}'");
  db.exec("ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT ''");
  db.exec("ALTER TABLE runs ADD COLUMN heartbeat INTEGER NOT NULL DEFAULT 0");
  db.exec("UPDATE records SET origin = model WHERE source = 'tune'");
  std::vector<std::pair<int64_t, std::string>> digests;
  {
    sql::Stmt st(db, std::string("SELECT ") + recordColumns() + " FROM records ORDER BY id");
    while (st.step()) {
      auto r = decodeRecordRow(st);
      // An undecodable row keeps a digest of its own (reads skip it with a warning, as before).
      digests.push_back({st.getInt(0), r.ok() ? recordDigest(r->record) : "undecodable-" + std::to_string(st.getInt(0))});
    }
  }
  db.exec("UPDATE records SET digest = 'migrating-' || id");
  sql::Stmt seen(db, "SELECT count(*) FROM records WHERE digest = ?1");
  sql::Stmt del(db, "DELETE FROM records WHERE id = ?1");
  sql::Stmt upd(db, "UPDATE records SET digest = ?2 WHERE id = ?1");
  for (const auto& [id, digest] : digests) {
    seen.bindAll({digest});
    bool dup = seen.step() && seen.getInt(0) > 0;
    seen.reset();
    sql::Stmt& st = dup ? del : upd;
    if (dup) st.bindAll({id});
    else st.bindAll({id, digest});
    st.run();
  }
}

// Version 2 -> 3: runs may be of kind 'refresh' (`ttune db refresh`). SQLite cannot change a
// CHECK constraint in place, so the runs table is rebuilt with the same rows.
void migrateFrom2(sql::Db& db) {
  db.exec("CREATE TABLE runs_v3("
          "run_id TEXT PRIMARY KEY, "
          "kind TEXT NOT NULL CHECK(kind IN ('tune', 'transfer', 'refresh')), "
          "model TEXT NOT NULL, settings TEXT NOT NULL, started INTEGER NOT NULL, finished INTEGER, "
          "status TEXT NOT NULL CHECK(status IN ('running', 'finished', 'interrupted')), "
          "trials_done INTEGER NOT NULL DEFAULT 0, wall_s REAL NOT NULL DEFAULT 0, result TEXT NOT NULL DEFAULT '{}', "
          "owner TEXT NOT NULL DEFAULT '', heartbeat INTEGER NOT NULL DEFAULT 0)");
  db.exec("INSERT INTO runs_v3(run_id, kind, model, settings, started, finished, status, trials_done, wall_s, result, owner, "
          "heartbeat) SELECT run_id, kind, model, settings, started, finished, status, trials_done, wall_s, result, owner, "
          "heartbeat FROM runs");
  db.exec("DROP TABLE runs");
  db.exec("ALTER TABLE runs_v3 RENAME TO runs");
}

// Version 3 -> 4: records say which default schedules their run measured against (strong for
// every older record). Added first, whatever the old version: the other migrations read records
// with today's columns.
void addBaseline(sql::Db& db) {
  if (db.queryInt("SELECT count(*) FROM pragma_table_info('records') WHERE name = 'baseline'").value_or(0) > 0) return;
  db.exec("ALTER TABLE records ADD COLUMN baseline TEXT NOT NULL DEFAULT 'strong'");
}

void migrate(sql::Db& db, int64_t from) {
  sql::WriteTransaction tx(db);
  // Another process may have migrated the file while this one waited for the write lock.
  auto v = db.queryText("SELECT value FROM meta WHERE key = 'schema_version'");
  auto version = v ? parseInt(*v) : std::nullopt;
  if (version && *version >= kSchemaVersion) return;
  if (from < 4) addBaseline(db);
  if (from < 2) migrateFrom1(db);
  if (from < 3) migrateFrom2(db);
  db.exec("UPDATE meta SET value = '" + std::to_string(kSchemaVersion) + "' WHERE key = 'schema_version'");
  tx.commit();
}

// Checks an existing file before anything is written to it: true when it holds a bank of a
// supported version, false when it is empty. Throws Error naming the file otherwise.
bool checkExistingSchema(sql::Db& db) {
  const std::string& path = db.path();
  // The first read tells a non-database file apart (SQLITE_NOTADB).
  int64_t tables = db.queryInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").value_or(0);
  bool has_meta = db.queryInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").value_or(0) > 0;
  if (tables > 0 && !has_meta) fail(path, " is an SQLite database but not a ttune schedule bank (it has no meta table)");
  if (!has_meta) return false;
  auto v = db.queryText("SELECT value FROM meta WHERE key = 'schema_version'");
  auto version = v ? parseInt(*v) : std::nullopt;
  if (!version) fail("the schedule bank ", path, " has no valid schema version in its meta table");
  if (*version > kSchemaVersion)
    fail("the schedule bank ", path, " has schema version ", *version, ", written by a newer ttune (this one reads up to version ",
         kSchemaVersion, ")");
  if (*version < 1) fail("the schedule bank ", path, " has an invalid schema version ", *version);
  if (*version < kSchemaVersion) migrate(db, *version);
  return true;
}

void createSchema(sql::Db& db) {
  sql::WriteTransaction tx(db);
  db.exec(kSchema);
  db.exec("INSERT OR IGNORE INTO meta(key, value) VALUES('created', '" + std::to_string(unixNow()) + "')");
  tx.commit();
}

std::string openErrorMessage(const sql::SqlError& e, const std::string& path) {
  switch (e.code) {
    case SQLITE_NOTADB: return path + " is not a ttune schedule bank: it is not an SQLite database";
    case SQLITE_CORRUPT: return "the schedule bank " + path + " is corrupted (" + e.what() + ")";
    case SQLITE_READONLY: return "the schedule bank " + path + " is read-only: ttune needs to write to it and its folder";
    default: return e.what();
  }
}

void checkFinite(const std::string& path, double v, const char* what, size_t i) {
  if (!std::isfinite(v)) fail("bank ", path, ": record ", i, " of the batch has a non-finite ", what);
}

}  // namespace

namespace {

// Start time of a process (clock ticks since boot, /proc/PID/stat field 22): with the pid it
// identifies the process even when pids are reused. -1 when the process does not exist.
int64_t processStart(int64_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return -1;
  size_t close = line.rfind(')');  // the command name may contain spaces
  if (close == std::string::npos) return -1;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::atoll(field.c_str());
  return -1;
}

std::string hostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

}  // namespace

std::string processOwner() {
  int64_t pid = getpid();
  return hostName() + ":" + std::to_string(pid) + ":" + std::to_string(processStart(pid));
}

bool ownerAlive(const std::string& owner, int64_t heartbeat) {
  std::vector<std::string> f = split(owner, ':');
  if (f.size() != 3) return false;  // no owner recorded (runs of older versions)
  if (f[0] == hostName()) {
    auto pid = parseInt(f[1]), start = parseInt(f[2]);
    return pid && start && processStart(*pid) == *start;
  }
  // Another host's process: alive while its heartbeat (every tuning round) is recent.
  return unixNow() - heartbeat < kRunHeartbeatTimeout;
}

std::string describeOwner(const std::string& owner) {
  std::vector<std::string> f = split(owner, ':');
  if (f.size() != 3) return "another process";
  return "process " + f[1] + " on " + f[0];
}

std::string recordOrigin(const schedule::Record& r) {
  if (!r.provenance.origin.empty() || r.provenance.source != "tune") return r.provenance.origin;
  return r.provenance.model;  // a tuning record found its own schedule
}

int64_t unixNow() { return static_cast<int64_t>(std::time(nullptr)); }

std::string recordDigest(const schedule::Record& r) {
  schedule::Record canonical = r;
  canonical.class_id.clear();
  canonical.provenance.origin = recordOrigin(r);
  return toHex(Hasher().add(std::string_view(schedule::recordToLine(canonical))).value());
}

std::string stepsKey(const std::vector<schedule::Step>& steps) {
  Json arr = Json::array();
  for (const auto& s : steps) arr.push_back(schedule::stepToJson(s));
  return arr.dump();
}

Bank::Bank(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Bank::Bank(Bank&&) noexcept = default;
Bank& Bank::operator=(Bank&&) noexcept = default;
Bank::~Bank() = default;

const std::string& Bank::path() const { return impl_->path; }

Expected<Bank> Bank::open(const std::string& path, const OpenOptions& opts) {
  if (path.empty()) return Unexpected("the schedule bank path is empty");
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Unexpected(path + " is a folder, not a schedule bank file");
  if (!fs::exists(path, ec)) {
    if (!opts.create) return Unexpected("there is no schedule bank at " + path);
    fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec)) {
      fs::create_directories(parent, ec);
      if (ec) return Unexpected("cannot create the folder " + parent.string() + " for the schedule bank " + path + ": " + ec.message());
    }
  }
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  // Processes opening a new bank at the same moment race on creating it and on switching it to
  // WAL; SQLite answers some of those races with SQLITE_BUSY without waiting (a lock upgrade it
  // cannot queue), so opening is retried until the busy timeout.
  auto start = std::chrono::steady_clock::now();
  for (int attempt = 0;; ++attempt) {
    try {
      impl->db = std::make_unique<sql::Db>(path, opts.create, opts.busy_timeout_ms);
      sql::Db& db = *impl->db;
      bool exists = checkExistingSchema(db);  // before anything is written to a foreign file
      if (sqlite3_db_readonly(db.handle(), "main") == 1)
        return Unexpected("the schedule bank " + path + " is read-only: ttune needs to write to it and its folder");
      auto mode = db.queryText("PRAGMA journal_mode = WAL");
      if (!mode || *mode != "wal")
        logWarning("bank ", path, ": could not switch to write-ahead logging (journal mode is ", mode.value_or("?"), ")");
      // FULL: the WAL is synced at every commit, so a committed record survives power loss too, not
      // only a killed process; commits are per measured batch, so the cost is negligible.
      db.exec("PRAGMA synchronous = FULL");
      if (!exists) createSchema(db);
      break;
    } catch (const sql::SqlError& e) {
      double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      bool busy = e.code == SQLITE_BUSY || e.code == SQLITE_LOCKED;
      if (!busy || waited * 1e3 >= opts.busy_timeout_ms) return Unexpected(openErrorMessage(e, path));
      impl->db.reset();
      std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * std::min(attempt, 20)));
    } catch (const Error& e) {
      return Unexpected(e.what());
    }
  }
  return Bank(std::move(impl));
}

namespace {
// Inserts or updates a workload inside the caller's transaction.
void upsertWorkload(sql::Db& db, const WorkloadInfo& w) {
  sql::Stmt up(db,
               "INSERT INTO workloads(workload_key, class_id, class_name, flops, signature) VALUES(?1, ?2, ?3, ?4, ?5) "
               "ON CONFLICT(workload_key) DO UPDATE SET "
               "class_id = CASE WHEN excluded.class_id <> '' THEN excluded.class_id ELSE class_id END, "
               "class_name = CASE WHEN excluded.class_name <> '' THEN excluded.class_name ELSE class_name END, "
               "flops = coalesce(excluded.flops, flops), signature = coalesce(excluded.signature, signature)");
  up.bindAll({w.workload_key, w.class_id, w.class_name, w.flops ? sql::Value(*w.flops) : sql::Value(),
              w.signature.is_null() ? sql::Value() : sql::Value(w.signature.dump())});
  up.run();
  if (!w.class_id.empty()) {
    // A workload has one class: records stored before it was known (or under an old id) follow.
    sql::Stmt rc(db, "UPDATE records SET class_id = ?2 WHERE workload_key = ?1 AND class_id <> ?2");
    rc.bindAll({w.workload_key, w.class_id});
    rc.run();
  }
}
}  // namespace

Status Bank::addWorkload(const WorkloadInfo& w) {
  if (w.workload_key.empty()) return Unexpected("bank " + path() + ": a workload needs a workload key");
  return writeGuard(*impl_, [&] {
    sql::WriteTransaction tx(*impl_->db);
    upsertWorkload(*impl_->db, w);
    tx.commit();
  });
}

size_t Bank::Impl::insertRecords(const std::vector<schedule::Record>& records) {
  // Validate and serialize everything before writing anything.
  struct Row {
    std::string digest, steps, costs;
  };
  std::vector<Row> rows;
  rows.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const schedule::Record& r = records[i];
    if (r.workload_key.empty()) fail("bank ", path, ": record ", i, " of the batch has no workload key");
    for (double c : r.result.costs_s) checkFinite(path, c, "cost", i);
    checkFinite(path, r.result.build_s, "build time", i);
    checkFinite(path, r.result.measure_s, "measure time", i);
    checkFinite(path, r.provenance.elapsed_s, "elapsed time", i);
    Json costs = Json::array();
    for (double c : r.result.costs_s) costs.push_back(c);
    rows.push_back({recordDigest(r), stepsKey(r.steps), costs.dump()});
  }
  sql::WriteTransaction tx(*db);
  // A record's class id fills in an unknown one of its workload (and vice versa).
  sql::Stmt wl(*db,
               "INSERT INTO workloads(workload_key, class_name, class_id) VALUES(?1, ?2, ?3) "
               "ON CONFLICT(workload_key) DO UPDATE SET class_id = excluded.class_id "
               "WHERE workloads.class_id = '' AND excluded.class_id != ''");
  sql::Stmt backfill(*db, "UPDATE records SET class_id = ?2 WHERE workload_key = ?1 AND class_id = ''");
  sql::Stmt ins(*db,
                "INSERT INTO records(workload_key, class_id, kernel_class, target_cpu, target_vector_bits, target_threads, "
                "steps, costs, median_s, error, error_msg, build_s, measure_s, timestamp, model, run_id, source, trial, "
                "elapsed_s, digest, target_isa, origin, baseline) VALUES(?1, coalesce((SELECT class_id FROM workloads WHERE workload_key = ?1), ''), "
                "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22) "
                "ON CONFLICT(digest) DO NOTHING");
  size_t inserted = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const schedule::Record& r = records[i];
    wl.bindAll({r.workload_key, r.kernel_class, r.class_id});
    wl.run();
    if (!r.class_id.empty()) {  // earlier records of the workload learn its class too
      backfill.bindAll({r.workload_key, r.class_id});
      backfill.run();
    }
    ins.bindAll({r.workload_key, r.kernel_class, r.target.cpu, int64_t{r.target.vector_bits}, int64_t{r.target.threads},
                 rows[i].steps, rows[i].costs, sql::Value(), std::string(schedule::errorKindName(r.result.error)),
                 r.result.error_msg, r.result.build_s, r.result.measure_s, r.result.timestamp, r.provenance.model,
                 r.provenance.run_id, r.provenance.source, r.provenance.trial, r.provenance.elapsed_s,
                 rows[i].digest, std::string(schedule::isaName(r.target.isa)), recordOrigin(r),
                 std::string(schedule::baselineName(r.provenance.baseline))});
    if (r.result.ok()) ins.bind(8, r.result.median());  // NULL for failures
    ins.step();
    inserted += static_cast<size_t>(db->changes());
    ins.reset();
  }
  tx.commit();
  return inserted;
}

Status Bank::addRecords(const std::vector<schedule::Record>& records, size_t* inserted) {
  size_t n = 0;
  Status s = writeGuard(*impl_, [&] { n = impl_->insertRecords(records); });
  if (inserted) *inserted = s.ok() ? n : 0;
  return s;
}

Status Bank::addModel(const std::string& name, const std::string& spec, const std::vector<ModelKernel>& kernels) {
  if (name.empty()) return Unexpected("bank " + path() + ": a model needs a name");
  // Merge repeated workload keys, keeping the first position.
  std::vector<ModelKernel> distinct;
  std::map<std::string, size_t> pos;
  for (const ModelKernel& k : kernels) {
    if (k.workload.workload_key.empty()) return Unexpected("bank " + path() + ": a kernel of model " + name + " has no workload key");
    auto it = pos.find(k.workload.workload_key);
    if (it == pos.end()) {
      pos[k.workload.workload_key] = distinct.size();
      distinct.push_back(k);
    } else {
      distinct[it->second].occurrences += k.occurrences;
    }
  }
  return writeGuard(*impl_, [&] {
    sql::Db& db = *impl_->db;
    sql::WriteTransaction tx(db);
    sql::Stmt m(db, "INSERT INTO models(name, spec, added) VALUES(?1, ?2, ?3) ON CONFLICT(name) DO UPDATE SET spec = excluded.spec");
    m.bindAll({name, spec, unixNow()});
    m.run();
    sql::Stmt del(db, "DELETE FROM model_kernels WHERE model = ?1");
    del.bindAll({name});
    del.run();
    sql::Stmt ins(db, "INSERT INTO model_kernels(model, kernel_index, workload_key, occurrences) VALUES(?1, ?2, ?3, ?4)");
    for (size_t i = 0; i < distinct.size(); ++i) {
      ins.bindAll({name, static_cast<int64_t>(i), distinct[i].workload.workload_key, distinct[i].occurrences});
      ins.run();
      upsertWorkload(db, distinct[i].workload);
    }
    tx.commit();
  });
}

Expected<std::string> Bank::beginRun(RunKind kind, const std::string& model, const Json& settings) {
  std::string id;
  Status s = writeGuard(*impl_, [&] {
    sql::Db& db = *impl_->db;
    sql::WriteTransaction tx(db);
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char day[16];
    std::strftime(day, sizeof day, "%Y%m%d", &tm);
    std::string prefix = std::string(runKindName(kind)) + "-" + day + "-";
    sql::Stmt count(db, "SELECT count(*) FROM runs WHERE substr(run_id, 1, length(?1)) = ?1");
    count.bindAll({prefix});
    int64_t n = count.step() ? count.getInt(0) + 1 : 1;
    sql::Stmt exists(db, "SELECT 1 FROM runs WHERE run_id = ?1");
    for (;; ++n) {
      id = prefix + std::to_string(n);
      exists.bindAll({id});
      bool taken = exists.step();
      exists.reset();
      if (!taken) break;
    }
    sql::Stmt ins(db,
                  "INSERT INTO runs(run_id, kind, model, settings, started, status, owner, heartbeat) "
                  "VALUES(?1, ?2, ?3, ?4, ?5, 'running', ?6, ?5)");
    ins.bindAll({id, std::string(runKindName(kind)), model, settings.dump(), static_cast<int64_t>(now), processOwner()});
    ins.run();
    tx.commit();
  });
  if (!s.ok()) return Unexpected(s.reason());
  return id;
}

namespace {
// Runs one UPDATE of the runs table; fails when the run does not exist.
Status updateRunRow(Bank::Impl& im, const std::string& run_id, const std::string& sql, const std::vector<sql::Value>& params) {
  return writeGuard(im, [&] {
    sql::WriteTransaction tx(*im.db);
    sql::Stmt st(*im.db, sql);
    st.bindAll(params);
    st.step();
    if (im.db->changes() == 0) fail("bank ", im.path, " has no run ", run_id);
    tx.commit();
  });
}
}  // namespace

Status Bank::updateRun(const std::string& run_id, int64_t trials_done, double wall_s) {
  return updateRunRow(*impl_, run_id, "UPDATE runs SET trials_done = ?2, wall_s = ?3, heartbeat = ?4 WHERE run_id = ?1",
                      {run_id, trials_done, std::isfinite(wall_s) ? wall_s : 0.0, unixNow()});
}

Status Bank::finishRun(const std::string& run_id, RunStatus status) {
  if (status == RunStatus::Running) return resumeRun(run_id);
  return updateRunRow(*impl_, run_id, "UPDATE runs SET status = ?2, finished = ?3 WHERE run_id = ?1",
                      {run_id, std::string(runStatusName(status)), unixNow()});
}

Status Bank::setRunResult(const std::string& run_id, const Json& result) {
  return updateRunRow(*impl_, run_id, "UPDATE runs SET result = ?2 WHERE run_id = ?1", {run_id, result.dump()});
}

Status Bank::resumeRun(const std::string& run_id) {
  Status out = okStatus();
  Status s = writeGuard(*impl_, [&] {
    sql::Db& db = *impl_->db;
    sql::WriteTransaction tx(db);  // read and claim under the write lock: one claimant wins
    sql::Stmt st(db, "SELECT status, owner, heartbeat FROM runs WHERE run_id = ?1");
    st.bindAll({run_id});
    if (!st.step()) fail("bank ", impl_->path, " has no run ", run_id);
    std::string status = st.getText(0), owner = st.getText(1);
    int64_t heartbeat = st.getInt(2);
    st.reset();
    if (status == "running" && ownerAlive(owner, heartbeat)) {
      out = Unexpected("run " + run_id + " is being worked on by " + describeOwner(owner) + " (last heartbeat " +
                       std::to_string(std::max<int64_t>(0, unixNow() - heartbeat)) +
                       " s ago); wait for it to finish, or start another run with --new-run");
      return;
    }
    sql::Stmt up(db, "UPDATE runs SET status = 'running', finished = NULL, owner = ?2, heartbeat = ?3 WHERE run_id = ?1");
    up.bindAll({run_id, processOwner(), unixNow()});
    up.run();
    tx.commit();
  });
  if (!s.ok()) return s;
  return out;
}

bool Bank::isSeeded(const std::string& name, const std::string& content_hash) const {
  bool seeded = false;
  readGuard(*impl_, [&] {
    sql::Stmt st(*impl_->db, "SELECT 1 FROM seeded_files WHERE name = ?1 AND content_hash = ?2");
    st.bindAll({name, content_hash});
    seeded = st.step();
  });
  return seeded;
}

Status Bank::markSeeded(const std::string& name, const std::string& content_hash, int64_t records) {
  return writeGuard(*impl_, [&] {
    sql::WriteTransaction tx(*impl_->db);
    sql::Stmt st(*impl_->db, "INSERT OR REPLACE INTO seeded_files(name, content_hash, records, imported) VALUES(?1, ?2, ?3, ?4)");
    st.bindAll({name, content_hash, records, unixNow()});
    st.run();
    tx.commit();
  });
}

Status Bank::integrityCheck() const {
  std::vector<std::string> problems;
  Status s = writeGuard(*impl_, [&] {
    sql::Stmt st(*impl_->db, "PRAGMA integrity_check");
    while (st.step()) problems.push_back(st.getText(0));
  });
  if (!s.ok()) return s;
  if (problems.size() == 1 && problems[0] == "ok") return okStatus();
  return Unexpected("the schedule bank " + path() + " fails its integrity check: " +
                    join(problems, "; ", [](const std::string& p) { return p; }));
}

}  // namespace ttune::store
