// Helpers shared by the importers of compute-heavy operators (Conv, ConvTranspose, pooling,
// MatMul, Einsum): convolution windows and convolutions of one to three spatial dimensions, and
// the matrix product with ttune's lowering conventions.
//
// A window has one stride, dilation and kernel extent per spatial axis and pads as all begins
// then all ends (ONNX's order); readWindowNd resolves auto_pad. emitConvNd lowers a convolution
// of any of these ranks to the graph's one convolution operator, conv2d: 1-D runs on [N, C, 1, L],
// 3-D folds the depth taps into the input channels and the output depth into the batch
// ([N*D', C*kd, H, W], a gather of the kd depth slices), so every convolution reuses conv2d's
// default schedules, sketches and transfer classes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "frontend/onnx/context.h"

namespace ttune::frontend::detail {

struct WindowNd {
  std::vector<int64_t> strides, dilation;
  std::vector<int64_t> pads;  // begins, then ends
};

// Reads strides / dilations / pads / auto_pad of a window with `kernel` over spatial extents `in`.
WindowNd readWindowNd(const Ctx& c, const std::vector<int64_t>& kernel, const std::vector<int64_t>& in,
                      bool has_dilations);

// y = conv(x, w) + bias: x is [N, C, spatial...] with 1 to 3 spatial axes, w [M, C/groups,
// kernel...] (a graph value, constant or not), bias a [M] value or -1 for none. Padded taps read
// `pad_value` (an 8-bit input's zero point; 0 for float inputs).
int emitConvNd(Ctx& c, int x, int w, const WindowNd& window, int64_t groups, std::string_view tag, int bias = -1,
               int64_t pad_value = 0);

// y + bias: y is [N, M, spatial...], bias a [M] value reshaped to broadcast along the channels.
int addBias(Ctx& c, int y, int bias, std::string_view tag);

// Matrix product of two values of rank >= 2 with numpy's broadcasting (ONNX MatMul): dense when
// the right side is a constant 2-D float32 weight and the left side's leading dims are 1,
// (batched) matmul otherwise.
int matmul(Ctx& c, int a, int b, std::string_view tag);

// log(softmax(x)) along `axis`, computed as (x - max) - log(sum(exp(x - max))).
int logSoftmax(Ctx& c, int x, int64_t axis, std::string_view tag);

// Fails through `c` unless input i is float32.
// Input i is float32 or float64 / only float32 (operators whose lowering is float32-only).
void requireFloat(const Ctx& c, int i);
void requireFloat32(const Ctx& c, int i);

}  // namespace ttune::frontend::detail
