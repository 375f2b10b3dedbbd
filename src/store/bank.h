// The schedule bank: an SQLite file, or a PostgreSQL database that clients on several machines
// share, holding every record tuning and transfer-tuning produce (and the workloads, models and
// runs they belong to). Schema: src/store/README.md and bank.cc.
//
// Invariants and guarantees (on both engines):
//  - Durability: every write is one transaction, serialized against every
//    other writer (SQLite: WAL journal, synchronous=FULL, BEGIN IMMEDIATE; PostgreSQL: BEGIN and
//    the bank's advisory lock) and rolled back on any error. A process killed at any moment loses
//    nothing it committed, never leaves half a batch, and leaves a bank that opens and passes
//    integrityCheck.
//  - Several processes, on several machines for PostgreSQL, may read and write one bank at once
//    (writers wait up to the busy timeout).
//  - A Bank object is safe to share between threads (calls are serialized by a mutex); a process
//    must not use a Bank across fork() — the child opens its own.
//  - Writes return Status with one sentence naming the bank file. Reads never fail loudly: a row
//    whose JSON is corrupt or whose error kind is unknown is skipped with a warning naming the
//    bank file and record id; an SQL failure while reading is logged and ends that read.
//  - Records are deduplicated: a record identical to a stored one (same JSON line, ignoring the
//    class id, which the bank fills in later) is not stored twice, so importing a file again --
//    or exporting a bank and importing it into itself -- is a no-op.
//  - Opening a bank of an older schema version migrates it in one transaction.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "schedule/record.h"
#include "store/types.h"
#include "support/expected.h"
#include "support/json.h"

namespace ttune::store {

// Version 2 added records.target_isa and .origin, runs.result, and digests without class ids;
// version 3 runs of kind 'refresh'; version 4 records.baseline (older files are migrated on open).
inline constexpr int kSchemaVersion = 4;

struct OpenOptions {
  bool create = true;           // create the file (and its folders) when missing
  int busy_timeout_ms = 60000;  // how long a write waits for another process's transaction
};

class Bank {
 public:
  // Opens the bank at `path`, creating folders, file and schema as needed; a "postgresql://" or
  // "postgres://" URL opens (creating the schema in) that PostgreSQL database. Fails with one
  // sentence naming the file or the URL (without its password) when it cannot be created, opened
  // or reached, is not a database or holds other tables than a bank's, or was written by a newer
  // ttune (schema version).
  static Expected<Bank> open(const std::string& path, const OpenOptions& opts = {});

  Bank(Bank&&) noexcept;
  Bank& operator=(Bank&&) noexcept;
  ~Bank();

  const std::string& path() const;  // the file, or the URL without its password

  // ---- writes (each one transaction) ---------------------------------------------------------
  // Inserts or updates a workload; known fields are never overwritten by unknown ones. Records
  // stored before the workload's class was known get its class id.
  Status addWorkload(const WorkloadInfo& w);
  // Stores a batch in one transaction. A workload key not yet known gets a workload row (class
  // from the record's kernel_class, class id and FLOPs unknown). Exact duplicates are ignored;
  // `inserted` (optional) receives the number of new rows. Fails without writing anything when
  // a record has no workload key or a non-finite number.
  Status addRecords(const std::vector<schedule::Record>& records, size_t* inserted = nullptr);
  // Registers a model and its distinct kernels in order (replacing an earlier registration of the
  // same name); upserts the kernels' workloads. Repeated workload keys are merged (occurrences
  // summed, first position kept).
  Status addModel(const std::string& name, const std::string& spec, const std::vector<ModelKernel>& kernels);

  // Tuning runs. beginRun returns a new unique id "<kind>-YYYYMMDD-<n>" (unique across processes).
  Expected<std::string> beginRun(RunKind kind, const std::string& model, const Json& settings);
  Status updateRun(const std::string& run_id, int64_t trials_done, double wall_s);
  Status finishRun(const std::string& run_id, RunStatus status);
  // Claims a run for this process to resume it (running again, this process its owner).
  // Refused, with the reason, while another live process owns it: two processes never tune one
  // run at once. Runs record their owner (host, pid, process start) and a heartbeat (updateRun);
  // an owner on this host is alive while its process exists, one elsewhere while its heartbeat
  // is recent.
  Status resumeRun(const std::string& run_id);
  // Stores what a run concluded (a JSON object replacing the previous one).
  Status setRunResult(const std::string& run_id, const Json& result);

  // ---- reads ---------------------------------------------------------------------------------
  std::optional<WorkloadInfo> workload(const std::string& workload_key) const;
  // The fastest ok record of a workload (ties: the earliest stored).
  std::optional<schedule::Record> bestRecord(const std::string& workload_key, const TargetFilter& target = {}) const;
  // The fastest ok record of every workload matching the query, by workload key.
  std::map<std::string, schedule::Record> bestRecords(const RecordQuery& q) const;
  std::map<std::string, schedule::Record> bestRecords(const std::vector<std::string>& workload_keys,
                                                      const TargetFilter& target = {}) const;
  // The best record per workload for code running here: times compare only within one CPU and
  // one thread count, so in tiers -- this CPU and thread count, this ISA level and thread count,
  // this CPU, this ISA level (e.g. the shipped bank on a new machine).
  std::map<std::string, schedule::Record> bestRecordsFor(const std::vector<std::string>& workload_keys,
                                                         const schedule::TargetInfo& here) const;
  std::vector<schedule::Record> records(const RecordQuery& q) const;
  // The same, failing (with the reason) instead of skipping a corrupt row or stopping at an SQL
  // error: for reads whose partial result would be wrong, e.g. what a resumed run has done.
  Expected<std::vector<schedule::Record>> recordsOrError(const RecordQuery& q) const;
  std::vector<StoredRecord> storedRecords(const RecordQuery& q) const;
  // Transfer candidates: the best ok record of every workload of class `class_id` that is not a
  // kernel of `exclude_model` and whose record was not produced for it; in workload-key order.
  std::vector<schedule::Record> bestPerWorkloadOfClass(const std::string& class_id, const std::string& exclude_model,
                                                       const TargetFilter& target = {}) const;
  // Every kernel class with a successful record: class id -> class name (e.g.
  // "conv2d_nhwc+add+relu"), for transfer from a neighbouring class.
  std::map<std::string, std::string> recordClasses() const;
  // A model's distinct kernels in order, with their workload info.
  std::vector<ModelKernel> modelKernels(const std::string& model) const;
  std::vector<std::string> models() const;
  // The models records were measured for (provenance), registered or not (imported records).
  std::set<std::string> recordModels() const;
  std::vector<ModelInfo> modelInfos() const;
  std::vector<RunInfo> runs() const;  // oldest first
  std::optional<RunInfo> run(const std::string& run_id) const;
  Stats stats() const;

  // ---- resume --------------------------------------------------------------------------------
  // The serialized steps (stepsKey) of every record of the workload, ok or failed.
  std::set<std::string> measuredStepStrings(const std::string& workload_key, const TargetFilter& target = {}) const;
  // Number of records stored for a run.
  int64_t trialsOfRun(const std::string& run_id) const;

  // ---- files ---------------------------------------------------------------------------------
  // Imports records as JSON lines (docs/record-format.md) in transactions of a few thousand.
  // Invalid lines are skipped with a warning "file:line: reason" and counted. Fails when the file
  // cannot be read or holds a bare list of steps (no workload key to store it under).
  Expected<ImportReport> importJsonl(const std::string& path);
  // Writes the matching records as JSON lines (replacing the file atomically).
  Status exportJsonl(const std::string& path, const RecordQuery& q, size_t* written = nullptr) const;
  // Seeding bookkeeping (see seed.h): whether a file (name + content hash) was imported already.
  bool isSeeded(const std::string& name, const std::string& content_hash) const;
  Status markSeeded(const std::string& name, const std::string& content_hash, int64_t records);

  // SQLite's PRAGMA integrity_check (ok, or the problems it lists); PostgreSQL: every row of every
  // table read in one snapshot (the server checks its own pages).
  Status integrityCheck() const;

  struct Impl;

 private:
  explicit Bank(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The canonical serialization of a schedule (the JSON array stored in the `steps` column):
// equal strings mean equal steps.
std::string stepsKey(const std::vector<schedule::Step>& steps);
// Writes records as a JSON-lines file, atomically (a sibling file renamed over `path`, synced).
Status writeRecordsFile(const std::string& path, const std::vector<schedule::Record>& records);

}  // namespace ttune::store
