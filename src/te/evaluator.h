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

}  // namespace ttune::te
