#include "models/vgg_alexnet.h"

#include <string>
#include <vector>

#include "models/builder.h"

namespace ttune::models {

namespace {

// torchvision's classifier: [Dropout], Linear, ReLU, [Dropout], Linear, ReLU, Linear. Module
// indices follow torchvision's nn.Sequential (dropouts take an index but no node).
int classifier(Builder& b, int x, const std::vector<int>& linear_index, int64_t hidden, int64_t num_classes) {
  auto name = [](int i) { return "classifier." + std::to_string(i); };
  x = b.linear(name(linear_index[0]), x, hidden, true, kReluGain);
  x = b.relu(name(linear_index[0] + 1), x);
  x = b.linear(name(linear_index[1]), x, hidden, true, kReluGain);
  x = b.relu(name(linear_index[1] + 1), x);
  return b.linear(name(linear_index[2]), x, num_classes);
}

}  // namespace

graph::Graph buildAlexNet(uint64_t seed, int64_t num_classes) {
  Builder b(seed);
  int x = b.input("input0", {1, 3, 224, 224});
  x = b.relu("features.1", b.conv2d("features.0", x, {.out = 64, .k = 11, .stride = 4, .pad = 2, .bias = true}));
  x = b.maxPool("features.2", x, {.k = 3, .stride = 2});
  x = b.relu("features.4", b.conv2d("features.3", x, {.out = 192, .k = 5, .pad = 2, .bias = true}));
  x = b.maxPool("features.5", x, {.k = 3, .stride = 2});
  x = b.relu("features.7", b.conv2d("features.6", x, {.out = 384, .k = 3, .pad = 1, .bias = true}));
  x = b.relu("features.9", b.conv2d("features.8", x, {.out = 256, .k = 3, .pad = 1, .bias = true}));
  x = b.relu("features.11", b.conv2d("features.10", x, {.out = 256, .k = 3, .pad = 1, .bias = true}));
  x = b.maxPool("features.12", x, {.k = 3, .stride = 2});
  x = b.adaptiveAvgPool("avgpool", x, 6, 6);
  x = b.flatten("flatten", x);
  x = classifier(b, x, {1, 4, 6}, 4096, num_classes);
  return b.finish({x});
}

graph::Graph buildVgg16(uint64_t seed, int64_t num_classes) {
  // Config "D": channel counts, 0 = 2x2 max pool.
  const std::vector<int64_t> cfg = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};
  Builder b(seed);
  int x = b.input("input0", {1, 3, 224, 224});
  int index = 0;  // torchvision's features.<index>
  for (int64_t c : cfg) {
    if (c == 0) {
      x = b.maxPool("features." + std::to_string(index++), x, {.k = 2, .stride = 2});
      continue;
    }
    x = b.conv2d("features." + std::to_string(index++), x, {.out = c, .k = 3, .pad = 1, .bias = true});
    x = b.relu("features." + std::to_string(index++), x);
  }
  x = b.adaptiveAvgPool("avgpool", x, 7, 7);
  x = b.flatten("flatten", x);
  x = classifier(b, x, {0, 3, 6}, 4096, num_classes);
  return b.finish({x});
}

}  // namespace ttune::models
