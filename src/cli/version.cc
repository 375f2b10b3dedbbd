#include "cli/version.h"

#include <llvm/Config/llvm-config.h>
#include <xgboost/c_api.h>

#include <fstream>

#include "cli/build_info.h"
#include "codegen/target.h"
#include "measure/runner.h"
#include "runtime/thread_pool.h"
#include "store/seed.h"
#include "support/strings.h"
#include "support/version.h"

namespace ttune::cli {

namespace {

// The processor's marketing name ("AMD EPYC 9R14"), which LLVM's CPU name ("znver4") does not
// give; empty where the kernel does not report one (most Arm boards).
std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (!startsWith(line, "model name")) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(colon + 1);
    const size_t first = name.find_first_not_of(" \t");
    return first == std::string::npos ? "" : name.substr(first);
  }
  return "";
}

std::string compilerName() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

}  // namespace

Json versionJson() {
  int xgb_major = 0, xgb_minor = 0, xgb_patch = 0;
  XGBoostVersion(&xgb_major, &xgb_minor, &xgb_patch);
  const schedule::Target& t = codegen::hostTarget();
  Json host{{"cpu_name", cpuModelName()},
            {"llvm_cpu", t.cpu},
            {"triple", t.triple},
            {"isa", schedule::isaName(t.isa)},
            {"features", codegen::kernelFeatures(t)},
            {"vector_bits", t.vector_bits},
            {"float32_lanes", t.lanes()},
            {"vector_registers", t.vector_registers},
            {"int8_dot_group", t.int8_group},
            {"bf16_dot_group", t.bf16_group},
            {"l1d_bytes", t.l1d_bytes},
            {"l2_bytes", t.l2_bytes},
            {"l3_bytes", t.l3_bytes},
            {"caches_measured", t.caches_measured},
            {"cores", t.cores},
            {"default_threads", runtime::defaultNumThreads()},
            {"description", codegen::describe(t)}};
  return Json{{"version", TTUNE_VERSION},
              {"commit", TTUNE_GIT_COMMIT},
              {"build_type", TTUNE_BUILD_TYPE},
              {"compiler", compilerName()},
              {"llvm", LLVM_VERSION_STRING},
              {"xgboost", strFormat("%d.%d.%d", xgb_major, xgb_minor, xgb_patch)},
              {"host", host},
              {"measurement_worker", measure::workerPath()},
              {"default_bank", store::defaultBankPath()},
              {"shipped_bank", store::shippedBankDir()}};
}

std::string versionText(const Json& v) {
  const Json& h = v["host"];
  std::string cpu = h["cpu_name"].get<std::string>();
  std::string out = "ttune " + v["version"].get<std::string>() + " (commit " + v["commit"].get<std::string>() + ", " +
                    v["build_type"].get<std::string>() + " build, " + v["compiler"].get<std::string>() + ")\n";
  out += "  LLVM " + v["llvm"].get<std::string>() + ", XGBoost " + v["xgboost"].get<std::string>() + "\n";
  out += "  host: " + (cpu.empty() ? std::string() : cpu + ", ") + h["description"].get<std::string>() + "\n";
  out += "  features: " + join(h["features"], " ", [](const Json& f) { return f.get<std::string>(); }) + "\n";
  out += "  int8 dot group " + std::to_string(h["int8_dot_group"].get<int>()) + ", bf16 dot group " +
         std::to_string(h["bf16_dot_group"].get<int>()) + ", " + std::to_string(h["default_threads"].get<int>()) +
         " threads by default\n";
  out += "  measurement worker: " + v["measurement_worker"].get<std::string>() + "\n";
  out += "  default bank: " + v["default_bank"].get<std::string>() + "\n";
  const std::string shipped = v["shipped_bank"].get<std::string>();
  out += "  shipped bank: " + (shipped.empty() ? std::string("none found") : shipped) + "\n";
  return out;
}

}  // namespace ttune::cli
