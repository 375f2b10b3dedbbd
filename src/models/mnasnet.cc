#include "models/mnasnet.h"

#include <array>

namespace ttune::models {

int mnasInvertedResidual(Builder& b, const std::string& prefix, int x, int64_t out, int64_t kernel, int64_t stride,
                         int64_t expansion) {
  int64_t in = b.shape(x)[1];
  int64_t mid = in * expansion;
  bool residual = in == out && stride == 1;
  auto name = [&](int i) { return prefix + ".layers." + std::to_string(i); };
  int y = b.conv2d(name(0), x, {.out = mid, .k = 1});
  y = b.relu(name(2), b.batchNorm(name(1), y));
  y = b.conv2d(name(3), y, {.out = mid, .k = kernel, .stride = stride, .pad = kernel / 2, .groups = mid});
  y = b.relu(name(5), b.batchNorm(name(4), y));
  y = b.conv2d(name(6), y, {.out = out, .k = 1, .gain = residual ? kResidualGain : kLinearGain});
  y = b.batchNorm(name(7), y);
  return residual ? b.add(prefix + ".add", y, x) : y;
}

graph::Graph buildMnasNet(uint64_t seed, double alpha, int64_t num_classes) {
  // torchvision _get_depths: channel counts scaled by alpha, rounded to multiples of 8.
  std::array<int64_t, 8> depths = {32, 16, 24, 40, 80, 96, 192, 320};
  for (int64_t& d : depths) d = makeDivisible(static_cast<double>(d) * alpha);
  struct Stack {
    int64_t kernel, stride, expansion, repeats;
  };
  const std::array<Stack, 6> stacks = {
      {{3, 2, 3, 3}, {5, 2, 3, 3}, {5, 2, 6, 3}, {3, 1, 6, 2}, {5, 2, 6, 4}, {3, 1, 6, 1}}};

  Builder b(seed);
  int x = b.input("input0", {1, 3, 224, 224});
  x = b.conv2d("layers.0", x, {.out = depths[0], .k = 3, .stride = 2, .pad = 1});
  x = b.relu("layers.2", b.batchNorm("layers.1", x));
  x = b.conv2d("layers.3", x, {.out = depths[0], .k = 3, .pad = 1, .groups = depths[0]});
  x = b.relu("layers.5", b.batchNorm("layers.4", x));
  x = b.conv2d("layers.6", x, {.out = depths[1], .k = 1, .gain = kLinearGain});
  x = b.batchNorm("layers.7", x);
  for (size_t s = 0; s < stacks.size(); ++s) {
    const Stack& st = stacks[s];
    for (int64_t i = 0; i < st.repeats; ++i) {
      std::string prefix = "layers." + std::to_string(8 + s) + "." + std::to_string(i);
      x = mnasInvertedResidual(b, prefix, x, depths[s + 2], st.kernel, i == 0 ? st.stride : 1, st.expansion);
    }
  }
  x = b.conv2d("layers.14", x, {.out = 1280, .k = 1});
  x = b.relu("layers.16", b.batchNorm("layers.15", x));
  x = b.reduceMean("mean", x, {2, 3}, false);
  x = b.linear("classifier.1", x, num_classes);
  return b.finish({x});
}

}  // namespace ttune::models
