// Whether this CPU can run an exported model's kernels: the instruction-set features they were
// compiled for (LLVM names, e.g. "avx512f", "fma") checked with CPUID and, for AVX and AVX-512,
// the operating system's support for the wider registers (XGETBV). Without the check, a library
// exported for AVX-512 would die of SIGILL on an AVX2 machine. Features this check does not
// know (system features, and anything on non-x86 machines) are assumed present. Standard library
// only (compiled into exported runtimes).
#pragma once

#include <string>
#include <vector>

namespace ttune::deploy {

// The features of `required` this CPU lacks.
std::vector<std::string> missingCpuFeatures(const std::vector<std::string>& required);

}  // namespace ttune::deploy
