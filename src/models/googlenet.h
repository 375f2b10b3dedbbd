// GoogLeNet (Inception v1) as torchvision defines it in eval mode: no auxiliary classifiers,
// transform_input=False. BasicConv2d = conv (no bias) + BatchNorm(eps 1e-3) + ReLU. Stem: 7x7/2
// conv, 3x3/2 max pool (ceil mode), 1x1 conv, 3x3 conv, 3x3/2 max pool (ceil); inception 3a 3b,
// max pool, 4a-4e, 2x2/2 max pool (ceil), 5a 5b; global average pool, flatten, Linear(1024, 1000).
// As in torchvision, the "5x5" branch of an inception block uses a 3x3 convolution.
#pragma once

#include <cstdint>
#include <string>

#include "graph/graph.h"
#include "models/builder.h"

namespace ttune::models {

graph::Graph buildGoogLeNet(uint64_t seed, int64_t num_classes = 1000);

struct InceptionSpec {
  int64_t ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj;
};
// Four branches concatenated on channels: 1x1; 1x1 -> 3x3; 1x1 -> 3x3 ("5x5"); 3x3/1 max pool
// (pad 1, ceil mode) -> 1x1.
int inception(Builder& b, const std::string& prefix, int x, const InceptionSpec& spec);

}  // namespace ttune::models
