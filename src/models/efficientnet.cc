#include "models/efficientnet.h"

#include <array>
#include <cmath>

namespace ttune::models {

namespace {

// torchvision ConvNormActivation: conv (prefix.0), BN (prefix.1), optional SiLU (prefix.2).
int convBnSilu(Builder& b, const std::string& prefix, int x, const ConvSpec& spec, bool activation = true) {
  int y = b.batchNorm(prefix + ".1", b.conv2d(prefix + ".0", x, spec));
  return activation ? b.silu(prefix + ".2", y) : y;
}

}  // namespace

int squeezeExcitation(Builder& b, const std::string& prefix, int x, int64_t squeeze_channels) {
  int64_t c = b.shape(x)[1];
  int s = b.adaptiveAvgPool(prefix + ".avgpool", x, 1, 1);
  s = b.conv2d(prefix + ".fc1", s, {.out = squeeze_channels, .k = 1, .bias = true});
  s = b.silu(prefix + ".activation", s);
  s = b.conv2d(prefix + ".fc2", s, {.out = c, .k = 1, .bias = true, .gain = kLinearGain});
  s = b.sigmoid(prefix + ".scale_activation", s);
  return b.mul(prefix + ".scale", s, x);
}

int mbConv(Builder& b, const std::string& prefix, int x, const MBConvSpec& spec) {
  int64_t in = b.shape(x)[1];
  int64_t expanded = makeDivisible(static_cast<double>(in * spec.expand_ratio));
  bool residual = spec.stride == 1 && in == spec.out;
  int index = 0;  // torchvision's block.<index>
  auto name = [&](int i) { return prefix + ".block." + std::to_string(i); };
  int y = x;
  if (expanded != in) y = convBnSilu(b, name(index++), y, {.out = expanded, .k = 1});
  y = convBnSilu(
      b, name(index++), y,
      {.out = expanded, .k = spec.kernel, .stride = spec.stride, .pad = (spec.kernel - 1) / 2, .groups = expanded});
  y = squeezeExcitation(b, name(index++), y, std::max<int64_t>(1, in / 4));
  y = convBnSilu(b, name(index++), y, {.out = spec.out, .k = 1, .gain = residual ? kResidualGain : kLinearGain}, false);
  return residual ? b.add(prefix + ".add", y, x) : y;
}

graph::Graph buildEfficientNet(const EfficientNetConfig& cfg, uint64_t seed) {
  struct Stage {
    int64_t expand, kernel, stride, in, out, layers;
  };
  const std::array<Stage, 7> base = {{{1, 3, 1, 32, 16, 1},
                                      {6, 3, 2, 16, 24, 2},
                                      {6, 5, 2, 24, 40, 2},
                                      {6, 3, 2, 40, 80, 3},
                                      {6, 5, 1, 80, 112, 3},
                                      {6, 5, 2, 112, 192, 4},
                                      {6, 3, 1, 192, 320, 1}}};
  auto width = [&](int64_t c) { return makeDivisible(static_cast<double>(c) * cfg.width_mult); };
  auto depth = [&](int64_t n) { return static_cast<int64_t>(std::ceil(static_cast<double>(n) * cfg.depth_mult)); };

  Builder b(seed);
  int x = b.input("input0", {1, 3, cfg.image, cfg.image});
  x = convBnSilu(b, "features.0", x, {.out = width(base[0].in), .k = 3, .stride = 2, .pad = 1});
  for (size_t s = 0; s < base.size(); ++s) {
    const Stage& st = base[s];
    for (int64_t i = 0; i < depth(st.layers); ++i) {
      std::string prefix = "features." + std::to_string(s + 1) + "." + std::to_string(i);
      x = mbConv(
          b, prefix, x,
          {.expand_ratio = st.expand, .kernel = st.kernel, .stride = i == 0 ? st.stride : 1, .out = width(st.out)});
    }
  }
  x = convBnSilu(b, "features.8", x, {.out = 4 * width(base.back().out), .k = 1});
  x = b.flatten("flatten", b.adaptiveAvgPool("avgpool", x, 1, 1));
  x = b.linear("classifier.1", x, cfg.num_classes);
  return b.finish({x});
}

}  // namespace ttune::models
