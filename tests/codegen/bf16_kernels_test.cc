// bfloat16 kernels: convolutions and products of bfloat16 operands with float32 sums, with their
// default schedules, against the reference evaluator (to float32 rounding: vdpbf16ps rounds a
// pair's sum once), on every target this machine runs; with AVX512-BF16 the code uses
// vdpbf16ps (checked in the assembly, also where this machine cannot run it).
#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "common/check.h"
#include "measure/builder.h"
#include "ops/nn.h"
#include "ops/transform.h"

namespace ttune {
namespace {

using te::DType;

std::vector<std::shared_ptr<const te::ComputeDAG>> bf16Dags() {
  te::Tensor x = te::placeholder("x", {1, 9, 10, 32}, DType::BFloat16);
  te::Tensor w = te::placeholder("w", {3, 3, 32, 48}, DType::BFloat16, true);
  te::Tensor a = te::placeholder("a", {7, 64}, DType::BFloat16),
             d = te::placeholder("d", {40, 64}, DType::BFloat16, true);
  te::Tensor q = te::placeholder("q", {2, 12, 16}, DType::BFloat16),
             k = te::placeholder("k", {2, 16, 20}, DType::BFloat16);
  return {
      std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w},
                                             std::vector<te::Tensor>{ops::conv2d_nhwc(x, w, {1, 1}, {1, 1, 1, 1})}),
      std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, d}, std::vector<te::Tensor>{ops::dense(a, d)}),
      std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{q, k},
                                             std::vector<te::Tensor>{ops::batch_matmul(q, k)})};
}

TEST(Bf16Kernels, DefaultSchedulesMatchTheEvaluator) {
  std::vector<schedule::Target> targets = testing::isaTargets();
  targets.push_back(codegen::hostTarget());
  for (const schedule::Target& t : targets) {
    if (!testing::skipReason(t).empty()) continue;
    for (const auto& dag : bf16Dags()) {
      SCOPED_TRACE(t.name + " (bf16 group " + std::to_string(t.bf16_group) + "): " + dag->outputs()[0].name());
      testing::Checker checker(dag, 3);
      auto st = schedule::State::replay(dag, measure::defaultScheduleFor(*dag, t));
      ASSERT_TRUE(st.ok()) << st.error();
      testing::CheckResult r = checker.check(*st, 3, 1e-4, 1e-4, {}, t);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << r.lowered << " max_abs_err " << r.cmp.max_abs_err;
    }
  }
}

TEST(Bf16Kernels, Avx512Bf16CodeUsesVdpbf16ps) {
  auto t = codegen::resolveTarget("znver4");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t->bf16_group, 2);
  EXPECT_EQ(codegen::resolveTarget("x86-64-v4")->bf16_group, 1);  // AVX-512 without BF16
  auto code = testing::defaultScheduleAssembly(bf16Dags()[1], *t);
  ASSERT_TRUE(code.ok()) << code.error();
  EXPECT_NE(code->assembly.find("vdpbf16ps"), std::string::npos) << code->lowered;
}

}  // namespace
}  // namespace ttune
