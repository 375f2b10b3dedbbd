// Plan: how a compiled model runs, as plain data -- the kernel calls in order, where each
// argument lives (a model input or output, a weight, or an offset into one workspace arena; an
// offset into an input, output or weight is a view, a contiguous slice of it) and the outputs
// that are copies rather than kernel results.
//
// The executor builds one when it compiles a model and runs it with runPlan; `ttune export`
// serializes the same plan into the exported library, whose runtime runs it with the same
// runPlan over the same kernels and packed weights. One interpreter for both is what makes an
// exported model's outputs bit-identical to the in-process executor's.
//
// Kernels write model outputs straight into the caller's output buffers. Buffers passed to one
// kernel call never overlap (runtime/abi.h); the memory plan guarantees it inside the workspace,
// the caller for its input and output buffers.
//
// This file and plan.cc use only the C++ standard library: they are compiled into the exported
// libraries' runtime (deploy/), which links neither LLVM nor the rest of ttune.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/abi.h"

namespace ttune::runtime {

// Size: a size parameter of a model compiled for ranges of sizes (graph/size_ranges.h), passed
// to kernels as a pointer to its int64 (runtime/abi.h); `index` into PlanBindings::sizes
// (runtime/range_plan.h holds the plans of such a model).
enum class BufferKind : uint8_t { Input = 0, Output = 1, Weight = 2, Workspace = 3, Size = 4 };

struct BufferRef {
  BufferKind kind = BufferKind::Workspace;
  uint32_t index = 0;   // input, output or weight index
  uint64_t offset = 0;  // byte offset into the buffer (a view: a contiguous slice of it)
  bool operator==(const BufferRef&) const = default;
};

// Element types; the numbering is the C API's (include/ttune/ttune_model.h) and te::DType's.
enum class ElemType : uint8_t {
  Float32 = 0,
  Int32 = 1,
  Int64 = 2,
  Bool = 3,
  Int8 = 4,
  UInt8 = 5,
  Int16 = 6,
  UInt16 = 7,
  UInt32 = 8,
  UInt64 = 9,
  Float64 = 10,
  Float16 = 11,
  BFloat16 = 12
};
int elemBytes(ElemType t);
const char* elemName(ElemType t);

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  ElemType dtype = ElemType::Float32;
  int64_t elements() const;
  int64_t bytes() const;
};

struct KernelCall {
  uint32_t kernel = 0;     // distinct kernel
  uint32_t first_arg = 0;  // into Plan::args: the kernel's inputs, then its outputs
  uint32_t num_args = 0;
};

// An output that no kernel writes (it is a model input, a weight, or another output's value).
struct OutputCopy {
  uint32_t output = 0;
  BufferRef source;
};

struct Plan {
  std::vector<TensorSpec> inputs, outputs;
  std::vector<int64_t> weight_bytes;  // every weight the calls read (constants, packed weights)
  int64_t workspace_bytes = 0;        // intermediates, at 64-byte aligned offsets (views inside them need not be)
  uint32_t num_kernels = 0;
  uint32_t num_sizes = 0;  // size parameters (BufferKind::Size)
  std::vector<BufferRef> args;
  std::vector<KernelCall> calls;
  std::vector<OutputCopy> copies;  // after the calls
};

// Empty when every index and offset is in range (a plan from a file is checked before use),
// else what is wrong.
std::string validatePlan(const Plan& plan);

// What a plan runs on: kernels[k] is distinct kernel k; weights[i] points to weight i
// (64-byte aligned); workspace holds workspace_bytes (64-byte aligned).
struct PlanBindings {
  const TtuneKernelFn* kernels = nullptr;
  void* const* weights = nullptr;
  char* workspace = nullptr;
  const void* const* inputs = nullptr;
  void* const* outputs = nullptr;
  const int64_t* sizes = nullptr;  // Plan::num_sizes values
};

void* resolve(const BufferRef& ref, const PlanBindings& b);
// Runs call `c` of the plan (for profiling and checking one call at a time).
void runCall(const Plan& plan, const PlanBindings& b, size_t c);
// The outputs that are copies (after the last call).
void runCopies(const Plan& plan, const PlanBindings& b);
// Every call in order, then the copies.
void runPlan(const Plan& plan, const PlanBindings& b);

// A compact little-endian byte image of a plan, and back. parsePlan checks the format (never
// reads out of bounds) and validatePlan; on failure it returns false with the reason.
void serializePlan(const Plan& plan, std::string& out);
bool parsePlan(const char*& data, const char* end, Plan& plan, std::string& error);

}  // namespace ttune::runtime
