// Runner: executes compiled candidates in a separate worker process (the `ttune-worker`
// executable) so that a candidate that crashes, hangs or computes garbage costs only that
// candidate (docs/measurement.md). The worker is started on first use and restarted after it dies
// or is killed for exceeding its timeout; the error kind is reported per candidate.
#pragma once

#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "measure/timing.h"
#include "measure/worker_command.h"
#include "runtime/ndarray.h"
#include "schedule/record.h"

namespace ttune::measure {

struct ArgSpec {
  te::Shape shape;
  te::DType dtype = te::DType::Float32;
  bool is_output = false;
};

struct RunRequest {
  codegen::ObjectCode code;
  std::vector<ArgSpec> args;               // kernel arguments in order
  std::vector<runtime::NDArray> data;      // optional: contents of the input args (else seeded random)
  std::vector<runtime::NDArray> expected;  // optional: reference outputs to compare with
  double atol = 1e-3, rtol = 1e-3;
  uint64_t seed = 0;
  TimingOptions timing;
  int threads = 0;  // 0: the worker's default
  double timeout_s = 10;
};

struct RunResult {
  schedule::ErrorKind error = schedule::ErrorKind::None;
  std::string message;
  Timing timing;
  double max_abs_err = 0;
  bool ok() const { return error == schedule::ErrorKind::None; }
};

class Runner {
 public:
  Runner();  // the local worker
  explicit Runner(WorkerCommand command);
  const WorkerCommand& command() const { return command_; }
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  RunResult run(const RunRequest& request);
  // The same for a request already encoded (encodeRunRequest), e.g. one taken from a queue of
  // measurement jobs; `timeout_s` before the command's timeout scale.
  RunResult runEncoded(const std::vector<char>& request, double timeout_s);
  // Times the worker process was (re)started.
  int starts() const { return starts_; }

 private:
  bool ensureWorker(std::string* why);
  void stopWorker(bool kill);
  std::string reapWorker();  // waits for the dead worker, describes how it ended

  WorkerCommand command_;
  int pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  int starts_ = 0;
};

// The protocol's messages (worker_request.h parses requests): a request, and the worker's reply
// (encoded in worker.cc, decoded here; false for a short or corrupt reply, whose every field is
// checked so that it cannot become a time).
std::vector<char> encodeRunRequest(const RunRequest& request);
std::vector<char> encodeRunReply(const RunResult& result);
bool decodeRunReply(const std::vector<char>& reply, RunResult* out);

// Path of the worker executable: $TTUNE_WORKER, else next to the running program, else the build
// tree's copy.
std::string workerPath();

// The worker's main loop (reads requests on fd 3, answers on fd 4).
int workerMain(bool stdio = false);

}  // namespace ttune::measure
