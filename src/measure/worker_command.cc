#include "measure/worker_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "codegen/target.h"
#include "codegen/toolchain.h"
#include "measure/runner.h"
#include "support/install_layout.h"

namespace ttune::measure {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool isFile(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// `program` as PATH would find it, or "" when it is nowhere.
std::string findProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
  std::istringstream path(env("PATH"));
  for (std::string dir; std::getline(path, dir, ':');)
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return dir + "/" + program;
  return "";
}

std::string aarch64WorkerPath() {
  if (std::string e = env("TTUNE_WORKER_AARCH64"); !e.empty()) return e;
  return support::installedFile("libexec/ttune/aarch64/ttune-worker").string();
}

}  // namespace

std::string WorkerCommand::describe() const {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return emulated ? s + " (emulated)" : s;
}

Expected<WorkerCommand> workerCommandFor(const schedule::Target& target) {
  WorkerCommand w;
  if (std::string remote = env("TTUNE_WORKER_COMMAND"); !remote.empty()) {
    w.argv = words(remote);
    w.argv.push_back("--stdio");
    w.stdio = true;
    w.shared_objects = true;
    return w;
  }
  Status here = codegen::runnable(target);
  if (here.ok()) {
    w.argv = {workerPath()};
    return w;
  }
  if (!codegen::isAArch64(target) || !codegen::isForeign(target)) return Unexpected(here.error());
  std::string worker = aarch64WorkerPath();
  if (!isFile(worker))
    return Unexpected(
        "code for " + target.name + " cannot run on this machine, and there is no AArch64 measurement worker at " +
        worker +
        " (build ttune with g++-aarch64-linux-gnu installed, or set TTUNE_WORKER_COMMAND to a worker on the device)");
  std::vector<std::string> emulator = words(env("TTUNE_EMULATOR"));
  if (emulator.empty()) emulator = {"qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"};
  if (findProgram(emulator[0]).empty())
    return Unexpected("code for " + target.name +
                      " cannot run on this machine: measure it on the device (TTUNE_WORKER_COMMAND, "
                      "docs/edge.md) or install QEMU user emulation (qemu-user) to check it emulated");
  w.argv = emulator;
  w.argv.push_back(worker);
  w.shared_objects = true;
  w.emulated = true;
  w.timeout_scale = 50;
  return w;
}

}  // namespace ttune::measure
