// Kernels with run-time extents (te/runtime_extents.h): a kernel built at a range's largest sizes,
// compiled once and run at smaller sizes, must compute exactly what the kernel built at those sizes
// computes, under the default schedules and random ones (splits that do not divide, fuses,
// compute_at, cache_write, rfactor, layout rewrite). The padding of every input is NaN, so a value
// that reads past a run-time extent shows up.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "codegen/codegen.h"
#include "codegen/jit.h"
#include "common/check.h"
#include "common/random_schedule.h"
#include "measure/builder.h"
#include "measure/measurer.h"
#include "ops/elementwise.h"
#include "ops/nn.h"
#include "ops/reduce.h"
#include "te/expr_functor.h"
#include "te/runtime_extents.h"

namespace ttune {
namespace {

using runtime::NDArray;
using te::Tensor;

// A family of kernels over two sizes (a, b).
using Builder = std::function<te::ComputeDAG(int64_t a, int64_t b)>;

constexpr int64_t kMaxA = 37, kMaxB = 31;  // extents no fixed axis of the builders has

// The kernel at (kMaxA, kMaxB) whose axes of those extents follow the size parameters a and b.
te::ComputeDAG rangeKernel(const Builder& build, const te::Var& a, const te::Var& b) {
  te::ComputeDAG dag = build(kMaxA, kMaxB);
  return te::withRuntimeExtents(dag, [&](int i) {
    std::vector<te::Expr> out;
    const te::Operation& op = dag.op(i);
    auto add = [&](const te::IterVar& iv) {
      out.push_back(iv.extent == kMaxA ? te::Expr(a) : iv.extent == kMaxB ? te::Expr(b) : te::Expr());
    };
    for (const te::IterVar& iv : op.compute().axes) add(iv);
    for (const te::IterVar& iv : op.compute().reduceAxes()) add(iv);
    return out;
  });
}

// Copies `small` into the leading corner of a NaN-filled array of `shape` (both row-major).
NDArray embed(const NDArray& small, const te::Shape& shape) {
  NDArray big(shape, small.dtype());
  big.fill(std::numeric_limits<double>::quiet_NaN());
  std::vector<int64_t> idx(shape.size(), 0);
  const float* src = small.as<float>();
  float* dst = big.as<float>();
  for (int64_t n = 0; n < small.numElements(); ++n) {
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + idx[d];
    dst[off] = src[n];
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < small.shape()[d]) break;
      idx[d] = 0;
    }
  }
  return big;
}

// The leading corner of `big` of `shape`.
NDArray corner(const NDArray& big, const te::Shape& shape) {
  NDArray small(shape, big.dtype());
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t n = 0; n < small.numElements(); ++n) {
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d) off = off * big.shape()[d] + idx[d];
    small.as<float>()[n] = big.as<float>()[off];
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return small;
}

// Compiles `state` (a schedule of the range kernel) once and runs it at every size, against the
// kernel built at that size. Returns the first failure.
std::string checkAtSizes(const Builder& build, const schedule::State& state) {
  const schedule::Target& target = codegen::hostTarget();
  auto f = lower::lower(state, "kernel", lower::lowerOptionsFor(target));
  if (!f.ok()) return "lower: " + f.error();
  auto obj = codegen::compile(*f, codegen::CompileOptions{3, target});
  if (!obj.ok()) return "compile: " + obj.error();
  auto k = codegen::loadKernel(*obj);
  if (!k.ok()) return "load: " + k.error();
  const te::ComputeDAG& range = *state.originalDag();
  for (auto [a, b] :
       std::vector<std::pair<int64_t, int64_t>>{{kMaxA, kMaxB}, {1, 1}, {5, kMaxB}, {kMaxA, 3}, {16, 17}}) {
    te::ComputeDAG at = build(a, b);
    std::vector<NDArray> inputs = testing::randomInputs(at, static_cast<uint64_t>(a * 100 + b));
    std::vector<NDArray> expected = testing::referenceOutputs(at, inputs);
    std::vector<NDArray> padded;
    for (size_t i = 0; i < inputs.size(); ++i) padded.push_back(embed(inputs[i], range.inputs()[i].shape()));
    padded = measure::scheduledInputs(range, padded, state.dag(), state.weightLayouts());
    std::vector<NDArray> outs;
    std::vector<void*> args;
    for (NDArray& x : padded) args.push_back(x.data());
    for (const Tensor& t : state.dag().outputs()) {
      outs.emplace_back(t.shape(), t.dtype());
      args.push_back(outs.back().data());
    }
    std::vector<int64_t> sizes;  // sizeParams() order: by name
    for (const te::Var& p : f->size_params) sizes.push_back(p.name() == "a" ? a : b);
    for (int64_t& s : sizes) args.push_back(&s);
    (**k)(args.data());
    for (size_t i = 0; i < outs.size(); ++i) {
      runtime::Comparison c = runtime::compare(corner(outs[i], expected[i].shape()), expected[i], 1e-4, 1e-4);
      if (c.mismatches || c.non_finite)
        return "at a=" + std::to_string(a) + ", b=" + std::to_string(b) + ": " + std::to_string(c.mismatches) +
               " mismatches, " + std::to_string(c.non_finite) + " non-finite, max abs err " +
               std::to_string(c.max_abs_err) + "\n" + lower::toString(*f);
    }
  }
  return "";
}

void checkFamily(const Builder& build, int random_schedules) {
  te::Var a("a"), b("b");
  auto dag = std::make_shared<const te::ComputeDAG>(rangeKernel(build, a, b));
  ASSERT_TRUE(te::hasRuntimeExtents(*dag));
  for (schedule::Baseline base : {schedule::Baseline::Strong, schedule::Baseline::Basic}) {
    auto st = schedule::State::replay(dag, measure::defaultScheduleFor(*dag, codegen::hostTarget(), base));
    ASSERT_TRUE(st.ok()) << st.error();
    EXPECT_EQ(checkAtSizes(build, *st), "") << "default schedule (" << schedule::baselineName(base) << ")";
  }
  for (int seed = 1; seed <= random_schedules; ++seed) {
    schedule::State st = testing::randomSchedule(dag, static_cast<uint64_t>(seed));
    EXPECT_EQ(checkAtSizes(build, st), "") << "random schedule " << seed;
  }
}

// A dense layer with a bias and relu over a run-time number of rows (a batch or a sequence).
te::ComputeDAG denseRows(int64_t rows, int64_t) {
  Tensor x = te::placeholder("x", {rows, 29});
  Tensor w = te::placeholder("w", {24, 29}, te::DType::Float32, true);
  Tensor bias = te::placeholder("bias", {24}, te::DType::Float32, true);
  return te::ComputeDAG({x, w, bias}, {ops::relu(ops::add(ops::dense(x, w), bias))});
}

// Attention's second half: softmax over a run-time number of keys, then the product with the
// values, for a run-time number of queries (reductions over a run-time extent, fused stages).
te::ComputeDAG attention(int64_t queries, int64_t keys) {
  Tensor s = te::placeholder("s", {queries, keys});
  Tensor v = te::placeholder("v", {keys, 24});
  return te::ComputeDAG({s, v}, {ops::matmul(ops::softmax(s, -1), v)});
}

TEST(RuntimeExtents, TheKernelAtTheLargestSizeRunsEverySmallerSizeOfItsRange) {
  checkFamily(denseRows, 12);
  checkFamily(attention, 12);
}

TEST(RuntimeExtents, SizeParametersAreKernelArgumentsAndPartOfTheExactKey) {
  te::Var a("a"), b("b");
  te::ComputeDAG range = rangeKernel(attention, a, b);
  te::ComputeDAG fixed = attention(kMaxA, kMaxB);
  ASSERT_EQ(range.sizeParams().size(), 2u);
  EXPECT_EQ(range.sizeParams()[0].name(), "a");
  EXPECT_EQ(range.sizeParams()[1].name(), "b");
  EXPECT_TRUE(fixed.sizeParams().empty());
  // One class (schedules transfer between them), two kernels.
  EXPECT_EQ(range.structuralHash(), fixed.structuralHash());
  EXPECT_NE(range.exactHash(), fixed.exactHash());
  EXPECT_NE(range.toString().find("<a"), std::string::npos) << range.toString();
}

TEST(RuntimeExtents, ARowLoopStopsAtTheRunTimeExtentInsteadOfWalkingEmptyTiles) {
  te::Var a("a"), b("b");
  auto dag = std::make_shared<const te::ComputeDAG>(rangeKernel(denseRows, a, b));
  auto st = schedule::State::replay(dag, measure::defaultScheduleFor(*dag, codegen::hostTarget()));
  ASSERT_TRUE(st.ok()) << st.error();
  auto f = lower::lower(*st, "kernel", lower::lowerOptionsFor(codegen::hostTarget()));
  ASSERT_TRUE(f.ok()) << f.error();
  // The outermost loop (the parallel one over row tiles) has an extent that depends on a.
  const lower::StmtNode* s = f->body.get();
  while (s && !std::holds_alternative<lower::For>(s->kind)) {
    if (auto* al = std::get_if<lower::Allocate>(&s->kind))
      s = al->body.get();
    else if (auto* sq = std::get_if<lower::Seq>(&s->kind))
      s = sq->stmts.empty() ? nullptr : sq->stmts.front().get();
    else if (auto* lt = std::get_if<lower::LetStmt>(&s->kind))
      s = lt->body.get();
    else if (auto* i = std::get_if<lower::IfThenElse>(&s->kind))
      s = i->then_case.get();
    else
      s = nullptr;
  }
  ASSERT_NE(s, nullptr) << lower::toString(*f);
  const lower::For& outer = std::get<lower::For>(s->kind);
  EXPECT_TRUE(te::usesVar(outer.extent, a.get())) << lower::toString(*f);
}

}  // namespace
}  // namespace ttune
