// Elementwise ONNX operators: activations and math functions (trigonometric and hyperbolic ones
// included), binary arithmetic and comparisons (numpy broadcasting), Mod, variadic
// Max/Min/Sum/Mean (chains), logic ops, Where and Clip, and a few activations composed from graph
// ops (Elu, Selu, Celu, Softplus, Softsign, PRelu, Shrink, IsInf, ...).
#include <cmath>
#include <limits>

#include "frontend/onnx/int8_products.h"
#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using graph::UnaryKind;
using te::DType;

// ---- unary ------------------------------------------------------------------------------------

void unaryFloat(Ctx& c, UnaryKind k, double alpha = 0, double beta = 0) {
  requireFloat(c, 0);
  c.setOutput(0, c.unary(k, c.in(0), {}, alpha, beta));
}

template <UnaryKind K>
void simpleUnary(Ctx& c) {
  c.checkAttrs({});
  unaryFloat(c, K);
}

void importRelu(Ctx& c) {
  c.checkAttrs({});
  // The relu of an int8 layer runs on its int32 sums (int8_products.h).
  if (const ScaledInteger* s = c.scaledInteger(c.in(0))) {
    ScaledInteger copy = *s;
    if (int y = integerRelu(c, copy); y >= 0) {
      c.setOutput(0, y);
      return;
    }
  }
  if (te::isInt(c.dtype(0))) {
    int zero = c.scalarConstant(0, c.dtype(0), "zero");
    c.setOutput(0, c.binary(BinaryKind::Max, c.in(0), zero, {}));
    return;
  }
  unaryFloat(c, UnaryKind::Relu);
}

void importNeg(Ctx& c) {
  c.checkAttrs({});
  if (te::isInt(c.dtype(0))) {
    int zero = c.scalarConstant(0, c.dtype(0), "zero");
    c.setOutput(0, c.binary(BinaryKind::Sub, zero, c.in(0), {}));
    return;
  }
  unaryFloat(c, UnaryKind::Neg);
}

void importAbs(Ctx& c) {
  c.checkAttrs({});
  if (te::isInt(c.dtype(0))) {
    int zero = c.scalarConstant(0, c.dtype(0), "zero");
    int neg = c.binary(BinaryKind::Sub, zero, c.in(0), "neg");
    c.setOutput(0, c.binary(BinaryKind::Max, c.in(0), neg, {}));
    return;
  }
  unaryFloat(c, UnaryKind::Abs);
}

void importLeakyRelu(Ctx& c) {
  c.checkAttrs({"alpha"});
  unaryFloat(c, UnaryKind::LeakyRelu, c.attrFloat("alpha", 0.01));
}

void importHardSigmoid(Ctx& c) {
  c.checkAttrs({"alpha", "beta"});
  unaryFloat(c, UnaryKind::HardSigmoid, c.attrFloat("alpha", 0.2), c.attrFloat("beta", 0.5));
}

void importNot(Ctx& c) {
  c.checkAttrs({});
  if (c.dtype(0) != DType::Bool) c.fail(c.inputLabel(0), " must be a bool tensor");
  c.setOutput(0, c.logicalNot(c.in(0), {}));
}

void importClip(Ctx& c) {
  c.checkAttrs({"min", "max"});
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  bool has_lo = false, has_hi = false;
  if (c.hasAttr("min")) lo = c.attrFloat("min", lo), has_lo = true;  // opset < 11 form
  if (c.hasAttr("max")) hi = c.attrFloat("max", hi), has_hi = true;
  if (c.present(1)) lo = c.scalar(1, "min"), has_lo = true;
  if (c.present(2)) hi = c.scalar(2, "max"), has_hi = true;
  int x = c.in(0);
  if (!has_lo && !has_hi) {
    c.setOutput(0, x);
    return;
  }
  if (te::isComputeFloat(c.dtype(0))) {
    c.setOutput(0, c.unary(UnaryKind::Clip, x, {}, lo, hi));
    return;
  }
  if (!te::isInt(c.dtype(0)))
    c.fail(c.inputLabel(0), " has dtype ", te::dtypeName(c.dtype(0)), ", which Clip cannot take");
  // Integer clip: max then min with constants (min > max yields max, as ONNX).
  int y = x;
  if (has_lo) y = c.binary(BinaryKind::Max, y, c.scalarConstant(lo, c.dtype(0), "min"), has_hi ? "lower" : "");
  if (has_hi) y = c.binary(BinaryKind::Min, y, c.scalarConstant(hi, c.dtype(0), "max"), {});
  c.setOutput(0, y);
}

// ---- composed activations ---------------------------------------------------------------------

int floatConst(Ctx& c, double v, std::string_view tag) { return c.scalarConstant(v, DType::Float32, tag); }

void importElu(Ctx& c) {
  c.checkAttrs({"alpha"});
  requireFloat(c, 0);
  double alpha = c.attrFloat("alpha", 1.0);
  int x = c.in(0);
  int e = c.unary(UnaryKind::Exp, x, "exp");
  int em1 = c.binary(BinaryKind::Sub, e, floatConst(c, 1, "one"), "expm1");
  int neg = c.binary(BinaryKind::Mul, em1, floatConst(c, alpha, "alpha"), "negative");
  int pos = c.binary(BinaryKind::Greater, x, floatConst(c, 0, "zero"), "positive");
  c.setOutput(0, c.emit(graph::WhereAttrs{}, {pos, x, neg}));
}

void importSelu(Ctx& c) {
  c.checkAttrs({"alpha", "gamma"});
  requireFloat(c, 0);
  double alpha = c.attrFloat("alpha", 1.67326319217681884765625);
  double gamma = c.attrFloat("gamma", 1.05070102214813232421875);
  int x = c.in(0);
  int e = c.unary(UnaryKind::Exp, x, "exp");
  int ae = c.binary(BinaryKind::Mul, e, floatConst(c, alpha, "alpha"), "alpha_exp");
  int neg = c.binary(BinaryKind::Sub, ae, floatConst(c, alpha, "alpha2"), "negative");
  int pos = c.binary(BinaryKind::Greater, x, floatConst(c, 0, "zero"), "positive");
  int w = c.emit(graph::WhereAttrs{}, {pos, x, neg}, "select");
  c.setOutput(0, c.binary(BinaryKind::Mul, w, floatConst(c, gamma, "gamma"), {}));
}

void importCelu(Ctx& c) {
  c.checkAttrs({"alpha"});
  requireFloat(c, 0);
  double alpha = c.attrFloat("alpha", 1.0);
  int x = c.in(0);
  int d = c.binary(BinaryKind::Div, x, floatConst(c, alpha, "alpha"), "scaled");
  int e = c.unary(UnaryKind::Exp, d, "exp");
  int em1 = c.binary(BinaryKind::Sub, e, floatConst(c, 1, "one"), "expm1");
  int s = c.binary(BinaryKind::Mul, em1, floatConst(c, alpha, "alpha2"), "negative");
  int mn = c.binary(BinaryKind::Min, s, floatConst(c, 0, "zero"), "negative_part");
  int r = c.unary(UnaryKind::Relu, x, "positive_part");
  c.setOutput(0, c.binary(BinaryKind::Add, r, mn, {}));
}

void importSoftplus(Ctx& c) {
  c.checkAttrs({});
  requireFloat(c, 0);
  // log(1 + exp(x)) = relu(x) + log(1 + exp(-|x|)), which does not overflow.
  int x = c.in(0);
  int a = c.unary(UnaryKind::Abs, x, "abs");
  int n = c.unary(UnaryKind::Neg, a, "neg_abs");
  int e = c.unary(UnaryKind::Exp, n, "exp");
  int p = c.binary(BinaryKind::Add, e, floatConst(c, 1, "one"), "one_plus");
  int l = c.unary(UnaryKind::Log, p, "log");
  int r = c.unary(UnaryKind::Relu, x, "relu");
  c.setOutput(0, c.binary(BinaryKind::Add, r, l, {}));
}

void importSoftsign(Ctx& c) {
  c.checkAttrs({});
  requireFloat(c, 0);
  int x = c.in(0);
  int a = c.unary(UnaryKind::Abs, x, "abs");
  int p = c.binary(BinaryKind::Add, a, floatConst(c, 1, "one"), "one_plus");
  c.setOutput(0, c.binary(BinaryKind::Div, x, p, {}));
}

void importThresholdedRelu(Ctx& c) {
  c.checkAttrs({"alpha"});
  requireFloat(c, 0);
  int x = c.in(0);
  int cond = c.binary(BinaryKind::Greater, x, floatConst(c, c.attrFloat("alpha", 1.0), "alpha"), "above");
  c.setOutput(0, c.emit(graph::WhereAttrs{}, {cond, x, floatConst(c, 0, "zero")}));
}

void importPRelu(Ctx& c) {
  c.checkAttrs({});
  requireFloat(c, 0);
  int x = c.in(0), slope = c.in(1, "slope");
  int neg = c.binary(BinaryKind::Less, x, floatConst(c, 0, "zero"), "negative");
  int scaled = c.binary(BinaryKind::Mul, x, slope, "scaled");
  int y = c.emit(graph::WhereAttrs{}, {neg, scaled, x});
  if (c.val(y).shape != c.shape(0))
    c.fail("the slope of shape ", te::shapeToString(c.shape(1)), " does not broadcast to the input shape ",
           te::shapeToString(c.shape(0)));
  c.setOutput(0, y);
}

void importSign(Ctx& c) {
  c.checkAttrs({});
  requireFloat(c, 0);
  int x = c.in(0);
  int zero = floatConst(c, 0, "zero");
  int pos = c.binary(BinaryKind::Greater, x, zero, "positive");
  int neg = c.binary(BinaryKind::Less, x, zero, "negative");
  int inner = c.emit(graph::WhereAttrs{}, {neg, floatConst(c, -1, "minus_one"), zero}, "non_positive");
  c.setOutput(0, c.emit(graph::WhereAttrs{}, {pos, floatConst(c, 1, "one"), inner}));
}

void importIsNaN(Ctx& c) {
  c.checkAttrs({});
  requireFloat(c, 0);
  int eq = c.binary(BinaryKind::Equal, c.in(0), c.in(0), "ordered");
  c.setOutput(0, c.logicalNot(eq, {}));
}

void importIsInf(Ctx& c) {
  c.checkAttrs({"detect_negative", "detect_positive"});
  requireFloat(c, 0);
  bool neg = c.attrInt("detect_negative", 1) != 0, pos = c.attrInt("detect_positive", 1) != 0;
  int x = c.in(0);
  if (!neg && !pos) {  // nothing to detect: all false
    int f =
        c.binary(BinaryKind::Less, x, floatConst(c, -std::numeric_limits<double>::infinity(), "minus_inf"), "never");
    c.setOutput(0, f);
    return;
  }
  int p = pos ? c.binary(BinaryKind::Equal, x, floatConst(c, std::numeric_limits<double>::infinity(), "inf"),
                         neg ? "positive" : "")
              : -1;
  int n = neg ? c.binary(BinaryKind::Equal, x, floatConst(c, -std::numeric_limits<double>::infinity(), "minus_inf"),
                         pos ? "negative" : "")
              : -1;
  c.setOutput(0, p >= 0 && n >= 0 ? c.binary(BinaryKind::Or, p, n, {}) : p >= 0 ? p : n);
}

// y = x + bias below -lambd, x - bias above lambd, 0 between.
void importShrink(Ctx& c) {
  c.checkAttrs({"bias", "lambd"});
  requireFloat(c, 0);
  double bias = c.attrFloat("bias", 0.0), lambd = c.attrFloat("lambd", 0.5);
  int x = c.in(0);
  int lo = c.binary(BinaryKind::Less, x, floatConst(c, -lambd, "minus_lambd"), "below");
  int hi = c.binary(BinaryKind::Greater, x, floatConst(c, lambd, "lambd"), "above");
  int up = c.binary(BinaryKind::Add, x, floatConst(c, bias, "bias"), "plus_bias");
  int down = c.binary(BinaryKind::Sub, x, floatConst(c, bias, "bias2"), "minus_bias");
  int inner = c.emit(graph::WhereAttrs{}, {hi, down, floatConst(c, 0, "zero")}, "upper");
  c.setOutput(0, c.emit(graph::WhereAttrs{}, {lo, up, inner}));
}

void importGelu(Ctx& c) {  // com.microsoft Gelu: x * 0.5 * (1 + erf(x / sqrt 2))
  c.checkAttrs({});
  unaryFloat(c, UnaryKind::Gelu);
}

// ---- binary -----------------------------------------------------------------------------------

// Integer division of constants on the host, truncating toward zero.
runtime::NDArray hostIntDiv(const Ctx& c, const runtime::NDArray& a, const runtime::NDArray& b) {
  te::Shape out;
  {
    const te::Shape &sa = a.shape(), &sb = b.shape();
    size_t r = std::max(sa.size(), sb.size());
    out.resize(r);
    for (size_t d = 0; d < r; ++d) {
      int64_t x = d + sa.size() >= r ? sa[d + sa.size() - r] : 1;
      int64_t y = d + sb.size() >= r ? sb[d + sb.size() - r] : 1;
      if (x != y && x != 1 && y != 1)
        c.fail("shapes ", te::shapeToString(sa), " and ", te::shapeToString(sb), " do not broadcast");
      out[d] = std::max(x, y);
    }
  }
  runtime::NDArray res = runtime::NDArray::empty(out, a.dtype());
  auto read = [](const runtime::NDArray& t, int64_t i) -> int64_t {
    return t.dtype() == DType::Int64 ? t.as<int64_t>()[i] : t.as<int32_t>()[i];
  };
  int64_t n = res.numElements();
  std::vector<int64_t> idx(out.size(), 0);
  for (int64_t lin = 0; lin < n; ++lin) {
    auto offset = [&](const runtime::NDArray& t) {
      const te::Shape& s = t.shape();
      int64_t off = 0;
      for (size_t d = 0; d < s.size(); ++d) off = off * s[d] + (s[d] == 1 ? 0 : idx[d + out.size() - s.size()]);
      return off;
    };
    int64_t x = read(a, offset(a)), y = read(b, offset(b));
    if (y == 0) c.fail("integer division by zero in a constant");
    int64_t q = x / y;
    if (res.dtype() == DType::Int64)
      res.as<int64_t>()[lin] = q;
    else
      res.as<int32_t>()[lin] = static_cast<int32_t>(q);
    for (size_t d = out.size(); d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return res;
}

template <BinaryKind K>
void simpleBinary(Ctx& c) {
  c.checkAttrs({});
  int a = c.in(0), b = c.in(1);
  if (c.dtype(0) != c.dtype(1))
    c.fail("the operands have different dtypes (", te::dtypeName(c.dtype(0)), " and ", te::dtypeName(c.dtype(1)), ")");
  bool logic = K == BinaryKind::And || K == BinaryKind::Or;
  if (logic != (c.dtype(0) == DType::Bool))
    c.fail("the operands have dtype ", te::dtypeName(c.dtype(0)), ", which ", c.opType(), " does not take");
  // Constant int32/int64 division on the host, which names a zero divisor; the graph's integer
  // division (truncating, ops::div) does the rest.
  if (K == BinaryKind::Div && (c.dtype(0) == DType::Int32 || c.dtype(0) == DType::Int64) && c.isConst(0) &&
      c.isConst(1)) {
    c.setOutput(0, c.addConstant(hostIntDiv(c, c.constant(0, "dividend"), c.constant(1, "divisor")), {}));
    return;
  }
  c.setOutput(0, c.binary(K, a, b, {}));
}

// The result has the base's type. Integer bases: an integer exponent is exact integer pow
// (wrapping, numpy's semantics; a negative exponent truncates 1 / x^-n), a float exponent computes
// in float64 and truncates back to the base's type.
void importPow(Ctx& c) {
  c.checkAttrs({});
  DType t = c.dtype(0), et = c.dtype(1);
  if (te::isInt(t) && te::isInt(et)) {
    c.setOutput(0, c.binary(BinaryKind::Pow, c.in(0), c.cast(c.in(1), t, "exponent"), {}));
    return;
  }
  if (te::isInt(t) && te::isFloat(et)) {
    int x = c.cast(c.in(0), DType::Float64, "base_f64");
    int y = c.cast(c.in(1), DType::Float64, "exponent_f64");
    c.setOutput(0, c.cast(c.binary(BinaryKind::Pow, x, y, "pow"), t, {}));
    return;
  }
  requireFloat(c, 0);
  if (et == DType::Bool) c.fail(c.inputLabel(1), " has dtype bool, which Pow does not take");
  int e = c.cast(c.in(1), t, "exponent");
  c.setOutput(0, c.binary(BinaryKind::Pow, c.in(0), e, {}));
}

// Equal on bools compares them as int32 (graph comparisons are numeric).
void importEqual(Ctx& c) {
  c.checkAttrs({});
  int a = c.in(0), b = c.in(1);
  if (c.dtype(0) != c.dtype(1)) c.fail("the operands have different dtypes");
  if (c.dtype(0) == DType::Bool) {
    a = c.cast(a, DType::Int32, "lhs_int");
    b = c.cast(b, DType::Int32, "rhs_int");
  }
  c.setOutput(0, c.binary(BinaryKind::Equal, a, b, {}));
}

void importMod(Ctx& c) {
  c.checkAttrs({"fmod"});
  bool fmod = c.attrInt("fmod", 0) != 0;
  if (c.dtype(0) != c.dtype(1))
    c.fail("the operands have different dtypes (", te::dtypeName(c.dtype(0)), " and ", te::dtypeName(c.dtype(1)), ")");
  if (c.dtype(0) == DType::Bool) c.fail("the operands are bool tensors, which Mod does not take");
  if (te::isFloat(c.dtype(0)) && !fmod) c.fail("float operands need fmod = 1");
  c.setOutput(0, c.binary(fmod ? BinaryKind::FMod : BinaryKind::Mod, c.in(0), c.in(1), {}));
}

// x << y = x * 2^y and x >> y = x / 2^y, 2^y computed by the integer pow, which wraps in the
// type: a left shift by the type's width or more gives 0, as numpy's; a right shift that far is
// selected to 0 (its 2^y wrapped to 0 would divide by zero).
void importBitShift(Ctx& c) {
  c.checkAttrs({"direction"});
  std::string dir = c.attrString("direction", "");
  if (dir != "LEFT" && dir != "RIGHT") c.fail("the direction must be LEFT or RIGHT, not \"", dir, "\"");
  DType t = c.dtype(0);
  if (!te::isUnsigned(t) || c.dtype(1) != t)
    c.fail("the operands have dtypes ", te::dtypeName(t), " and ", te::dtypeName(c.dtype(1)),
           ", but BitShift takes two tensors of one unsigned integer type");
  int pow2 = c.binary(BinaryKind::Pow, c.scalarConstant(2, t, "two"), c.in(1), "pow2");
  if (dir == "LEFT") {
    c.setOutput(0, c.binary(BinaryKind::Mul, c.in(0), pow2, {}));
    return;
  }
  int q = c.binary(BinaryKind::Div, c.in(0), pow2, "quotient");
  int width = c.scalarConstant(8.0 * te::dtypeBytes(t), t, "width");
  int in_range = c.binary(BinaryKind::Less, c.in(1), width, "in_range");
  c.setOutput(0, c.emit(graph::WhereAttrs{}, {in_range, q, c.scalarConstant(0, t, "zero")}));
}

template <BinaryKind K>
void negatedCompare(Ctx& c) {  // LessOrEqual = not(Greater), GreaterOrEqual = not(Less)
  c.checkAttrs({});
  int r = c.binary(K, c.in(0), c.in(1), "strict");
  c.setOutput(0, c.logicalNot(r, {}));
}

void importXor(Ctx& c) {
  c.checkAttrs({});
  if (c.dtype(0) != DType::Bool || c.dtype(1) != DType::Bool) c.fail("the operands must be bool tensors");
  int a = c.in(0), b = c.in(1);
  int nb = c.logicalNot(b, "not_rhs");
  c.setOutput(0, c.emit(graph::WhereAttrs{}, {a, nb, b}));
}

template <BinaryKind K>
void variadic(Ctx& c) {
  c.checkAttrs({});
  if (c.numInputs() == 0) c.fail("needs at least one input");
  int acc = c.in(0);
  for (int i = 1; i < c.numInputs(); ++i) {
    bool last = i + 1 == c.numInputs();
    acc = c.binary(K, acc, c.in(i), last ? std::string() : "step" + std::to_string(i));
  }
  c.setOutput(0, acc);
}

void importMean(Ctx& c) {
  c.checkAttrs({});
  if (c.numInputs() == 0) c.fail("needs at least one input");
  requireFloat(c, 0);
  int acc = c.in(0);
  for (int i = 1; i < c.numInputs(); ++i) acc = c.binary(BinaryKind::Add, acc, c.in(i), "sum" + std::to_string(i));
  if (c.numInputs() > 1) acc = c.binary(BinaryKind::Div, acc, floatConst(c, c.numInputs(), "count"), {});
  c.setOutput(0, acc);
}

void importWhere(Ctx& c) {
  c.checkAttrs({});
  if (c.dtype(0) != DType::Bool) c.fail("the condition must be a bool tensor");
  c.setOutput(0, c.emit(graph::WhereAttrs{}, {c.in(0), c.in(1), c.in(2)}));
}

}  // namespace

void addElementwiseOps(OpTable& t) {
  t["Relu"] = importRelu;
  t["LeakyRelu"] = importLeakyRelu;
  t["Sigmoid"] = simpleUnary<UnaryKind::Sigmoid>;
  t["HardSigmoid"] = importHardSigmoid;
  t["HardSwish"] = simpleUnary<UnaryKind::HardSwish>;
  t["Tanh"] = simpleUnary<UnaryKind::Tanh>;
  t["Erf"] = simpleUnary<UnaryKind::Erf>;
  t["Exp"] = simpleUnary<UnaryKind::Exp>;
  t["Log"] = simpleUnary<UnaryKind::Log>;
  t["Sqrt"] = simpleUnary<UnaryKind::Sqrt>;
  t["Reciprocal"] = simpleUnary<UnaryKind::Reciprocal>;
  t["Floor"] = simpleUnary<UnaryKind::Floor>;
  t["Ceil"] = simpleUnary<UnaryKind::Ceil>;
  t["Neg"] = importNeg;
  t["Abs"] = importAbs;
  t["Not"] = importNot;
  t["Clip"] = importClip;
  t["Elu"] = importElu;
  t["Selu"] = importSelu;
  t["Celu"] = importCelu;
  t["Softplus"] = importSoftplus;
  t["Softsign"] = importSoftsign;
  t["ThresholdedRelu"] = importThresholdedRelu;
  t["PRelu"] = importPRelu;
  t["Sign"] = importSign;
  t["IsNaN"] = importIsNaN;
  t["IsInf"] = importIsInf;
  t["Shrink"] = importShrink;
  t["Round"] = simpleUnary<UnaryKind::Round>;
  t["Sin"] = simpleUnary<UnaryKind::Sin>;
  t["Cos"] = simpleUnary<UnaryKind::Cos>;
  t["Tan"] = simpleUnary<UnaryKind::Tan>;
  t["Asin"] = simpleUnary<UnaryKind::Asin>;
  t["Acos"] = simpleUnary<UnaryKind::Acos>;
  t["Atan"] = simpleUnary<UnaryKind::Atan>;
  t["Sinh"] = simpleUnary<UnaryKind::Sinh>;
  t["Cosh"] = simpleUnary<UnaryKind::Cosh>;
  t["Asinh"] = simpleUnary<UnaryKind::Asinh>;
  t["Acosh"] = simpleUnary<UnaryKind::Acosh>;
  t["Atanh"] = simpleUnary<UnaryKind::Atanh>;
  t["com.microsoft:Gelu"] = importGelu;

  t["Add"] = simpleBinary<BinaryKind::Add>;
  t["Sub"] = simpleBinary<BinaryKind::Sub>;
  t["Mul"] = simpleBinary<BinaryKind::Mul>;
  t["Div"] = simpleBinary<BinaryKind::Div>;
  t["Pow"] = importPow;
  t["Mod"] = importMod;
  t["BitShift"] = importBitShift;
  t["And"] = simpleBinary<BinaryKind::And>;
  t["Or"] = simpleBinary<BinaryKind::Or>;
  t["Xor"] = importXor;
  t["Equal"] = importEqual;
  t["Less"] = simpleBinary<BinaryKind::Less>;
  t["Greater"] = simpleBinary<BinaryKind::Greater>;
  t["LessOrEqual"] = negatedCompare<BinaryKind::Greater>;
  t["GreaterOrEqual"] = negatedCompare<BinaryKind::Less>;
  t["Max"] = variadic<BinaryKind::Max>;
  t["Min"] = variadic<BinaryKind::Min>;
  t["Sum"] = variadic<BinaryKind::Add>;
  t["Mean"] = importMean;
  t["Where"] = importWhere;
}

}  // namespace ttune::frontend::detail
