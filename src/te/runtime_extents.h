// Run-time extents: one compiled kernel for a range of sizes.
//
// A kernel for sizes in a range is the kernel built at the range's largest size whose axes that
// follow a size carry a run-time extent (te::IterVar::runtime_extent), an expression of size
// parameters (Vars such as "seq") passed to the compiled kernel with its tensors. Its tensors keep
// the layout of the largest size, so every index expression stays the one of that size; the
// kernel computes and combines only the indices below each run-time extent. That is the kernel
// built at the smaller size exactly when each of its expressions agrees with the largest size's
// on the smaller domain (graph/: the model is checked for it at several sizes).
#pragma once

#include <functional>
#include <vector>

#include "te/compute_dag.h"

namespace ttune::te {

// The DAG with run-time extents on its axes: `extents(op_index)` gives, for compute op
// `op_index` of `dag`, one expression per axis (spatial, then reduce; undefined = fixed size), or
// an empty vector when none of its axes has one. Ops keep their names, Vars and bodies, except
// that `bodies(op_index)` (optional), when defined, replaces an op's body: the same computation on
// its domain written with size parameters (Vars of the sizes in place of constants that follow
// them; its reads name `dag`'s tensors, its axes the op's). Throws Error when an extent's
// constant bound exceeds its axis's extent.
ComputeDAG withRuntimeExtents(const ComputeDAG& dag, const std::function<std::vector<Expr>(int)>& extents,
                              const std::function<Expr(int)>& bodies = {});

// The run-time extents of each axis of `op` (spatial then reduce; undefined = fixed), as
// withRuntimeExtents takes them.
std::vector<Expr> runtimeExtentsOf(const Operation& op);

// True when some axis of the DAG has a run-time extent.
bool hasRuntimeExtents(const ComputeDAG& dag);

}  // namespace ttune::te
