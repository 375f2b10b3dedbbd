#include "codegen/target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>

#include "support/assert.h"
#include "support/strings.h"

namespace ttune::codegen {

void initLLVMTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    // This machine's architecture, and AArch64 for cross-compiled code (edge boards, Arm servers).
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeAArch64AsmParser();
  });
}

using schedule::Isa;
using schedule::Target;

namespace {

void initNative() { initLLVMTargets(); }

std::string readLine(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

// "32K", "1024K", "32M" -> bytes; 0 when unreadable.
int64_t parseCacheSize(const std::string& s) {
  if (s.empty()) return 0;
  int64_t n = 0;
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) n = n * 10 + (s[i++] - '0');
  if (i < s.size() && (s[i] == 'K' || s[i] == 'k'))
    n <<= 10;
  else if (i < s.size() && (s[i] == 'M' || s[i] == 'm'))
    n <<= 20;
  else if (i < s.size() && (s[i] == 'G' || s[i] == 'g'))
    n <<= 30;
  return n;
}

// Caches of cpu0 from sysfs (Linux), falling back to glibc's sysconf; the Target defaults stay
// (flagged as assumed) when neither tells.
void readCaches(Target& t) {
  bool l1 = false, l2 = false, l3 = false;
  for (int i = 0; i < 8; ++i) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::string level = readLine(dir + "level");
    if (level.empty()) break;
    std::string type = readLine(dir + "type");
    int64_t size = parseCacheSize(readLine(dir + "size"));
    if (size <= 0 || type == "Instruction") continue;
    if (level == "1") {
      t.l1d_bytes = size, l1 = true;
      if (int ways = std::atoi(readLine(dir + "ways_of_associativity").c_str()); ways > 0) t.l1d_ways = ways;
    } else if (level == "2")
      t.l2_bytes = size, l2 = true;
    else if (level == "3")
      t.l3_bytes = size, l3 = true;
  }
#ifdef _SC_LEVEL1_DCACHE_SIZE
  if (!l1 && sysconf(_SC_LEVEL1_DCACHE_SIZE) > 0) {
    t.l1d_bytes = sysconf(_SC_LEVEL1_DCACHE_SIZE), l1 = true;
#ifdef _SC_LEVEL1_DCACHE_ASSOC
    if (sysconf(_SC_LEVEL1_DCACHE_ASSOC) > 0) t.l1d_ways = static_cast<int>(sysconf(_SC_LEVEL1_DCACHE_ASSOC));
#endif
  }
  if (!l2 && sysconf(_SC_LEVEL2_CACHE_SIZE) > 0) t.l2_bytes = sysconf(_SC_LEVEL2_CACHE_SIZE), l2 = true;
  if (!l3 && sysconf(_SC_LEVEL3_CACHE_SIZE) > 0) t.l3_bytes = sysconf(_SC_LEVEL3_CACHE_SIZE), l3 = true;
#endif
  t.caches_measured = l1 && l2;
}

int onlineCores() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

const llvm::StringMap<bool>& hostFeatures() {
  static llvm::StringMap<bool> f = [] {
    initNative();
    return llvm::sys::getHostCPUFeatures();
  }();
  return f;
}

// The subtarget of (cpu, features) on this machine's architecture, or null for an unknown CPU.
std::unique_ptr<llvm::MCSubtargetInfo> subtarget(const std::string& triple, const std::string& cpu,
                                                 const std::string& features) {
  initNative();
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target) return nullptr;
  // Validate the name on the generic subtarget first: LLVM warns on stderr about unknown CPUs.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(target->createMCSubtargetInfo(triple, "", ""));
  if (!generic || !generic->isCPUStringValid(cpu)) return nullptr;
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(triple, cpu, features));
  return sti;
}

bool enabled(const llvm::MCSubtargetInfo& sti, const std::string& feature) { return sti.checkFeatures("+" + feature); }

// ISA level, vector width and register file from the features the target enables.
void classify(Target& t, const llvm::MCSubtargetInfo& sti) {
  bool x86 = llvm::StringRef(t.triple).starts_with("x86_64");
  if (x86 && enabled(sti, "avx512f") && enabled(sti, "avx512vl") && enabled(sti, "avx512bw") &&
      enabled(sti, "avx512dq"))
    t.isa = Isa::Avx512;
  else if (x86 && enabled(sti, "avx2") && enabled(sti, "fma"))
    t.isa = Isa::Avx2;
  else if (x86 && enabled(sti, "sse4.2"))
    t.isa = Isa::Sse;
  else if (!x86 && enabled(sti, "neon"))
    t.isa = Isa::Neon;
  else
    t.isa = Isa::Scalar;
  t.vector_bits = schedule::isaVectorBits(t.isa);
  t.vector_registers = schedule::isaVectorRegisters(t.isa);
  t.fma = x86 ? enabled(sti, "fma") : t.isa == Isa::Neon;
  if (x86) {
    bool vnni = (t.isa == Isa::Avx512 && enabled(sti, "avx512vnni")) || (t.isa == Isa::Avx2 && enabled(sti, "avxvnni"));
    t.int8_group = vnni ? 4 : t.isa == Isa::Scalar ? 1 : 2;
    t.bf16_group = t.isa == Isa::Avx512 && enabled(sti, "avx512bf16") ? 2 : 1;
  } else {
    t.int8_group = t.isa == Isa::Neon && enabled(sti, "dotprod") ? 4 : 1;
  }
}

Target machineDefaults() {
  Target t;
  t.triple = llvm::sys::getProcessTriple();
  readCaches(t);
  t.cores = onlineCores();
  return t;
}

}  // namespace

const Target& hostTarget() {
  static Target host = [] {
    Target t = machineDefaults();
    t.name = "host";
    t.cpu = llvm::sys::getHostCPUName().str();
    std::string f;
    for (const auto& kv : hostFeatures()) {
      if (!f.empty()) f += ",";
      f += (kv.second ? "+" : "-") + kv.first().str();
    }
    t.features = f;
    auto sti = subtarget(t.triple, t.cpu, t.features);
    if (!sti) sti = subtarget(t.triple, "generic", t.features);
    if (sti) classify(t, *sti);
    return t;
  }();
  return host;
}

namespace {

constexpr const char* kAArch64Triple = "aarch64-unknown-linux-gnu";

// Caches and cores of common AArch64 parts, from their technical reference manuals and the boards
// that carry them (Raspberry Pi 3/4/5, Graviton2/3). A cross target cannot read the device's
// caches, so these stay flagged as assumptions; parts without an L3 give their shared L2 as L3.
struct ArmPart {
  const char* cpu;
  int64_t l1d, l2, l3;
  int l1d_ways, cores;
};
constexpr ArmPart kArmParts[] = {
    {"generic", 32 << 10, 512 << 10, 512 << 10, 4, 4},  {"cortex-a53", 32 << 10, 512 << 10, 512 << 10, 4, 4},
    {"cortex-a55", 32 << 10, 256 << 10, 1 << 20, 4, 4}, {"cortex-a72", 32 << 10, 1 << 20, 1 << 20, 2, 4},
    {"cortex-a76", 64 << 10, 512 << 10, 2 << 20, 4, 4}, {"neoverse-n1", 64 << 10, 1 << 20, 32 << 20, 4, 4},
    {"neoverse-v1", 64 << 10, 1 << 20, 32 << 20, 4, 4},
};

// The AArch64 features that change tensor code, spelled out on or off for every target so that
// an export records what the device must have ("dot-product / i8mm / SVE recorded, used only
// where enabled": ttune's kernels use NEON; the others are carried for the CPU check).
constexpr const char* kArmKernelFeatures[] = {"neon", "fp-armv8", "fullfp16", "dotprod", "i8mm", "bf16", "sve", "sve2"};

Target aarch64Target(const std::string& name, const std::string& cpu, const llvm::MCSubtargetInfo& sti) {
  Target t;
  t.name = name;
  t.triple = kAArch64Triple;
  t.cpu = cpu;
  classify(t, sti);
  std::string f;
  for (const char* feature : kArmKernelFeatures)
    f += std::string(f.empty() ? "" : ",") + (enabled(sti, feature) ? "+" : "-") + feature;
  t.features = f;
  const ArmPart* part = &kArmParts[0];
  for (const ArmPart& p : kArmParts)
    if (cpu == p.cpu) part = &p;
  t.l1d_bytes = part->l1d;
  t.l1d_ways = part->l1d_ways;
  t.l2_bytes = part->l2;
  t.l3_bytes = part->l3;
  t.cores = part->cores;
  t.caches_measured = false;
  return t;
}

}  // namespace

bool isAArch64(const Target& t) { return llvm::Triple(t.triple).isAArch64(); }

Expected<Target> resolveTarget(const std::string& name) {
  if (name.empty() || name == "host") return hostTarget();
  const bool host_arm = llvm::Triple(hostTarget().triple).isAArch64();
  if (name == "aarch64" || name == "armv8-a" || name == "arm64") {
    if (host_arm) return resolveTarget("generic");
    auto sti = subtarget(kAArch64Triple, "generic", "");
    TT_ASSERT(sti, "LLVM has no generic AArch64 subtarget");
    return aarch64Target(name, "generic", *sti);
  }
  Target t = machineDefaults();
  t.name = name;
  t.cpu = name;
  auto sti = subtarget(t.triple, t.cpu, "");
  if (!sti) {
    // Not a CPU of this machine's architecture: an AArch64 part, compiled for here and run on the
    // device (export) or through an AArch64 measurement worker (docs/edge.md).
    if (!host_arm) {
      if (auto arm = subtarget(kAArch64Triple, name, "")) return aarch64Target(name, name, *arm);
    }
    return Unexpected("unknown target '" + name +
                      "': use host, x86-64-v3 (AVX2), x86-64-v4 (AVX-512), an LLVM CPU name of " + t.triple +
                      " (e.g. znver3, skylake-avx512, haswell), aarch64 (generic NEON) or an AArch64 CPU name (" +
                      "cortex-a53, cortex-a72, cortex-a76, neoverse-n1, ...)");
  }
  classify(t, *sti);
  // Spell out the features the CPU implies, so every function carries them explicitly.
  std::string f;
  for (const auto& kv : hostFeatures()) {
    if (!f.empty()) f += ",";
    f += (enabled(*sti, kv.first().str()) ? "+" : "-") + kv.first().str();
  }
  t.features = f;
  return t;
}

namespace {

// Features that change the instructions generated for tensor code (vector and bit-manipulation
// extensions). System features a CPU may lack or a hypervisor may hide (pku, mwaitx, rdpru, ...)
// never appear in kernels, so they do not make a target unrunnable.
bool affectsKernels(const std::string& f) {
  for (const char* p : {"sse", "ssse", "avx", "fma", "f16c", "bmi", "lzcnt", "popcnt", "amx", "evex512", "neon", "sve",
                        "fp16", "fullfp16", "dotprod", "i8mm", "bf16"})
    if (f.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace

std::vector<std::string> kernelFeatures(const Target& t) {
  std::vector<std::string> out;
  for (const std::string& f : split(t.features, ','))
    if (f.size() >= 2 && f[0] == '+' && affectsKernels(f.substr(1))) out.push_back(f.substr(1));
  std::sort(out.begin(), out.end());
  return out;
}

Status runnable(const Target& t) {
  if (t.triple != hostTarget().triple)
    return Unexpected("code for target " + t.name + " (" + t.triple + ") cannot run on this " + hostTarget().triple +
                      " machine (export it with --target, or measure it on an AArch64 worker: docs/edge.md)");
  std::vector<std::string> missing;
  for (const std::string& f : kernelFeatures(t)) {
    auto it = hostFeatures().find(f);
    if (it != hostFeatures().end() && !it->second) missing.push_back(f);
  }
  if (missing.empty()) return okStatus();
  std::string list;
  for (size_t i = 0; i < missing.size() && i < 6; ++i) list += (i ? ", " : "") + missing[i];
  if (missing.size() > 6) list += ", ...";
  return Unexpected("this machine (" + hostTarget().cpu + ") cannot run code for target " + t.name + ": it lacks " +
                    list + " (compile and inspect it with show-schedule --llvm, or choose --target host)");
}

std::string describe(const Target& t) {
  auto kib = [](int64_t b) {
    return b >= (1 << 20) && b % (1 << 20) == 0 ? std::to_string(b >> 20) + " MiB" : std::to_string(b >> 10) + " KiB";
  };
  std::ostringstream os;
  os << t.cpu << " (" << schedule::isaName(t.isa) << ", " << t.lanes() << " lanes, " << t.vector_registers
     << " registers; L1d " << kib(t.l1d_bytes) << ", L2 " << kib(t.l2_bytes) << ", L3 " << kib(t.l3_bytes)
     << (t.caches_measured ? "" : " assumed") << ", " << t.cores << (t.cores == 1 ? " core)" : " cores)");
  return os.str();
}

}  // namespace ttune::codegen
