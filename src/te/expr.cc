#include "te/expr.h"

#include <cmath>
#include <limits>

#include "support/assert.h"
#include "support/error.h"
#include "te/tensor.h"

namespace ttune::te {

namespace {
Expr make(DType dtype, ExprNode::Kind kind) {
  return Expr(std::make_shared<const ExprNode>(ExprNode{dtype, std::move(kind)}));
}
}  // namespace

Var::operator Expr() const {
  TT_ASSERT(defined(), "use of an undefined Var");
  return make(dtype(), VarRef{*this});
}

Expr::Expr(int v) : Expr(intImm(v)) {}
Expr::Expr(int64_t v) : Expr(intImm(v)) {}
Expr::Expr(double v) : Expr(floatImm(v)) {}

const std::string& Tensor::name() const { return op_->name(); }
const std::vector<int64_t>& Tensor::shape() const { return op_->shape(); }
DType Tensor::dtype() const { return op_->dtype(); }

Expr Tensor::operator()(const std::vector<Expr>& indices) const {
  TT_ASSERT(defined(), "read of an undefined tensor");
  TT_ASSERT(indices.size() == ndim(), "tensor " + name() + " read with " + std::to_string(indices.size()) +
                                          " indices, has rank " + std::to_string(ndim()));
  std::vector<Expr> idx;
  idx.reserve(indices.size());
  for (const Expr& e : indices)
    idx.push_back(isInt(e.dtype()) && e.dtype() != DType::Int64 ? cast(DType::Int64, e) : e);
  return make(dtype(), TensorRead{*this, std::move(idx)});
}

Expr Tensor::operator()(const std::vector<Var>& indices) const {
  std::vector<Expr> e(indices.begin(), indices.end());
  return (*this)(e);
}

const char* binOpName(BinOp op) {
  switch (op) {
    case BinOp::Add:
      return "+";
    case BinOp::Sub:
      return "-";
    case BinOp::Mul:
      return "*";
    case BinOp::Div:
      return "/";
    case BinOp::FloorDiv:
      return "floordiv";
    case BinOp::FloorMod:
      return "floormod";
    case BinOp::Min:
      return "min";
    case BinOp::Max:
      return "max";
    case BinOp::Pow:
      return "pow";
    case BinOp::Eq:
      return "==";
    case BinOp::Ne:
      return "!=";
    case BinOp::Lt:
      return "<";
    case BinOp::Le:
      return "<=";
    case BinOp::Gt:
      return ">";
    case BinOp::Ge:
      return ">=";
    case BinOp::And:
      return "&&";
    case BinOp::Or:
      return "||";
  }
  return "?";
}

const char* unOpName(UnOp op) {
  switch (op) {
    case UnOp::Neg:
      return "neg";
    case UnOp::Not:
      return "not";
    case UnOp::Abs:
      return "abs";
    case UnOp::Exp:
      return "exp";
    case UnOp::Log:
      return "log";
    case UnOp::Sqrt:
      return "sqrt";
    case UnOp::Rsqrt:
      return "rsqrt";
    case UnOp::Tanh:
      return "tanh";
    case UnOp::Erf:
      return "erf";
    case UnOp::Sigmoid:
      return "sigmoid";
    case UnOp::Floor:
      return "floor";
    case UnOp::Ceil:
      return "ceil";
    case UnOp::Round:
      return "round";
    case UnOp::Sin:
      return "sin";
    case UnOp::Cos:
      return "cos";
    case UnOp::Tan:
      return "tan";
    case UnOp::Asin:
      return "asin";
    case UnOp::Acos:
      return "acos";
    case UnOp::Atan:
      return "atan";
    case UnOp::Sinh:
      return "sinh";
    case UnOp::Cosh:
      return "cosh";
    case UnOp::Asinh:
      return "asinh";
    case UnOp::Acosh:
      return "acosh";
    case UnOp::Atanh:
      return "atanh";
    case UnOp::TruncBf16:
      return "trunc_bf16";
  }
  return "?";
}

const char* reduceKindName(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum:
      return "sum";
    case ReduceKind::Max:
      return "max";
    case ReduceKind::Min:
      return "min";
    case ReduceKind::Prod:
      return "prod";
  }
  return "?";
}

bool isComparison(BinOp op) {
  return op == BinOp::Eq || op == BinOp::Ne || op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge;
}
bool isLogical(BinOp op) { return op == BinOp::And || op == BinOp::Or; }

Expr intImm(int64_t v, DType dtype) {
  TT_ASSERT(isInt(dtype) || dtype == DType::Bool, "intImm of a non-integer dtype");
  // Constants of wrapping types are kept in their type's range, as every value of the type is
  // (dtype.h).
  if (wrapsInAnalysis(dtype)) v = wrapInt(dtype, v);
  return make(dtype, IntImm{v});
}
Expr floatImm(double v, DType dtype) {
  TT_ASSERT(isFloat(dtype), "floatImm of a non-float dtype");
  return make(dtype, FloatImm{v});
}
Expr boolImm(bool v) { return make(DType::Bool, IntImm{v ? 1 : 0}); }

Expr reduceIdentity(ReduceKind kind, DType dtype) {
  if (isFloat(dtype)) {
    switch (kind) {
      case ReduceKind::Sum:
        return floatImm(0.0, dtype);
      case ReduceKind::Max:
        return floatImm(-std::numeric_limits<double>::infinity(), dtype);
      case ReduceKind::Min:
        return floatImm(std::numeric_limits<double>::infinity(), dtype);
      case ReduceKind::Prod:
        return floatImm(1.0, dtype);
    }
  }
  switch (kind) {
    case ReduceKind::Sum:
      return intImm(0, dtype);
    case ReduceKind::Max:
      return intImm(intTypeMin(dtype), dtype);
    // UInt64's largest value is all ones, -1 in its int64 carrier.
    case ReduceKind::Min:
      return intImm(isUnsigned64(dtype) ? -1 : intTypeMax(dtype), dtype);
    case ReduceKind::Prod:
      return intImm(1, dtype);
  }
  TT_UNREACHABLE("reduce kind");
}

bool isConstInt(const Expr& e, int64_t* value) {
  if (const IntImm* imm = e.as<IntImm>()) {
    if (value) *value = imm->value;
    return true;
  }
  return false;
}
bool isIntValue(const Expr& e, int64_t value) {
  int64_t v;
  return isConstInt(e, &v) && v == value;
}
bool isConstFloat(const Expr& e, double* value) {
  if (const FloatImm* imm = e.as<FloatImm>()) {
    if (value) *value = imm->value;
    return true;
  }
  return false;
}

namespace {

// Brings a and b to a common dtype (see binary()).
void promote(Expr& a, Expr& b) {
  if (a.dtype() == b.dtype()) return;
  auto toFloat = [](Expr& x, DType ft) {
    int64_t v;
    if (isConstInt(x, &v))
      x = floatImm(static_cast<double>(v), ft);
    else
      x = cast(ft, x);
  };
  if (isFloat(a.dtype()) && isFloat(b.dtype())) {
    // Two float types: the wider one; float16 with bfloat16 meets in float32.
    auto rank = [](DType t) { return t == DType::Float64 ? 2 : t == DType::Float32 ? 1 : 0; };
    DType ft = rank(a.dtype()) == 2 || rank(b.dtype()) == 2 ? DType::Float64 : DType::Float32;
    if (rank(a.dtype()) == 0 && rank(b.dtype()) == 0 && a.dtype() == b.dtype()) return;
    if (a.dtype() != ft) a = cast(ft, a);
    if (b.dtype() != ft) b = cast(ft, b);
    return;
  }
  if (isFloat(a.dtype()) && !isFloat(b.dtype())) return toFloat(b, a.dtype());
  if (isFloat(b.dtype()) && !isFloat(a.dtype())) return toFloat(a, b.dtype());
  // Both integer or bool: widen to Int64 unless one side is a constant that fits the other.
  int64_t v;
  auto fits = [](int64_t c, DType t) { return t != DType::Bool && c >= intTypeMin(t) && c <= intTypeMax(t); };
  if (isConstInt(b, &v) && fits(v, a.dtype())) {
    b = intImm(v, a.dtype());
    return;
  }
  if (isConstInt(a, &v) && fits(v, b.dtype())) {
    a = intImm(v, b.dtype());
    return;
  }
  if (a.dtype() != DType::Int64) a = cast(DType::Int64, a);
  if (b.dtype() != DType::Int64) b = cast(DType::Int64, b);
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

}  // namespace

Expr binary(BinOp op, Expr a, Expr b) {
  TT_ASSERT(a.defined() && b.defined(), std::string("binary ") + binOpName(op) + " with an undefined operand");
  if (isLogical(op)) {
    if (a.dtype() != DType::Bool) a = cast(DType::Bool, a);
    if (b.dtype() != DType::Bool) b = cast(DType::Bool, b);
  } else {
    promote(a, b);
  }
  DType t = a.dtype();
  if ((op == BinOp::FloorDiv || op == BinOp::FloorMod) && !isInt(t))
    TT_UNREACHABLE(std::string(binOpName(op)) + " on a non-integer dtype");
  if (op == BinOp::Div && isInt(t)) op = BinOp::FloorDiv;
  DType rt = (isComparison(op) || isLogical(op)) ? DType::Bool : t;

  // Fold integer constants right away: index expressions are built from many of them.
  int64_t x, y;
  if (isConstInt(a, &x) && isConstInt(b, &y) && isUnsigned64(t)) {
    // UInt64 carriers hold bit patterns: order, division and min/max are unsigned.
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    auto u = [t](uint64_t v) { return intImm(static_cast<int64_t>(v), t); };
    switch (op) {
      case BinOp::Add:
        return u(ux + uy);
      case BinOp::Sub:
        return u(ux - uy);
      case BinOp::Mul:
        return u(ux * uy);
      case BinOp::FloorDiv:
        if (uy != 0) return u(ux / uy);
        break;
      case BinOp::FloorMod:
        if (uy != 0) return u(ux % uy);
        break;
      case BinOp::Min:
        return u(std::min(ux, uy));
      case BinOp::Max:
        return u(std::max(ux, uy));
      case BinOp::Eq:
        return boolImm(ux == uy);
      case BinOp::Ne:
        return boolImm(ux != uy);
      case BinOp::Lt:
        return boolImm(ux < uy);
      case BinOp::Le:
        return boolImm(ux <= uy);
      case BinOp::Gt:
        return boolImm(ux > uy);
      case BinOp::Ge:
        return boolImm(ux >= uy);
      default:
        break;
    }
  } else if (isConstInt(a, &x) && isConstInt(b, &y) && t != DType::Bool) {
    // Sums and products in uint64, which wraps where int64 would overflow.
    auto wrap = [t](uint64_t v) { return intImm(wrapInt(t, static_cast<int64_t>(v)), t); };
    switch (op) {
      case BinOp::Add:
        return wrap(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
      case BinOp::Sub:
        return wrap(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
      case BinOp::Mul:
        return wrap(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
      case BinOp::FloorDiv:
        if (y != 0) return intImm(floorDiv(x, y), t);
        break;
      case BinOp::FloorMod:
        if (y != 0) return intImm(floorMod(x, y), t);
        break;
      case BinOp::Min:
        return intImm(std::min(x, y), t);
      case BinOp::Max:
        return intImm(std::max(x, y), t);
      case BinOp::Eq:
        return boolImm(x == y);
      case BinOp::Ne:
        return boolImm(x != y);
      case BinOp::Lt:
        return boolImm(x < y);
      case BinOp::Le:
        return boolImm(x <= y);
      case BinOp::Gt:
        return boolImm(x > y);
      case BinOp::Ge:
        return boolImm(x >= y);
      default:
        break;
    }
  }
  if (isInt(t)) {
    if (op == BinOp::Add && isIntValue(b, 0)) return a;
    if (op == BinOp::Add && isIntValue(a, 0)) return b;
    if (op == BinOp::Sub && isIntValue(b, 0)) return a;
    if (op == BinOp::Mul && (isIntValue(b, 1))) return a;
    if (op == BinOp::Mul && (isIntValue(a, 1))) return b;
    if (op == BinOp::Mul && (isIntValue(a, 0) || isIntValue(b, 0))) return intImm(0, t);
    if ((op == BinOp::FloorDiv) && isIntValue(b, 1)) return a;
    if ((op == BinOp::FloorMod) && isIntValue(b, 1)) return intImm(0, t);
  }
  if (op == BinOp::And) {
    if (isIntValue(a, 1)) return b;
    if (isIntValue(b, 1)) return a;
  }
  return make(rt, Binary{op, std::move(a), std::move(b)});
}

Expr unary(UnOp op, Expr a) {
  TT_ASSERT(a.defined(), std::string("unary ") + unOpName(op) + " of an undefined operand");
  switch (op) {
    case UnOp::Not:
      if (a.dtype() != DType::Bool) a = cast(DType::Bool, a);
      if (int64_t v; isConstInt(a, &v)) return boolImm(v == 0);
      return make(DType::Bool, Unary{op, std::move(a)});
    case UnOp::Neg:
      if (int64_t v; isConstInt(a, &v))
        return intImm(wrapInt(a.dtype(), static_cast<int64_t>(0 - static_cast<uint64_t>(v))), a.dtype());
      if (double v; isConstFloat(a, &v)) return floatImm(-v, a.dtype());
      break;
    case UnOp::Abs:
      break;
    default:
      // Transcendental functions are float-only.
      if (!isFloat(a.dtype())) a = cast(DType::Float32, a);
      break;
  }
  DType t = a.dtype();
  return make(t, Unary{op, std::move(a)});
}

Expr select(Expr cond, Expr t, Expr f) {
  if (cond.dtype() != DType::Bool) cond = cast(DType::Bool, cond);
  promote(t, f);
  if (int64_t v; isConstInt(cond, &v)) return v ? t : f;
  DType dt = t.dtype();
  return make(dt, Select{std::move(cond), std::move(t), std::move(f)});
}

Expr cast(DType dtype, Expr a) {
  if (a.dtype() == dtype) return a;
  // float32 constants meet float64 operands as their exact value (promote()).
  if (double v; isConstFloat(a, &v) && a.dtype() == DType::Float32 && dtype == DType::Float64)
    return floatImm(v, dtype);
  if (int64_t v; isConstInt(a, &v)) {
    // UInt64 to float32 rounds once, from the integer (as the generated code converts).
    if (isUnsigned64(a.dtype()) && dtype == DType::Float32)
      return floatImm(static_cast<float>(static_cast<uint64_t>(v)), dtype);
    if (isUnsigned64(a.dtype())) return floatImm(static_cast<double>(static_cast<uint64_t>(v)), dtype);
    if (dtype == DType::Float32) return floatImm(static_cast<float>(v), dtype);
    if (isFloat(dtype)) return floatImm(static_cast<double>(v), dtype);
    if (dtype == DType::Bool) return boolImm(v != 0);
    return intImm(wrapInt(dtype, v), dtype);
  }
  return make(dtype, Cast{std::move(a)});
}

Expr bufferLoad(BufferRef buffer, Expr index) {
  DType t = buffer->dtype;
  return make(t, BufferLoad{std::move(buffer), std::move(index)});
}

Expr reduce(ReduceKind kind, Expr source, std::vector<IterVar> axes, Expr cond) {
  for (const IterVar& iv : axes) TT_ASSERT(iv.kind == IterKind::Reduce, "reduce over a spatial axis " + iv.name());
  if (cond.defined() && cond.dtype() != DType::Bool) cond = cast(DType::Bool, cond);
  DType t = source.dtype();
  return make(t, Reduce{kind, std::move(source), std::move(axes), std::move(cond)});
}

Expr operator+(const Expr& a, const Expr& b) { return binary(BinOp::Add, a, b); }
Expr operator-(const Expr& a, const Expr& b) { return binary(BinOp::Sub, a, b); }
Expr operator*(const Expr& a, const Expr& b) { return binary(BinOp::Mul, a, b); }
Expr operator/(const Expr& a, const Expr& b) { return binary(BinOp::Div, a, b); }
Expr operator%(const Expr& a, const Expr& b) { return binary(BinOp::FloorMod, a, b); }
Expr operator-(const Expr& a) { return unary(UnOp::Neg, a); }
Expr operator<(const Expr& a, const Expr& b) { return binary(BinOp::Lt, a, b); }
Expr operator<=(const Expr& a, const Expr& b) { return binary(BinOp::Le, a, b); }
Expr operator>(const Expr& a, const Expr& b) { return binary(BinOp::Gt, a, b); }
Expr operator>=(const Expr& a, const Expr& b) { return binary(BinOp::Ge, a, b); }
Expr operator==(const Expr& a, const Expr& b) { return binary(BinOp::Eq, a, b); }
Expr operator!=(const Expr& a, const Expr& b) { return binary(BinOp::Ne, a, b); }
Expr operator&&(const Expr& a, const Expr& b) { return binary(BinOp::And, a, b); }
Expr operator||(const Expr& a, const Expr& b) { return binary(BinOp::Or, a, b); }
Expr operator!(const Expr& a) { return unary(UnOp::Not, a); }

Expr min(const Expr& a, const Expr& b) { return binary(BinOp::Min, a, b); }
Expr max(const Expr& a, const Expr& b) { return binary(BinOp::Max, a, b); }
Expr pow(const Expr& a, const Expr& b) { return binary(BinOp::Pow, a, b); }
Expr abs(const Expr& a) { return unary(UnOp::Abs, a); }
Expr exp(const Expr& a) { return unary(UnOp::Exp, a); }
Expr log(const Expr& a) { return unary(UnOp::Log, a); }
Expr sqrt(const Expr& a) { return unary(UnOp::Sqrt, a); }
Expr rsqrt(const Expr& a) { return unary(UnOp::Rsqrt, a); }
Expr tanh(const Expr& a) { return unary(UnOp::Tanh, a); }
Expr erf(const Expr& a) { return unary(UnOp::Erf, a); }
Expr sigmoid(const Expr& a) { return unary(UnOp::Sigmoid, a); }
Expr floor(const Expr& a) { return unary(UnOp::Floor, a); }
Expr ceil(const Expr& a) { return unary(UnOp::Ceil, a); }
Expr round(const Expr& a) { return unary(UnOp::Round, a); }

}  // namespace ttune::te
