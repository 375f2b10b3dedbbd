// Code generation: loop IR -> LLVM IR -> optimized machine code for a target (target.h; this
// machine by default).
//
// compile() is thread-safe (each call uses its own LLVM context) and returns relocatable object
// code whose entry symbol follows the kernel calling convention of runtime/abi.h. The object can
// be loaded into this process (jit.h) or shipped to a measurement worker and loaded there.
//
// Vectorized loops become LLVM vector operations (contiguous loads/stores, gathers/scatters with
// masks under lane-dependent conditions); parallel loops are outlined and run on the thread pool;
// unrolled loops are replicated. A vectorized loop whose body cannot run lane-parallel (a store
// not indexed by the vector lane, a buffer allocated per iteration) is unrolled lane by lane.
#pragma once

#include <string>
#include <vector>

#include "codegen/target.h"
#include "lower/loop_ir.h"
#include "support/expected.h"

namespace ttune::codegen {

struct ObjectCode {
  std::string entry;        // symbol of the kernel
  std::vector<char> bytes;  // ELF relocatable object
};

struct CompileOptions {
  int opt_level = 3;
  schedule::Target target = hostTarget();
};

Expected<ObjectCode> compile(const lower::LoweredFunc& func, const CompileOptions& options = {});
// The optimized LLVM IR as text (for debugging and `ttune show-schedule --llvm`).
Expected<std::string> emitLLVMIR(const lower::LoweredFunc& func, bool optimized = true,
                                 const schedule::Target& target = hostTarget());
// The target's assembly (for `ttune show-schedule --asm`): how the register tiles were allocated.
Expected<std::string> emitAssembly(const lower::LoweredFunc& func, const schedule::Target& target = hostTarget());

}  // namespace ttune::codegen
