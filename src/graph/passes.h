// Graph passes run before fusion, in this order by optimizeGraph():
//   foldConstants     nodes whose inputs are all constants become constants (the exporters'
//                     shape arithmetic, constant transposes);
//   foldBatchNorm     conv -> [add bias] -> batch_norm becomes conv with scaled weights -> add
//                     bias (inference statistics are constants);
//   dropPaddingTaps   convolution taps that read only padding go (a dilated 3x3 on a map smaller
//                     than its dilation becomes a 1x1; graph/padding_taps.h);
//   splitConvRegions  a convolution whose taps read mostly padding runs as one convolution per
//                     output region, each with the taps that read input there (conv_regions.h);
//   fuseActivations  x * sigmoid(x) becomes silu(x), x * hardsigmoid(x) (ONNX HardSwish's
//                     1/6, 1/2) hardswish(x): the exporters' spelling of one activation, which
//                     fusion could not follow (x has two readers), becomes the op the zoo uses;
//   transposeRightOperands  a matrix product of two activations that reads its right operand
//                     transposed (attention's Q K^T) reads it through a transpose node instead,
//                     which fuses into K's producer: along the product's columns the operand is
//                     then contiguous, so the product takes an outer-product register tile
//                     (the zoo BERT's scores 1.9 -> 0.5 ms; reducing along K's rows ran at
//                     ~50 GFLOP/s);
//   convertToChannelsLast  convolutions and what follows them run NHWC (graph/layout.h);
//   useWinograd       stride-1 3x3 NHWC convolutions become Winograd F(4x4,3x3) transforms (F(2x2,3x3)
//                     on small images) and a batched matrix product (graph/winograd.h);
//   removeIdentities  identity nodes and reshapes to the same shape disappear;
//   eliminateDeadCode nodes no output depends on disappear.
// Constant weights are further re-laid-out per schedule by the layout-rewrite step.
#pragma once

#include "graph/flatten.h"
#include "graph/graph.h"

namespace ttune::graph {

// Folds constant subgraphs whose result has at most max_elements elements.
void foldConstants(Graph& g, int64_t max_elements = int64_t(1) << 26);
void foldBatchNorm(Graph& g);
void fuseActivations(Graph& g);
void transposeRightOperands(Graph& g);
void removeIdentities(Graph& g);
void eliminateDeadCode(Graph& g);
struct GraphOptions {
  // Convolutions and what follows them run NHWC (the fast layout for the CPU schedules); false
  // keeps the model's NCHW.
  bool channels_last = true;
  // Stride-1 3x3 convolutions run as Winograd F(4x4, 3x3) or F(2x2, 3x3) (channels-last only).
  bool winograd = true;
  // float32 lanes of the target's vectors (schedule::Target::lanes()), or 0 when unknown. With
  // it, a convolution with fewer output channels than max(4, lanes / 2) over an image at least a
  // vector wide stays NCHW (graph/layout.h).
  int vector_lanes = 0;
  // Whether a stride-1 1x1 convolution runs with its image's pixels as one axis (graph/flatten.h:
  // the target's register-tile model decides); unset: never.
  FlattenDecision flatten_pointwise = {};
  // Convolutions, dense layers and matrix products compute with bfloat16 operands (graph/bf16.h).
  bool bf16 = false;
};
void optimizeGraph(Graph& g, const GraphOptions& options = {});

}  // namespace ttune::graph
