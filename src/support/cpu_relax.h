// cpuRelax(): the spin-wait hint of the architecture (x86 PAUSE, AArch64 YIELD), for busy-wait
// loops that another core ends; a no-op elsewhere. Header-only: the exported runtime uses it.
#pragma once

namespace ttune {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
}

}  // namespace ttune
