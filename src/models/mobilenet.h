// MobileNetV2 (width 1.0) as torchvision defines it: 3x3/2 stem ConvBNReLU6 to 32 channels,
// 17 inverted residual blocks (t, c, n, s) = (1,16,1,1) (6,24,2,2) (6,32,3,2) (6,64,4,2)
// (6,96,3,1) (6,160,3,2) (6,320,1,1), a 1x1 ConvBNReLU6 to 1280, global average pool, flatten
// and Linear(1280, 1000) (dropout is the identity). ReLU6 is Clip(0, 6); convolutions have no bias.
#pragma once

#include <cstdint>
#include <string>

#include "graph/graph.h"
#include "models/builder.h"

namespace ttune::models {

graph::Graph buildMobileNetV2(uint64_t seed, int64_t num_classes = 1000);

// torchvision InvertedResidual named `prefix` ("features.3"): [1x1 expand ConvBNReLU6 when
// expand_ratio != 1], 3x3 depthwise ConvBNReLU6 (stride), 1x1 linear projection + BN, plus the
// input when stride == 1 and the channel count is kept. Hidden width round(in * expand_ratio).
int invertedResidual(Builder& b, const std::string& prefix, int x, int64_t out, int64_t stride, int64_t expand_ratio);

}  // namespace ttune::models
