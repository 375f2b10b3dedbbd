// bfloat16 compute: the convolutions, dense layers and matrix products of a float32 model take
// bfloat16 operands and accumulate in float32, as PyTorch's bf16 autocast and oneDNN's bf16
// primitives do. Each operand of such an anchor is cast to bfloat16 (rounded to nearest even):
// constant weights once, here (half the bytes to stream), activations by a cast node that fusion
// puts into the producing kernel's epilogue when the anchor is its only reader. The anchor's
// output, and everything else in the model, stays float32. Depthwise convolutions keep float32:
// they stream each weight once per pixel row, with no dot-product unit to gain.
//
// The kernels compute exactly what the graph says (bfloat16 products are exact in float32); the
// error against the float32 model is that of rounding the operands, which `ttune run --check
// --precision bf16` reports.
#pragma once

#include "graph/graph.h"

namespace ttune::graph {

// Rewrites the float32 anchors of g; returns how many.
int useBf16(Graph& g);

}  // namespace ttune::graph
