// Records: a measured (or to-be-measured) schedule of one workload, serialized as one JSON object
// per line with named fields and a format version (docs/record-format.md is the specification).
//
// A record holds the workload key (which kernel), the target it was measured on, the steps (the
// schedule), the measurement result with its error kind, and its provenance (which model, tuning
// run and trial produced it). Reading validates every field and reports the first problem;
// writing then reading gives back an equal record, byte for byte when written again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedule/baseline.h"
#include "schedule/step.h"
#include "schedule/target.h"
#include "support/expected.h"
#include "support/json.h"

namespace ttune::schedule {

inline constexpr int kRecordVersion = 1;

// Why a measurement has no valid time. Stored by name.
enum class ErrorKind : uint8_t {
  None,
  Instantiation,  // the steps do not apply to the workload, or lowering rejected them
  CompileError,
  CompileTimeout,
  RuntimeCrash,    // the candidate killed its worker process
  RuntimeTimeout,  // the candidate did not finish in time
  NonFinite,       // NaN or infinity in the outputs
  WrongAnswer,     // differs from the reference evaluator
  Unknown,
};
const char* errorKindName(ErrorKind k);
std::optional<ErrorKind> parseErrorKind(const std::string& s);

// Where a record was measured: the machine's CPU, the instruction-set level of the code (an AVX2
// build measured on an AVX-512 machine says cpu "znver4", isa avx2) and the thread count.
struct TargetInfo {
  std::string cpu;        // LLVM CPU name of the machine
  int vector_bits = 0;    // 512 / 256 / 128
  int threads = 0;        // thread-pool size used when measuring
  Isa isa = Isa::Scalar;  // records without the field: derived from vector_bits
  bool operator==(const TargetInfo&) const = default;
};
// The TargetInfo of code generated for `code` and measured on this machine's `machine_cpu`.
TargetInfo targetInfo(const Target& code, const std::string& machine_cpu, int threads);

struct RecordResult {
  std::vector<double> costs_s;  // one per repeat, seconds
  ErrorKind error = ErrorKind::None;
  std::string error_msg;
  double build_s = 0;     // compile time
  double measure_s = 0;   // wall time spent measuring this candidate
  int64_t timestamp = 0;  // unix seconds
  bool ok() const { return error == ErrorKind::None && !costs_s.empty(); }
  double median() const;  // +inf when not ok
  bool operator==(const RecordResult&) const = default;
};

struct Provenance {
  std::string model;     // model the workload was taken from
  std::string run_id;    // tuning or transfer run
  std::string source;    // "tune", "transfer", "manual", "default"
  int64_t trial = -1;    // trial number within the run
  double elapsed_s = 0;  // time since the run started (across resumes)
  // Lineage: the model whose tuning run first found these steps ("" for default and manual
  // schedules, and records written before lineage was kept). A transferred schedule keeps its
  // source's origin, so no schedule ever returns to the model it came from.
  std::string origin;
  // The default schedules this record's run measured against (baseline.h): a basic-baseline
  // tuning run's schedules are candidates only for basic-baseline transfers. Written to JSON only
  // when basic ("baseline": "basic"), so strong records read and hash as before.
  Baseline baseline = Baseline::Strong;
  bool operator==(const Provenance&) const = default;
};

struct Record {
  std::string workload_key;
  std::string kernel_class;  // class name, e.g. "pad+conv2d_nchw+add+relu"; may be empty for single operators
  std::string class_id;      // the class's loop-structure hash (graph::Kernel::class_id); may be empty
  TargetInfo target;
  std::vector<Step> steps;
  RecordResult result;
  Provenance provenance;
};

Json stepToJson(const Step& s);
Expected<Step> stepFromJson(const Json& j);
Json recordToJson(const Record& r);
Expected<Record> recordFromJson(const Json& j);
// One line of JSON, no trailing newline.
std::string recordToLine(const Record& r);
Expected<Record> recordFromLine(const std::string& line);

// Reads a records file; a file holding a bare JSON array of steps is accepted too (a schedule
// written by hand). Blank lines and lines starting with '#' are skipped. Fails on the first bad
// line, naming the file and line.
Expected<std::vector<Record>> readRecordsFile(const std::string& path);
// Appends records, one per line (creates the file).
Status appendRecordsFile(const std::string& path, const std::vector<Record>& records);

bool stepsEqual(const std::vector<Step>& a, const std::vector<Step>& b);

}  // namespace ttune::schedule
