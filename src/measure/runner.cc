#include "measure/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "measure/wire.h"
#include "support/install_layout.h"
#include "support/log.h"

extern char** environ;

namespace ttune::measure {

using schedule::ErrorKind;

std::string workerPath() {
  if (const char* env = std::getenv("TTUNE_WORKER"); env && *env) return env;
  // Beside the program first (build/bin/ttune and the test binaries), then the install layout.
  const std::filesystem::path beside = support::codeDirectory() / "ttune-worker";
  struct stat st;
  if (stat(beside.c_str(), &st) == 0) return beside.string();
  return support::installedFile("libexec/ttune/ttune-worker").string();
}

Runner::Runner() : Runner(WorkerCommand{{workerPath()}}) {}

Runner::Runner(WorkerCommand command) : command_(std::move(command)) { signal(SIGPIPE, SIG_IGN); }

Runner::~Runner() { stopWorker(false); }

bool Runner::ensureWorker(std::string* why) {
  if (pid_ > 0) return true;
  int req[2], resp[2];
  if (pipe2(req, O_CLOEXEC) != 0 || pipe2(resp, O_CLOEXEC) != 0) {
    *why = std::string("cannot create pipes for the measurement worker: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, req[0], command_.stdio ? 0 : 3);
  posix_spawn_file_actions_adddup2(&fa, resp[1], command_.stdio ? 1 : 4);
  const std::string& path = command_.argv.at(0);
  std::vector<char*> argv;
  for (const std::string& a : command_.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // A process group of its own: Ctrl-C at the terminal interrupts the tuner (which stops after
  // the batch) instead of killing the candidate being measured and recording it as a crash.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid;
  int rc = posix_spawnp(&pid, path.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  close(req[0]);
  close(resp[1]);
  if (rc != 0) {
    close(req[1]);
    close(resp[0]);
    *why = "cannot start the measurement worker " + command_.describe() + ": " + std::strerror(rc);
    return false;
  }
  pid_ = pid;
  to_worker_ = req[1];
  from_worker_ = resp[0];
  ++starts_;
  return true;
}

std::string Runner::reapWorker() {
  int status = 0;
  std::string how = "the worker exited";
  if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) {
    if (WIFSIGNALED(status))
      how = std::string("the candidate killed its worker with signal ") + std::to_string(WTERMSIG(status)) + " (" +
            strsignal(WTERMSIG(status)) + ")";
    else if (WIFEXITED(status))
      how = "the worker exited with status " + std::to_string(WEXITSTATUS(status));
  }
  close(to_worker_);
  close(from_worker_);
  pid_ = -1;
  to_worker_ = from_worker_ = -1;
  return how;
}

void Runner::stopWorker(bool kill) {
  if (pid_ <= 0) return;
  if (kill)
    ::kill(pid_, SIGKILL);
  else
    close(to_worker_), to_worker_ = -1;  // EOF makes the worker exit
  reapWorker();
}

std::vector<char> encodeRunRequest(const RunRequest& r) {
  wire::Writer w;
  w.str(r.code.entry);
  w.bytes(r.code.bytes.data(), r.code.bytes.size());
  w.pod<int32_t>(r.threads);
  w.pod<int32_t>(r.timing.warmup);
  w.pod<int32_t>(r.timing.number);
  w.pod<int32_t>(r.timing.repeat);
  w.pod<double>(r.timing.min_repeat_ms);
  w.pod<uint8_t>(r.timing.cache_flush);
  w.pod<double>(r.timing.slow_cutoff_s);
  w.pod<uint64_t>(r.seed);
  w.pod<uint32_t>(static_cast<uint32_t>(r.args.size()));
  size_t in = 0;
  for (const ArgSpec& a : r.args) {
    w.pod<uint8_t>(static_cast<uint8_t>(a.dtype));
    w.pod<uint32_t>(static_cast<uint32_t>(a.shape.size()));
    for (int64_t d : a.shape) w.pod<int64_t>(d);
    w.pod<uint8_t>(a.is_output);
    bool has = !a.is_output && in < r.data.size();
    w.pod<uint8_t>(has);
    if (has) w.bytes(r.data[in].data(), static_cast<size_t>(r.data[in].bytes()));
    if (!a.is_output) ++in;
  }
  w.pod<uint32_t>(static_cast<uint32_t>(r.expected.size()));
  for (const auto& e : r.expected) w.bytes(e.data(), static_cast<size_t>(e.bytes()));
  w.pod<double>(r.atol);
  w.pod<double>(r.rtol);
  return w.buffer();
}

bool decodeRunReply(const std::vector<char>& reply, RunResult* out) {
  RunResult res;
  wire::Reader rd(reply);
  uint8_t ek;
  uint32_t n;
  int32_t number = 1;
  bool good = rd.pod(&ek) && ek <= static_cast<uint8_t>(ErrorKind::Unknown) && rd.str(&res.message) && rd.pod(&n) &&
              n <= 1u << 20;
  for (uint32_t i = 0; good && i < n; ++i) {
    double c;
    good = rd.pod(&c) && std::isfinite(c) && c >= 0;
    if (good) res.timing.costs_s.push_back(c);
  }
  good = good && rd.pod(&number) && rd.pod(&res.max_abs_err);
  if (!good) return false;
  res.error = static_cast<ErrorKind>(ek);
  res.timing.number = number;
  if (!res.timing.costs_s.empty()) {
    res.timing.median_s = median(res.timing.costs_s);
    res.timing.min_s = *std::min_element(res.timing.costs_s.begin(), res.timing.costs_s.end());
    res.timing.max_s = *std::max_element(res.timing.costs_s.begin(), res.timing.costs_s.end());
  }
  *out = std::move(res);
  return true;
}

RunResult Runner::run(const RunRequest& request) { return runEncoded(encodeRunRequest(request), request.timeout_s); }

RunResult Runner::runEncoded(const std::vector<char>& msg, double request_timeout_s) {
  RunResult res;
  std::string why;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!ensureWorker(&why)) {
      res.error = ErrorKind::Unknown;
      res.message = why;
      return res;
    }
    if (wire::writeMessage(to_worker_, msg)) break;
    reapWorker();  // a dead worker from an earlier candidate: restart once
    if (attempt == 1) {
      res.error = ErrorKind::Unknown;
      res.message = "cannot send the candidate to the measurement worker";
      return res;
    }
  }
  std::vector<char> reply;
  const double timeout_s = request_timeout_s * command_.timeout_scale;
  int r = wire::readMessage(from_worker_, &reply, static_cast<int>(timeout_s * 1000));
  if (r == 0) {
    stopWorker(true);
    res.error = ErrorKind::RuntimeTimeout;
    res.message = "the candidate did not finish within " + std::to_string(timeout_s) + " s";
    return res;
  }
  if (r < 0) {
    res.error = ErrorKind::RuntimeCrash;
    res.message = reapWorker();
    return res;
  }
  if (!decodeRunReply(reply, &res)) {
    stopWorker(true);
    res = RunResult{};
    res.error = ErrorKind::Unknown;
    res.message = "malformed reply from the measurement worker";
  }
  return res;
}

}  // namespace ttune::measure
