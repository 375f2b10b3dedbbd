// Builder: appends framework-style layers (conv, batch norm, linear, layer norm, attention pieces)
// to a graph::Graph, creating their weights as seeded constants named like PyTorch state-dict
// entries ("layer1.0.conv1.weight").
//
// Invariants: every value name (node or constant) is unique within the graph — a clash is a bug
// and asserts. A constant's data depends only on (builder seed, constant name, shape), never on
// build order, so every build of a model with one seed is bit-identical. Layers follow the graph
// conventions the passes rely on: a convolution is Conv2dAttrs(data, weight) with any bias as a
// separate Add of a [1, C, 1, 1] constant; a linear layer is DenseAttrs(x, weight [N, K]) plus an
// Add of a [N] bias; batch norm is one BatchNormAttrs node (x, gamma, beta, mean, var); ReLU6 is
// Clip(0, 6). Weights are scaled (He / Xavier-like, realistic batch-norm statistics) so that
// activations stay in a sane range through deep networks.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "graph/graph.h"

namespace ttune::models {

// Variance gain of a weight followed by ReLU (He) and by nothing / a saturating function (Xavier).
inline const double kReluGain = std::sqrt(2.0);
inline constexpr double kLinearGain = 1.0;
// Gain of the last weight of a residual branch (the branch output is added to the stream): the
// stream's variance then grows by ~1.25x per block instead of 2x, so outputs of 50-layer
// networks stay O(1..100) with random weights.
inline constexpr double kResidualGain = 0.5;

struct ConvSpec {
  int64_t out = 0;  // output channels
  int64_t k = 1;    // square kernel
  int64_t stride = 1;
  int64_t pad = 0;  // symmetric
  int64_t groups = 1;
  bool bias = false;
  double gain = kReluGain;  // weight variance = gain^2 / fan_in
};

struct PoolSpec {
  int64_t k = 1;
  int64_t stride = 1;
  int64_t pad = 0;
  bool ceil_mode = false;
};

class Builder {
 public:
  explicit Builder(uint64_t seed) : seed_(seed) {}

  graph::Graph& graph() { return g_; }
  const te::Shape& shape(int value) const { return g_.value(value).shape; }
  // Marks the outputs and hands the graph over (the builder is empty afterwards).
  graph::Graph finish(const std::vector<int>& outputs);

  // ---- values ------------------------------------------------------------------------------
  int input(const std::string& name, te::Shape shape, te::DType dtype = te::DType::Float32);
  int constant(const std::string& name, runtime::NDArray data);
  // Seeded uniform float constant in [lo, hi).
  int uniform(const std::string& name, te::Shape shape, double lo, double hi);
  // Weight with variance gain^2 / fan_in (uniform distribution).
  int weight(const std::string& name, te::Shape shape, int64_t fan_in, double gain);
  int scalar(const std::string& name, double value);  // float constant of shape [1]
  int node(const std::string& name, graph::OpAttrs attrs, std::vector<int> inputs);

  // ---- convolutional layers (NCHW) ------------------------------------------------------------
  // Weight "<name>.weight" [out, in/groups, k, k]; with spec.bias also "<name>.bias" [1, out, 1, 1]
  // added by node "<name>.bias_add".
  int conv2d(const std::string& name, int x, const ConvSpec& spec);
  // "<name>.weight/.bias/.running_mean/.running_var"; gamma ~ U(0.5, 1.5), beta and mean small,
  // var ~ U(0.5, 1.5).
  int batchNorm(const std::string& name, int x, double eps = 1e-5);
  int maxPool(const std::string& name, int x, const PoolSpec& spec);
  int avgPool(const std::string& name, int x, const PoolSpec& spec);
  int globalAvgPool(const std::string& name, int x);
  // torch adaptive_avg_pool2d as torch.onnx exports it: output 1x1 -> global average pool;
  // an output size dividing the input -> AveragePool with kernel = stride = in / out (a 1x1
  // pool when the map already has the output size). Other sizes are rejected.
  int adaptiveAvgPool(const std::string& name, int x, int64_t out_h, int64_t out_w);
  // [N, ...] -> [N, prod(...)] (torch.flatten(x, 1)).
  int flatten(const std::string& name, int x);

  // ---- elementwise ---------------------------------------------------------------------------
  int unary(const std::string& name, int x, graph::UnaryKind kind, double alpha = 0, double beta = 0);
  int relu(const std::string& name, int x) { return unary(name, x, graph::UnaryKind::Relu); }
  int relu6(const std::string& name, int x) { return unary(name, x, graph::UnaryKind::Clip, 0.0, 6.0); }
  int silu(const std::string& name, int x) { return unary(name, x, graph::UnaryKind::Silu); }
  int sigmoid(const std::string& name, int x) { return unary(name, x, graph::UnaryKind::Sigmoid); }
  int tanh(const std::string& name, int x) { return unary(name, x, graph::UnaryKind::Tanh); }
  int gelu(const std::string& name, int x) { return unary(name, x, graph::UnaryKind::Gelu); }
  int binary(const std::string& name, int a, int b, graph::BinaryKind kind);
  int add(const std::string& name, int a, int b) { return binary(name, a, b, graph::BinaryKind::Add); }
  int mul(const std::string& name, int a, int b) { return binary(name, a, b, graph::BinaryKind::Mul); }
  int div(const std::string& name, int a, int b) { return binary(name, a, b, graph::BinaryKind::Div); }

  // ---- dense / transformer layers (2-D activations [tokens, features]) -----------------------
  // Dense node "<name>" with "<name>.weight" [out, in], then "<name>.bias_add" of "<name>.bias" [out].
  int linear(const std::string& name, int x, int64_t out, bool bias = true, double gain = kLinearGain);
  // LayerNorm over the last axis: "<name>.weight/.bias" [features]; gamma ~ U(0.8, 1.2).
  int layerNorm(const std::string& name, int x, double eps);
  // MobileBERT NoNorm: x * "<name>.weight" + "<name>.bias" (two elementwise nodes).
  int noNorm(const std::string& name, int x);
  // Table "<name>.weight" [rows, dim] ~ U(-scale, scale), gathered at `ids` (axis 0).
  int embedding(const std::string& name, int ids, int64_t rows, int64_t dim, double scale);
  int matmul(const std::string& name, int a, int b, bool transpose_a = false, bool transpose_b = false);
  int softmax(const std::string& name, int x, int64_t axis = -1);
  int reshape(const std::string& name, int x, te::Shape shape);
  int transpose(const std::string& name, int x, std::vector<int64_t> perm);
  int slice(const std::string& name, int x, int64_t axis, int64_t start, int64_t end);
  int pad(const std::string& name, int x, std::vector<int64_t> before, std::vector<int64_t> after);
  int concat(const std::string& name, std::vector<int> xs, int64_t axis);
  int reduceMean(const std::string& name, int x, std::vector<int64_t> axes, bool keepdims);

 private:
  void claim(const std::string& name);
  uint64_t tensorSeed(const std::string& name) const;

  uint64_t seed_;
  graph::Graph g_;
  std::unordered_set<std::string> names_;
};

// Channel rounding shared by the torchvision mobile models (MobileNetV2 / EfficientNet
// `_make_divisible`, MNASNet `_round_to_multiple_of` with bias 0.9): the nearest multiple of
// `divisor` (at least `divisor`), bumped up once if that loses more than 10%.
int64_t makeDivisible(double value, int64_t divisor = 8);

}  // namespace ttune::models
