// The Winograd pass: every stride-1 3x3 NHWC convolution with constant weights and enough
// channels becomes input transform -> batched matrix product with the transformed filter (a
// constant, computed here) -> output transform (ops/winograd.h), F(4x4, 3x3): 4x fewer
// multiplications, at the price of the transforms' memory traffic. The matrix product is the
// kernel's anchor, so tuning and transfer treat it like any matmul; the output transform and the
// convolution's epilogue (bias, activation, residual add) follow it in the same kernel.
//
// Numerics: F(4x4, 3x3) rounds more than the direct sum (relative errors around 1e-6 to 1e-5 of
// the output's magnitude in float32), well inside the tolerances of the reference checks.
#pragma once

#include "graph/graph.h"

namespace ttune::graph {

struct WinogradOptions {
  int64_t tile = 4;          // output tile m of F(m x m, 3 x 3): 2 or 4
  int64_t min_channels = 16;  // convolutions with fewer input or output channels stay direct
};

// Returns how many convolutions were rewritten.
int useWinograd(Graph& g, const WinogradOptions& options = {});

}  // namespace ttune::graph
