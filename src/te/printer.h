// Human-readable printing of expressions and operations, e.g.
//   C[i, j] = sum(A[i, k] * B[k, j], axis=[k])
// Used in error messages, `ttune show-schedule`, tests and the structural hash's debug output.
#pragma once

#include <string>

#include "te/expr.h"
#include "te/tensor.h"

namespace ttune::te {

std::string toString(const Expr& e);
std::string toString(const Operation& op);

}  // namespace ttune::te
