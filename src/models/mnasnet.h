// MNASNet 1.0 as torchvision defines it (mnasnet1_0): 3x3/2 stem conv-BN-ReLU to 32, a 3x3
// depthwise separable block to 16, six stacks of inverted residuals (kernel, stride, expansion,
// repeats) = (3,2,3,3) (5,2,3,3) (5,2,6,3) (3,1,6,2) (5,2,6,4) (3,1,6,1) to 24-40-80-96-192-320
// channels, a 1x1 conv-BN-ReLU to 1280, the spatial mean x.mean([2, 3]) (a reduce_mean node, as
// torchvision computes it), and Linear(1280, 1000) (dropout is the identity). ReLU (not ReLU6);
// convolutions have no bias; BatchNorm eps 1e-5.
#pragma once

#include <cstdint>
#include <string>

#include "graph/graph.h"
#include "models/builder.h"

namespace ttune::models {

graph::Graph buildMnasNet(uint64_t seed, double alpha = 1.0, int64_t num_classes = 1000);

// torchvision _InvertedResidual named `prefix` ("layers.8.0"): 1x1 expand conv-BN-ReLU to
// in * expansion, kxk depthwise conv-BN-ReLU (stride, pad k/2), 1x1 conv-BN, + input when
// in == out and stride == 1.
int mnasInvertedResidual(Builder& b, const std::string& prefix, int x, int64_t out, int64_t kernel, int64_t stride,
                         int64_t expansion);

}  // namespace ttune::models
