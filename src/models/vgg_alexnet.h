// AlexNet and VGG-16 as torchvision defines them (no batch norm). Convolutions carry biases (a
// separate Add of a [1, C, 1, 1] constant) and ReLU; the adaptive average pool (6x6 / 7x7) is kept
// as torch.onnx exports it — at 224x224 input the map already has that size, so it is a 1x1
// average pool — then flatten and the three-layer classifier (dropout is the identity at
// inference). AlexNet: 64-192-384-256-256 channels, 9216-4096-4096-1000. VGG-16 (config "D"):
// 13 3x3 convolutions in five stages with 2x2 max pools, 25088-4096-4096-1000.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace ttune::models {

graph::Graph buildAlexNet(uint64_t seed, int64_t num_classes = 1000);
graph::Graph buildVgg16(uint64_t seed, int64_t num_classes = 1000);

}  // namespace ttune::models
