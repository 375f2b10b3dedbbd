#include "models/regnet.h"

#include <cmath>
#include <string>

#include "models/builder.h"

namespace ttune::models {

namespace {

int convBn(Builder& b, const std::string& prefix, int x, const ConvSpec& spec) {
  return b.batchNorm(prefix + ".1", b.conv2d(prefix + ".0", x, spec));
}

// torchvision ResBottleneckBlock (bottleneck multiplier 1) with SqueezeExcitation(ReLU).
int resBottleneck(Builder& b, const std::string& prefix, int x, int64_t out, int64_t stride, const RegNetConfig& cfg) {
  const int64_t in = b.shape(x)[1];
  const std::string f = prefix + ".f";
  int y = b.relu(f + ".a.2", convBn(b, f + ".a", x, {.out = out, .k = 1}));
  y = b.relu(f + ".b.2",
             convBn(b, f + ".b", y, {.out = out, .k = 3, .stride = stride, .pad = 1, .groups = out / cfg.group_width}));
  const int64_t squeeze = static_cast<int64_t>(std::lround(cfg.se_ratio * static_cast<double>(in)));
  int s = b.adaptiveAvgPool(f + ".se.avgpool", y, 1, 1);
  s = b.relu(f + ".se.activation", b.conv2d(f + ".se.fc1", s, {.out = squeeze, .k = 1, .bias = true}));
  s = b.sigmoid(f + ".se.scale_activation",
                b.conv2d(f + ".se.fc2", s, {.out = out, .k = 1, .bias = true, .gain = kLinearGain}));
  y = b.mul(f + ".se.scale", s, y);
  y = convBn(b, f + ".c", y, {.out = out, .k = 1, .gain = kResidualGain});
  int shortcut = x;
  if (in != out || stride != 1)
    shortcut = convBn(b, prefix + ".proj", x, {.out = out, .k = 1, .stride = stride, .gain = kLinearGain});
  return b.relu(prefix + ".activation", b.add(prefix + ".add", shortcut, y));
}

}  // namespace

graph::Graph buildRegNetY(const RegNetConfig& cfg, uint64_t seed) {
  Builder b(seed);
  int x = b.input("input0", {1, 3, cfg.image, cfg.image});
  x = b.relu("stem.2", convBn(b, "stem", x, {.out = cfg.stem, .k = 3, .stride = 2, .pad = 1}));
  for (int stage = 0; stage < 4; ++stage)
    for (int i = 0; i < cfg.depths[stage]; ++i) {
      std::string prefix = "trunk_output.block" + std::to_string(stage + 1) + ".block" + std::to_string(stage + 1) +
                           "-" + std::to_string(i);
      x = resBottleneck(b, prefix, x, cfg.widths[stage], i == 0 ? 2 : 1, cfg);
    }
  x = b.flatten("flatten", b.adaptiveAvgPool("avgpool", x, 1, 1));
  x = b.linear("fc", x, cfg.num_classes);
  return b.finish({x});
}

}  // namespace ttune::models
