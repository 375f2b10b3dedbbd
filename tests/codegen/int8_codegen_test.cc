// The 8-bit element types (int8, uint8) through the reference evaluator and compiled code:
// wrapping arithmetic, unsigned comparisons, min/max and division, casts to and from float32 /
// int32 / int64, reductions; every kernel compiled unscheduled and vectorized (AVX2 and
// AVX-512 where this machine runs them) against the evaluator, and the evaluator itself against
// values worked out here.
#include <gtest/gtest.h>

#include <functional>

#include "common/check.h"
#include "te/compute_dag.h"
#include "te/evaluator.h"

namespace ttune {
namespace {

using namespace te;

constexpr int64_t kRows = 3, kCols = 37;  // 37: a vector tail on every target

// Compiles `out` (one element-wise stage over [kRows, kCols]) unscheduled and with its inner axis
// vectorized by 16, on every ISA this machine runs, and compares each with the evaluator.
void checkCompiled(const std::vector<Tensor>& ins, const Tensor& out, const std::string& what) {
  SCOPED_TRACE(what);
  auto dag = std::make_shared<const ComputeDAG>(ins, std::vector<Tensor>{out});
  testing::Checker checker(dag, testing::fullRangeInputs(*dag, 7));
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
      testing::CheckResult r = checker.check(*st, 3, 0, 0, {}, target);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << r.lowered << " mismatches " << r.cmp.mismatches << " max_abs_err "
                              << r.cmp.max_abs_err;
    }
  }
}

Tensor elementwise(const std::string& name, const std::function<Expr(const Expr&, const Expr&)>& fn, const Tensor& a,
                   const Tensor& b) {
  return compute(name, {kRows, kCols}, [&](const std::vector<Var>& v) { return fn(a(v), b(v)); });
}

TEST(Int8Codegen, ArithmeticComparisonsAndDivisionMatchTheEvaluator) {
  for (DType dt : {DType::Int8, DType::UInt8}) {
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
    };
    for (const Case& c : cases) checkCompiled({a, b}, elementwise(c.name, c.fn, a, b), c.name);
  }
}

TEST(Int8Codegen, CastsToAndFromWiderTypesMatchTheEvaluator) {
  for (DType dt : {DType::Int8, DType::UInt8}) {
    SCOPED_TRACE(dtypeName(dt));
    Tensor a = placeholder("A", {kRows, kCols}, dt), f = placeholder("F", {kRows, kCols});
    auto out = [&](const std::string& name, const std::function<Expr(const std::vector<Var>&)>& fn) {
      return compute(name, {kRows, kCols}, fn);
    };
    checkCompiled({a}, out("to_float", [&](const std::vector<Var>& v) { return cast(DType::Float32, a(v)) * 0.5; }),
                  "to_float");
    checkCompiled({a},
                  out("to_int32",
                      [&](const std::vector<Var>& v) { return cast(DType::Int32, a(v)) * intImm(1000, DType::Int32); }),
                  "to_int32");
    checkCompiled({a},
                  out("to_int64", [&](const std::vector<Var>& v) { return cast(DType::Int64, a(v)) - intImm(300); }),
                  "to_int64");
    // Narrowing wraps (the exact value modulo 256).
    checkCompiled(
        {a},
        out("wrap_from_int32",
            [&](const std::vector<Var>& v) { return cast(dt, cast(DType::Int32, a(v)) * intImm(77, DType::Int32)); }),
        "wrap_from_int32");
    // Quantization: saturate(round(f * 60) + zero point), the clip making the cast exact.
    double lo = static_cast<double>(intTypeMin(dt)), hi = static_cast<double>(intTypeMax(dt));
    checkCompiled({f},
                  out("quantize",
                      [&](const std::vector<Var>& v) {
                        Expr q = round(f(v) * 60.0) + (dt == DType::UInt8 ? 128.0 : 0.0);
                        return cast(dt, min(max(q, lo), hi));
                      }),
                  "quantize");
  }
}

TEST(Int8Codegen, ReductionsOverEightBitValues) {
  for (DType dt : {DType::Int8, DType::UInt8}) {
    for (ReduceKind kind : {ReduceKind::Max, ReduceKind::Min, ReduceKind::Sum}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " " + reduceKindName(kind));
      Tensor a = placeholder("A", {kRows, kCols}, dt);
      IterVar k = reduceAxis(kCols, "k");
      Tensor r = compute("R", {kRows}, [&](const std::vector<Var>& v) { return reduce(kind, a(v[0], k.var), {k}); });
      auto dag = std::make_shared<const ComputeDAG>(std::vector<Tensor>{a}, std::vector<Tensor>{r});
      testing::Checker checker(dag, testing::fullRangeInputs(*dag, 3));
      testing::CheckResult res = checker.check(schedule::State(dag), 3, 0, 0);
      ASSERT_TRUE(res.built) << res.error;
      EXPECT_TRUE(res.cmp.ok()) << res.lowered;
    }
  }
}

// The evaluator's 8-bit semantics against values worked out by hand.
TEST(Int8Evaluator, WrapsComparesUnsignedAndConverts) {
  Tensor a = placeholder("A", {4}, DType::UInt8), b = placeholder("B", {4}, DType::Int8);
  Tensor sum = compute("S", {4}, [&](const std::vector<Var>& v) { return a(v) + a(v); });
  Tensor gt = compute("G", {4}, [&](const std::vector<Var>& v) {
    return select(a(v) > intImm(127, DType::UInt8), intImm(1), intImm(0));
  });
  Tensor neg = compute("N", {4}, [&](const std::vector<Var>& v) { return -b(v); });
  Tensor wide =
      compute("W", {4}, [&](const std::vector<Var>& v) { return cast(DType::Int32, a(v)) + cast(DType::Int32, b(v)); });
  ComputeDAG dag({a, b}, {sum, gt, neg, wide});
  runtime::NDArray av({4}, DType::UInt8), bv({4}, DType::Int8);
  const uint8_t ain[] = {0, 127, 200, 255};
  const int8_t bin[] = {-128, -1, 5, 127};
  for (int i = 0; i < 4; ++i) av.as<uint8_t>()[i] = ain[i], bv.as<int8_t>()[i] = bin[i];
  runtime::NDArray s({4}, DType::UInt8), g({4}, DType::Int64), n({4}, DType::Int8), w({4}, DType::Int32);
  evaluate(dag, {av.data(), bv.data(), s.data(), g.data(), n.data(), w.data()});
  const uint8_t want_s[] = {0, 254, 144, 254};
  const int64_t want_g[] = {0, 0, 1, 1};
  const int8_t want_n[] = {-128, 1, -5, -127};
  const int32_t want_w[] = {-128, 126, 205, 382};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(s.as<uint8_t>()[i], want_s[i]) << i;
    EXPECT_EQ(g.as<int64_t>()[i], want_g[i]) << i;
    EXPECT_EQ(n.as<int8_t>()[i], want_n[i]) << i;
    EXPECT_EQ(w.as<int32_t>()[i], want_w[i]) << i;
  }
  // Constants fold with the same wrap-around.
  EXPECT_TRUE(isIntValue(intImm(200, DType::UInt8) + intImm(100, DType::UInt8), 44));
  EXPECT_TRUE(isIntValue(cast(DType::Int8, intImm(200)), -56));
}

}  // namespace
}  // namespace ttune
