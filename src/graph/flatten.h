// Pointwise convolutions over one pixel axis: a stride-1 1x1 convolution on an NHWC image is a
// matrix product of the pixels (N*H*W rows, contiguous) with the weights, so the image's rows
// need not bound its register tiles. Where the target's tile model says that rows tiled across
// the whole image do better than rows tiled within one image row (ResNet's 7- and 14-wide images
// with AVX2's 16 registers: a 4- or 5-row tile within a row, 6 rows across the image), the
// convolution and the element-wise chain that follows it run on [N, 1, H*W, C]: a view reshape
// before the data input (and before each full-shape operand of the chain), the chain in the
// flat shape, a view reshape back after it.
//
// Contract: the rewritten graph computes exactly what the original computes. View reshapes
// (ReshapeAttrs::view) never fuse into their producer's kernel (fusion.h), so each is a kernel of
// its own that only reinterprets its input (alias_only): no copy, and the kernels around them
// keep their own loop structure. A convolution is left alone when its chain's end would then be
// fused apart from the next element-wise reader (a separate copy kernel), when the chain ends in a
// graph output, or when the decision says no.
#pragma once

#include <cstdint>
#include <functional>

#include "graph/graph.h"
#include "schedule/target.h"

namespace ttune::graph {

// A pointwise convolution to decide on: the pixels of one image row and of the whole image (times
// the batch), input and output channels.
struct PointwiseConv {
  int64_t row_pixels = 0, image_pixels = 0, in_channels = 0, out_channels = 0;
};
using FlattenDecision = std::function<bool(const PointwiseConv&)>;

void flattenPointwiseConvs(Graph& g, const FlattenDecision& decide);

// The decision from the target's register-tile model (schedule::registerTileScore): flat when the
// tile across the image's pixels is modelled at least 5% faster than the tile within a row, and
// the reduction is long (its weights block does not stay in L1; a short one keeps the image
// split between threads as the kernels around it do).
FlattenDecision flattenByTileModel(const schedule::Target& target);

}  // namespace ttune::graph
