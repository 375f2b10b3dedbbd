#include "models/builder.h"

#include <algorithm>

#include "support/assert.h"
#include "support/error.h"
#include "support/hash.h"

namespace ttune::models {

using graph::OpAttrs;

graph::Graph Builder::finish(const std::vector<int>& outputs) {
  for (int o : outputs) g_.markOutput(o);
  names_.clear();
  return std::move(g_);
}

void Builder::claim(const std::string& name) {
  TT_ASSERT(names_.insert(name).second, "model builder: the value name '" + name + "' is used twice");
}

uint64_t Builder::tensorSeed(const std::string& name) const {
  return Hasher().add(seed_).add(std::string_view(name)).value();
}

int Builder::input(const std::string& name, te::Shape shape, te::DType dtype) {
  claim(name);
  return g_.addInput(name, std::move(shape), dtype);
}

int Builder::constant(const std::string& name, runtime::NDArray data) {
  claim(name);
  return g_.addConstant(name, std::move(data));
}

int Builder::uniform(const std::string& name, te::Shape shape, double lo, double hi) {
  runtime::NDArray a = runtime::NDArray::empty(std::move(shape), te::DType::Float32);
  a.fillRandom(tensorSeed(name), lo, hi);
  return constant(name, std::move(a));
}

int Builder::weight(const std::string& name, te::Shape shape, int64_t fan_in, double gain) {
  TT_ASSERT(fan_in > 0, "weight with an empty fan-in");
  double bound = gain * std::sqrt(3.0 / static_cast<double>(fan_in));  // U(-b, b) has variance b^2 / 3
  return uniform(name, std::move(shape), -bound, bound);
}

int Builder::scalar(const std::string& name, double value) {
  runtime::NDArray a = runtime::NDArray::empty({1}, te::DType::Float32);
  a.fill(value);
  return constant(name, std::move(a));
}

int Builder::node(const std::string& name, OpAttrs attrs, std::vector<int> inputs) {
  claim(name);
  return g_.addNode(name, std::move(attrs), std::move(inputs));
}

// ---- convolutional layers -------------------------------------------------------------------

int Builder::conv2d(const std::string& name, int x, const ConvSpec& s) {
  const te::Shape& in = shape(x);
  TT_ASSERT(in.size() == 4, "conv2d " + name + " needs an NCHW input");
  int64_t cin = in[1];
  TT_ASSERT(s.out > 0 && s.groups > 0 && cin % s.groups == 0 && s.out % s.groups == 0,
            "conv2d " + name + ": channels do not divide into groups");
  int64_t fan_in = cin / s.groups * s.k * s.k;
  int w = weight(name + ".weight", {s.out, cin / s.groups, s.k, s.k}, fan_in, s.gain);
  graph::Conv2dAttrs a;
  a.strides = {s.stride, s.stride};
  a.pads = {s.pad, s.pad, s.pad, s.pad};
  a.groups = s.groups;
  int y = node(name, a, {x, w});
  if (!s.bias) return y;
  double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));  // torch's default bias init
  int b = uniform(name + ".bias", {1, s.out, 1, 1}, -bound, bound);
  return add(name + ".bias_add", y, b);
}

int Builder::batchNorm(const std::string& name, int x, double eps) {
  int64_t c = shape(x).at(1);
  int gamma = uniform(name + ".weight", {c}, 0.5, 1.5);
  int beta = uniform(name + ".bias", {c}, -0.1, 0.1);
  int mean = uniform(name + ".running_mean", {c}, -0.1, 0.1);
  int var = uniform(name + ".running_var", {c}, 0.5, 1.5);
  graph::BatchNormAttrs a;
  a.epsilon = eps;
  return node(name, a, {x, gamma, beta, mean, var});
}

int Builder::maxPool(const std::string& name, int x, const PoolSpec& s) {
  graph::Pool2dAttrs a;
  a.kind = graph::PoolKind::Max;
  a.kernel = {s.k, s.k};
  a.strides = {s.stride, s.stride};
  a.pads = {s.pad, s.pad, s.pad, s.pad};
  a.ceil_mode = s.ceil_mode;
  return node(name, a, {x});
}

int Builder::avgPool(const std::string& name, int x, const PoolSpec& s) {
  graph::Pool2dAttrs a;
  a.kind = graph::PoolKind::Avg;
  a.kernel = {s.k, s.k};
  a.strides = {s.stride, s.stride};
  a.pads = {s.pad, s.pad, s.pad, s.pad};
  a.ceil_mode = s.ceil_mode;
  return node(name, a, {x});
}

int Builder::globalAvgPool(const std::string& name, int x) {
  return node(name, graph::GlobalPool2dAttrs{graph::PoolKind::Avg}, {x});
}

int Builder::adaptiveAvgPool(const std::string& name, int x, int64_t out_h, int64_t out_w) {
  const te::Shape& in = shape(x);
  if (out_h == 1 && out_w == 1) return globalAvgPool(name, x);
  TT_ASSERT(in[2] % out_h == 0 && in[3] % out_w == 0 && in[2] / out_h == in[3] / out_w,
            "adaptive pool " + name + ": output size must divide the input size uniformly");
  int64_t k = in[2] / out_h;
  return avgPool(name, x, {.k = k, .stride = k});
}

int Builder::flatten(const std::string& name, int x) {
  const te::Shape& in = shape(x);
  int64_t rest = 1;
  for (size_t d = 1; d < in.size(); ++d) rest *= in[d];
  return reshape(name, x, {in[0], rest});
}

// ---- elementwise ------------------------------------------------------------------------------

int Builder::unary(const std::string& name, int x, graph::UnaryKind kind, double alpha, double beta) {
  graph::UnaryAttrs a;
  a.kind = kind;
  a.alpha = alpha;
  a.beta = beta;
  return node(name, a, {x});
}

int Builder::binary(const std::string& name, int a, int b, graph::BinaryKind kind) {
  return node(name, graph::BinaryAttrs{kind}, {a, b});
}

// ---- dense / transformer layers -------------------------------------------------------------------

int Builder::linear(const std::string& name, int x, int64_t out, bool bias, double gain) {
  int64_t in = shape(x).back();
  int w = weight(name + ".weight", {out, in}, in, gain);
  int y = node(name, graph::DenseAttrs{}, {x, w});
  if (!bias) return y;
  double bound = 1.0 / std::sqrt(static_cast<double>(in));
  int b = uniform(name + ".bias", {out}, -bound, bound);
  return add(name + ".bias_add", y, b);
}

int Builder::layerNorm(const std::string& name, int x, double eps) {
  int64_t c = shape(x).back();
  int gamma = uniform(name + ".weight", {c}, 0.8, 1.2);
  int beta = uniform(name + ".bias", {c}, -0.1, 0.1);
  graph::LayerNormAttrs a;
  a.axis = -1;
  a.epsilon = eps;
  return node(name, a, {x, gamma, beta});
}

int Builder::noNorm(const std::string& name, int x) {
  int64_t c = shape(x).back();
  int gamma = uniform(name + ".weight", {c}, 0.8, 1.2);
  int beta = uniform(name + ".bias", {c}, -0.1, 0.1);
  int y = mul(name + ".mul", x, gamma);
  return add(name + ".add", y, beta);
}

int Builder::embedding(const std::string& name, int ids, int64_t rows, int64_t dim, double scale) {
  int table = uniform(name + ".weight", {rows, dim}, -scale, scale);
  return node(name, graph::GatherAttrs{0}, {table, ids});
}

int Builder::matmul(const std::string& name, int a, int b, bool transpose_a, bool transpose_b) {
  graph::MatMulAttrs m;
  m.transpose_a = transpose_a;
  m.transpose_b = transpose_b;
  return node(name, m, {a, b});
}

int Builder::softmax(const std::string& name, int x, int64_t axis) {
  return node(name, graph::SoftmaxAttrs{axis}, {x});
}

int Builder::reshape(const std::string& name, int x, te::Shape s) {
  return node(name, graph::ReshapeAttrs{std::move(s)}, {x});
}

int Builder::transpose(const std::string& name, int x, std::vector<int64_t> perm) {
  return node(name, graph::TransposeAttrs{std::move(perm)}, {x});
}

int Builder::slice(const std::string& name, int x, int64_t axis, int64_t start, int64_t end) {
  graph::SliceAttrs a;
  a.starts = {start};
  a.ends = {end};
  a.axes = {axis};
  a.steps = {1};
  return node(name, a, {x});
}

int Builder::pad(const std::string& name, int x, std::vector<int64_t> before, std::vector<int64_t> after) {
  graph::PadAttrs a;
  a.before = std::move(before);
  a.after = std::move(after);
  return node(name, a, {x});
}

int Builder::concat(const std::string& name, std::vector<int> xs, int64_t axis) {
  return node(name, graph::ConcatAttrs{axis}, std::move(xs));
}

int Builder::reduceMean(const std::string& name, int x, std::vector<int64_t> axes, bool keepdims) {
  graph::ReduceAttrs a;
  a.kind = graph::ReduceKind::Mean;
  a.axes = std::move(axes);
  a.keepdims = keepdims;
  return node(name, a, {x});
}

int64_t makeDivisible(double value, int64_t divisor) {
  int64_t v = std::max(divisor, static_cast<int64_t>(value + static_cast<double>(divisor) / 2.0) / divisor * divisor);
  if (static_cast<double>(v) < 0.9 * value) v += divisor;
  return v;
}

}  // namespace ttune::models
