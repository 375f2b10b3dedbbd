// Fusion: partitions a graph into kernels, the units that are scheduled and compiled.
//
// Rules: an anchor (conv, dense, matmul) absorbs the chain of elementwise and injective ops after
// it; a reduction (pooling, softmax, normalization, reduce) does the same and is never fused into
// an anchor's kernel; chains of elementwise/injective ops fuse together. A chain continues while
// the current value has exactly one reader, is not a graph output, and the reader is elementwise
// or injective (injective readers with several non-constant inputs, like concat, start their own
// kernel).
//
// Each kernel has a class (the loop structure schedules refer to: its ops' names and axes, so two
// kernels of one class can exchange schedules), a workload key (the class plus every shape and
// constant, hashed; identifies a kernel across models) and a ComputeDAG whose inputs are named
// p0, p1, ... in order of first use (so the key does not depend on value names). Scalar constants
// are folded into the expression.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "te/compute_dag.h"

namespace ttune::graph {

struct Kernel {
  std::vector<int> nodes;    // node indices, in graph order
  std::vector<int> inputs;   // values read from outside the kernel, in DAG input order
  std::vector<int> outputs;  // values produced for readers outside, in DAG output order
  std::shared_ptr<const te::ComputeDAG> dag;
  std::string class_name;    // e.g. "pad+conv2d_nchw+add+relu"
  std::string class_id;      // hex hash of the loop-structure signature
  std::string workload_key;  // dag->workloadKey()
  // The output is the input reinterpreted, alias_offset_bytes into it: only reshapes, or a
  // contiguous slice (plus reshapes) of a value that other kernels produce or read too.
  bool alias_only = false;
  int64_t alias_offset_bytes = 0;
};

// Partitions a graph (after optimizeGraph) into kernels in an executable order.
std::vector<Kernel> partition(const Graph& g);

// The kernels worth tuning: distinct workloads (first occurrence kept, in order) that have a
// reduction. Element-wise and layout kernels keep their default schedule: tuning them buys
// little and costs trials.
struct TunableKernel {
  const Kernel* kernel;
  int occurrences;
};
std::vector<TunableKernel> tunableKernels(const std::vector<Kernel>& kernels);

// The class signature of a DAG: compute op names, axis names and kinds, the precision of
// reductions that do not compute in float32 (te::precisionTag), and the placeholders' ranks and
// constness, in order.
std::string classSignature(const te::ComputeDAG& dag);
// The op names joined by "+", a non-float32 reduction's with its precision: "conv2d_nhwc_u8s8+add+...".
std::string className(const te::ComputeDAG& dag);
// The operator an op or stage name stands for, as className spells it: without the "T_" prefix of
// element-wise and layout ops (ops/elementwise.h) and without the suffix of a renamed repeat
// ("pad.1", te/compute_dag.h) or of a stage a step derived ("conv.local", schedule/names.h).
std::string operatorName(std::string_view name);
// The class id: a hex hash of classSignature (Kernel::class_id).
std::string classId(const te::ComputeDAG& dag);

}  // namespace ttune::graph
