// Test helpers: compile a State, run it on seeded random inputs and compare with the reference
// evaluator.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "lower/lower.h"
#include "runtime/ndarray.h"
#include "schedule/state.h"

namespace ttune::testing {

struct CheckResult {
  bool built = false;
  std::string error;  // lowering / compile failure
  runtime::Comparison cmp;
  std::string lowered;  // the loop IR, for failure messages
};

// Random inputs for every DAG input (integers in [0, int_hi) for integer tensors).
std::vector<runtime::NDArray> randomInputs(const te::ComputeDAG& dag, uint64_t seed, int64_t int_hi = 4);
// Random inputs over the whole range of each integer type (floats in [-3, 3)): what exposes
// wrong widening, saturation or signedness in integer code.
std::vector<runtime::NDArray> fullRangeInputs(const te::ComputeDAG& dag, uint64_t seed);
// Reference outputs from the evaluator.
std::vector<runtime::NDArray> referenceOutputs(const te::ComputeDAG& dag, const std::vector<runtime::NDArray>& inputs);
// Lowers, compiles and runs the state; compares all outputs with the reference on the state's
// original DAG (layout-rewritten weights are packed first).
CheckResult checkState(const schedule::State& state, uint64_t seed = 1, double atol = 1e-4, double rtol = 1e-4);

// Checks many schedules of one DAG against one reference computation.
class Checker {
 public:
  explicit Checker(std::shared_ptr<const te::ComputeDAG> dag, uint64_t seed = 1);
  // With the caller's inputs (one per DAG input, in order), e.g. integers over a type's range.
  Checker(std::shared_ptr<const te::ComputeDAG> dag, std::vector<runtime::NDArray> inputs);
  // Lowered with `lowering`, by default as kernels for `target` are (lower::lowerOptionsFor).
  CheckResult check(const schedule::State& state, int opt_level = 3, double atol = 1e-4, double rtol = 1e-4,
                    const std::optional<lower::LowerOptions>& lowering = {},
                    const schedule::Target& target = codegen::hostTarget()) const;

 private:
  std::shared_ptr<const te::ComputeDAG> dag_;
  std::vector<runtime::NDArray> inputs_, expected_;
};

// The assembly of `dag` with its default schedule for `target` (any target: nothing runs), with
// the loop IR for failure messages; the reason when a step fails.
struct DefaultCode {
  std::string assembly, lowered;
};
Expected<DefaultCode> defaultScheduleAssembly(std::shared_ptr<const te::ComputeDAG> dag,
                                              const schedule::Target& target);

// The x86-64 ISA levels every code-generation test covers: AVX2 (x86-64-v3) and AVX-512
// (x86-64-v4), whichever this machine is; tests skip (visibly) the ones it cannot run.
std::vector<schedule::Target> isaTargets();
// Empty when this machine runs the target's code, else the reason to skip.
std::string skipReason(const schedule::Target& target);

}  // namespace ttune::testing
