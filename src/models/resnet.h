// ResNet-18 / ResNet-50 / ResNeXt-50 32x4d as torchvision defines them (v1.5: in a Bottleneck the stride sits on the
// 3x3 convolution): 7x7/2 stem conv + BN + ReLU, 3x3/2 max pool, four stages of BasicBlock or
// Bottleneck (1x1 conv + BN downsample on the shortcut when the stride or width changes), global
// average pool, flatten, fc. Convolutions have no bias (a BatchNorm follows each).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "graph/graph.h"
#include "models/builder.h"

namespace ttune::models {

struct ResNetConfig {
  bool bottleneck = false;                // Bottleneck (expansion 4) instead of BasicBlock
  std::array<int, 4> layers{2, 2, 2, 2};  // blocks per stage
  int64_t width = 64;                     // stem channels and the first stage's planes
  // ResNeXt: the Bottleneck's 3x3 convolution in `groups` groups of width_per_group * planes / 64
  // channels each (torchvision's groups / width_per_group; 1 / 64 is ResNet).
  int64_t groups = 1, width_per_group = 64;
  int64_t image = 224;
  int64_t num_classes = 1000;
};

ResNetConfig resnet18Config();
ResNetConfig resnet50Config();
ResNetConfig resnext50Config();  // resnext50_32x4d: ResNet-50 with 32 groups of 4 x planes / 64
graph::Graph buildResNet(const ResNetConfig& cfg, uint64_t seed);

// One block named `prefix` ("layer2.0") reading x [N, C, H, W]; returns its output.
// BasicBlock: conv1 3x3/stride, bn1, relu, conv2 3x3, bn2, (+ downsample), relu -> planes channels.
int basicBlock(Builder& b, const std::string& prefix, int x, int64_t planes, int64_t stride);
// Bottleneck: conv1 1x1, bn1, relu, conv2 3x3/stride (grouped for ResNeXt), bn2, relu, conv3 1x1,
// bn3, (+ downsample), relu -> 4 * planes channels; the inner width is
// planes * width_per_group / 64 * groups.
int bottleneckBlock(Builder& b, const std::string& prefix, int x, int64_t planes, int64_t stride, int64_t groups = 1,
                    int64_t width_per_group = 64);

}  // namespace ttune::models
