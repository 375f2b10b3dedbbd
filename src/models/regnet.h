// RegNetY-400MF as torchvision defines it (regnet_y_400mf: depth 16, w_0 48, w_a 27.89, w_m 2.09,
// group width 8, SE ratio 0.25): a 3x3/2 stem of 32 channels (conv, BN, ReLU), four stages of
// [1, 3, 6, 6] ResBottleneck blocks of widths [48, 104, 208, 440] (the first block of each stage
// strides 2), global average pool, fc. A block: 1x1 conv + BN + ReLU; 3x3 conv in groups of 8
// channels (stride) + BN + ReLU; squeeze-excitation (global average pool, 1x1 conv to
// round(0.25 * block input channels) + ReLU, 1x1 conv + sigmoid, scale); 1x1 conv + BN; the
// shortcut (1x1 conv/stride + BN where the shape changes) added; ReLU. 4.3M parameters.
#pragma once

#include <array>
#include <cstdint>

#include "graph/graph.h"

namespace ttune::models {

struct RegNetConfig {
  std::array<int, 4> depths{1, 3, 6, 6};
  std::array<int64_t, 4> widths{48, 104, 208, 440};
  int64_t stem = 32, group_width = 8;
  double se_ratio = 0.25;
  int64_t image = 224, num_classes = 1000;
};

graph::Graph buildRegNetY(const RegNetConfig& cfg, uint64_t seed);

}  // namespace ttune::models
