#include "reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <variant>

#include "support/assert.h"
#include "support/overload.h"
#include "te/compute_dag.h"
#include "te/evaluator.h"

namespace ttune::models::testing {

namespace {

NDArray zeros(const te::Shape& s) { return NDArray(s, te::DType::Float32); }

std::vector<int64_t> stridesOf(const te::Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

// Calls fn(flat output index, multi-index) over a shape in row-major order.
void forEach(const te::Shape& s, const std::function<void(int64_t, const std::vector<int64_t>&)>& fn) {
  std::vector<int64_t> idx(s.size(), 0);
  int64_t n = te::shapeElements(s);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(flat, idx);
    for (int d = static_cast<int>(s.size()) - 1; d >= 0; --d) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
}

int64_t poolOut(int64_t in, int64_t k, int64_t stride, int64_t pad, bool ceil_mode) {
  int64_t span = in + 2 * pad - k;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;  // a window must start inside input or left pad
  return out;
}

}  // namespace

NDArray conv2d(const NDArray& x, const NDArray& w, int64_t stride, int64_t pad, int64_t groups) {
  return conv2d(x, w, {stride, stride}, {pad, pad, pad, pad}, groups);
}

NDArray conv2d(const NDArray& x, const NDArray& w, std::array<int64_t, 2> st, std::array<int64_t, 4> pads,
               int64_t groups) {
  const te::Shape& xs = x.shape();
  const te::Shape& ws = w.shape();
  int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3];
  int64_t k = ws[0], cg = ws[1], r = ws[2], s = ws[3];
  TT_ASSERT(cg * groups == c && k % groups == 0, "reference conv2d: bad groups");
  int64_t oh = (h + pads[0] + pads[2] - r) / st[0] + 1;
  int64_t ow = (wd + pads[1] + pads[3] - s) / st[1] + 1;
  NDArray y = zeros({n, k, oh, ow});
  const float* X = x.as<float>();
  const float* W = w.as<float>();
  float* Y = y.as<float>();
  int64_t kg = k / groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t f = 0; f < k; ++f) {
      int64_t g = f / kg;
      float* yo = Y + ((b * k + f) * oh) * ow;
      for (int64_t ci = 0; ci < cg; ++ci) {
        const float* xi = X + ((b * c + g * cg + ci) * h) * wd;
        for (int64_t dy = 0; dy < r; ++dy)
          for (int64_t dx = 0; dx < s; ++dx) {
            float wv = W[((f * cg + ci) * r + dy) * s + dx];
            for (int64_t oy = 0; oy < oh; ++oy) {
              int64_t iy = oy * st[0] - pads[0] + dy;
              if (iy < 0 || iy >= h) continue;
              for (int64_t ox = 0; ox < ow; ++ox) {
                int64_t ix = ox * st[1] - pads[1] + dx;
                if (ix >= 0 && ix < wd) yo[oy * ow + ox] += wv * xi[iy * wd + ix];
              }
            }
          }
      }
    }
  return y;
}

NDArray batchNorm(const NDArray& x, const NDArray& gamma, const NDArray& beta, const NDArray& mean, const NDArray& var,
                  double eps) {
  NDArray y = zeros(x.shape());
  int64_t c = x.shape()[1];
  int64_t inner = x.numElements() / x.shape()[0] / c;
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t ch = (i / inner) % c;
    double v = (x.as<float>()[i] - mean.as<float>()[ch]) / std::sqrt(var.as<float>()[ch] + eps);
    y.as<float>()[i] = static_cast<float>(v * gamma.as<float>()[ch] + beta.as<float>()[ch]);
  }
  return y;
}

NDArray maxPool(const NDArray& x, int64_t k, int64_t stride, int64_t pad, bool ceil_mode) {
  const te::Shape& s = x.shape();
  int64_t oh = poolOut(s[2], k, stride, pad, ceil_mode), ow = poolOut(s[3], k, stride, pad, ceil_mode);
  NDArray y = zeros({s[0], s[1], oh, ow});
  forEach(y.shape(), [&](int64_t flat, const std::vector<int64_t>& i) {
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t dy = 0; dy < k; ++dy)
      for (int64_t dx = 0; dx < k; ++dx) {
        int64_t iy = i[2] * stride - pad + dy, ix = i[3] * stride - pad + dx;
        if (iy < 0 || iy >= s[2] || ix < 0 || ix >= s[3]) continue;
        m = std::max(m, x.as<float>()[((i[0] * s[1] + i[1]) * s[2] + iy) * s[3] + ix]);
      }
    y.as<float>()[flat] = m;
  });
  return y;
}

NDArray avgPool(const NDArray& x, int64_t k, int64_t stride) {
  const te::Shape& s = x.shape();
  int64_t oh = (s[2] - k) / stride + 1, ow = (s[3] - k) / stride + 1;
  NDArray y = zeros({s[0], s[1], oh, ow});
  forEach(y.shape(), [&](int64_t flat, const std::vector<int64_t>& i) {
    double sum = 0;
    for (int64_t dy = 0; dy < k; ++dy)
      for (int64_t dx = 0; dx < k; ++dx)
        sum += x.as<float>()[((i[0] * s[1] + i[1]) * s[2] + i[2] * stride + dy) * s[3] + i[3] * stride + dx];
    y.as<float>()[flat] = static_cast<float>(sum / static_cast<double>(k * k));
  });
  return y;
}

NDArray globalAvgPool(const NDArray& x) {
  const te::Shape& s = x.shape();
  NDArray y = zeros({s[0], s[1], 1, 1});
  int64_t hw = s[2] * s[3];
  for (int64_t i = 0; i < s[0] * s[1]; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < hw; ++j) sum += x.as<float>()[i * hw + j];
    y.as<float>()[i] = static_cast<float>(sum / static_cast<double>(hw));
  }
  return y;
}

NDArray dense(const NDArray& x, const NDArray& w) {
  int64_t m = x.shape()[0], k = x.shape()[1], n = w.shape()[0];
  TT_ASSERT(w.shape()[1] == k, "reference dense: K mismatch");
  NDArray y = zeros({m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float* a = x.as<float>() + i * k;
      const float* b = w.as<float>() + j * k;
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += static_cast<double>(a[p]) * b[p];
      y.as<float>()[i * n + j] = static_cast<float>(acc);
    }
  return y;
}

NDArray matmul(const NDArray& a, const NDArray& b, bool ta, bool tb) {
  bool batched = a.shape().size() == 3;
  te::Shape as = batched ? a.shape() : te::Shape{1, a.shape()[0], a.shape()[1]};
  te::Shape bs = batched ? b.shape() : te::Shape{1, b.shape()[0], b.shape()[1]};
  TT_ASSERT(as[0] == bs[0], "reference matmul: batch mismatch");
  int64_t m = ta ? as[2] : as[1], k = ta ? as[1] : as[2], n = tb ? bs[1] : bs[2];
  TT_ASSERT((tb ? bs[2] : bs[1]) == k, "reference matmul: K mismatch");
  NDArray y = zeros(batched ? te::Shape{as[0], m, n} : te::Shape{m, n});
  for (int64_t bt = 0; bt < as[0]; ++bt)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          float av = a.as<float>()[bt * as[1] * as[2] + (ta ? p * as[2] + i : i * as[2] + p)];
          float bv = b.as<float>()[bt * bs[1] * bs[2] + (tb ? j * bs[2] + p : p * bs[2] + j)];
          acc += static_cast<double>(av) * bv;
        }
        y.as<float>()[(bt * m + i) * n + j] = static_cast<float>(acc);
      }
  return y;
}

NDArray unary(const NDArray& x, const std::function<double(double)>& fn) {
  NDArray y = zeros(x.shape());
  for (int64_t i = 0; i < x.numElements(); ++i) y.as<float>()[i] = static_cast<float>(fn(x.as<float>()[i]));
  return y;
}

NDArray binary(const NDArray& a, const NDArray& b, const std::function<double(double, double)>& fn) {
  size_t rank = std::max(a.shape().size(), b.shape().size());
  auto aligned = [&](const te::Shape& s) {
    te::Shape r(rank - s.size(), 1);
    r.insert(r.end(), s.begin(), s.end());
    return r;
  };
  te::Shape sa = aligned(a.shape()), sb = aligned(b.shape()), so(rank);
  for (size_t d = 0; d < rank; ++d) {
    TT_ASSERT(sa[d] == sb[d] || sa[d] == 1 || sb[d] == 1, "reference binary: shapes do not broadcast");
    so[d] = std::max(sa[d], sb[d]);
  }
  std::vector<int64_t> ta = stridesOf(sa), tb = stridesOf(sb);
  NDArray y = zeros(so);
  forEach(so, [&](int64_t flat, const std::vector<int64_t>& i) {
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < rank; ++d) {
      ia += (sa[d] == 1 ? 0 : i[d]) * ta[d];
      ib += (sb[d] == 1 ? 0 : i[d]) * tb[d];
    }
    y.as<float>()[flat] = static_cast<float>(fn(a.as<float>()[ia], b.as<float>()[ib]));
  });
  return y;
}

NDArray add(const NDArray& a, const NDArray& b) {
  return binary(a, b, [](double p, double q) { return p + q; });
}
NDArray mul(const NDArray& a, const NDArray& b) {
  return binary(a, b, [](double p, double q) { return p * q; });
}

NDArray layerNorm(const NDArray& x, const NDArray& gamma, const NDArray& beta, double eps) {
  int64_t c = x.shape().back(), rows = x.numElements() / c;
  NDArray y = zeros(x.shape());
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x.as<float>() + r * c;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < c; ++j) mean += in[j];
    mean /= static_cast<double>(c);
    for (int64_t j = 0; j < c; ++j) var += (in[j] - mean) * (in[j] - mean);
    var /= static_cast<double>(c);
    for (int64_t j = 0; j < c; ++j)
      y.as<float>()[r * c + j] =
          static_cast<float>((in[j] - mean) / std::sqrt(var + eps) * gamma.as<float>()[j] + beta.as<float>()[j]);
  }
  return y;
}

NDArray softmaxLastAxis(const NDArray& x) {
  int64_t c = x.shape().back(), rows = x.numElements() / c;
  NDArray y = zeros(x.shape());
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x.as<float>() + r * c;
    double m = *std::max_element(in, in + c), sum = 0;
    for (int64_t j = 0; j < c; ++j) sum += std::exp(in[j] - m);
    for (int64_t j = 0; j < c; ++j) y.as<float>()[r * c + j] = static_cast<float>(std::exp(in[j] - m) / sum);
  }
  return y;
}

NDArray reshape(const NDArray& x, const te::Shape& shape) {
  TT_ASSERT(te::shapeElements(shape) == x.numElements(), "reference reshape: element count changes");
  NDArray y = NDArray::empty(shape, x.dtype());
  std::memcpy(y.data(), x.data(), static_cast<size_t>(x.bytes()));
  return y;
}

NDArray transpose(const NDArray& x, const std::vector<int64_t>& perm) {
  te::Shape so(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) so[d] = x.shape()[perm[d]];
  std::vector<int64_t> st = stridesOf(x.shape());
  NDArray y = zeros(so);
  forEach(so, [&](int64_t flat, const std::vector<int64_t>& i) {
    int64_t src = 0;
    for (size_t d = 0; d < perm.size(); ++d) src += i[d] * st[perm[d]];
    y.as<float>()[flat] = x.as<float>()[src];
  });
  return y;
}

NDArray slice(const NDArray& x, int64_t axis, int64_t start, int64_t end) {
  te::Shape so = x.shape();
  so[axis] = end - start;
  std::vector<int64_t> st = stridesOf(x.shape());
  NDArray y = zeros(so);
  forEach(so, [&](int64_t flat, const std::vector<int64_t>& i) {
    int64_t src = 0;
    for (size_t d = 0; d < so.size(); ++d) src += (i[d] + (static_cast<int64_t>(d) == axis ? start : 0)) * st[d];
    y.as<float>()[flat] = x.as<float>()[src];
  });
  return y;
}

NDArray pad(const NDArray& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after, double value) {
  te::Shape so = x.shape();
  for (size_t d = 0; d < so.size(); ++d) so[d] += before[d] + after[d];
  std::vector<int64_t> st = stridesOf(x.shape());
  NDArray y = zeros(so);
  forEach(so, [&](int64_t flat, const std::vector<int64_t>& i) {
    int64_t src = 0;
    for (size_t d = 0; d < so.size(); ++d) {
      int64_t j = i[d] - before[d];
      if (j < 0 || j >= x.shape()[d]) {
        y.as<float>()[flat] = static_cast<float>(value);
        return;
      }
      src += j * st[d];
    }
    y.as<float>()[flat] = x.as<float>()[src];
  });
  return y;
}

NDArray concat(const std::vector<NDArray>& xs, int64_t axis) {
  te::Shape so = xs[0].shape();
  so[axis] = 0;
  for (const NDArray& x : xs) so[axis] += x.shape()[axis];
  NDArray y = zeros(so);
  forEach(so, [&](int64_t flat, const std::vector<int64_t>& i) {
    int64_t pos = i[axis];
    for (const NDArray& x : xs) {
      if (pos >= x.shape()[axis]) {
        pos -= x.shape()[axis];
        continue;
      }
      std::vector<int64_t> st = stridesOf(x.shape());
      int64_t src = 0;
      for (size_t d = 0; d < so.size(); ++d) src += (static_cast<int64_t>(d) == axis ? pos : i[d]) * st[d];
      y.as<float>()[flat] = x.as<float>()[src];
      return;
    }
  });
  return y;
}

NDArray gather(const NDArray& table, const NDArray& ids) {
  int64_t rows = table.shape()[0], dim = table.numElements() / rows;
  te::Shape so = ids.shape();
  for (size_t d = 1; d < table.shape().size(); ++d) so.push_back(table.shape()[d]);
  NDArray y = zeros(so);
  for (int64_t i = 0; i < ids.numElements(); ++i) {
    int64_t r = ids.dtype() == te::DType::Int64 ? ids.as<int64_t>()[i] : ids.as<int32_t>()[i];
    TT_ASSERT(r >= 0 && r < rows, "reference gather: index out of range");
    std::memcpy(y.as<float>() + i * dim, table.as<float>() + r * dim, sizeof(float) * static_cast<size_t>(dim));
  }
  return y;
}

NDArray reduceMean(const NDArray& x, const std::vector<int64_t>& axes, bool keepdims) {
  te::Shape kept = x.shape();
  for (int64_t a : axes) kept[a] = 1;
  NDArray sum = zeros(kept);
  std::vector<int64_t> st = stridesOf(kept);
  forEach(x.shape(), [&](int64_t flat, const std::vector<int64_t>& i) {
    int64_t dst = 0;
    for (size_t d = 0; d < kept.size(); ++d) dst += (kept[d] == 1 ? 0 : i[d]) * st[d];
    sum.as<float>()[dst] += x.as<float>()[flat];
  });
  double n = static_cast<double>(x.numElements() / sum.numElements());
  NDArray y = unary(sum, [n](double v) { return v / n; });
  if (keepdims) return y;
  te::Shape out;
  for (size_t d = 0; d < kept.size(); ++d)
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) == axes.end()) out.push_back(kept[d]);
  return reshape(y, out);
}

double relu(double x) { return x > 0 ? x : 0; }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double silu(double x) { return x * sigmoid(x); }
double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

// ---- graphs ---------------------------------------------------------------------------------------

const NDArray& constantOf(const graph::Graph& g, const std::string& name) {
  for (const graph::Value& v : g.values())
    if (v.name == name && v.isConstant()) return *v.constant;
  TT_UNREACHABLE("no constant named " + name);
}

namespace {

double applyUnary(const graph::UnaryAttrs& a, double x) {
  using graph::UnaryKind;
  switch (a.kind) {
    case UnaryKind::Relu:
      return relu(x);
    case UnaryKind::Clip:
      return std::min(std::max(x, a.alpha), a.beta);
    case UnaryKind::Sigmoid:
      return sigmoid(x);
    case UnaryKind::Silu:
      return silu(x);
    case UnaryKind::Tanh:
      return std::tanh(x);
    case UnaryKind::Gelu:
      return gelu(x);
    default:
      break;
  }
  TT_UNREACHABLE("reference interpreter: unsupported unary operator");
}

NDArray runNode(const graph::Node& n, const std::vector<NDArray>& in) {
  using namespace graph;
  return std::visit(
      Overload{
          [&](const Conv2dAttrs& a) {
            TT_ASSERT(a.dilation == (Hw{1, 1}) && a.layout == Layout::NCHW, "reference: plain NCHW conv only");
            return conv2d(in[0], in[1], a.strides, a.pads, a.groups);
          },
          [&](const DenseAttrs&) { return dense(in[0], in[1]); },
          [&](const MatMulAttrs& a) { return matmul(in[0], in[1], a.transpose_a, a.transpose_b); },
          [&](const Pool2dAttrs& a) {
            TT_ASSERT(a.kernel[0] == a.kernel[1] && a.strides[0] == a.strides[1], "reference: square pools only");
            if (a.kind == PoolKind::Max) return maxPool(in[0], a.kernel[0], a.strides[0], a.pads[0], a.ceil_mode);
            TT_ASSERT(a.pads == (Pad4{0, 0, 0, 0}) && !a.ceil_mode, "reference: unpadded average pools only");
            return avgPool(in[0], a.kernel[0], a.strides[0]);
          },
          [&](const GlobalPool2dAttrs& a) {
            TT_ASSERT(a.kind == PoolKind::Avg, "reference: global average pool only");
            return globalAvgPool(in[0]);
          },
          [&](const UnaryAttrs& a) { return unary(in[0], [&](double x) { return applyUnary(a, x); }); },
          [&](const BinaryAttrs& a) {
            switch (a.kind) {
              case BinaryKind::Add:
                return add(in[0], in[1]);
              case BinaryKind::Mul:
                return mul(in[0], in[1]);
              case BinaryKind::Div:
                return binary(in[0], in[1], [](double p, double q) { return p / q; });
              default:
                TT_UNREACHABLE("reference interpreter: unsupported binary operator");
            }
          },
          [&](const SoftmaxAttrs& a) {
            TT_ASSERT(a.axis == -1 || a.axis == static_cast<int64_t>(in[0].shape().size()) - 1,
                      "reference: softmax on the last axis only");
            return softmaxLastAxis(in[0]);
          },
          [&](const LayerNormAttrs& a) { return layerNorm(in[0], in[1], in[2], a.epsilon); },
          [&](const ReduceAttrs& a) {
            TT_ASSERT(a.kind == ReduceKind::Mean, "reference: reduce_mean only");
            return reduceMean(in[0], a.axes, a.keepdims);
          },
          [&](const BatchNormAttrs& a) { return batchNorm(in[0], in[1], in[2], in[3], in[4], a.epsilon); },
          [&](const PadAttrs& a) { return pad(in[0], a.before, a.after, a.value); },
          [&](const ConcatAttrs& a) { return concat(in, a.axis); },
          [&](const ReshapeAttrs& a) { return reshape(in[0], a.shape); },
          [&](const TransposeAttrs& a) { return transpose(in[0], a.perm); },
          [&](const SliceAttrs& a) {
            TT_ASSERT(a.axes.size() == 1 && (a.steps.empty() || a.steps[0] == 1), "reference: one-axis slices only");
            return slice(in[0], a.axes[0], a.starts[0], std::min(a.ends[0], in[0].shape()[a.axes[0]]));
          },
          [&](const GatherAttrs& a) {
            TT_ASSERT(a.axis == 0, "reference: gather on axis 0 only");
            return gather(in[0], in[1]);
          },
          [&](const auto&) -> NDArray {
            TT_UNREACHABLE("reference interpreter: unsupported operator " + opName(n.attrs));
          },
      },
      n.attrs);
}

template <class RunNode>
std::vector<NDArray> runGraph(const graph::Graph& g, const std::vector<NDArray>& inputs, RunNode run) {
  std::vector<NDArray> vals(g.values().size());
  TT_ASSERT(inputs.size() == g.inputs().size(), "wrong number of graph inputs");
  for (size_t i = 0; i < inputs.size(); ++i) vals[g.inputs()[i]] = inputs[i];
  for (size_t i = 0; i < g.values().size(); ++i)
    if (g.values()[i].isConstant()) vals[i] = *g.values()[i].constant;
  // Free intermediates after their last reader so that big models fit in memory.
  std::vector<int> last(g.values().size(), -1);
  for (size_t i = 0; i < g.nodes().size(); ++i)
    for (int v : g.nodes()[i].inputs)
      if (v >= 0) last[v] = static_cast<int>(i);
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const graph::Node& n = g.nodes()[i];
    std::vector<NDArray> in;
    for (int v : n.inputs) in.push_back(v >= 0 ? vals[v] : NDArray());
    vals[n.output] = run(g, static_cast<int>(i), in);
    for (int v : n.inputs)
      if (v >= 0 && last[v] == static_cast<int>(i) && g.values()[v].producer >= 0 &&
          std::find(g.outputs().begin(), g.outputs().end(), v) == g.outputs().end())
        vals[v] = NDArray();
  }
  std::vector<NDArray> out;
  for (int o : g.outputs()) out.push_back(vals[o]);
  return out;
}

}  // namespace

std::vector<NDArray> interpret(const graph::Graph& g, const std::vector<NDArray>& inputs, const NodeObserver& observe) {
  return runGraph(g, inputs, [&](const graph::Graph& gr, int i, const std::vector<NDArray>& in) {
    NDArray r = runNode(gr.node(i), in);
    if (observe) observe(i, r);
    return r;
  });
}

std::vector<NDArray> evaluateWithTe(const graph::Graph& g, const std::vector<NDArray>& inputs) {
  return runGraph(g, inputs, [](const graph::Graph& gr, int i, const std::vector<NDArray>& in) {
    std::vector<te::Tensor> ph, dag_inputs;
    std::vector<void*> args;
    for (size_t k = 0; k < in.size(); ++k) {
      if (!in[k].defined()) {
        ph.emplace_back();
        continue;
      }
      te::Tensor t = te::placeholder("in" + std::to_string(k), in[k].shape(), in[k].dtype());
      ph.push_back(t);
      dag_inputs.push_back(t);
      args.push_back(in[k].data());
    }
    te::Tensor out = gr.buildNode(i, ph);
    te::ComputeDAG dag(dag_inputs, {out});
    NDArray result(out.shape(), out.dtype());
    args.push_back(result.data());
    te::evaluate(dag, args);
    return result;
  });
}

::testing::AssertionResult near(const NDArray& actual, const NDArray& expected, double rtol, double atol) {
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure() << "shape " << te::shapeToString(actual.shape()) << " != expected "
                                         << te::shapeToString(expected.shape());
  runtime::Comparison c = runtime::compare(actual, expected, atol, rtol);
  if (c.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << c.mismatches << " mismatches, " << c.non_finite << " non-finite; max abs err "
                                       << c.max_abs_err << ", max rel err " << c.max_rel_err;
}

}  // namespace ttune::models::testing
