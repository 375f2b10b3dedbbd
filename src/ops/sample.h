// Sampling operators whose read positions come from data: ONNX GridSample (a flow field of
// normalized coordinates, as torch.nn.functional.grid_sample) and RoiAlign (bilinear samples
// averaged or maxed over each box's bins, as torchvision / ONNX Runtime), and the indices output
// of max pooling.
//
// Invariants: every data-dependent position is clamped to its tensor before it is read and the
// read sits under a select on the in-bounds test, so no coordinate (NaN and infinities included)
// can leave its tensor. Each operator is one compute op whose taps are reduction axes of small
// static extent, so the code generator sees an ordinary reduction.
#pragma once

#include <cstdint>
#include <string>

#include "ops/op_utils.h"
#include "te/tensor.h"

namespace ttune::ops {

using te::Tensor;

enum class GridSampleMode : uint8_t { Bilinear, Nearest, Bicubic };
enum class GridPadding : uint8_t { Zeros, Border, Reflection };

// x [N, C, H, W] (float32) sampled at grid [N, Ho, Wo, 2] ((x, y) in [-1, 1]) -> [N, C, Ho, Wo].
// align_corners maps -1 and 1 to the centers of the corner pixels instead of their outer edges.
// Out-of-range taps read 0 (zeros), the nearest edge pixel (border) or the reflection of the
// coordinate (reflection); bicubic uses the cubic convolution kernel with A = -0.75 and pads each
// of its 16 taps.
Tensor grid_sample(const Tensor& x, const Tensor& grid, GridSampleMode mode = GridSampleMode::Bilinear,
                   GridPadding padding = GridPadding::Zeros, bool align_corners = false);

// x [N, C, H, W], rois [R, 4] ((x1, y1, x2, y2) in input coordinates / spatial_scale),
// batch_indices [R] (int64) -> [R, C, out_h, out_w]. Each bin holds sampling_h x sampling_w
// bilinear samples (positive counts: the caller resolves ONNX's adaptive 0 from the boxes);
// samples outside [-1, H] x [-1, W] count as 0. half_pixel shifts the box by half a pixel
// (ONNX's "half_pixel"); without it boxes are at least 1 x 1 ("output_half_pixel", the behaviour
// before opset 16). max_mode takes, per bin, the largest weighted corner of any sample (ONNX
// Runtime's definition) instead of the mean of the samples.
struct RoiAlignParams {
  int64_t out_h = 1, out_w = 1;
  int64_t sampling_h = 1, sampling_w = 1;
  double spatial_scale = 1.0;
  bool half_pixel = true;
  bool max_mode = false;
};
Tensor roi_align(const Tensor& x, const Tensor& rois, const Tensor& batch_indices, const RoiAlignParams& p);

// The int64 flat position (in x's [N, C, H, W] storage, padding excluded) of the first maximum
// (in row-major scan order) of each max-pooling window; same windows and output shape as
// max_pool2d (NCHW). column_major counts the positions within each [H, W] plane along H first
// (ONNX storage_order 1).
Tensor max_pool2d_indices(const Tensor& x, Hw kernel, Hw strides, Pad4 padding, Hw dilation, bool ceil_mode,
                          bool column_major = false);

}  // namespace ttune::ops
