// Bank: queries. A row that cannot be decoded is skipped with a warning naming the bank file
// and the record id; the read goes on with the next row.
#include <algorithm>
#include <filesystem>

#include "store/bank_impl.h"
#include "support/strings.h"

namespace ttune::store {

namespace {

const char* kRecordColumns =
    "id, workload_key, kernel_class, target_cpu, target_vector_bits, target_threads, steps, costs, error, "
    "error_msg, build_s, measure_s, timestamp, model, run_id, source, trial, elapsed_s, class_id, target_isa, origin, "
    "baseline";
constexpr int kWorkloadKeyColumn = 1;

}  // namespace

const char* recordColumns() { return kRecordColumns; }

Expected<StoredRecord> decodeRecordRow(const sql::Stmt& st) {
  StoredRecord out;
  out.id = st.getInt(0);
  schedule::Record& r = out.record;
  r.workload_key = st.getText(1);
  if (r.workload_key.empty()) return Unexpected("it has no workload key");
  r.kernel_class = st.getText(2);
  r.target.cpu = st.getText(3);
  r.target.vector_bits = static_cast<int>(st.getInt(4));
  r.target.threads = static_cast<int>(st.getInt(5));
  Json steps = Json::parse(st.getText(6), nullptr, false);
  if (steps.is_discarded() || !steps.is_array()) return Unexpected("its steps are not a JSON list");
  for (size_t i = 0; i < steps.size(); ++i) {
    auto s = schedule::stepFromJson(steps[i]);
    if (!s.ok()) return Unexpected("its step " + std::to_string(i) + " is invalid: " + s.error());
    r.steps.push_back(std::move(*s));
  }
  Json costs = Json::parse(st.getText(7), nullptr, false);
  if (costs.is_discarded() || !costs.is_array()) return Unexpected("its costs are not a JSON list");
  for (const Json& c : costs) {
    if (!c.is_number()) return Unexpected("its costs are not all numbers");
    r.result.costs_s.push_back(c.get<double>());
  }
  std::string err = st.getText(8);
  auto kind = schedule::parseErrorKind(err);
  if (!kind) return Unexpected("its error kind \"" + err + "\" is unknown");
  r.result.error = *kind;
  r.result.error_msg = st.getText(9);
  r.result.build_s = st.getDouble(10);
  r.result.measure_s = st.getDouble(11);
  r.result.timestamp = st.getInt(12);
  r.provenance.model = st.getText(13);
  r.provenance.run_id = st.getText(14);
  r.provenance.source = st.getText(15);
  r.provenance.trial = st.getInt(16);
  r.provenance.elapsed_s = st.getDouble(17);
  r.class_id = st.getText(18);
  std::string isa = st.getText(19);
  auto parsed = schedule::parseIsa(isa);
  if (!isa.empty() && !parsed) return Unexpected("its target isa \"" + isa + "\" is unknown");
  r.target.isa = parsed ? *parsed : schedule::isaFromVectorBits(r.target.vector_bits);
  r.provenance.origin = st.getText(20);
  std::string baseline = st.getText(21);
  auto b = schedule::parseBaseline(baseline);
  if (!b) return Unexpected("its baseline \"" + baseline + "\" is unknown");
  r.provenance.baseline = *b;
  return out;
}

namespace {

// WHERE clause of a record query, with its positional parameters.
struct Where {
  std::vector<std::string> conds;
  std::vector<sql::Value> params;

  void add(std::string cond, std::vector<sql::Value> ps = {}) {
    conds.push_back(std::move(cond));
    for (auto& p : ps) params.push_back(std::move(p));
  }
  std::string sql() const {
    std::string out;
    for (size_t i = 0; i < conds.size(); ++i) out += (i ? " AND " : " WHERE ") + conds[i];
    return out;
  }
};

void addTarget(Where& w, const TargetFilter& t) {
  if (!t.cpu.empty()) w.add("target_cpu = ?", {t.cpu});
  if (t.isa) w.add("target_isa = ?", {std::string(schedule::isaName(*t.isa))});
  if (t.vector_bits) w.add("target_vector_bits = ?", {int64_t{t.vector_bits}});
  if (t.threads) w.add("target_threads = ?", {int64_t{t.threads}});
}

Where recordWhere(const RecordQuery& q) {
  Where w;
  if (!q.workload_key.empty()) w.add("workload_key = ?", {q.workload_key});
  if (!q.class_id.empty()) w.add("class_id = ?", {q.class_id});
  if (!q.model.empty()) w.add("model = ?", {q.model});
  if (!q.kernels_of_model.empty())
    w.add("workload_key IN (SELECT workload_key FROM model_kernels WHERE model = ?)", {q.kernels_of_model});
  if (!q.run_id.empty()) w.add("run_id = ?", {q.run_id});
  if (!q.exclude_model.empty())
    w.add("model <> ? AND workload_key NOT IN (SELECT workload_key FROM model_kernels WHERE model = ?)",
          {q.exclude_model, q.exclude_model});
  addTarget(w, q.target);
  if (q.ok_only || q.best_per_workload) w.add("median_s IS NOT NULL");
  return w;
}

double medianOf(const StoredRecord& r) { return r.record.result.median(); }

}  // namespace

std::vector<StoredRecord> Bank::Impl::queryRecords(const RecordQuery& q) {
  Where w = recordWhere(q);
  std::vector<StoredRecord> out;
  auto warnSkipped = [&](int64_t id, const std::string& why) {
    logWarning("bank ", path, ": record ", id, " skipped: ", why);
  };
  if (!q.best_per_workload) {
    std::string order = q.best_first ? " ORDER BY median_s IS NULL, median_s, id" : " ORDER BY id";
    sql::Stmt st(*db, std::string("SELECT ") + kRecordColumns + " FROM records" + w.sql() + order);
    st.bindAll(w.params);
    while (st.step()) {
      auto r = decodeRecordRow(st);
      if (!r.ok()) {
        warnSkipped(st.getInt(0), r.error());
        continue;
      }
      out.push_back(std::move(*r));
      if (q.limit > 0 && static_cast<int64_t>(out.size()) >= q.limit) break;
    }
    return out;
  }
  // Best per workload: rows come fastest first within each workload; keep the first that decodes
  // (a corrupt best row falls back to the next fastest).
  sql::Stmt st(*db, std::string("SELECT ") + kRecordColumns + " FROM records" + w.sql() +
                        " ORDER BY workload_key, median_s, id");
  st.bindAll(w.params);
  std::string done;
  while (st.step()) {
    std::string key = st.getText(kWorkloadKeyColumn);
    if (key == done) continue;
    auto r = decodeRecordRow(st);
    if (!r.ok()) {
      warnSkipped(st.getInt(0), r.error());
      continue;
    }
    out.push_back(std::move(*r));
    done = key;
    if (!q.workload_key.empty()) break;
  }
  if (q.best_first)
    std::stable_sort(out.begin(), out.end(),
                     [](const StoredRecord& a, const StoredRecord& b) { return medianOf(a) < medianOf(b); });
  else
    std::sort(out.begin(), out.end(), [](const StoredRecord& a, const StoredRecord& b) { return a.id < b.id; });
  if (q.limit > 0 && static_cast<int64_t>(out.size()) > q.limit) out.resize(static_cast<size_t>(q.limit));
  return out;
}

std::vector<StoredRecord> Bank::storedRecords(const RecordQuery& q) const {
  std::vector<StoredRecord> out;
  readGuard(*impl_, [&] { out = impl_->queryRecords(q); });
  return out;
}

Expected<std::vector<schedule::Record>> Bank::recordsOrError(const RecordQuery& q) const {
  std::vector<schedule::Record> out;
  Status s = writeGuard(*impl_, [&] {
    Where w = recordWhere(q);
    sql::Stmt st(*impl_->db, std::string("SELECT ") + kRecordColumns + " FROM records" + w.sql() + " ORDER BY id");
    st.bindAll(w.params);
    while (st.step()) {
      auto r = decodeRecordRow(st);
      if (!r.ok()) fail("bank ", impl_->path, ": record ", st.getInt(0), " cannot be read: ", r.error());
      out.push_back(std::move(r->record));
    }
  });
  if (!s.ok()) return Unexpected(s.reason());
  return out;
}

std::vector<schedule::Record> Bank::records(const RecordQuery& q) const {
  std::vector<schedule::Record> out;
  for (StoredRecord& r : storedRecords(q)) out.push_back(std::move(r.record));
  return out;
}

std::map<std::string, schedule::Record> Bank::bestRecords(const RecordQuery& q) const {
  RecordQuery bq = q;
  bq.best_per_workload = true;
  bq.limit = 0;
  std::map<std::string, schedule::Record> out;
  for (StoredRecord& r : storedRecords(bq)) {
    std::string key = r.record.workload_key;
    out.emplace(std::move(key), std::move(r.record));
  }
  return out;
}

std::map<std::string, schedule::Record> Bank::bestRecords(const std::vector<std::string>& workload_keys,
                                                          const TargetFilter& target) const {
  std::map<std::string, schedule::Record> out;
  for (const std::string& key : workload_keys) {
    if (out.count(key)) continue;
    if (auto r = bestRecord(key, target)) out.emplace(key, std::move(*r));
  }
  return out;
}

std::map<std::string, schedule::Record> Bank::bestRecordsFor(const std::vector<std::string>& keys,
                                                             const schedule::TargetInfo& here) const {
  std::vector<TargetFilter> tiers(4, TargetFilter::sameIsa(here));
  tiers[0].cpu = here.cpu;
  tiers[0].threads = here.threads;
  tiers[1].threads = here.threads;
  tiers[2].cpu = here.cpu;
  std::map<std::string, schedule::Record> best;
  for (const TargetFilter& t : tiers) {
    std::vector<std::string> rest;
    for (const std::string& k : keys)
      if (!best.count(k)) rest.push_back(k);
    if (rest.empty()) break;
    for (auto& [k, r] : bestRecords(rest, t)) best.emplace(k, std::move(r));
  }
  return best;
}

std::optional<schedule::Record> Bank::bestRecord(const std::string& workload_key, const TargetFilter& target) const {
  if (workload_key.empty()) return std::nullopt;
  RecordQuery q;
  q.workload_key = workload_key;
  q.target = target;
  q.best_per_workload = true;
  auto rs = storedRecords(q);
  if (rs.empty()) return std::nullopt;
  return std::move(rs[0].record);
}

std::vector<schedule::Record> Bank::bestPerWorkloadOfClass(const std::string& class_id,
                                                           const std::string& exclude_model,
                                                           const TargetFilter& target) const {
  if (class_id.empty()) return {};
  RecordQuery q;
  q.class_id = class_id;
  q.exclude_model = exclude_model;
  q.target = target;
  std::vector<schedule::Record> out;
  for (auto& [key, r] : bestRecords(q)) out.push_back(std::move(r));
  return out;
}

std::optional<WorkloadInfo> Bank::workload(const std::string& workload_key) const {
  std::optional<WorkloadInfo> out;
  readGuard(*impl_, [&] {
    sql::Stmt st(*impl_->db,
                 "SELECT workload_key, class_id, class_name, flops, signature FROM workloads WHERE workload_key = ?1");
    st.bindAll({workload_key});
    if (!st.step()) return;
    WorkloadInfo w{st.getText(0), st.getText(1), st.getText(2), st.getOptDouble(3), Json()};
    if (!st.isNull(4)) {
      w.signature = Json::parse(st.getText(4), nullptr, false);
      if (w.signature.is_discarded()) {
        logWarning("bank ", impl_->path, ": the signature of workload ", workload_key, " is not valid JSON; ignored");
        w.signature = Json();
      }
    }
    out = std::move(w);
  });
  return out;
}

std::vector<ModelKernel> Bank::modelKernels(const std::string& model) const {
  std::vector<ModelKernel> out;
  readGuard(*impl_, [&] {
    sql::Stmt st(*impl_->db,
                 "SELECT mk.workload_key, mk.occurrences, w.class_id, w.class_name, w.flops, w.signature "
                 "FROM model_kernels mk LEFT JOIN workloads w ON w.workload_key = mk.workload_key "
                 "WHERE mk.model = ?1 ORDER BY mk.kernel_index");
    st.bindAll({model});
    while (st.step()) {
      ModelKernel k;
      k.workload.workload_key = st.getText(0);
      k.occurrences = st.getInt(1);
      k.workload.class_id = st.getText(2);
      k.workload.class_name = st.getText(3);
      k.workload.flops = st.getOptDouble(4);
      if (!st.isNull(5)) {
        Json sig = Json::parse(st.getText(5), nullptr, false);
        if (!sig.is_discarded())
          k.workload.signature = std::move(sig);
        else
          logWarning("bank ", impl_->path, ": the signature of workload ", k.workload.workload_key,
                     " is not valid JSON; ignored");
      }
      out.push_back(std::move(k));
    }
  });
  return out;
}

std::vector<ModelInfo> Bank::modelInfos() const {
  std::vector<ModelInfo> out;
  readGuard(*impl_, [&] {
    sql::Stmt st(*impl_->db,
                 "SELECT name, spec, added, (SELECT count(*) FROM model_kernels mk WHERE mk.model = models.name) "
                 "FROM models ORDER BY name");
    while (st.step()) out.push_back({st.getText(0), st.getText(1), st.getInt(2), st.getInt(3)});
  });
  return out;
}

std::vector<std::string> Bank::models() const {
  std::vector<std::string> out;
  for (const ModelInfo& m : modelInfos()) out.push_back(m.name);
  return out;
}

namespace {
const char* kRunColumns =
    "run_id, kind, model, settings, started, finished, status, trials_done, wall_s, "
    "(SELECT count(*) FROM records r WHERE r.run_id = runs.run_id), result, owner, heartbeat";

std::optional<RunInfo> decodeRun(const sql::Stmt& st, const std::string& path) {
  RunInfo r;
  r.run_id = st.getText(0);
  auto kind = parseRunKind(st.getText(1));
  auto status = parseRunStatus(st.getText(6));
  if (!kind || !status) {
    logWarning("bank ", path, ": run ", r.run_id, " skipped: its kind or status is unknown");
    return std::nullopt;
  }
  r.kind = *kind;
  r.status = *status;
  r.model = st.getText(2);
  r.settings = Json::parse(st.getText(3), nullptr, false);
  if (r.settings.is_discarded()) {
    logWarning("bank ", path, ": the settings of run ", r.run_id, " are not valid JSON; ignored");
    r.settings = Json();
  }
  r.started = st.getInt(4);
  r.finished = st.getOptInt(5);
  r.trials_done = st.getInt(7);
  r.wall_s = st.getDouble(8);
  r.records = st.getInt(9);
  r.result = Json::parse(st.getText(10), nullptr, false);
  if (r.result.is_discarded()) {
    logWarning("bank ", path, ": the result of run ", r.run_id, " is not valid JSON; ignored");
    r.result = Json::object();
  }
  r.owner = st.getText(11);
  r.heartbeat = st.getInt(12);
  return r;
}
}  // namespace

std::vector<RunInfo> Bank::runs() const {
  std::vector<RunInfo> out;
  readGuard(*impl_, [&] {
    // Runs of one second in the order they began (SQLite's rowid; the PostgreSQL schema numbers them).
    const char* order = impl_->db->dialect() == sql::Dialect::Postgres ? "seq" : "rowid";
    sql::Stmt st(*impl_->db, std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY started, " + order);
    while (st.step())
      if (auto r = decodeRun(st, impl_->path)) out.push_back(std::move(*r));
  });
  return out;
}

std::optional<RunInfo> Bank::run(const std::string& run_id) const {
  std::optional<RunInfo> out;
  readGuard(*impl_, [&] {
    sql::Stmt st(*impl_->db, std::string("SELECT ") + kRunColumns + " FROM runs WHERE run_id = ?1");
    st.bindAll({run_id});
    if (st.step()) out = decodeRun(st, impl_->path);
  });
  return out;
}

Stats Bank::stats() const {
  Stats s;
  s.path = impl_->path;
  readGuard(*impl_, [&] {
    sql::Db& db = *impl_->db;
    sql::ReadTransaction snapshot(db);
    auto v = db.queryText("SELECT value FROM meta WHERE key = 'schema_version'");
    s.schema_version = v ? parseInt(*v).value_or(0) : 0;
    s.workloads = db.queryInt("SELECT count(*) FROM workloads").value_or(0);
    s.classes = db.queryInt("SELECT count(DISTINCT class_id) FROM workloads WHERE class_id <> ''").value_or(0);
    s.records = db.queryInt("SELECT count(*) FROM records").value_or(0);
    s.ok_records = db.queryInt("SELECT count(*) FROM records WHERE median_s IS NOT NULL").value_or(0);
    sql::Stmt st(db, "SELECT error, count(*) FROM records WHERE median_s IS NULL GROUP BY error ORDER BY error");
    while (st.step()) s.failed_by_error[st.getText(0)] = st.getInt(1);
    s.models = db.queryInt("SELECT count(*) FROM models").value_or(0);
    s.runs = db.queryInt("SELECT count(*) FROM runs").value_or(0);
    s.seeded_files = db.queryInt("SELECT count(*) FROM seeded_files").value_or(0);
    if (db.dialect() == sql::Dialect::Postgres)
      s.file_bytes = db.queryInt("SELECT pg_database_size(current_database())").value_or(0);
  });
  if (impl_->db->dialect() == sql::Dialect::Postgres) return s;
  std::error_code ec;
  auto size = std::filesystem::file_size(impl_->path, ec);
  s.file_bytes = ec ? 0 : static_cast<int64_t>(size);
  size = std::filesystem::file_size(impl_->path + "-wal", ec);
  s.wal_bytes = ec ? 0 : static_cast<int64_t>(size);
  return s;
}

std::set<std::string> Bank::measuredStepStrings(const std::string& workload_key, const TargetFilter& target) const {
  std::set<std::string> out;
  readGuard(*impl_, [&] {
    Where w;
    w.add("workload_key = ?", {workload_key});
    addTarget(w, target);
    sql::Stmt st(*impl_->db, "SELECT DISTINCT steps FROM records" + w.sql());
    st.bindAll(w.params);
    while (st.step()) out.insert(st.getText(0));
  });
  return out;
}

std::map<std::string, std::string> Bank::recordClasses() const {
  std::map<std::string, std::string> out;
  readGuard(*impl_, [&] {
    sql::Stmt st(*impl_->db,
                 "SELECT DISTINCT class_id, kernel_class FROM records WHERE class_id <> '' AND kernel_class <> '' "
                 "AND median_s IS NOT NULL");
    while (st.step()) out.emplace(st.getText(0), st.getText(1));
  });
  return out;
}

std::set<std::string> Bank::recordModels() const {
  std::set<std::string> out;
  readGuard(*impl_, [&] {
    sql::Stmt st(*impl_->db, "SELECT DISTINCT model FROM records WHERE model <> ''");
    while (st.step()) out.insert(st.getText(0));
  });
  return out;
}

int64_t Bank::trialsOfRun(const std::string& run_id) const {
  int64_t n = 0;
  readGuard(*impl_, [&] {
    sql::Stmt st(*impl_->db, "SELECT count(*) FROM records WHERE run_id = ?1");
    st.bindAll({run_id});
    if (st.step()) n = st.getInt(0);
  });
  return n;
}

}  // namespace ttune::store
