// The element types beyond float32 / int32 / int64 / 8 bits: int16, uint16, uint32, uint64,
// float64, float16 and bfloat16, through the reference evaluator and compiled code. Every kernel
// is compiled unscheduled and vectorized (AVX2 and AVX-512 where this machine runs them) and must
// match the evaluator exactly, on inputs that cover each type's whole range and its edge values
// (NaN, infinities, rounding ties, the largest uint64 values, negative numbers converted to
// unsigned types); the evaluator and the conversions are checked against values worked out here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "common/check.h"
#include "support/rng.h"
#include "te/compute_dag.h"
#include "te/dtype_io.h"
#include "te/evaluator.h"
#include "te/float16.h"

namespace ttune {
namespace {

using namespace te;

constexpr int64_t kRows = 3, kCols = 37;  // 37: a vector tail on every target

// Edge values of a type first, then random values over its whole range (floats: in [-3, 3) and
// every bit pattern of the 16-bit floats).
runtime::NDArray edgeInputs(const Shape& shape, DType t, uint64_t seed) {
  runtime::NDArray a = runtime::NDArray::empty(shape, t);
  int64_t n = a.numElements();
  Rng rng(seed);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> fedge = {0.0,
                               -0.0,
                               1.0,
                               -1.0,
                               nan,
                               inf,
                               -inf,
                               0.5,
                               2.5,
                               -2.5,
                               1e30,
                               -1e30,
                               65504.0,
                               65519.0,
                               65520.0,
                               1.0 + 1.0 / 2048,
                               1.0 + 3.0 / 2048,
                               6e-8,
                               3e-8,
                               -3.0e9,
                               4.5e9,
                               1.9e19,
                               -7.7,
                               3.9e38};
  std::vector<int64_t> iedge = {0,
                                1,
                                -1,
                                2,
                                -2,
                                7,
                                127,
                                -128,
                                255,
                                256,
                                32767,
                                -32768,
                                65535,
                                65536,
                                INT32_MAX,
                                INT32_MIN,
                                static_cast<int64_t>(UINT32_MAX),
                                INT64_MAX,
                                INT64_MIN,
                                63,
                                64,
                                15};
  for (int64_t i = 0; i < n; ++i) {
    if (isFloat(t)) {
      if (i < static_cast<int64_t>(fedge.size()))
        storeDouble(a.data(), t, i, fedge[i]);
      else if (isHalfFloat(t))
        a.as<uint16_t>()[i] = static_cast<uint16_t>(rng.next());
      else
        storeDouble(a.data(), t, i, rng.uniform(-3.0, 3.0));
    } else {
      storeInt(a.data(), t, i, i < static_cast<int64_t>(iedge.size()) ? iedge[i] : static_cast<int64_t>(rng.next()));
    }
  }
  return a;
}

// Compiles `out` (one element-wise stage over [kRows, kCols]) unscheduled and with its inner axis
// vectorized by 16, on every ISA this machine runs, and compares each with the evaluator (exactly,
// NaN matching NaN).
void checkCompiled(const std::vector<Tensor>& ins, const Tensor& out, const std::string& what, double tol = 0) {
  SCOPED_TRACE(what);
  auto dag = std::make_shared<const ComputeDAG>(ins, std::vector<Tensor>{out});
  std::vector<runtime::NDArray> inputs;
  for (size_t i = 0; i < ins.size(); ++i) inputs.push_back(edgeInputs(ins[i].shape(), ins[i].dtype(), 11 + i));
  testing::Checker checker(dag, inputs);
  std::vector<std::vector<schedule::Step>> schedules = {
      {},
      {schedule::SplitStep{out.name(), out.op().compute().axes[1].var.name(), kCols, {16}, true},
       schedule::AnnotationStep{out.name(), out.op().compute().axes[1].var.name() + ".1",
                                schedule::IterAnnotation::Vectorize}},
  };
  for (const schedule::Target& target : testing::isaTargets()) {
    if (!testing::skipReason(target).empty()) continue;
    for (size_t s = 0; s < schedules.size(); ++s) {
      SCOPED_TRACE(target.name + (s ? " vectorized" : " unscheduled"));
      auto st = schedule::State::replay(dag, schedules[s]);
      ASSERT_TRUE(st.ok()) << st.error();
      testing::CheckResult r = checker.check(*st, 3, tol, tol, {}, target);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << r.lowered << " mismatches " << r.cmp.mismatches << " non-finite " << r.cmp.non_finite
                              << " max_abs_err " << r.cmp.max_abs_err;
    }
  }
}

Tensor elementwise(const std::string& name, const std::function<Expr(const Expr&, const Expr&)>& fn, const Tensor& a,
                   const Tensor& b) {
  return compute(name, {kRows, kCols}, [&](const std::vector<Var>& v) { return fn(a(v), b(v)); });
}
Tensor map1(const std::string& name, const Tensor& a, const std::function<Expr(const Expr&)>& fn) {
  return compute(name, {kRows, kCols}, [&](const std::vector<Var>& v) { return fn(a(v)); });
}

const DType kIntTypes[] = {DType::Int16, DType::UInt16, DType::UInt32, DType::UInt64};

TEST(DTypeCodegen, IntegerArithmeticComparisonsDivisionAndPowMatchTheEvaluator) {
  for (DType dt : kIntTypes) {
    SCOPED_TRACE(dtypeName(dt));
    Tensor a = placeholder("A", {kRows, kCols}, dt), b = placeholder("B", {kRows, kCols}, dt);
    struct Case {
      const char* name;
      std::function<Expr(const Expr&, const Expr&)> fn;
    };
    std::vector<Case> cases = {
        {"wrapping_add", [](const Expr& x, const Expr& y) { return x + y; }},
        {"wrapping_sub", [](const Expr& x, const Expr& y) { return x - y; }},
        {"wrapping_mul", [](const Expr& x, const Expr& y) { return x * y; }},
        {"min_max", [](const Expr& x, const Expr& y) { return max(min(x, y), x - y); }},
        {"compare_select", [](const Expr& x, const Expr& y) { return select(x < y, x, select(x >= y + y, y, x * y)); }},
        {"floor_div_mod",
         [](const Expr& x, const Expr& y) {
           Expr d = select(y == intImm(0, y.dtype()), intImm(1, y.dtype()), y);
           return x / d + x % d;
         }},
        {"neg_abs", [](const Expr& x, const Expr& y) { return abs(x) - (-y); }},
        {"pow", [](const Expr& x, const Expr& y) { return pow(x, y % intImm(70, y.dtype())); }},
    };
    for (const Case& c : cases) checkCompiled({a, b}, elementwise(c.name, c.fn, a, b), c.name);
  }
}

TEST(DTypeCodegen, IntegerCastsMatchTheEvaluator) {
  for (DType dt : kIntTypes) {
    SCOPED_TRACE(dtypeName(dt));
    Tensor a = placeholder("A", {kRows, kCols}, dt);
    Tensor f = placeholder("F", {kRows, kCols}), d = placeholder("D", {kRows, kCols}, DType::Float64);
    Tensor i64 = placeholder("I", {kRows, kCols}, DType::Int64), i8 = placeholder("I8", {kRows, kCols}, DType::Int8);
    for (DType to :
         {DType::Float32, DType::Float64, DType::Float16, DType::Int64, DType::Int32, DType::Int8, DType::Bool})
      checkCompiled({a}, map1(std::string("to_") + dtypeName(to), a, [&](const Expr& x) { return cast(to, x); }),
                    std::string("to ") + dtypeName(to));
    // From floats (NaN, infinities, negative and huge values included: every input has a defined
    // result), from wider integers (wrapping) and from negative narrower ones.
    checkCompiled({f}, map1("from_f32", f, [&](const Expr& x) { return cast(dt, x); }), "from float32");
    checkCompiled({d}, map1("from_f64", d, [&](const Expr& x) { return cast(dt, x); }), "from float64");
    checkCompiled({i64}, map1("from_i64", i64, [&](const Expr& x) { return cast(dt, x); }), "from int64");
    checkCompiled({i8}, map1("from_i8", i8, [&](const Expr& x) { return cast(dt, x); }), "from int8");
  }
}

TEST(DTypeCodegen, Float64ComputesInDoubleAndMatchesTheEvaluator) {
  Tensor a = placeholder("A", {kRows, kCols}, DType::Float64), b = placeholder("B", {kRows, kCols}, DType::Float64);
  checkCompiled(
      {a, b},
      elementwise(
          "arith", [](const Expr& x, const Expr& y) { return (x + y) * x / (y - 0.25) - min(x, y) + max(x, y); }, a, b),
      "arithmetic");
  checkCompiled({a, b},
                elementwise(
                    "pow", [](const Expr& x, const Expr& y) { return pow(abs(x), y); }, a, b),
                "pow");
  checkCompiled({a, b},
                elementwise(
                    "compare", [](const Expr& x, const Expr& y) { return select(x <= y, x, y * 3.0); }, a, b),
                "compare");
  for (UnOp op :
       {UnOp::Exp,   UnOp::Log,   UnOp::Tanh, UnOp::Erf,   UnOp::Sigmoid, UnOp::Sqrt, UnOp::Sin,   UnOp::Cos,
        UnOp::Tan,   UnOp::Asin,  UnOp::Acos, UnOp::Atan,  UnOp::Sinh,    UnOp::Cosh, UnOp::Asinh, UnOp::Acosh,
        UnOp::Atanh, UnOp::Floor, UnOp::Ceil, UnOp::Round, UnOp::Abs,     UnOp::Neg})
    checkCompiled({a}, map1(unOpName(op), a, [&](const Expr& x) { return unary(op, x); }), unOpName(op));
  // To and from float32 and integers (int32 / int64 / 8-bit conversions are defined in range:
  // clamped first, NaN included, as min / max drop it).
  checkCompiled({a}, map1("to_f32", a, [&](const Expr& x) { return cast(DType::Float32, x); }), "to float32");
  checkCompiled({a}, map1("to_bool", a, [&](const Expr& x) { return cast(DType::Bool, x); }), "to bool");
  for (DType to : {DType::Int64, DType::Int32, DType::Int8})
    checkCompiled(
        {a},
        map1(std::string("to_") + dtypeName(to), a, [&](const Expr& x) { return cast(to, min(max(x, -1e9), 1e9)); }),
        std::string("to ") + dtypeName(to));
  Tensor f = placeholder("F", {kRows, kCols});
  checkCompiled({f}, map1("from_f32", f, [&](const Expr& x) { return cast(DType::Float64, x) / 3.0; }), "from float32");
}

TEST(DTypeCodegen, SixteenBitFloatsConvertAndComputeInFloat32) {
  for (DType dt : {DType::Float16, DType::BFloat16}) {
    SCOPED_TRACE(dtypeName(dt));
    Tensor h = placeholder("H", {kRows, kCols}, dt), g = placeholder("G", {kRows, kCols}, dt);
    Tensor f = placeholder("F", {kRows, kCols}), d = placeholder("D", {kRows, kCols}, DType::Float64);
    checkCompiled({f}, map1("from_f32", f, [&](const Expr& x) { return cast(dt, x); }), "from float32");
    checkCompiled({f}, map1("truncated", f, [&](const Expr& x) { return cast(dt, unary(UnOp::TruncBf16, x)); }),
                  "from float32 truncated to bfloat16's precision");
    checkCompiled({d}, map1("from_f64", d, [&](const Expr& x) { return cast(dt, x); }), "from float64");
    Tensor i = placeholder("I", {kRows, kCols}, DType::Int64);
    checkCompiled({i}, map1("from_i64", i, [&](const Expr& x) { return cast(dt, x); }), "from int64");
    for (DType to : {DType::Float32, DType::Float64, DType::Bool, DType::UInt16, DType::UInt64,
                     dt == DType::Float16 ? DType::BFloat16 : DType::Float16})
      checkCompiled({h}, map1(std::string("to_") + dtypeName(to), h, [&](const Expr& x) { return cast(to, x); }),
                    std::string("to ") + dtypeName(to));
    for (DType to : {DType::Int32, DType::UInt8})
      checkCompiled({h},
                    map1(std::string("clamped_to_") + dtypeName(to), h,
                         [&](const Expr& x) { return cast(to, min(max(x, -1e4), 1e4)); }),
                    std::string("clamped to ") + dtypeName(to));
    checkCompiled({h, g},
                  elementwise(
                      "arith", [](const Expr& x, const Expr& y) { return x * y + x; }, h, g),
                  "arithmetic");
    checkCompiled({h, g},
                  elementwise(
                      "select", [](const Expr& x, const Expr& y) { return select(x < y, x, max(x, y)); }, h, g),
                  "select");
    checkCompiled({h}, map1("sqrt", h, [](const Expr& x) { return sqrt(x); }), "sqrt");
  }
}

TEST(DTypeCodegen, ReductionsOverTheNewTypes) {
  for (DType dt : {DType::Int16, DType::UInt16, DType::UInt32, DType::UInt64, DType::Float64}) {
    for (ReduceKind kind : {ReduceKind::Max, ReduceKind::Min, ReduceKind::Sum}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " " + reduceKindName(kind));
      Tensor a = placeholder("A", {kRows, kCols}, dt);
      IterVar k = reduceAxis(kCols, "k");
      Tensor r = compute("R", {kRows}, [&](const std::vector<Var>& v) { return reduce(kind, a(v[0], k.var), {k}); });
      auto dag = std::make_shared<const ComputeDAG>(std::vector<Tensor>{a}, std::vector<Tensor>{r});
      runtime::NDArray in = edgeInputs(a.shape(), dt, 5);
      if (dt == DType::Float64) in.fillRandom(5, -3.0, 3.0);  // no NaN: max / min order it differently
      testing::Checker checker(dag, {in});
      testing::CheckResult res = checker.check(schedule::State(dag), 3, dt == DType::Float64 ? 1e-12 : 0, 1e-12);
      ASSERT_TRUE(res.built) << res.error;
      EXPECT_TRUE(res.cmp.ok()) << res.lowered;
    }
  }
}

// ---- the evaluator and the conversions against values worked out by hand --------------------------

TEST(DTypeConversions, Float16RoundsToNearestEvenAndKeepsNaN) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + 1.0f / 2048), 0x3c00);  // tie: to the even 1.0
  EXPECT_EQ(floatToHalf(1.0f + 3.0f / 2048), 0x3c02);  // tie: to the even 1 + 2^-9
  EXPECT_EQ(floatToHalf(1.0f + 1.0f / 2048 + 1.0f / 65536), 0x3c01);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);  // rounds to infinity
  EXPECT_EQ(floatToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // tie: to even zero
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);  // tie: to even 2 * 2^-24
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  uint16_t nan = floatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x3ff, 0);
  EXPECT_TRUE(std::isnan(halfToFloat(nan)));
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0xc000), -2.0f);
  // Every float16 value survives the round trip through float32.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  // NaN
    ASSERT_EQ(floatToHalf(halfToFloat(static_cast<uint16_t>(h))), h) << h;
  }
  // float64 -> float16 rounds once: 1 + 2^-11 + 2^-40 is above the tie, though float32 rounds it
  // down to the tie itself.
  EXPECT_EQ(floatToHalf(doubleToFloatOdd(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))), 0x3c01);
  EXPECT_EQ(floatToHalf(static_cast<float>(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))), 0x3c00);
}

TEST(DTypeConversions, BFloat16RoundsToNearestEvenAndKeepsNaN) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16(bitsFloat(0x3f808000u)), 0x3f80);  // tie: to even
  EXPECT_EQ(floatToBf16(bitsFloat(0x3f818000u)), 0x3f82);  // tie: to even
  EXPECT_EQ(floatToBf16(bitsFloat(0x3f808001u)), 0x3f81);
  EXPECT_EQ(floatToBf16(bitsFloat(0x7f7fffffu)), 0x7f80);  // FLT_MAX rounds to infinity
  uint16_t nan = floatToBf16(bitsFloat(0x7f800001u));      // a NaN whose payload is cut off
  EXPECT_TRUE(std::isnan(bf16ToFloat(nan)));
  EXPECT_EQ(bf16ToFloat(0xc040), -3.0f);
}

TEST(DTypeEvaluator, TruncBf16CutsTowardZero) {
  Tensor a = placeholder("A", {3});
  Tensor r =
      compute("R", {3}, [&](const std::vector<Var>& v) { return cast(DType::BFloat16, unary(UnOp::TruncBf16, a(v))); });
  ComputeDAG dag({a}, {r});
  runtime::NDArray av({3}, DType::Float32), rv({3}, DType::BFloat16);
  av.as<float>()[0] = bitsFloat(0x3ef5ffffu), av.as<float>()[1] = bitsFloat(0xbf818000u),
  av.as<float>()[2] = bitsFloat(0x7f800001u);
  evaluate(dag, {av.data(), rv.data()});
  EXPECT_EQ(rv.as<uint16_t>()[0], 0x3ef5);
  EXPECT_EQ(rv.as<uint16_t>()[1], 0xbf81);
  EXPECT_TRUE(std::isnan(bf16ToFloat(rv.as<uint16_t>()[2])));
}

TEST(DTypeEvaluator, Float64IsNotFloat32) {
  Tensor a = placeholder("A", {2}, DType::Float64);
  Tensor r = compute("R", {2}, [&](const std::vector<Var>& v) { return (a(v) + 1e-10) - a(v); });
  Tensor e = compute("E", {2}, [&](const std::vector<Var>& v) { return exp(a(v)); });
  ComputeDAG dag({a}, {r, e});
  runtime::NDArray av({2}, DType::Float64), rv({2}, DType::Float64), ev({2}, DType::Float64);
  av.as<double>()[0] = 1.0, av.as<double>()[1] = 0.1;
  evaluate(dag, {av.data(), rv.data(), ev.data()});
  EXPECT_NEAR(rv.as<double>()[0], 1e-10, 1e-16);
  EXPECT_EQ(ev.as<double>()[1], std::exp(0.1));
}

TEST(DTypeEvaluator, UnsignedWrapsComparesAndConverts) {
  Tensor u = placeholder("U", {4}, DType::UInt64), s = placeholder("S", {4}, DType::Int16);
  Tensor gt = compute("G", {4}, [&](const std::vector<Var>& v) { return u(v) > intImm(1, DType::UInt64); });
  Tensor half = compute("H", {4}, [&](const std::vector<Var>& v) { return u(v) / intImm(2, DType::UInt64); });
  Tensor tof = compute("F", {4}, [&](const std::vector<Var>& v) { return cast(DType::Float64, u(v)); });
  Tensor tou = compute("T", {4}, [&](const std::vector<Var>& v) { return cast(DType::UInt32, s(v)); });
  Tensor wrap = compute("W", {4}, [&](const std::vector<Var>& v) { return s(v) * intImm(3, DType::Int16); });
  ComputeDAG dag({u, s}, {gt, half, tof, tou, wrap});
  runtime::NDArray uv({4}, DType::UInt64), sv({4}, DType::Int16);
  const uint64_t uin[] = {0, 1, 1ull << 63, UINT64_MAX};
  const int16_t sin[] = {-1, -32768, 32767, 20000};
  for (int i = 0; i < 4; ++i) uv.as<uint64_t>()[i] = uin[i], sv.as<int16_t>()[i] = sin[i];
  runtime::NDArray g({4}, DType::Bool), h({4}, DType::UInt64), f({4}, DType::Float64), t({4}, DType::UInt32),
      w({4}, DType::Int16);
  evaluate(dag, {uv.data(), sv.data(), g.data(), h.data(), f.data(), t.data(), w.data()});
  const uint8_t want_g[] = {0, 0, 1, 1};
  const uint64_t want_h[] = {0, 0, 1ull << 62, UINT64_MAX / 2};
  const double want_f[] = {0, 1, 9223372036854775808.0, 18446744073709551616.0};
  const uint32_t want_t[] = {UINT32_MAX, 4294934528u, 32767, 20000};
  const int16_t want_w[] = {-3, -32768, 32765, -5536};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(g.as<uint8_t>()[i], want_g[i]) << i;
    EXPECT_EQ(h.as<uint64_t>()[i], want_h[i]) << i;
    EXPECT_EQ(f.as<double>()[i], want_f[i]) << i;
    EXPECT_EQ(t.as<uint32_t>()[i], want_t[i]) << i;
    EXPECT_EQ(w.as<int16_t>()[i], want_w[i]) << i;
  }
  // Constants fold with the same semantics.
  EXPECT_TRUE(isIntValue(intImm(-1, DType::UInt64) / intImm(2, DType::UInt64), INT64_MAX));
  EXPECT_TRUE(isIntValue(cast(DType::UInt16, intImm(-1)), 65535));
  EXPECT_TRUE(isIntValue(min(intImm(-1, DType::UInt64), intImm(5, DType::UInt64)), 5));
}

TEST(DTypeEvaluator, FloatToIntegerConversionsAreDefinedEverywhere) {
  // Through a saturating int64 conversion (NaN -> 0), then wrapped; uint64 unsigned from 2^63.
  const double in[] = {-1.0, 1e30, std::numeric_limits<double>::quiet_NaN(), 1.8446744073709552e19, 1.5e19, -3.7};
  runtime::NDArray u64({6}, DType::UInt64), u32({6}, DType::UInt32);
  for (int i = 0; i < 6; ++i) {
    storeDouble(u64.data(), DType::UInt64, i, in[i]);
    storeDouble(u32.data(), DType::UInt32, i, in[i]);
  }
  const uint64_t want64[] = {UINT64_MAX, UINT64_MAX, 0, UINT64_MAX, 15000000000000000000ull, static_cast<uint64_t>(-3)};
  const uint32_t want32[] = {
      UINT32_MAX, UINT32_MAX, 0, UINT32_MAX, static_cast<uint32_t>(INT64_MAX), static_cast<uint32_t>(-3)};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(u64.as<uint64_t>()[i], want64[i]) << i;
    EXPECT_EQ(u32.as<uint32_t>()[i], want32[i]) << i;
  }
}

}  // namespace
}  // namespace ttune
