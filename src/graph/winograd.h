// The Winograd pass: every stride-1 3x3 NHWC convolution with constant weights and enough
// channels becomes input transform -> batched matrix product with the transformed filter (a
// constant, computed here) -> output transform (ops/winograd.h). The matrix product is the
// kernel's anchor, so tuning and transfer treat it like any matmul; the output transform and the
// convolution's epilogue (bias, activation, residual add) follow it in the same kernel.
//
// Tile size, per convolution: F(4x4, 3x3) does 4x fewer multiplications than the direct sum but
// stores 36 transformed weights per 3x3 filter (4x the direct ones); F(2x2, 3x3) does 2.25x fewer
// and stores 16. Each transformed weight is used once per tile, so on small images (7x7 and 8x8:
// 4 tiles of 4x4) F(4x4)'s product streams four times the weights for very few multiply-adds and
// is memory-bound (resnet50's 512-channel layers ran at ~70 GFLOP/s, 7x7 weights of 37 MB per
// layer). The pass picks the tile with the lower estimated cost, (m+2)^2 * (tiles +
// weight_load_cost) per channel pair: multiply-adds plus each transformed weight's load counted as
// weight_load_cost multiply-adds. The choice depends on shapes only, so the kernels (and the
// bank's workload keys) are the same on every host.
//
// Numerics: F(4x4, 3x3) rounds more than the direct sum (relative errors around 1e-6 to 1e-5 of
// the output's magnitude in float32), well inside the tolerances of the reference checks.
#pragma once

#include "graph/graph.h"

namespace ttune::graph {

struct WinogradOptions {
  int64_t tile = 0;           // output tile m of F(m x m, 3 x 3): 2 or 4; 0 chooses per convolution
  int64_t min_channels = 16;  // convolutions with fewer input or output channels stay direct
  // A transformed weight's load from memory in multiply-adds (per channel pair): measured on Zen 4,
  // resnet50's and inception_v3's 7x7 / 8x8 layers gain 1.4-1.6x from F(2x2), 14x14 layers are at
  // par either way (densenet121's slightly faster with F(4x4)); 8 puts the switch between them.
  double weight_load_cost = 8;
};

// The output tile the pass uses for a convolution with output N x H x W (options.tile if set).
int64_t winogradTileFor(int64_t n, int64_t h, int64_t w, const WinogradOptions& options = {});

// Returns how many convolutions were rewritten.
int useWinograd(Graph& g, const WinogradOptions& options = {});

}  // namespace ttune::graph
