// Plain data exchanged with the schedule bank (bank.h): workloads, a model's kernels, record
// queries, tuning runs, statistics and import reports. Every struct has named fields with
// defaults meaning "unknown" or "no restriction", so a query is written as
// `RecordQuery q; q.workload_key = k; q.ok_only = true;`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schedule/record.h"
#include "support/json.h"
#include "te/compute_dag.h"

namespace ttune::store {

// One kernel, identified by its workload key (see graph::Kernel).
struct WorkloadInfo {
  std::string workload_key;
  std::string class_id;         // loop-structure class hash; "" when unknown
  std::string class_name;       // e.g. "conv2d_nchw+add+relu"; "" when unknown
  std::optional<double> flops;  // per execution; nullopt when unknown
  Json signature;               // dagSignature(); null when unknown
};

// {"inputs": [{"shape": [1,3,224,224], "dtype": "float32"}, ...], "outputs": [...]}
Json dagSignature(const te::ComputeDAG& dag);
WorkloadInfo workloadInfo(const te::ComputeDAG& dag, const std::string& class_id, const std::string& class_name);

// One distinct kernel of a model (kernels are kept in the order given to addModel).
struct ModelKernel {
  WorkloadInfo workload;
  int64_t occurrences = 1;  // how many times the model runs this kernel
};

struct ModelInfo {
  std::string name;
  std::string spec;     // zoo name or path the model was loaded from
  int64_t added = 0;    // unix seconds
  int64_t kernels = 0;  // distinct kernels
};

// Records measured on a matching target; empty / 0 fields match anything.
struct TargetFilter {
  std::string cpu;
  int vector_bits = 0;
  int threads = 0;
  std::optional<schedule::Isa> isa;
  static TargetFilter exactly(const schedule::TargetInfo& t) { return {t.cpu, t.vector_bits, t.threads, t.isa}; }
  // Records whose code runs as the target's ISA level (any CPU, any thread count).
  static TargetFilter sameIsa(const schedule::TargetInfo& t) { return {"", t.vector_bits, 0, t.isa}; }
};

// Which records to read. Fields combine with AND; an empty field does not restrict.
struct RecordQuery {
  std::string workload_key;
  std::string class_id;
  std::string model;             // provenance.model equals this
  std::string kernels_of_model;  // the workload is one of this model's kernels (addModel)
  std::string run_id;
  // Transfer exclusion: provenance.model differs from this AND the workload is not one of this
  // model's kernels (a target model never receives its own records).
  std::string exclude_model;
  TargetFilter target;
  bool ok_only = false;            // only successful measurements
  bool best_per_workload = false;  // only the fastest ok record of each workload (implies ok_only)
  bool best_first = false;         // order by median time (ok first, then failures); else by id
  int64_t limit = 0;               // at most this many records (0: all)
};

// A record with its row id in the bank.
struct StoredRecord {
  int64_t id = 0;
  schedule::Record record;
};

// Refresh: `ttune db refresh` re-measured the bank's schedules of a model against its defaults.
enum class RunKind { Tune, Transfer, Refresh };
enum class RunStatus { Running, Finished, Interrupted };
const char* runKindName(RunKind k);
const char* runStatusName(RunStatus s);
std::optional<RunKind> parseRunKind(const std::string& s);
std::optional<RunStatus> parseRunStatus(const std::string& s);

struct RunInfo {
  std::string run_id;
  RunKind kind = RunKind::Tune;
  std::string model;
  Json settings;
  int64_t started = 0;              // unix seconds
  std::optional<int64_t> finished;  // unix seconds; nullopt while running
  RunStatus status = RunStatus::Running;
  int64_t trials_done = 0;  // as last reported with updateRun
  double wall_s = 0;        // as last reported with updateRun
  int64_t records = 0;      // records in the bank with this run id
  Json result;              // what the run concluded (setRunResult), e.g. a transfer's choice
  std::string owner;        // "host:pid:start" of the process working on it
  int64_t heartbeat = 0;    // unix seconds of its owner's last updateRun
};

struct Stats {
  std::string path;
  int schema_version = 0;
  int64_t workloads = 0;
  int64_t classes = 0;  // distinct known class ids among workloads
  int64_t records = 0;
  int64_t ok_records = 0;
  std::map<std::string, int64_t> failed_by_error;  // error kind name -> failed records
  int64_t models = 0;
  int64_t runs = 0;
  int64_t seeded_files = 0;
  int64_t file_bytes = 0;  // main database file
  int64_t wal_bytes = 0;   // write-ahead log not yet checkpointed
};

struct ImportReport {
  std::string path;
  int64_t lines = 0;                  // non-blank, non-comment lines
  int64_t imported = 0;               // new records stored
  int64_t duplicates = 0;             // records already in the bank (identical line)
  int64_t skipped = 0;                // invalid lines
  std::vector<std::string> problems;  // "file:line: reason", the first 100
};

}  // namespace ttune::store
