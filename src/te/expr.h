// Scalar expressions of the tensor language: the bodies of compute ops and, after lowering, the
// index and value expressions of the loop IR.
//
// An Expr is an immutable, shared node holding its dtype and one alternative of a closed variant
// (ExprNode::Kind). Every pass over expressions is a std::visit over that variant, so adding a node
// kind touches one place per pass (printer, hasher, evaluator, simplifier, codegen).
//
// Invariants:
//  - Binary operands have the same dtype (builders insert casts / convert constants).
//  - Comparisons and And/Or/Not have dtype Bool; FloorDiv/FloorMod are integer-only; Div is
//    float-only.
//  - A Reduce appears only as the whole body of a compute op, never nested.
//  - Vars are compared by identity (VarNode address), never by name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "te/dtype.h"

namespace ttune::te {

class Operation;
class Expr;

// ---- Variables ---------------------------------------------------------------------------------
struct VarNode {
  std::string name;
  DType dtype;
};

class Var {
 public:
  Var() = default;
  explicit Var(std::string name, DType dtype = DType::Int64)
      : n_(std::make_shared<VarNode>(VarNode{std::move(name), dtype})) {}
  const std::string& name() const { return n_->name; }
  DType dtype() const { return n_->dtype; }
  const VarNode* get() const { return n_.get(); }
  bool defined() const { return n_ != nullptr; }
  bool same(const Var& o) const { return n_ == o.n_; }
  operator Expr() const;  // NOLINT: a Var is usable wherever an Expr is

 private:
  std::shared_ptr<const VarNode> n_;
};

enum class IterKind : uint8_t { Spatial, Reduce };

// ---- Flat buffers (used after lowering) --------------------------------------------------------
enum class MemScope : uint8_t { Arg, Global, Local };

struct Buffer {
  std::string name;
  DType dtype = DType::Float32;
  int64_t size = 0;  // elements
  MemScope scope = MemScope::Global;
};
using BufferRef = std::shared_ptr<const Buffer>;

// ---- Tensors -------------------------------------------------------------------------------------
// A Tensor is the single output of an Operation (placeholder or compute), see tensor.h.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<const Operation> op) : op_(std::move(op)) {}
  const Operation& op() const { return *op_; }
  const Operation* get() const { return op_.get(); }
  const std::shared_ptr<const Operation>& ptr() const { return op_; }
  bool defined() const { return op_ != nullptr; }
  const std::string& name() const;
  const std::vector<int64_t>& shape() const;
  size_t ndim() const { return shape().size(); }
  DType dtype() const;
  bool same(const Tensor& o) const { return op_ == o.op_; }

  Expr operator()(const std::vector<Expr>& indices) const;
  Expr operator()(const std::vector<Var>& indices) const;
  template <class... I>
  Expr operator()(const I&... idx) const;

 private:
  std::shared_ptr<const Operation> op_;
};

// ---- Expression nodes ----------------------------------------------------------------------------
enum class BinOp : uint8_t { Add, Sub, Mul, Div, FloorDiv, FloorMod, Min, Max, Pow, Eq, Ne, Lt, Le, Gt, Ge, And, Or };
enum class UnOp : uint8_t {
  Neg,
  Not,
  Abs,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Tanh,
  Erf,
  Sigmoid,
  Floor,
  Ceil,
  Round,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  // float32 truncated toward zero to bfloat16's precision (the low 16 bits cleared; NaN stays a
  // NaN): ONNX's Cast to BFLOAT16 as its reference implementation does it (onnx 1.12).
  TruncBf16
};
enum class ReduceKind : uint8_t { Sum, Max, Min, Prod };

const char* binOpName(BinOp op);
const char* unOpName(UnOp op);
const char* reduceKindName(ReduceKind k);
bool isComparison(BinOp op);
bool isLogical(BinOp op);

struct IntImm {
  int64_t value;
};
struct FloatImm {
  double value;
};
struct VarRef {
  Var var;
};
struct Binary;
struct Unary;
struct Select;
struct Cast;
struct TensorRead;
struct BufferLoad;
struct Reduce;

class Expr {
 public:
  Expr() = default;
  Expr(int v);      // NOLINT: Int64 constant
  Expr(int64_t v);  // NOLINT
  Expr(double v);   // NOLINT: Float32 constant
  explicit Expr(std::shared_ptr<const struct ExprNode> n) : n_(std::move(n)) {}

  bool defined() const { return n_ != nullptr; }
  const ExprNode& node() const { return *n_; }
  const ExprNode* get() const { return n_.get(); }
  DType dtype() const;
  template <class T>
  const T* as() const;
  bool same(const Expr& o) const { return n_ == o.n_; }

 private:
  std::shared_ptr<const ExprNode> n_;
};

struct Binary {
  BinOp op;
  Expr a, b;
};
struct Unary {
  UnOp op;
  Expr a;
};
struct Select {
  Expr cond, t, f;
};
struct Cast {
  Expr a;
};
struct TensorRead {
  Tensor tensor;
  std::vector<Expr> indices;
};
struct BufferLoad {
  BufferRef buffer;
  Expr index;
};
// A loop axis of a compute op: a variable ranging over [0, extent).
//
// An axis of a kernel compiled for a range of sizes (te/runtime_extents.h) also has a run-time
// extent: an expression of the kernel's size parameters, at most `extent`. Its tensors keep the
// layout of `extent` (the range's largest size); only indices below the run-time extent are
// computed (spatial) or combined (reduce). Undefined for an axis of fixed size.
struct IterVar {
  Var var;
  int64_t extent = 0;
  IterKind kind = IterKind::Spatial;
  Expr runtime_extent;
  const std::string& name() const { return var.name(); }
};

struct Reduce {
  ReduceKind kind;
  Expr source;
  std::vector<IterVar> axes;
  Expr cond;  // optional predicate: iterations where it is false do not contribute
};

struct ExprNode {
  using Kind = std::variant<IntImm, FloatImm, VarRef, Binary, Unary, Select, Cast, TensorRead, BufferLoad, Reduce>;
  DType dtype;
  Kind kind;
};

inline DType Expr::dtype() const { return n_->dtype; }
template <class T>
const T* Expr::as() const {
  return n_ ? std::get_if<T>(&n_->kind) : nullptr;
}

// ---- Builders -------------------------------------------------------------------------------------
Expr intImm(int64_t v, DType dtype = DType::Int64);
Expr floatImm(double v, DType dtype = DType::Float32);
Expr boolImm(bool v);
// The identity of a reduction (0 for sum, -inf for max, +inf for min) in the given dtype.
Expr reduceIdentity(ReduceKind kind, DType dtype);

// Binary with dtype promotion: an integer constant meeting a float operand becomes a float
// constant; an integer expression meeting a float one is cast; Int32 meets Int64 as Int64.
Expr binary(BinOp op, Expr a, Expr b);
Expr unary(UnOp op, Expr a);
Expr select(Expr cond, Expr t, Expr f);
Expr cast(DType dtype, Expr a);
Expr bufferLoad(BufferRef buffer, Expr index);
Expr reduce(ReduceKind kind, Expr source, std::vector<IterVar> axes, Expr cond = Expr());

inline Expr sum(Expr source, std::vector<IterVar> axes, Expr cond = Expr()) {
  return reduce(ReduceKind::Sum, std::move(source), std::move(axes), std::move(cond));
}
inline Expr maxReduce(Expr source, std::vector<IterVar> axes, Expr cond = Expr()) {
  return reduce(ReduceKind::Max, std::move(source), std::move(axes), std::move(cond));
}
inline Expr minReduce(Expr source, std::vector<IterVar> axes, Expr cond = Expr()) {
  return reduce(ReduceKind::Min, std::move(source), std::move(axes), std::move(cond));
}

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
// Float division for floats, floor division for integers.
Expr operator/(const Expr& a, const Expr& b);
Expr operator%(const Expr& a, const Expr& b);  // floor modulo, integers only
Expr operator-(const Expr& a);
Expr operator<(const Expr& a, const Expr& b);
Expr operator<=(const Expr& a, const Expr& b);
Expr operator>(const Expr& a, const Expr& b);
Expr operator>=(const Expr& a, const Expr& b);
Expr operator==(const Expr& a, const Expr& b);
Expr operator!=(const Expr& a, const Expr& b);
Expr operator&&(const Expr& a, const Expr& b);
Expr operator||(const Expr& a, const Expr& b);
Expr operator!(const Expr& a);

Expr min(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);
Expr pow(const Expr& a, const Expr& b);
Expr abs(const Expr& a);
Expr exp(const Expr& a);
Expr log(const Expr& a);
Expr sqrt(const Expr& a);
Expr rsqrt(const Expr& a);
Expr tanh(const Expr& a);
Expr erf(const Expr& a);
Expr sigmoid(const Expr& a);
Expr floor(const Expr& a);
Expr ceil(const Expr& a);
Expr round(const Expr& a);

// Constant queries.
bool isConstInt(const Expr& e, int64_t* value = nullptr);
bool isIntValue(const Expr& e, int64_t value);  // e is the integer constant `value`
bool isConstFloat(const Expr& e, double* value = nullptr);

// ---- Tensor reads ----------------------------------------------------------------------------------
template <class... I>
Expr Tensor::operator()(const I&... idx) const {
  return (*this)(std::vector<Expr>{Expr(idx)...});
}

}  // namespace ttune::te
