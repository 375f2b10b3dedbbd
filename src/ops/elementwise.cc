#include "ops/elementwise.h"

#include <cmath>
#include <optional>

#include "support/error.h"

namespace ttune::ops {

using te::DType;
using te::Expr;
using te::Var;

namespace {

bool sameShapes(const Shape& out, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->shape() != out) return false;
  return true;
}

void checkNumeric(const std::string& label, const Tensor& t, std::string_view role, bool int_ok) {
  checkDefined(label, t, role);
  bool ok = te::isComputeFloat(t.dtype()) || (int_ok && te::isInt(t.dtype()));
  TT_CHECK_ARG(ok, label, ": the ", role, " has dtype ", te::dtypeName(t.dtype()), " but ",
               int_ok ? "a float or an integer type" : "float32 or float64", " is required");
}

Tensor arith(const std::string& label, const Tensor& a, const Tensor& b, bool int_ok,
             const std::function<Expr(const Expr&, const Expr&)>& fn) {
  checkNumeric(label, a, "first operand", int_ok);
  checkNumeric(label, b, "second operand", int_ok);
  return binaryOp(label, a, b, fn);
}

}  // namespace

Tensor unaryOp(const std::string& label, const Tensor& x, const std::function<Expr(const Expr&)>& fn) {
  checkDType(label, x, DType::Float32, "input");
  return te::compute(
      "T_" + label, x.shape(), [&](const std::vector<Var>& v) { return fn(x(v)); }, te::OpTag::Elementwise);
}

Tensor binaryOp(const std::string& label, const Tensor& a, const Tensor& b,
                const std::function<Expr(const Expr&, const Expr&)>& fn) {
  checkDefined(label, a, "first operand");
  checkDefined(label, b, "second operand");
  TT_CHECK_ARG(a.dtype() == b.dtype(), label, ": the operands have different dtypes (", te::dtypeName(a.dtype()),
               " and ", te::dtypeName(b.dtype()), ")");
  Shape out = broadcastShapes(label, a.shape(), b.shape());
  return te::compute(
      "T_" + label, out,
      [&](const std::vector<Var>& v) { return fn(a(broadcastIndices(a, v, out)), b(broadcastIndices(b, v, out))); },
      sameShapes(out, {&a, &b}) ? te::OpTag::Elementwise : te::OpTag::Broadcast);
}

Tensor relu(const Tensor& x) {
  return unaryOp("relu", x, [](const Expr& e) { return te::max(e, 0.0); });
}

Tensor leaky_relu(const Tensor& x, double alpha) {
  return unaryOp("leaky_relu", x, [&](const Expr& e) { return te::select(e >= 0.0, e, e * alpha); });
}

Tensor clip(const Tensor& x, double min_value, double max_value) {
  return unaryOp("clip", x, [&](const Expr& e) { return te::min(te::max(e, min_value), max_value); });
}

Tensor relu6(const Tensor& x) { return clip(x, 0.0, 6.0); }

Tensor sigmoid(const Tensor& x) {
  return unaryOp("sigmoid", x, [](const Expr& e) { return te::sigmoid(e); });
}
Tensor tanh(const Tensor& x) {
  return unaryOp("tanh", x, [](const Expr& e) { return te::tanh(e); });
}
Tensor exp(const Tensor& x) {
  return unaryOp("exp", x, [](const Expr& e) { return te::exp(e); });
}
Tensor log(const Tensor& x) {
  return unaryOp("log", x, [](const Expr& e) { return te::log(e); });
}
Tensor sqrt(const Tensor& x) {
  return unaryOp("sqrt", x, [](const Expr& e) { return te::sqrt(e); });
}
Tensor erf(const Tensor& x) {
  return unaryOp("erf", x, [](const Expr& e) { return te::erf(e); });
}
Tensor neg(const Tensor& x) {
  return unaryOp("neg", x, [](const Expr& e) { return -e; });
}
Tensor abs(const Tensor& x) {
  return unaryOp("abs", x, [](const Expr& e) { return te::abs(e); });
}

Tensor gelu(const Tensor& x) {
  return unaryOp("gelu", x, [](const Expr& e) { return e * 0.5 * (te::erf(e * 0.70710678118654752440) + 1.0); });
}

Tensor silu(const Tensor& x) {
  return unaryOp("silu", x, [](const Expr& e) { return e * te::sigmoid(e); });
}

// ONNX's definition, x * hardsigmoid(x) with alpha 1/6 and beta 1/2, in its order of operations
// (the same real function as x * clip(x + 3, 0, 6) / 6, but float32 rounds the two differently,
// and a quantized model requantizing the result sees the ties that decides).
Tensor hardswish(const Tensor& x) {
  return unaryOp("hardswish", x, [](const Expr& e) { return e * te::min(te::max(e * (1.0 / 6.0) + 0.5, 0.0), 1.0); });
}

Tensor hardsigmoid(const Tensor& x, double alpha, double beta) {
  return unaryOp("hardsigmoid", x, [&](const Expr& e) { return te::min(te::max(e * alpha + beta, 0.0), 1.0); });
}

Tensor scale_shift(const Tensor& x, double scale, double shift) {
  return unaryOp("scale_shift", x, [&](const Expr& e) { return e * scale + shift; });
}

Tensor add(const Tensor& a, const Tensor& b) {
  return arith("add", a, b, true, [](const Expr& x, const Expr& y) { return x + y; });
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return arith("sub", a, b, true, [](const Expr& x, const Expr& y) { return x - y; });
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return arith("mul", a, b, true, [](const Expr& x, const Expr& y) { return x * y; });
}
Tensor div(const Tensor& a, const Tensor& b) {
  return arith("div", a, b, true, [](const Expr& x, const Expr& y) -> Expr {
    if (te::isFloat(x.dtype())) return x / y;
    // Integers divide truncating toward zero (C, ONNX). A zero divisor divides by 1 instead of
    // trapping; te's integer division floors, so a negative inexact quotient steps up by one.
    Expr zero = te::intImm(0, x.dtype());
    Expr d = te::select(y == zero, te::intImm(1, x.dtype()), y);
    Expr q = x / d;
    if (te::isUnsigned(x.dtype())) return q;
    return te::select(((x < zero) != (d < zero)) && (q * d != x), q + te::intImm(1, x.dtype()), q);
  });
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return arith("maximum", a, b, true, [](const Expr& x, const Expr& y) { return te::max(x, y); });
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return arith("minimum", a, b, true, [](const Expr& x, const Expr& y) { return te::min(x, y); });
}
Tensor pow(const Tensor& a, const Tensor& b) {
  return arith("pow", a, b, true, [](const Expr& x, const Expr& y) { return te::pow(x, y); });
}
Tensor greater(const Tensor& a, const Tensor& b) {
  return arith("greater", a, b, true, [](const Expr& x, const Expr& y) { return x > y; });
}
Tensor less(const Tensor& a, const Tensor& b) {
  return arith("less", a, b, true, [](const Expr& x, const Expr& y) { return x < y; });
}
Tensor equal(const Tensor& a, const Tensor& b) {
  return arith("equal", a, b, true, [](const Expr& x, const Expr& y) { return x == y; });
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  checkDType("where", cond, DType::Bool, "condition");
  checkDefined("where", a, "first value");
  checkDefined("where", b, "second value");
  TT_CHECK_ARG(a.dtype() == b.dtype(), "where: the values have different dtypes (", te::dtypeName(a.dtype()), " and ",
               te::dtypeName(b.dtype()), ")");
  std::optional<Shape> ca = tryBroadcast(cond.shape(), a.shape());
  std::optional<Shape> out_opt = ca ? tryBroadcast(*ca, b.shape()) : std::nullopt;
  TT_CHECK_ARG(out_opt.has_value(), "where: shapes ", te::shapeToString(cond.shape()), ", ",
               te::shapeToString(a.shape()), " and ", te::shapeToString(b.shape()), " do not broadcast");
  Shape out = *out_opt;
  return te::compute(
      "T_where", out,
      [&](const std::vector<Var>& v) {
        return te::select(cond(broadcastIndices(cond, v, out)), a(broadcastIndices(a, v, out)),
                          b(broadcastIndices(b, v, out)));
      },
      sameShapes(out, {&cond, &a, &b}) ? te::OpTag::Elementwise : te::OpTag::Broadcast);
}

}  // namespace ttune::ops
