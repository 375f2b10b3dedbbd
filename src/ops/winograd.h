// Winograd minimal filtering for 3x3 convolutions with stride 1 (Lavin & Gray, "Fast Algorithms
// for Convolutional Neural Networks", 2016): F(m x m, 3 x 3) computes an m x m output tile from an
// (m+2) x (m+2) input tile with (m+2)^2 multiplications per input-output channel pair instead of
// 9 m^2 -- 4x fewer for m = 4 -- as
//     Y = A^T [ (G g G^T) (.) (B^T d B) ] A.
// Over channels, the element-wise product becomes (m+2)^2 independent matrix products (tiles x
// input channels times input channels x output channels), which are ordinary batch_matmul
// kernels the scheduler tiles like any matmul. The transforms are three operators:
//   winogradWeights  the filter transform G g G^T, computed once on the constant weights (double
//                    precision), [3, 3, C, K] (HWIO) -> [a, a, C, K], a = m + 2;
//   winograd_input   B^T d B for every tile of the NHWC input (padding included; tiles past the
//                    input read zeros), [N, H, W, C] -> [a, a, P, C], P = N * ceil(OH/m) * ceil(OW/m);
//   winograd_output  A^T M A for every tile, [a, a, P, K] -> [N, OH, OW, K].
// The transforms are written out as explicit sums with the matrices' non-zero coefficients,
// selected by the tile position (select on the axis value): once a schedule unrolls those axes,
// the selects fold and the loads are shared, leaving only the non-zero terms. Both transform ops
// carry tags ("winograd_input" / "winograd_output") that the default schedule recognizes.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op_utils.h"
#include "te/tensor.h"

namespace ttune::ops {

// Output tile sizes supported: 2 (a = 4) and 4 (a = 6).
bool winogradTileSupported(int64_t m);

// The transformed filter, row-major [a, a, C, K], from an HWIO [3, 3, C, K] filter.
std::vector<float> winogradWeights(const std::vector<float>& hwio, int64_t C, int64_t K, int64_t m);

// data [N, H, W, C] (NHWC) with padding {top, left, bottom, right} for an OH x OW output.
te::Tensor winograd_input(const te::Tensor& data, int64_t m, Pad4 padding);
// tiles [a, a, P, K] -> [N, OH, OW, K]; P must be N * ceil(OH/m) * ceil(OW/m).
te::Tensor winograd_output(const te::Tensor& tiles, int64_t m, int64_t N, int64_t OH, int64_t OW);

}  // namespace ttune::ops
