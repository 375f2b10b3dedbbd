// Channels-last layout: rewrites a model's 2-D convolutions (NCHW data, OIHW constant weights) to
// NHWC with HWIO weights, and carries the NHWC layout through the operators that follow them, so
// that a network runs channels-last from its first convolution to the point where the layout
// stops mattering.
//
// Why: a convolution's register tile is vectorized along the output channels (every input is
// invariant along them). In NHWC those are the innermost, contiguous axis, so the tile is stored
// with plain vector stores; in NCHW it has to be transposed on the way out (strided reads), which
// costs as much as the arithmetic for convolutions with few input channels. Ansor tunes NHWC on
// CPUs for the same reason.
//
// Contract: the converted graph computes exactly what the original computes, with the same inputs
// and outputs (names, shapes, NCHW layout). Operators that follow a converted value run NHWC when
// their semantics allow it (element-wise ops and broadcasts against constants, pooling, channel
// concat, padding, slices, per-channel reductions over the image, ShuffleNet's channel shuffle);
// every other reader gets the value back in NCHW through a transpose (or a reshape when H*W or C is 1, where both
// layouts hold the same order), made at most once per value.
//
// The exception: a convolution with few output channels (an RGB or a 2-class head: fewer than
// max(4, vector_lanes / 2)) over an image at least a vector wide stays NCHW. Channels-last would
// vectorize it along a channel axis that fills no vector, or along the image with the input read
// at a channel stride (a 9x9 conv to 3 channels: 15 GFLOP/s NHWC, 160 NCHW on AVX-512); in NCHW
// the vector runs along the output row, read contiguously, with broadcast weights.
// vector_lanes 0 (unknown target) converts every convolution.
#pragma once

#include "graph/graph.h"

namespace ttune::graph {

void convertToChannelsLast(Graph& g, int vector_lanes = 0);

}  // namespace ttune::graph
