#include "models/googlenet.h"

namespace ttune::models {

namespace {

int basicConv(Builder& b, const std::string& prefix, int x, const ConvSpec& spec) {
  int y = b.conv2d(prefix + ".conv", x, spec);
  return b.relu(prefix + ".relu", b.batchNorm(prefix + ".bn", y, 1e-3));
}

}  // namespace

int inception(Builder& b, const std::string& prefix, int x, const InceptionSpec& s) {
  int b1 = basicConv(b, prefix + ".branch1", x, {.out = s.ch1x1, .k = 1});
  int b2 = basicConv(b, prefix + ".branch2.0", x, {.out = s.ch3x3red, .k = 1});
  b2 = basicConv(b, prefix + ".branch2.1", b2, {.out = s.ch3x3, .k = 3, .pad = 1});
  int b3 = basicConv(b, prefix + ".branch3.0", x, {.out = s.ch5x5red, .k = 1});
  b3 = basicConv(b, prefix + ".branch3.1", b3, {.out = s.ch5x5, .k = 3, .pad = 1});
  int b4 = b.maxPool(prefix + ".branch4.0", x, {.k = 3, .stride = 1, .pad = 1, .ceil_mode = true});
  b4 = basicConv(b, prefix + ".branch4.1", b4, {.out = s.pool_proj, .k = 1});
  return b.concat(prefix + ".concat", {b1, b2, b3, b4}, 1);
}

graph::Graph buildGoogLeNet(uint64_t seed, int64_t num_classes) {
  Builder b(seed);
  int x = b.input("input0", {1, 3, 224, 224});
  x = basicConv(b, "conv1", x, {.out = 64, .k = 7, .stride = 2, .pad = 3});
  x = b.maxPool("maxpool1", x, {.k = 3, .stride = 2, .ceil_mode = true});
  x = basicConv(b, "conv2", x, {.out = 64, .k = 1});
  x = basicConv(b, "conv3", x, {.out = 192, .k = 3, .pad = 1});
  x = b.maxPool("maxpool2", x, {.k = 3, .stride = 2, .ceil_mode = true});
  x = inception(b, "inception3a", x, {64, 96, 128, 16, 32, 32});
  x = inception(b, "inception3b", x, {128, 128, 192, 32, 96, 64});
  x = b.maxPool("maxpool3", x, {.k = 3, .stride = 2, .ceil_mode = true});
  x = inception(b, "inception4a", x, {192, 96, 208, 16, 48, 64});
  x = inception(b, "inception4b", x, {160, 112, 224, 24, 64, 64});
  x = inception(b, "inception4c", x, {128, 128, 256, 24, 64, 64});
  x = inception(b, "inception4d", x, {112, 144, 288, 32, 64, 64});
  x = inception(b, "inception4e", x, {256, 160, 320, 32, 128, 128});
  x = b.maxPool("maxpool4", x, {.k = 2, .stride = 2, .ceil_mode = true});
  x = inception(b, "inception5a", x, {256, 160, 320, 32, 128, 128});
  x = inception(b, "inception5b", x, {384, 192, 384, 48, 128, 128});
  x = b.flatten("flatten", b.adaptiveAvgPool("avgpool", x, 1, 1));
  x = b.linear("fc", x, num_classes);
  return b.finish({x});
}

}  // namespace ttune::models
