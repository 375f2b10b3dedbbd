// Whether this CPU can run an exported model's kernels: the instruction-set features they were
// compiled for (LLVM names, e.g. "avx512f", "fma") checked with CPUID and, for AVX and AVX-512,
// the operating system's support for the wider registers (XGETBV); on AArch64 Linux the kernel's
// HWCAP bits ("neon", "dotprod", "i8mm", "sve", ...). Without the check, a library exported for
// AVX-512 would die of SIGILL on an AVX2 machine. Features this check does not know (system
// features, another architecture's names) are assumed present. Standard library
// only (compiled into exported runtimes).
#pragma once

#include <string>
#include <vector>

namespace ttune::deploy {

// The features of `required` this CPU lacks.
std::vector<std::string> missingCpuFeatures(const std::vector<std::string>& required);

}  // namespace ttune::deploy
