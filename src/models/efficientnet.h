// EfficientNet-B0 / B4 as torchvision defines them (input 224x224 for both, as in the paper):
// 3x3/2 stem Conv-BN-SiLU, seven stages of MBConv blocks, a 1x1 Conv-BN-SiLU to 4x the last
// stage's channels, global average pool, flatten, Linear(., 1000). Width and depth multipliers
// (B0: 1.0/1.0, B4: 1.4/1.8) scale channels with _make_divisible(c * w, 8) and block counts with
// ceil(n * d). MBConv: [1x1 expand Conv-BN-SiLU], kxk depthwise Conv-BN-SiLU (stride),
// squeeze-excitation (global avg pool, 1x1 conv + bias, SiLU, 1x1 conv + bias, sigmoid, multiply),
// 1x1 projection Conv-BN, + input when the shape is kept (stochastic depth is the identity at
// inference). BatchNorm eps 1e-5 (torchvision's default for B0-B4).
#pragma once

#include <cstdint>
#include <string>

#include "graph/graph.h"
#include "models/builder.h"

namespace ttune::models {

struct EfficientNetConfig {
  double width_mult = 1.0;
  double depth_mult = 1.0;
  int64_t image = 224;
  int64_t num_classes = 1000;
};

graph::Graph buildEfficientNet(const EfficientNetConfig& cfg, uint64_t seed);

struct MBConvSpec {
  int64_t expand_ratio = 1;
  int64_t kernel = 3;
  int64_t stride = 1;
  int64_t out = 0;
};
// One torchvision MBConv block named `prefix` ("features.2.0"); its squeeze width is
// max(1, in / 4) of the block's input channels.
int mbConv(Builder& b, const std::string& prefix, int x, const MBConvSpec& spec);
// x * sigmoid(fc2(silu(fc1(global_avg_pool(x))))) with fc1/fc2 1x1 convolutions with bias.
int squeezeExcitation(Builder& b, const std::string& prefix, int x, int64_t squeeze_channels);

}  // namespace ttune::models
