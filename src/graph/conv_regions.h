// Convolutions split into output regions by the taps that read input there. Where a dilated
// convolution's map is not much larger than its dilation (ASPP's rate-12 3x3 on a 14x14 map),
// each tap reads real input for only a band of output rows and columns, and the convolution
// spends most of its multiply-adds on padding; dropPaddingTaps (padding_taps.h) removes only the
// taps that read padding everywhere. Here, per spatial axis, the output is cut where a tap's
// validity starts or ends; within each segment a contiguous range of taps reads input at every
// position (the input index is monotone in the tap). Each (row segment, column segment) region
// becomes a convolution without padding over a slice of the input with the region's taps of the
// weight; the regions are concatenated back along W, then H.
//
// Contract: the rewritten graph computes what the original computes (only terms that read zero
// padding are left out). Applied to NCHW convolutions with a constant weight and zero padding
// value when the regions' multiply-adds are at most half the original's and each axis has at most
// three segments (at most nine convolutions), so that the smaller kernels' fixed costs stay small
// against what they save.
#pragma once

#include "graph/graph.h"

namespace ttune::graph {

// Returns how many convolutions were split.
int splitConvRegions(Graph& g);

}  // namespace ttune::graph
