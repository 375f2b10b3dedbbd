// Targets by name, and what this machine can run.
//
// hostTarget() describes this machine (LLVM's host CPU and features, caches from the OS, online
// cores). resolveTarget() accepts "host", the x86-64 ISA levels "x86-64-v3" (AVX2 + FMA) and
// "x86-64-v4" (AVX-512), or any LLVM CPU name of this architecture ("znver3", "skylake-avx512",
// "haswell", ...); on an x86-64 machine also AArch64 targets: "aarch64" (generic NEON) or an LLVM
// AArch64 CPU name ("cortex-a53", "cortex-a72", "cortex-a76", "neoverse-n1", ...), whose caches and
// cores come from a table of common parts (flagged as assumed). Code for any of them can be compiled and inspected
// here; runnable() says whether this machine can execute it (every instruction-set feature the target enables is
// present on the host).
#pragma once

#include <string>
#include <vector>

#include "schedule/target.h"
#include "support/expected.h"

namespace ttune::codegen {

const schedule::Target& hostTarget();
// Registers this machine's LLVM backend and AArch64's (idempotent, thread-safe).
void initLLVMTargets();
bool isAArch64(const schedule::Target& target);
Expected<schedule::Target> resolveTarget(const std::string& name);
// Ok, or the reason (naming the missing features) this machine cannot run the target's code.
Status runnable(const schedule::Target& target);
// The instruction-set features the target enables that can appear in kernels (vector and
// bit-manipulation extensions): what a machine must have to run the target's code.
std::vector<std::string> kernelFeatures(const schedule::Target& target);
// A one-line description: "znver4 (avx512, 16 lanes, 32 registers; L1d 32 KiB, L2 1 MiB, L3 32 MiB, 2 cores)".
std::string describe(const schedule::Target& target);

}  // namespace ttune::codegen
