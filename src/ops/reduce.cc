#include "ops/reduce.h"

#include "support/error.h"

namespace ttune::ops {

using te::DType;
using te::Expr;
using te::IterVar;
using te::ReduceKind;
using te::Var;

namespace {

// reduced[d] is true when axis d is reduced; empty `axes` reduces every axis.
// Sum, max, min and product also take integers (exact in the integer type, wrapping as ONNX
// Runtime's do); the mean and the float-only kernels do not.
std::vector<bool> reducedAxes(std::string_view op, const Tensor& x, const std::vector<int64_t>& axes,
                              bool integers = false) {
  if (!(integers && te::isInt(x.dtype()))) checkDType(op, x, DType::Float32, "input");
  TT_CHECK_ARG(x.ndim() > 0, op, ": cannot reduce a rank-0 tensor");
  std::vector<bool> reduced(x.ndim(), axes.empty());
  for (int64_t a : axes) {
    int64_t d = normalizeAxis(op, a, x.ndim());
    TT_CHECK_ARG(!reduced[d], op, ": axis ", d, " is listed twice in axes ", listToString(axes));
    reduced[d] = true;
  }
  return reduced;
}

Shape reducedShape(const Tensor& x, const std::vector<bool>& reduced, bool keepdims) {
  Shape out;
  for (size_t d = 0; d < x.ndim(); ++d) {
    if (!reduced[d])
      out.push_back(x.shape()[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

Tensor reduceImpl(const std::string& name, ReduceKind kind, const Tensor& x, const std::vector<bool>& reduced,
                  bool keepdims) {
  std::vector<IterVar> raxes;
  for (size_t d = 0; d < x.ndim(); ++d)
    if (reduced[d]) raxes.push_back(te::reduceAxis(x.shape()[d], indexedName("r", raxes.size())));
  return te::compute(
      name, reducedShape(x, reduced, keepdims),
      [&](const std::vector<Var>& v) {
        std::vector<Expr> idx;
        size_t oi = 0, ri = 0;
        for (size_t d = 0; d < x.ndim(); ++d) {
          if (reduced[d]) {
            idx.push_back(raxes[ri++].var);
            if (keepdims) ++oi;
          } else {
            idx.push_back(v[oi++]);
          }
        }
        return te::reduce(kind, x(idx), raxes);
      },
      te::OpTag::Reduction);
}

// v with `extra` inserted at position `axis`, and v without position `axis`.
std::vector<Expr> withAxis(const std::vector<Var>& v, size_t axis, const Expr& extra) {
  std::vector<Expr> out(v.begin(), v.end());
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(axis), extra);
  return out;
}
std::vector<Expr> withoutAxis(const std::vector<Var>& v, size_t axis) {
  std::vector<Expr> out(v.begin(), v.end());
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  return out;
}

// `expectation` completes "op: role has shape [..] but ...".
void checkParam(std::string_view op, const Tensor& p, std::string_view role, const Shape& expected,
                const std::string& expectation) {
  checkDType(op, p, DType::Float32, role);
  TT_CHECK_ARG(p.shape() == expected, op, ": ", role, " has shape ", te::shapeToString(p.shape()), " but ",
               expectation);
}

}  // namespace

Tensor reduce_sum(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  return reduceImpl("reduce_sum", ReduceKind::Sum, x, reducedAxes("reduce_sum", x, axes, true), keepdims);
}

Tensor reduce_max(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  return reduceImpl("reduce_max", ReduceKind::Max, x, reducedAxes("reduce_max", x, axes, true), keepdims);
}

Tensor reduce_min(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  return reduceImpl("reduce_min", ReduceKind::Min, x, reducedAxes("reduce_min", x, axes, true), keepdims);
}

Tensor reduce_prod(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  return reduceImpl("reduce_prod", ReduceKind::Prod, x, reducedAxes("reduce_prod", x, axes, true), keepdims);
}

Tensor reduce_mean(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  std::vector<bool> reduced = reducedAxes("reduce_mean", x, axes);
  int64_t count = 1;
  for (size_t d = 0; d < x.ndim(); ++d)
    if (reduced[d]) count *= x.shape()[d];
  Tensor total = reduceImpl("reduce_sum", ReduceKind::Sum, x, reduced, keepdims);
  return te::compute(
      "reduce_mean", total.shape(), [&](const std::vector<Var>& v) { return total(v) / static_cast<double>(count); },
      te::OpTag::Elementwise);
}

Tensor softmax(const Tensor& x, int64_t axis) {
  checkDType("softmax", x, DType::Float32, "input");
  TT_CHECK_ARG(x.ndim() > 0, "softmax: the input must have rank at least 1");
  size_t ax = static_cast<size_t>(normalizeAxis("softmax", axis, x.ndim()));
  int64_t n = x.shape()[ax];
  Shape rest = x.shape();
  rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(ax));
  IterVar rmax = te::reduceAxis(n, "r0"), rsum = te::reduceAxis(n, "r0");
  Tensor maxelem = te::compute(
      "softmax_maxelem", rest,
      [&](const std::vector<Var>& v) { return te::maxReduce(x(withAxis(v, ax, rmax.var)), {rmax}); },
      te::OpTag::Softmax);
  Tensor exps = te::compute(
      "softmax_exp", x.shape(), [&](const std::vector<Var>& v) { return te::exp(x(v) - maxelem(withoutAxis(v, ax))); },
      te::OpTag::Softmax);
  Tensor expsum = te::compute(
      "softmax_expsum", rest,
      [&](const std::vector<Var>& v) { return te::sum(exps(withAxis(v, ax, rsum.var)), {rsum}); }, te::OpTag::Softmax);
  return te::compute(
      "softmax_norm", x.shape(), [&](const std::vector<Var>& v) { return exps(v) / expsum(withoutAxis(v, ax)); },
      te::OpTag::Softmax);
}

Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t axis, double epsilon) {
  const char* op = "layer_norm";
  checkDType(op, x, DType::Float32, "input");
  TT_CHECK_ARG(x.ndim() > 0, op, ": the input must have rank at least 1");
  TT_CHECK_ARG(epsilon >= 0, op, ": epsilon must be non-negative, got ", epsilon);
  size_t ax = static_cast<size_t>(normalizeAxis(op, axis, x.ndim()));
  const Shape& s = x.shape();
  Shape outer(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(ax));
  Shape inner(s.begin() + static_cast<std::ptrdiff_t>(ax), s.end());
  std::string expectation = "the normalized dimensions are " + te::shapeToString(inner);
  if (gamma.defined()) checkParam(op, gamma, "gamma", inner, expectation);
  if (beta.defined()) checkParam(op, beta, "beta", inner, expectation);
  double inv_n = 1.0 / static_cast<double>(te::shapeElements(inner));
  auto makeAxes = [&] {
    std::vector<IterVar> r;
    for (size_t d = 0; d < inner.size(); ++d) r.push_back(te::reduceAxis(inner[d], indexedName("r", d)));
    return r;
  };
  auto point = [](const std::vector<Var>& v, const std::vector<IterVar>& r) {
    std::vector<Expr> idx(v.begin(), v.end());
    for (const IterVar& iv : r) idx.push_back(iv.var);
    return idx;
  };
  std::vector<IterVar> r1 = makeAxes(), r2 = makeAxes();
  // Means are sums of pre-scaled terms so that each pass is a single reduction op.
  Tensor mean = te::compute(
      "layer_norm_mean", outer, [&](const std::vector<Var>& v) { return te::sum(x(point(v, r1)) * inv_n, r1); },
      te::OpTag::LayerNorm);
  Tensor var = te::compute(
      "layer_norm_var", outer,
      [&](const std::vector<Var>& v) {
        Expr dev = x(point(v, r2)) - mean(v);
        return te::sum(dev * dev * inv_n, r2);
      },
      te::OpTag::LayerNorm);
  return te::compute(
      "layer_norm", s,
      [&](const std::vector<Var>& v) {
        std::vector<Var> ov(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(ax));
        std::vector<Var> iv(v.begin() + static_cast<std::ptrdiff_t>(ax), v.end());
        Expr y = (x(v) - mean(ov)) * te::rsqrt(var(ov) + epsilon);
        if (gamma.defined()) y = y * gamma(iv);
        if (beta.defined()) y = y + beta(iv);
        return y;
      },
      te::OpTag::LayerNorm);
}

Tensor batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                            const Tensor& var, double epsilon) {
  const char* op = "batch_norm_inference";
  checkMinRank(op, x, 2, "input");
  checkDType(op, x, DType::Float32, "input");
  TT_CHECK_ARG(epsilon >= 0, op, ": epsilon must be non-negative, got ", epsilon);
  Shape c = {x.shape()[1]};
  std::string expectation =
      cat("the input has ", c[0], " channels (axis 1), so ", te::shapeToString(c), " is expected");
  checkParam(op, gamma, "gamma", c, expectation);
  checkParam(op, beta, "beta", c, expectation);
  checkParam(op, mean, "mean", c, expectation);
  checkParam(op, var, "var", c, expectation);
  return te::compute(
      "batch_norm", x.shape(),
      [&](const std::vector<Var>& v) {
        const Var& ch = v[1];
        return (x(v) - mean(ch)) * (gamma(ch) * te::rsqrt(var(ch) + epsilon)) + beta(ch);
      },
      te::OpTag::Broadcast);
}

}  // namespace ttune::ops
