#include "codegen/toolchain.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm/TargetParser/Triple.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "codegen/target.h"
#include "support/strings.h"

extern char** environ;

namespace ttune::codegen {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}

bool hostIsAArch64() { return llvm::Triple(hostTarget().triple).isAArch64(); }

}  // namespace

bool isForeign(const schedule::Target& t) {
  return llvm::Triple(t.triple).getArch() != llvm::Triple(hostTarget().triple).getArch();
}

std::string linkerDriver(const schedule::Target& t, const std::string& override) {
  if (!override.empty()) return override;
  if (isAArch64(t) && !hostIsAArch64()) {
    if (std::string e = env("TTUNE_AARCH64_CXX"); !e.empty()) return e;
#ifdef TTUNE_AARCH64_CXX_DEFAULT
    return TTUNE_AARCH64_CXX_DEFAULT;
#else
    return "aarch64-linux-gnu-g++";
#endif
  }
  if (std::string e = env("CXX"); !e.empty()) return e;
  return "c++";
}

std::string binutil(const schedule::Target& t, const std::string& tool) {
  return isAArch64(t) && !hostIsAArch64() ? "aarch64-linux-gnu-" + tool : tool;
}

Status runTool(const std::vector<std::string>& args, const std::string& dir, const std::string& what) {
  std::string log = (fs::path(dir) / "tool.log").string();
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    return Unexpected(
        what + " needs '" + args[0] + "' on this machine, which cannot be run (" + std::strerror(rc) +
        "); install a C/C++ toolchain for the target (build-essential; g++-aarch64-linux-gnu for AArch64), or name "
        "a compiler with --cc or $CXX / $TTUNE_AARCH64_CXX");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return okStatus();
  std::ifstream in(log);
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (out.size() > 2000) out = out.substr(0, 2000) + "...";
  return Unexpected(what + " failed (" + join(args, " ", [](const std::string& a) { return a; }) + "): " + trim(out));
}

Expected<ObjectCode> linkSharedObject(const ObjectCode& object, const schedule::Target& t) {
  std::string base = (fs::temp_directory_path() / "ttune-link-XXXXXX").string();
  if (!mkdtemp(base.data()))
    return Unexpected(std::string("cannot create a directory to link a kernel in: ") + std::strerror(errno));
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{base};
  fs::path obj = fs::path(base) / "k.o", so = fs::path(base) / "k.so";
  {
    std::ofstream f(obj, std::ios::binary);
    f.write(object.bytes.data(), static_cast<std::streamsize>(object.bytes.size()));
    if (!f) return Unexpected("cannot write the kernel's object code to " + obj.string());
  }
  // No C library or start files: a kernel calls only the runtime (and the math library), which the
  // loading worker provides.
  Status st = runTool({linkerDriver(t), "-shared", "-nostdlib", "-o", so.string(), obj.string()}, base,
                      "linking kernel " + object.entry + " for " + t.name);
  if (!st.ok()) return Unexpected(st.error());
  std::ifstream in(so, std::ios::binary);
  ObjectCode out;
  out.entry = object.entry;
  out.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (out.bytes.empty()) return Unexpected("linking kernel " + object.entry + " produced no shared object");
  return out;
}

}  // namespace ttune::codegen
