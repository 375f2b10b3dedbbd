// ComputeDAG: the tensor program of one kernel. Its arguments are the input placeholders (in the
// given order) followed by the outputs; its ops are every operation reachable from the outputs, in
// a deterministic topological order (producers before consumers). Op names are unique within a
// DAG (the constructor renames clashes "x", "x.1", ...): schedules refer to stages by op name.
//
// Hashes: structuralHash() covers op kinds, names, axis names and kinds and the shape of every
// expression tree but no extent, shape or numeric constant, so one operator at other sizes hashes
// equal while a different structure (relu vs relu6, another fused op) differs. exactHash() covers
// everything, run-time extents included; the workload key combines both.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "te/tensor.h"

namespace ttune::te {

class ComputeDAG {
 public:
  ComputeDAG() = default;
  // Throws Error if an output depends on a placeholder that is not listed in `inputs`.
  ComputeDAG(std::vector<Tensor> inputs, std::vector<Tensor> outputs);

  const std::vector<Tensor>& inputs() const { return inputs_; }
  const std::vector<Tensor>& outputs() const { return outputs_; }
  // Kernel arguments: inputs then outputs.
  const std::vector<Tensor>& tensors() const { return tensors_; }
  // Every op, producers first.
  const std::vector<Tensor>& ops() const { return ops_; }
  int numOps() const { return static_cast<int>(ops_.size()); }
  const Operation& op(int i) const { return ops_[i].op(); }
  // Index of the op named `name` in ops(), or -1.
  int opIndex(const std::string& name) const;
  int opIndex(const Operation* op) const;
  // Direct producers / consumers (indices into ops()).
  const std::vector<int>& producers(int op) const { return producers_[op]; }
  const std::vector<int>& consumers(int op) const { return consumers_[op]; }
  bool isOutput(int op) const;
  // Position of op in tensors() (argument index), or -1 for intermediates.
  int argIndex(int op) const;

  // The size parameters the run-time extents of its axes use (te::IterVar), and any other Var an
  // op mentions that is none of its axes, ordered by name: scalar arguments of the compiled kernel
  // after its tensors. Empty for a kernel of fixed sizes.
  const std::vector<Var>& sizeParams() const { return size_params_; }

  // Floating-point operations of one execution (multiply-add counts 2).
  double flops() const { return flops_; }
  uint64_t structuralHash() const { return structural_hash_; }
  uint64_t exactHash() const { return exact_hash_; }
  // "<structural hash>-<exact hash>" in hex: identifies the kernel including all shapes.
  std::string workloadKey() const;
  // One op per line, producers first.
  std::string toString() const;

 private:
  void collectSizeParams();
  void computeHashes();

  std::vector<Tensor> inputs_, outputs_, tensors_, ops_;
  std::vector<Var> size_params_;
  std::unordered_map<std::string, int> by_name_;
  std::unordered_map<const Operation*, int> by_ptr_;
  std::vector<std::vector<int>> producers_, consumers_;
  double flops_ = 0;
  uint64_t structural_hash_ = 0, exact_hash_ = 0;
};

// FLOPs of one compute op: elements x (float ops per element, reductions counting the combine).
double opFlops(const Operation& op);

// The operand precision of a reduction that does not compute in float32: the element types of
// the tensors its summand reads, in order of first read, e.g. "u8s8" (an int8 convolution's
// unsigned activations times signed weights) or "bf16"; empty for float32 (and non-reductions).
// Part of a kernel's class (graph/fusion.h): precision is structure, not shape.
std::string precisionTag(const Operation& op);
// What a DAG's reductions compute in: "int8" when one multiplies 8-bit integers, "bf16" when one
// multiplies bfloat16 values, else "fp32" (what `ttune inspect` reports per kernel).
std::string computePrecision(const ComputeDAG& dag);

}  // namespace ttune::te
