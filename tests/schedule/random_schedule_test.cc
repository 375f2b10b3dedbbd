// Property test: random valid schedules of twelve kernels (matmul, convolutions in both layouts
// with padding and stride, depthwise convolution, pooling, softmax, layer norm, fused conv + bias
// + relu, dense + gelu, batch matmul, reductions) all compute what the reference evaluator does.
#include <gtest/gtest.h>

#include "common/check.h"
#include "common/random_schedule.h"
#include "ops/registry.h"
#include "schedule/record.h"

namespace ttune {
namespace {

struct Case {
  const char* name;
  const char* op;
  std::vector<std::string> params;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"matmul", "matmul", {"M=19", "N=24", "K=13"}},
      {"conv2d_nchw", "conv2d", {"C=5", "H=11", "W=9", "K=6", "stride=2", "pad=1"}},
      {"conv2d_nhwc", "conv2d", {"C=4", "H=9", "W=10", "K=7", "stride=2", "pad=1", "layout=NHWC"}},
      {"depthwise", "depthwise_conv2d", {"C=6", "H=10", "W=9", "pad=1"}},
      {"max_pool", "max_pool2d", {"C=3", "H=11", "W=10", "kernel=3", "stride=2", "pad=1"}},
      {"avg_pool", "avg_pool2d", {"C=3", "H=10", "W=9", "kernel=3", "stride=2", "pad=1"}},
      {"softmax", "softmax", {"shape=3x37"}},
      {"layer_norm", "layer_norm", {"shape=5x24"}},
      {"conv_bias_relu", "conv2d_bias_relu", {"C=4", "H=8", "W=8", "K=8", "pad=1"}},
      {"dense_gelu", "dense_gelu", {"M=7", "N=20", "K=17"}},
      {"batch_matmul", "batch_matmul", {"B=2", "M=9", "N=11", "K=6"}},
      {"reduce_sum", "reduce_sum", {"shape=6x5x7", "axes=1,2"}},
  };
  return c;
}

constexpr int kPerCase = 170;  // 12 x 170 = 2040 schedules

class RandomSchedules : public ::testing::TestWithParam<size_t> {};

TEST_P(RandomSchedules, MatchReferenceEvaluator) {
  const Case& c = cases()[GetParam()];
  auto dag = std::make_shared<const te::ComputeDAG>(ops::buildOp(c.op, c.params).dag());
  testing::Checker checker(dag, 7);
  int nontrivial = 0;
  for (int i = 0; i < kPerCase; ++i) {
    schedule::State s = testing::randomSchedule(dag, 1000 * GetParam() + i);
    nontrivial += !s.steps().empty();
    // Every fourth schedule keeps no tile on the stack: heap buffers must live as long as their
    // readers (sanitizer builds catch a use after free).
    lower::LowerOptions lo = lower::lowerOptionsFor(codegen::hostTarget());
    if (i % 4 == 3) lo.max_stack_bytes = 0;
    // Half with prefetches wherever a block is re-read at all, to exercise the pass on any loop
    // structure (a prefetch must never change a value or break code generation).
    if (i % 2 == 0) lo.prefetch = lower::PrefetchOptions{.min_block_bytes = 0};
    // A third at -O3 as in production (noalias metadata, vectorizer and unroller at work); the
    // rest at -O1, which keeps the suite fast and still exercises every lowering path.
    const int opt_level = i % 3 == 0 ? 3 : 1;
    auto r = checker.check(s, opt_level, 1e-4, 1e-4, lo);
    std::string steps;
    for (const auto& st : s.steps()) steps += "  " + schedule::stepToString(st) + "\n";
    ASSERT_TRUE(r.built) << c.name << " seed " << i << " -O" << opt_level << ": " << r.error << "\nsteps:\n" << steps;
    ASSERT_TRUE(r.cmp.ok()) << c.name << " seed " << i << " -O" << opt_level << " max abs err " << r.cmp.max_abs_err
                            << "\nsteps:\n"
                            << steps << r.lowered;
  }
  EXPECT_GT(nontrivial, kPerCase * 9 / 10);
}

INSTANTIATE_TEST_SUITE_P(Kernels, RandomSchedules, ::testing::Range<size_t>(0, 12),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return std::string(cases()[info.param].name);
                         });

}  // namespace
}  // namespace ttune
