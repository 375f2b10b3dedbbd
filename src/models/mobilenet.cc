#include "models/mobilenet.h"

#include <array>

namespace ttune::models {

namespace {

// torchvision ConvBNReLU: Sequential(conv, bn, relu6) named prefix.0 / .1 / .2.
int convBnRelu6(Builder& b, const std::string& prefix, int x, const ConvSpec& spec) {
  int y = b.conv2d(prefix + ".0", x, spec);
  return b.relu6(prefix + ".2", b.batchNorm(prefix + ".1", y));
}

}  // namespace

int invertedResidual(Builder& b, const std::string& prefix, int x, int64_t out, int64_t stride, int64_t expand_ratio) {
  int64_t in = b.shape(x)[1];
  int64_t hidden = in * expand_ratio;
  bool residual = stride == 1 && in == out;
  int y = x;
  int index = 0;  // torchvision's conv.<index>
  auto name = [&](int i) { return prefix + ".conv." + std::to_string(i); };
  if (expand_ratio != 1) y = convBnRelu6(b, name(index++), y, {.out = hidden, .k = 1});
  y = convBnRelu6(b, name(index++), y, {.out = hidden, .k = 3, .stride = stride, .pad = 1, .groups = hidden});
  // The projection is linear (no activation); in a residual block it feeds a sum.
  y = b.conv2d(name(index++), y, {.out = out, .k = 1, .gain = residual ? kResidualGain : kLinearGain});
  y = b.batchNorm(name(index++), y);
  return residual ? b.add(prefix + ".add", x, y) : y;
}

graph::Graph buildMobileNetV2(uint64_t seed, int64_t num_classes) {
  struct Stage {
    int64_t t, c, n, s;
  };
  const std::array<Stage, 7> settings = {
      {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}}};
  Builder b(seed);
  int x = b.input("input0", {1, 3, 224, 224});
  x = convBnRelu6(b, "features.0", x, {.out = makeDivisible(32.0), .k = 3, .stride = 2, .pad = 1});
  int index = 1;
  for (const Stage& st : settings) {
    for (int64_t i = 0; i < st.n; ++i)
      x = invertedResidual(b, "features." + std::to_string(index++), x, makeDivisible(static_cast<double>(st.c)),
                           i == 0 ? st.s : 1, st.t);
  }
  x = convBnRelu6(b, "features." + std::to_string(index), x, {.out = makeDivisible(1280.0), .k = 1});
  x = b.flatten("flatten", b.adaptiveAvgPool("avgpool", x, 1, 1));
  x = b.linear("classifier.1", x, num_classes);
  return b.finish({x});
}

}  // namespace ttune::models
