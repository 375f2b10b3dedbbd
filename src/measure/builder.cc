#include "measure/builder.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "codegen/toolchain.h"
#include "lower/lower.h"
#include "measure/wire.h"
#include "runtime/thread_pool.h"
#include "schedule/default_schedule.h"
#include "support/timer.h"

namespace ttune::measure {

using schedule::ErrorKind;

std::vector<schedule::Step> defaultScheduleFor(const te::ComputeDAG& dag, const schedule::Target& target,
                                               schedule::Baseline baseline) {
  return schedule::defaultSchedule(dag, schedule::defaultScheduleOptions(target, baseline));
}

BuildResult buildOne(const MeasureInput& input, const std::string& name, const schedule::Target& target,
                     bool shared_object) {
  BuildResult r;
  Timer timer;
  auto state = schedule::State::replay(input.dag, input.steps);
  if (!state.ok()) {
    r.error = ErrorKind::Instantiation;
    r.message = state.error();
    r.build_s = timer.seconds();
    return r;
  }
  auto func = lower::lower(*state, name, lower::lowerOptionsFor(target));
  if (!func.ok()) {
    r.error = ErrorKind::Instantiation;
    r.message = func.error();
    r.build_s = timer.seconds();
    return r;
  }
  codegen::CompileOptions co;
  co.target = target;
  auto obj = codegen::compile(*func, co);
  if (obj.ok() && shared_object) obj = codegen::linkSharedObject(*obj, target);
  r.build_s = timer.seconds();
  if (!obj.ok()) {
    r.error = ErrorKind::CompileError;
    r.message = obj.error();
    return r;
  }
  r.code = std::move(*obj);
  r.scheduled = state->dagPtr();
  r.layouts = state->weightLayouts();
  return r;
}

Builder::Builder(int threads, double timeout_s, schedule::Target target, bool shared_objects)
    : threads_(threads > 0 ? threads : runtime::defaultNumThreads()),
      timeout_s_(timeout_s),
      target_(std::move(target)),
      shared_objects_(shared_objects) {}

namespace {

std::function<void(const MeasureInput&)>& faultHook() {
  static std::function<void(const MeasureInput&)> hook;
  return hook;
}

// The child: builds the candidates of `share` in order, one message per candidate (index, error
// kind, message, build seconds, object code), then exits without running the parent's exit
// handlers.
[[noreturn]] void buildChild(int fd, const std::vector<MeasureInput>& inputs, const std::vector<size_t>& share,
                             const schedule::Target& target, bool shared) {
  for (size_t i : share) {
    if (faultHook()) faultHook()(inputs[i]);
    BuildResult b = buildOne(inputs[i], inputs[i].entry.empty() ? "kernel" : inputs[i].entry, target, shared);
    wire::Writer w;
    w.pod<uint64_t>(i);
    w.pod<uint8_t>(static_cast<uint8_t>(b.error));
    w.str(b.message);
    w.pod<double>(b.build_s);
    w.str(b.code.entry);
    w.bytes(b.code.bytes.data(), b.code.bytes.size());
    if (!wire::writeMessage(fd, w.buffer())) _exit(1);
  }
  _exit(0);
}

// How a build child that stopped answering ended ("" while it runs).
std::string reap(pid_t pid, bool kill_it) {
  if (kill_it) ::kill(pid, SIGKILL);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return "it vanished";
  if (WIFSIGNALED(status))
    return std::string("signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

// Builds `share` in children: one child at a time, replaced when a compile crashes or hangs.
void buildShare(const std::vector<MeasureInput>& inputs, std::vector<size_t> share, const schedule::Target& target,
                bool shared, double timeout_s, std::vector<BuildResult>& out) {
  while (!share.empty()) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      for (size_t i : share) {
        out[i].error = ErrorKind::CompileError;
        out[i].message = std::string("cannot create a pipe: ") + std::strerror(errno);
      }
      return;
    }
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      buildChild(fds[1], inputs, share, target, shared);
    }
    close(fds[1]);
    if (pid < 0) {
      close(fds[0]);
      for (size_t i : share) {
        out[i].error = ErrorKind::CompileError;
        out[i].message = std::string("cannot fork a build process: ") + std::strerror(errno);
      }
      return;
    }
    size_t done = 0;
    std::string ended;
    bool timed_out = false;
    Timer since;
    while (done < share.size()) {
      std::vector<char> msg;
      int r = wire::readMessage(fds[0], &msg, static_cast<int>(timeout_s * 1000) + 1000);
      if (r != 1) {
        timed_out = r == 0;
        ended = reap(pid, true);
        break;
      }
      wire::Reader rd(msg);
      uint64_t i = 0;
      uint8_t kind = 0;
      BuildResult& b = out[share[done]];
      if (!rd.pod(&i) || i != share[done] || !rd.pod(&kind) || !rd.str(&b.message) || !rd.pod(&b.build_s) ||
          !rd.str(&b.code.entry)) {
        ended = reap(pid, true);
        break;
      }
      std::vector<char> bytes;
      rd.bytes(&bytes);
      b.code.bytes = std::move(bytes);
      b.error = static_cast<ErrorKind>(kind);
      if (b.ok() && b.build_s > timeout_s) {
        b.error = ErrorKind::CompileTimeout;
        b.message =
            "compiling took " + std::to_string(b.build_s) + " s, over the " + std::to_string(timeout_s) + " s limit";
        b.code = {};
      }
      ++done;
      since = Timer();
    }
    close(fds[0]);
    if (done == share.size()) {
      reap(pid, false);
      return;
    }
    // The candidate being compiled when the child stopped costs itself only.
    BuildResult& bad = out[share[done]];
    bad.build_s = since.seconds();
    bad.code = {};
    if (timed_out) {
      bad.error = ErrorKind::CompileTimeout;
      bad.message = "compiling did not finish within the " + std::to_string(timeout_s) +
                    " s limit (the build process was killed)";
    } else {
      bad.error = ErrorKind::CompileError;
      bad.message = "the compiler crashed: its build process ended with " + ended;
    }
    share.erase(share.begin(), share.begin() + static_cast<long>(done) + 1);
  }
}

}  // namespace

void Builder::setFaultHookForTesting(std::function<void(const MeasureInput&)> hook) { faultHook() = std::move(hook); }

std::vector<BuildResult> Builder::build(const std::vector<MeasureInput>& inputs) {
  std::vector<BuildResult> out(inputs.size());
  // Replay here (cheap; the parent needs the scheduled DAG and weight layouts), so that steps
  // that do not apply never reach a build process.
  std::vector<size_t> todo;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Timer t;
    auto state = schedule::State::replay(inputs[i].dag, inputs[i].steps);
    if (!state.ok()) {
      out[i].error = ErrorKind::Instantiation;
      out[i].message = state.error();
      out[i].build_s = t.seconds();
      continue;
    }
    out[i].scheduled = state->dagPtr();
    out[i].layouts = state->weightLayouts();
    todo.push_back(i);
  }
  int n = std::min<int>(threads_, static_cast<int>(todo.size()));
  std::vector<std::vector<size_t>> shares(std::max(n, 1));
  for (size_t k = 0; k < todo.size(); ++k) shares[k % shares.size()].push_back(todo[k]);
  // Keep what replay found; the children fill in the code and the build outcome.
  std::vector<BuildResult> built(inputs.size());
  std::vector<std::thread> pool;
  for (size_t t = 1; t < shares.size(); ++t)
    pool.emplace_back([&, t] { buildShare(inputs, shares[t], target_, shared_objects_, timeout_s_, built); });
  if (!shares.empty()) buildShare(inputs, shares[0], target_, shared_objects_, timeout_s_, built);
  for (auto& t : pool) t.join();
  for (size_t i : todo) {
    BuildResult& b = built[i];
    if (!b.ok()) {
      out[i].error = b.error;
      out[i].message = b.message;
      out[i].build_s = b.build_s;
      out[i].scheduled = nullptr;
      out[i].layouts.clear();
      continue;
    }
    out[i].code = std::move(b.code);
    out[i].build_s = b.build_s;
  }
  return out;
}

}  // namespace ttune::measure
