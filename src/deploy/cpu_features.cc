#include "deploy/cpu_features.h"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace ttune::deploy {

#if defined(__x86_64__) || defined(__i386__)

namespace {

enum Reg { EAX, EBX, ECX, EDX };
enum OsState { NoState, AvxState, Avx512State };

struct Bit {
  const char* name;
  unsigned leaf, subleaf;
  Reg reg;
  int bit;
  OsState state;
};

// LLVM's x86 feature names and their CPUID bits (Intel SDM vol. 2A, CPUID; AMD APM vol. 3).
constexpr Bit kBits[] = {
    {"sse", 1, 0, EDX, 25, NoState},
    {"sse2", 1, 0, EDX, 26, NoState},
    {"sse3", 1, 0, ECX, 0, NoState},
    {"ssse3", 1, 0, ECX, 9, NoState},
    {"sse4.1", 1, 0, ECX, 19, NoState},
    {"sse4.2", 1, 0, ECX, 20, NoState},
    {"popcnt", 1, 0, ECX, 23, NoState},
    {"fma", 1, 0, ECX, 12, AvxState},
    {"avx", 1, 0, ECX, 28, AvxState},
    {"f16c", 1, 0, ECX, 29, AvxState},
    {"bmi", 7, 0, EBX, 3, NoState},
    {"avx2", 7, 0, EBX, 5, AvxState},
    {"bmi2", 7, 0, EBX, 8, NoState},
    {"avx512f", 7, 0, EBX, 16, Avx512State},
    {"evex512", 7, 0, EBX, 16, Avx512State},
    {"avx512dq", 7, 0, EBX, 17, Avx512State},
    {"avx512ifma", 7, 0, EBX, 21, Avx512State},
    {"avx512cd", 7, 0, EBX, 28, Avx512State},
    {"avx512bw", 7, 0, EBX, 30, Avx512State},
    {"avx512vl", 7, 0, EBX, 31, Avx512State},
    {"avx512vbmi", 7, 0, ECX, 1, Avx512State},
    {"avx512vbmi2", 7, 0, ECX, 6, Avx512State},
    {"gfni", 7, 0, ECX, 8, NoState},
    {"vaes", 7, 0, ECX, 9, AvxState},
    {"vpclmulqdq", 7, 0, ECX, 10, AvxState},
    {"avx512vnni", 7, 0, ECX, 11, Avx512State},
    {"avx512bitalg", 7, 0, ECX, 12, Avx512State},
    {"avx512vpopcntdq", 7, 0, ECX, 14, Avx512State},
    {"avx512vp2intersect", 7, 0, EDX, 8, Avx512State},
    {"avx512fp16", 7, 0, EDX, 23, Avx512State},
    {"avxvnni", 7, 1, EAX, 4, AvxState},
    {"avx512bf16", 7, 1, EAX, 5, Avx512State},
    {"avxifma", 7, 1, EAX, 23, AvxState},
    {"lzcnt", 0x80000001, 0, ECX, 5, NoState},
    {"sse4a", 0x80000001, 0, ECX, 6, NoState},
    {"xop", 0x80000001, 0, ECX, 11, AvxState},
    {"fma4", 0x80000001, 0, ECX, 16, AvxState},
};

bool cpuid(unsigned leaf, unsigned subleaf, unsigned regs[4]) {
  unsigned max = __get_cpuid_max(leaf & 0x80000000u, nullptr);
  if (max < leaf) return false;
  __cpuid_count(leaf, subleaf, regs[0], regs[1], regs[2], regs[3]);
  return true;
}

// The register state the OS saves on context switches (XCR0), or 0 without OSXSAVE.
uint64_t osState() {
  unsigned r[4];
  if (!cpuid(1, 0, r) || !(r[ECX] & (1u << 27))) return 0;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

bool osSupports(OsState s, uint64_t xcr0) {
  if (s == NoState) return true;
  bool avx = (xcr0 & 0x6) == 0x6;  // SSE and AVX state
  if (s == AvxState) return avx;
  return avx && (xcr0 & 0xe0) == 0xe0;  // opmask, ZMM_Hi256, Hi16_ZMM
}

}  // namespace

std::vector<std::string> missingCpuFeatures(const std::vector<std::string>& required) {
  std::vector<std::string> missing;
  uint64_t xcr0 = osState();
  for (const std::string& f : required)
    for (const Bit& b : kBits) {
      if (f != b.name) continue;
      unsigned r[4] = {0, 0, 0, 0};
      bool has = cpuid(b.leaf, b.subleaf, r) && (r[b.reg] >> b.bit & 1u) && osSupports(b.state, xcr0);
      if (!has) missing.push_back(f);
    }
  return missing;
}

#elif defined(__aarch64__) && defined(__linux__)

namespace {

struct HwcapBit {
  const char* name;    // LLVM's AArch64 feature name
  unsigned long type;  // AT_HWCAP or AT_HWCAP2
  int bit;             // Linux's HWCAP_* / HWCAP2_* bit (arch/arm64/include/uapi/asm/hwcap.h)
};
constexpr HwcapBit kHwcaps[] = {
    {"fp-armv8", AT_HWCAP, 0}, {"neon", AT_HWCAP, 1},  {"fullfp16", AT_HWCAP, 10}, {"dotprod", AT_HWCAP, 20},
    {"sve", AT_HWCAP, 22},     {"sve2", AT_HWCAP2, 1}, {"i8mm", AT_HWCAP2, 13},    {"bf16", AT_HWCAP2, 14},
};

}  // namespace

std::vector<std::string> missingCpuFeatures(const std::vector<std::string>& required) {
  std::vector<std::string> missing;
  for (const std::string& f : required)
    for (const HwcapBit& b : kHwcaps)
      if (f == b.name && !(getauxval(b.type) >> b.bit & 1ul)) missing.push_back(f);
  return missing;
}

#else

std::vector<std::string> missingCpuFeatures(const std::vector<std::string>&) { return {}; }

#endif

}  // namespace ttune::deploy
