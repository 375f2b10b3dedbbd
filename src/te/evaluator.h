// The naive reference evaluator: computes a ComputeDAG directly from its definition, one output
// element at a time, with bounds-checked reads. It is the correctness oracle for every operator,
// schedule and compiled kernel; it is meant to be obviously right, not fast.
//
// Buffers follow the kernel calling convention: args[i] points to dag.tensors()[i], dense
// row-major, of that tensor's dtype (Bool as one byte). Intermediates are allocated internally.
#pragma once

#include <vector>

#include "te/compute_dag.h"

namespace ttune::te {

void evaluate(const ComputeDAG& dag, const std::vector<void*>& args);

// Evaluates only the given elements of output `output` (points are index vectors), computing
// intermediate elements on demand (memoized). Reads still come from args (inputs only; output
// buffers may be null). Meant for checking big kernels on a sample of their outputs.
std::vector<double> evaluateAt(const ComputeDAG& dag, const std::vector<void*>& args, int output,
                               const std::vector<std::vector<int64_t>>& points);

}  // namespace ttune::te
