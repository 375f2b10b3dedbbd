// The external tools that turn a target's object code into something a machine loads: the C/C++
// driver that links it (this machine's `c++`, or $CXX, for its own architecture; Debian's AArch64
// cross driver for AArch64 code compiled here) and the binutils of that architecture. Exports
// link libraries with them; the builder links one kernel into a shared object for a measurement
// worker that has no LLVM (a cross-built worker on a device or under an emulator).
#pragma once

#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "support/expected.h"

namespace ttune::codegen {

// Whether `t`'s code is for another architecture than this machine's.
bool isForeign(const schedule::Target& t);
// The linker driver for `t`: `override` when given; for foreign AArch64 code $TTUNE_AARCH64_CXX,
// else the cross driver found when ttune was built, else aarch64-linux-gnu-g++; for this
// machine's code $CXX, else c++.
std::string linkerDriver(const schedule::Target& t, const std::string& override = "");
// The binutils program `tool` ("objcopy", "ar") for `t`'s architecture ("aarch64-linux-gnu-ar").
std::string binutil(const schedule::Target& t, const std::string& tool);
// Runs argv in `dir`, output to a log there; Ok, or "<what> failed (<command>): <output>".
Status runTool(const std::vector<std::string>& argv, const std::string& dir, const std::string& what);
// One kernel's object code linked into a shared object (ELF ET_DYN) exporting its entry symbol;
// runtime functions (ttune_parallel_for, ...) stay undefined, resolved by the loading worker.
Expected<ObjectCode> linkSharedObject(const ObjectCode& object, const schedule::Target& t);

}  // namespace ttune::codegen
