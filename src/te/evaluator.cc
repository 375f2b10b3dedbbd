#include "te/evaluator.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

#include "support/assert.h"
#include "support/overload.h"
#include "te/dtype_io.h"
#include "te/expr_functor.h"
#include "te/printer.h"

namespace ttune::te {

namespace {

struct Env {
  std::vector<int64_t> vars;
};
// Float values are carried as double: float64 computes in double, float32 and the 16-bit floats
// in float (16-bit results rounded to their type), so each type rounds as the generated code does.
using FFn = std::function<double(Env&)>;
using IFn = std::function<int64_t(Env&)>;

struct TensorData {
  void* data = nullptr;
  const Operation* op = nullptr;
  std::vector<int64_t> strides;
};

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// The value of type `t` nearest to v (round to nearest even; see float16.h for the 16-bit ones).
double roundTo(DType t, double v) {
  switch (t) {
    case DType::Float32:
      return static_cast<float>(v);
    case DType::Float16:
      return halfToFloat(floatToHalf(doubleToFloatOdd(v)));
    case DType::BFloat16:
      return bf16ToFloat(floatToBf16(doubleToFloatOdd(v)));
    default:
      return v;
  }
}

template <class T>
T applyUnary(UnOp op, T x) {
  switch (op) {
    case UnOp::Neg:
      return -x;
    case UnOp::Abs:
      return std::fabs(x);
    case UnOp::Exp:
      return std::exp(x);
    case UnOp::Log:
      return std::log(x);
    case UnOp::Sqrt:
      return std::sqrt(x);
    case UnOp::Rsqrt:
      return T(1) / std::sqrt(x);
    case UnOp::Tanh:
      return std::tanh(x);
    case UnOp::Erf:
      return std::erf(x);
    case UnOp::Sigmoid:
      return T(1) / (T(1) + std::exp(-x));
    case UnOp::Floor:
      return std::floor(x);
    case UnOp::Ceil:
      return std::ceil(x);
    case UnOp::Round:
      return std::nearbyint(x);  // round half to even, as ONNX Round
    case UnOp::Sin:
      return std::sin(x);
    case UnOp::Cos:
      return std::cos(x);
    case UnOp::Tan:
      return std::tan(x);
    case UnOp::Asin:
      return std::asin(x);
    case UnOp::Acos:
      return std::acos(x);
    case UnOp::Atan:
      return std::atan(x);
    case UnOp::Sinh:
      return std::sinh(x);
    case UnOp::Cosh:
      return std::cosh(x);
    case UnOp::Asinh:
      return std::asinh(x);
    case UnOp::Acosh:
      return std::acosh(x);
    case UnOp::Atanh:
      return std::atanh(x);
    case UnOp::TruncBf16: {
      // NaN is tested on the bits: GCC 12.2 at -O3 drops the masking after an `f != f` test.
      uint32_t u = floatBits(static_cast<float>(x));
      if ((u & 0x7fffffffu) > 0x7f800000u) return x;
      return static_cast<T>(bitsFloat(u & 0xffff0000u));
    }
    case UnOp::Not:
      break;
  }
  TT_UNREACHABLE(std::string("float unary ") + unOpName(op));
}

double combineFloat(ReduceKind k, double acc, double x) {
  switch (k) {
    case ReduceKind::Sum:
      return acc + x;
    case ReduceKind::Max:
      return std::fmax(acc, x);
    case ReduceKind::Min:
      return std::fmin(acc, x);
    case ReduceKind::Prod:
      return acc * x;
  }
  TT_UNREACHABLE("reduce kind");
}

// Integer arithmetic on int64 carriers (dtype.h): sums and products wrap (in uint64, where
// int64 would overflow); UInt64 carriers order unsigned.
int64_t combineInt(ReduceKind k, int64_t acc, int64_t x, bool u64) {
  uint64_t ua = static_cast<uint64_t>(acc), ux = static_cast<uint64_t>(x);
  switch (k) {
    case ReduceKind::Sum:
      return static_cast<int64_t>(ua + ux);
    case ReduceKind::Max:
      return u64 ? static_cast<int64_t>(std::max(ua, ux)) : std::max(acc, x);
    case ReduceKind::Min:
      return u64 ? static_cast<int64_t>(std::min(ua, ux)) : std::min(acc, x);
    case ReduceKind::Prod:
      return static_cast<int64_t>(ua * ux);
  }
  TT_UNREACHABLE("reduce kind");
}

template <class T>
T applyBinary(BinOp op, T a, T b) {
  switch (op) {
    case BinOp::Add:
      return a + b;
    case BinOp::Sub:
      return a - b;
    case BinOp::Mul:
      return a * b;
    case BinOp::Div:
      return a / b;
    case BinOp::Min:
      return std::fmin(a, b);
    case BinOp::Max:
      return std::fmax(a, b);
    case BinOp::Pow:
      return std::pow(a, b);
    default:
      break;
  }
  TT_UNREACHABLE(std::string("float binary ") + binOpName(op));
}

// Integer x^n wrapping in 64 bits (square and multiply); a negative n gives the truncated
// 1 / x^-n: 1 for x = 1, +-1 for x = -1, else 0 (division by zero for x = 0 is 0 too).
int64_t intPow(int64_t x, int64_t n, bool unsigned_n) {
  if (!unsigned_n && n < 0) return x == 1 ? 1 : x == -1 ? ((n & 1) ? -1 : 1) : 0;
  uint64_t r = 1, b = static_cast<uint64_t>(x);
  for (uint64_t e = static_cast<uint64_t>(n); e; e >>= 1, b *= b)
    if (e & 1) r *= b;
  return static_cast<int64_t>(r);
}

// The comparisons, for any element type; nullopt for an operator that is not one.
template <class T>
std::optional<bool> compare(BinOp op, T a, T b) {
  switch (op) {
    case BinOp::Eq:
      return a == b;
    case BinOp::Ne:
      return a != b;
    case BinOp::Lt:
      return a < b;
    case BinOp::Le:
      return a <= b;
    case BinOp::Gt:
      return a > b;
    case BinOp::Ge:
      return a >= b;
    default:
      return std::nullopt;
  }
}

int64_t applyIntBinary(BinOp op, int64_t a, int64_t b, bool u64) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case BinOp::Add:
      return static_cast<int64_t>(ua + ub);
    case BinOp::Sub:
      return static_cast<int64_t>(ua - ub);
    case BinOp::Mul:
      return static_cast<int64_t>(ua * ub);
    case BinOp::FloorDiv:
      TT_ASSERT(b != 0, "integer division by zero");
      if (u64) return static_cast<int64_t>(ua / ub);
      if (a == INT64_MIN && b == -1) return a;  // wraps, as the generated code's division
      return floorDiv(a, b);
    case BinOp::FloorMod:
      TT_ASSERT(b != 0, "integer modulo by zero");
      if (u64) return static_cast<int64_t>(ua % ub);
      if (b == -1) return 0;
      return a - floorDiv(a, b) * b;
    case BinOp::Min:
      return u64 ? static_cast<int64_t>(std::min(ua, ub)) : std::min(a, b);
    case BinOp::Max:
      return u64 ? static_cast<int64_t>(std::max(ua, ub)) : std::max(a, b);
    case BinOp::Pow:
      return intPow(a, b, u64);
    case BinOp::And:
      return a && b;
    case BinOp::Or:
      return a || b;
    default:
      break;
  }
  if (std::optional<bool> c = u64 ? compare(op, ua, ub) : compare(op, a, b)) return *c;
  TT_UNREACHABLE(std::string("int binary ") + binOpName(op));
}

// Computes element `idx` of a tensor that is not materialized (lazy mode).
using LazyRead = std::function<double(const Operation*, const std::vector<int64_t>& idx)>;

class Compiler {
 public:
  Compiler(std::unordered_map<const Operation*, TensorData>& tensors, VarMap<int>& slots, LazyRead lazy = {})
      : tensors_(tensors), slots_(slots), lazy_(std::move(lazy)) {}

  IFn compileInt(const Expr& e) {
    if (isFloat(e.dtype())) {
      FFn f = compileFloat(e);
      return [f](Env& env) { return static_cast<int64_t>(f(env)); };
    }
    return std::visit(
        Overload{
            [&](const IntImm& n) -> IFn {
              int64_t v = n.value;
              return [v](Env&) { return v; };
            },
            [&](const FloatImm&) -> IFn { TT_UNREACHABLE("float constant of int dtype"); },
            [&](const VarRef& n) -> IFn {
              auto it = slots_.find(n.var.get());
              TT_ASSERT(it != slots_.end(), "evaluator: unbound variable " + n.var.name());
              int s = it->second;
              return [s](Env& env) { return env.vars[s]; };
            },
            [&](const Binary& n) -> IFn {
              if (isFloat(n.a.dtype())) {  // float comparison
                FFn a = compileFloat(n.a), b = compileFloat(n.b);
                BinOp op = n.op;
                return [a, b, op](Env& env) -> int64_t {
                  std::optional<bool> c = compare(op, a(env), b(env));
                  if (!c) TT_UNREACHABLE("float binary with a non-float result");
                  return *c;
                };
              }
              IFn a = compileInt(n.a), b = compileInt(n.b);
              BinOp op = n.op;
              if (op == BinOp::And) return [a, b](Env& env) -> int64_t { return a(env) && b(env); };
              if (op == BinOp::Or) return [a, b](Env& env) -> int64_t { return a(env) || b(env); };
              DType t = e.dtype();
              bool u64 = isUnsigned64(n.a.dtype());
              return [a, b, op, t, u64](Env& env) { return wrapInt(t, applyIntBinary(op, a(env), b(env), u64)); };
            },
            [&](const Unary& n) -> IFn {
              IFn a = compileInt(n.a);
              switch (n.op) {
                case UnOp::Not:
                  return [a](Env& env) -> int64_t { return !a(env); };
                case UnOp::Neg:
                  return [a, t = e.dtype()](Env& env) {
                    return wrapInt(t, static_cast<int64_t>(0 - static_cast<uint64_t>(a(env))));
                  };
                case UnOp::Abs:
                  if (isUnsigned(e.dtype())) return a;
                  return [a, t = e.dtype()](Env& env) {
                    int64_t v = a(env);
                    return wrapInt(t, v < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v);
                  };
                default:
                  TT_UNREACHABLE(std::string("integer ") + unOpName(n.op));
              }
            },
            [&](const Select& n) -> IFn {
              IFn c = compileInt(n.cond), t = compileInt(n.t), f = compileInt(n.f);
              return [c, t, f](Env& env) { return c(env) ? t(env) : f(env); };
            },
            [&](const Cast& n) -> IFn {
              DType to = e.dtype();
              if (isFloat(n.a.dtype())) {
                FFn a = compileFloat(n.a);
                if (to == DType::Bool) return [a](Env& env) -> int64_t { return a(env) != 0.0; };
                // Int32 / Int64 convert directly and 8-bit types through int32, as codegen does;
                // the other types through a saturating int64 conversion (UInt64 unsigned above
                // 2^63), so every float has a defined result and the cast wraps (dtype.h).
                if (to == DType::Int64) return [a](Env& env) -> int64_t { return static_cast<int64_t>(a(env)); };
                if (to == DType::Int32 || to == DType::Int8 || to == DType::UInt8)
                  return [a, to](Env& env) -> int64_t { return wrapInt(to, static_cast<int32_t>(a(env))); };
                return [a, to](Env& env) -> int64_t {
                  uint64_t bits;
                  storeDouble(&bits, to == DType::UInt64 ? DType::UInt64 : DType::Int64, 0, a(env));
                  return wrapInt(to, static_cast<int64_t>(bits));
                };
              }
              IFn a = compileInt(n.a);
              if (to == DType::Bool) return [a](Env& env) -> int64_t { return a(env) != 0; };
              if (to == DType::Int64) return a;
              return [a, to](Env& env) { return wrapInt(to, a(env)); };
            },
            [&](const TensorRead& n) -> IFn {
              if (isLazy(n)) {
                auto idx = compileIndices(n);
                const Operation* op = n.tensor.get();
                LazyRead lz = lazy_;
                return [idx, op, lz](Env& env) { return static_cast<int64_t>(lz(op, idx(env))); };
              }
              auto addr = compileAddress(n);
              DType t = e.dtype();
              return [addr, t](Env& env) -> int64_t { return loadInt(addr(env), t, 0); };
            },
            [&](const BufferLoad&) -> IFn { TT_UNREACHABLE("the evaluator runs on unlowered DAGs"); },
            [&](const Reduce&) -> IFn { TT_UNREACHABLE("nested reduction"); },
        },
        e.node().kind);
  }

  FFn compileFloat(const Expr& e) {
    if (!isFloat(e.dtype())) {
      IFn f = compileInt(e);
      if (isUnsigned64(e.dtype())) return [f](Env& env) { return static_cast<double>(static_cast<uint64_t>(f(env))); };
      return [f](Env& env) { return static_cast<double>(f(env)); };
    }
    DType t = e.dtype();
    return std::visit(
        Overload{
            [&](const IntImm&) -> FFn { TT_UNREACHABLE("int constant of float dtype"); },
            [&](const FloatImm& n) -> FFn {
              double v = roundTo(t, n.value);
              return [v](Env&) { return v; };
            },
            [&](const VarRef& n) -> FFn { TT_UNREACHABLE("float variable " + n.var.name()); },
            [&](const Binary& n) -> FFn {
              FFn a = compileFloat(n.a), b = compileFloat(n.b);
              BinOp op = n.op;
              if (t == DType::Float64) return [a, b, op](Env& env) { return applyBinary<double>(op, a(env), b(env)); };
              return [a, b, op, t](Env& env) {
                return roundTo(t, applyBinary<float>(op, static_cast<float>(a(env)), static_cast<float>(b(env))));
              };
            },
            [&](const Unary& n) -> FFn {
              FFn a = compileFloat(n.a);
              UnOp op = n.op;
              if (t == DType::Float64) return [a, op](Env& env) { return applyUnary<double>(op, a(env)); };
              return [a, op, t](Env& env) { return roundTo(t, applyUnary<float>(op, static_cast<float>(a(env)))); };
            },
            [&](const Select& n) -> FFn {
              IFn c = compileInt(n.cond);
              FFn t = compileFloat(n.t), f = compileFloat(n.f);
              return [c, t, f](Env& env) { return c(env) ? t(env) : f(env); };
            },
            [&](const Cast& n) -> FFn {
              DType from = n.a.dtype();
              if (isFloat(from)) {
                FFn a = compileFloat(n.a);
                return [a, t](Env& env) { return roundTo(t, a(env)); };
              }
              IFn a = compileInt(n.a);
              // One rounding from the integer to float32 (16-bit floats then round from float32,
              // as the generated code converts); float64 from the exact value.
              bool u64 = isUnsigned64(from);
              if (t == DType::Float64) {
                if (u64) return [a](Env& env) { return static_cast<double>(static_cast<uint64_t>(a(env))); };
                return [a](Env& env) { return static_cast<double>(a(env)); };
              }
              return [a, t, u64](Env& env) {
                int64_t v = a(env);
                float f = u64 ? static_cast<float>(static_cast<uint64_t>(v)) : static_cast<float>(v);
                return roundTo(t, f);
              };
            },
            [&](const TensorRead& n) -> FFn {
              if (isLazy(n)) {
                auto idx = compileIndices(n);
                const Operation* op = n.tensor.get();
                LazyRead lz = lazy_;
                return [idx, op, lz](Env& env) { return lz(op, idx(env)); };
              }
              auto addr = compileAddress(n);
              return [addr, t](Env& env) { return loadDouble(addr(env), t, 0); };
            },
            [&](const BufferLoad&) -> FFn { TT_UNREACHABLE("the evaluator runs on unlowered DAGs"); },
            [&](const Reduce&) -> FFn { TT_UNREACHABLE("nested reduction"); },
        },
        e.node().kind);
  }

  bool isLazy(const TensorRead& n) {
    auto it = tensors_.find(n.tensor.get());
    return it != tensors_.end() && it->second.data == nullptr && lazy_;
  }

  std::function<std::vector<int64_t>(Env&)> compileIndices(const TensorRead& n) {
    std::vector<IFn> idx;
    for (const Expr& i : n.indices) idx.push_back(compileInt(i));
    const Operation* op = n.tensor.get();
    return [idx, op](Env& env) {
      std::vector<int64_t> out;
      for (size_t d = 0; d < idx.size(); ++d) {
        int64_t v = idx[d](env);
        TT_ASSERT(v >= 0 && v < op->shape()[d],
                  "evaluator: read of " + op->name() + " out of bounds on dimension " + std::to_string(d));
        out.push_back(v);
      }
      return out;
    };
  }

  std::function<void*(Env&)> compileAddress(const TensorRead& n) {
    auto it = tensors_.find(n.tensor.get());
    TT_ASSERT(it != tensors_.end(), "evaluator: read of unknown tensor " + n.tensor.name());
    TensorData* td = &it->second;
    std::vector<IFn> idx;
    for (const Expr& i : n.indices) idx.push_back(compileInt(i));
    int bytes = dtypeBytes(n.tensor.dtype());
    return [td, idx, bytes](Env& env) -> void* {
      int64_t off = 0;
      const auto& shape = td->op->shape();
      for (size_t d = 0; d < idx.size(); ++d) {
        int64_t v = idx[d](env);
        TT_ASSERT(v >= 0 && v < shape[d], "evaluator: read of " + td->op->name() + " out of bounds on dimension " +
                                              std::to_string(d) + " (index " + std::to_string(v) + ", extent " +
                                              std::to_string(shape[d]) + ")");
        off += v * td->strides[d];
      }
      return static_cast<char*>(td->data) + off * bytes;
    };
  }

 private:
  std::unordered_map<const Operation*, TensorData>& tensors_;
  VarMap<int>& slots_;
  LazyRead lazy_;
};

// Iterates an odometer over extents, calling fn with the index vector written into env slots.
void forEachPoint(Env& env, const std::vector<int>& slots, const std::vector<int64_t>& extents,
                  const std::function<void()>& fn) {
  size_t n = slots.size();
  for (int64_t e : extents)
    if (e <= 0) return;
  for (size_t d = 0; d < n; ++d) env.vars[slots[d]] = 0;
  while (true) {
    fn();
    size_t d = n;
    while (d > 0) {
      --d;
      if (++env.vars[slots[d]] < extents[d]) break;
      env.vars[slots[d]] = 0;
      if (d == 0) return;
    }
    if (n == 0) return;
  }
}

void storeValue(void* base, int64_t off, DType t, double fv, int64_t iv) {
  if (isFloat(t))
    storeDouble(base, t, off, fv);
  else
    storeInt(base, t, off, iv);
}

}  // namespace

void evaluate(const ComputeDAG& dag, const std::vector<void*>& args) {
  TT_ASSERT(args.size() == dag.tensors().size(), "evaluate: wrong number of buffers");
  std::unordered_map<const Operation*, TensorData> tensors;
  std::vector<std::unique_ptr<char[]>> scratch;
  for (const Tensor& t : dag.ops()) {
    TensorData td;
    td.op = t.get();
    const Shape& s = t.shape();
    td.strides.assign(s.size(), 1);
    for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) td.strides[d] = td.strides[d + 1] * s[d + 1];
    int arg = dag.argIndex(dag.opIndex(t.get()));
    if (arg >= 0) {
      td.data = args[arg];
    } else {
      scratch.emplace_back(new char[static_cast<size_t>(t.op().numElements()) * dtypeBytes(t.dtype())]);
      td.data = scratch.back().get();
    }
    tensors[t.get()] = td;
  }

  for (const Tensor& t : dag.ops()) {
    if (!t.op().isCompute()) continue;
    const ComputeOp& c = t.op().compute();
    VarMap<int> slots;
    std::vector<int> axis_slots, red_slots;
    std::vector<int64_t> axis_ext, red_ext;
    for (const IterVar& iv : c.axes) {
      axis_slots.push_back(static_cast<int>(slots.size()));
      slots[iv.var.get()] = axis_slots.back();
      axis_ext.push_back(iv.extent);
    }
    for (const IterVar& iv : c.reduceAxes()) {
      red_slots.push_back(static_cast<int>(slots.size()));
      slots[iv.var.get()] = red_slots.back();
      red_ext.push_back(iv.extent);
    }
    Env env;
    env.vars.assign(slots.size(), 0);
    Compiler comp(tensors, slots);
    const TensorData& out = tensors.at(t.get());
    DType dt = t.dtype();
    bool fl = isFloat(dt);
    const Reduce* r = c.reduce();
    Expr value_expr = r ? r->source : c.body;
    FFn fval = fl ? comp.compileFloat(value_expr) : FFn();
    IFn ival = fl ? IFn() : comp.compileInt(value_expr);
    IFn cond = (r && r->cond.defined()) ? comp.compileInt(r->cond) : IFn();
    double fid = 0;
    int64_t iid = 0;
    bool u64 = isUnsigned64(dt);
    if (r) {
      Expr id = reduceIdentity(r->kind, dt);
      if (fl)
        fid = id.as<FloatImm>()->value;
      else
        iid = id.as<IntImm>()->value;
    }
    forEachPoint(env, axis_slots, axis_ext, [&] {
      int64_t off = 0;
      for (size_t d = 0; d < axis_slots.size(); ++d) off += env.vars[axis_slots[d]] * out.strides[d];
      if (!r) {
        storeValue(out.data, off, dt, fl ? fval(env) : 0.0, fl ? 0 : ival(env));
        return;
      }
      // Each step rounds to the accumulator's type, as the generated code's accumulator does
      // (float32: exactly float arithmetic, double rounding being innocuous for + and *).
      double facc = fid;
      int64_t iacc = iid;
      forEachPoint(env, red_slots, red_ext, [&] {
        if (cond && !cond(env)) return;
        if (fl)
          facc = roundTo(dt, combineFloat(r->kind, facc, fval(env)));
        else
          iacc = combineInt(r->kind, iacc, ival(env), u64);
      });
      storeValue(out.data, off, dt, facc, iacc);
    });
  }
}

namespace {

// One compute op compiled for evaluation at single points.
struct PointProgram {
  const Operation* op = nullptr;
  VarMap<int> slots;
  std::vector<int> axis_slots, red_slots;
  std::vector<int64_t> red_ext;
  FFn fval;
  IFn ival, cond;
  const Reduce* red = nullptr;
  std::unordered_map<int64_t, double> memo;
};

class LazyEvaluator {
 public:
  LazyEvaluator(const ComputeDAG& dag, const std::vector<void*>& args) : dag_(dag) {
    for (const Tensor& t : dag.ops()) {
      TensorData td;
      td.op = t.get();
      const Shape& s = t.shape();
      td.strides.assign(s.size(), 1);
      for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) td.strides[d] = td.strides[d + 1] * s[d + 1];
      int arg = dag.argIndex(dag.opIndex(t.get()));
      if (t.op().isPlaceholder()) {
        TT_ASSERT(arg >= 0 && args[arg], "evaluateAt: missing input " + t.name());
        td.data = args[arg];
      }
      tensors_[t.get()] = td;
    }
  }

  double at(const Operation* op, const std::vector<int64_t>& idx) {
    PointProgram& p = program(op);
    int64_t flat = 0;
    const TensorData& td = tensors_.at(op);
    for (size_t d = 0; d < idx.size(); ++d) flat += idx[d] * td.strides[d];
    auto it = p.memo.find(flat);
    if (it != p.memo.end()) return it->second;
    Env env;
    env.vars.assign(p.slots.size(), 0);
    for (size_t d = 0; d < idx.size(); ++d) env.vars[p.axis_slots[d]] = idx[d];
    bool fl = isFloat(op->dtype());
    double v;
    if (!p.red) {
      v = fl ? p.fval(env) : static_cast<double>(p.ival(env));
    } else {
      DType dt = op->dtype();
      Expr id = reduceIdentity(p.red->kind, dt);
      double facc = fl ? id.as<FloatImm>()->value : 0.0;
      int64_t iacc = fl ? 0 : id.as<IntImm>()->value;
      forEachPoint(env, p.red_slots, p.red_ext, [&] {
        if (p.cond && !p.cond(env)) return;
        if (fl)
          facc = roundTo(dt, combineFloat(p.red->kind, facc, p.fval(env)));
        else
          iacc = combineInt(p.red->kind, iacc, p.ival(env), isUnsigned64(dt));
      });
      v = fl ? facc : static_cast<double>(wrapInt(dt, iacc));
    }
    p.memo.emplace(flat, v);
    return v;
  }

 private:
  PointProgram& program(const Operation* op) {
    auto it = programs_.find(op);
    if (it != programs_.end()) return it->second;
    PointProgram& p = programs_[op];
    p.op = op;
    const ComputeOp& c = op->compute();
    for (const IterVar& iv : c.axes) {
      p.axis_slots.push_back(static_cast<int>(p.slots.size()));
      p.slots[iv.var.get()] = p.axis_slots.back();
    }
    for (const IterVar& iv : c.reduceAxes()) {
      p.red_slots.push_back(static_cast<int>(p.slots.size()));
      p.slots[iv.var.get()] = p.red_slots.back();
      p.red_ext.push_back(iv.extent);
    }
    p.red = c.reduce();
    LazyRead lazy = [this](const Operation* o, const std::vector<int64_t>& idx) { return at(o, idx); };
    Compiler comp(tensors_, p.slots, lazy);
    Expr value = p.red ? p.red->source : c.body;
    if (isFloat(op->dtype()))
      p.fval = comp.compileFloat(value);
    else
      p.ival = comp.compileInt(value);
    if (p.red && p.red->cond.defined()) p.cond = comp.compileInt(p.red->cond);
    return p;
  }

  const ComputeDAG& dag_;
  std::unordered_map<const Operation*, TensorData> tensors_;
  std::unordered_map<const Operation*, PointProgram> programs_;
};

}  // namespace

std::vector<double> evaluateAt(const ComputeDAG& dag, const std::vector<void*>& args, int output,
                               const std::vector<std::vector<int64_t>>& points) {
  LazyEvaluator ev(dag, args);
  const Operation* op = dag.outputs().at(output).get();
  std::vector<double> out;
  for (const auto& p : points) out.push_back(ev.at(op, p));
  return out;
}

}  // namespace ttune::te
