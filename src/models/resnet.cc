#include "models/resnet.h"

namespace ttune::models {

namespace {

// The shortcut: identity, or 1x1 conv (stride) + BN when the shape changes.
int shortcut(Builder& b, const std::string& prefix, int x, int64_t out, int64_t stride) {
  if (stride == 1 && b.shape(x)[1] == out) return x;
  int y = b.conv2d(prefix + ".downsample.0", x, {.out = out, .k = 1, .stride = stride, .gain = kLinearGain});
  return b.batchNorm(prefix + ".downsample.1", y);
}

}  // namespace

int basicBlock(Builder& b, const std::string& prefix, int x, int64_t planes, int64_t stride) {
  int y = b.conv2d(prefix + ".conv1", x, {.out = planes, .k = 3, .stride = stride, .pad = 1});
  y = b.relu(prefix + ".relu1", b.batchNorm(prefix + ".bn1", y));
  y = b.conv2d(prefix + ".conv2", y, {.out = planes, .k = 3, .pad = 1, .gain = kResidualGain});
  y = b.batchNorm(prefix + ".bn2", y);
  int s = shortcut(b, prefix, x, planes, stride);
  return b.relu(prefix + ".relu2", b.add(prefix + ".add", y, s));
}

int bottleneckBlock(Builder& b, const std::string& prefix, int x, int64_t planes, int64_t stride, int64_t groups,
                    int64_t width_per_group) {
  const int64_t width = planes * width_per_group / 64 * groups;
  int y = b.conv2d(prefix + ".conv1", x, {.out = width, .k = 1});
  y = b.relu(prefix + ".relu1", b.batchNorm(prefix + ".bn1", y));
  y = b.conv2d(prefix + ".conv2", y, {.out = width, .k = 3, .stride = stride, .pad = 1, .groups = groups});
  y = b.relu(prefix + ".relu2", b.batchNorm(prefix + ".bn2", y));
  y = b.conv2d(prefix + ".conv3", y, {.out = planes * 4, .k = 1, .gain = kResidualGain});
  y = b.batchNorm(prefix + ".bn3", y);
  int s = shortcut(b, prefix, x, planes * 4, stride);
  return b.relu(prefix + ".relu3", b.add(prefix + ".add", y, s));
}

ResNetConfig resnet18Config() { return ResNetConfig{}; }

ResNetConfig resnet50Config() {
  ResNetConfig c;
  c.bottleneck = true;
  c.layers = {3, 4, 6, 3};
  return c;
}

ResNetConfig resnext50Config() {
  ResNetConfig c = resnet50Config();
  c.groups = 32;
  c.width_per_group = 4;
  return c;
}

graph::Graph buildResNet(const ResNetConfig& cfg, uint64_t seed) {
  Builder b(seed);
  int x = b.input("input0", {1, 3, cfg.image, cfg.image});
  x = b.conv2d("conv1", x, {.out = cfg.width, .k = 7, .stride = 2, .pad = 3});
  x = b.relu("relu", b.batchNorm("bn1", x));
  x = b.maxPool("maxpool", x, {.k = 3, .stride = 2, .pad = 1});
  for (int stage = 0; stage < 4; ++stage) {
    int64_t planes = cfg.width << stage;
    for (int i = 0; i < cfg.layers[stage]; ++i) {
      std::string prefix = "layer" + std::to_string(stage + 1) + "." + std::to_string(i);
      int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      x = cfg.bottleneck ? bottleneckBlock(b, prefix, x, planes, stride, cfg.groups, cfg.width_per_group)
                         : basicBlock(b, prefix, x, planes, stride);
    }
  }
  x = b.flatten("flatten", b.adaptiveAvgPool("avgpool", x, 1, 1));
  x = b.linear("fc", x, cfg.num_classes);
  return b.finish({x});
}

}  // namespace ttune::models
