// Every registered operator, compiled plain and with the default schedule, computes what the
// reference evaluator does.
#include <gtest/gtest.h>

#include "common/check.h"
#include "measure/builder.h"
#include "ops/registry.h"

namespace ttune {
namespace {

// (operator, ISA level): each operator's default schedule is generated for the target's lanes
// and registers and compiled for it.
class OpCodegen : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(OpCodegen, PlainAndDefaultScheduleMatchReference) {
  auto target = codegen::resolveTarget(std::get<1>(GetParam()));
  ASSERT_TRUE(target.ok()) << target.error();
  std::string skip = testing::skipReason(*target);
  if (!skip.empty()) GTEST_SKIP() << skip;
  const ops::OpEntry& op = ops::findOp(std::get<0>(GetParam()));
  auto dag = std::make_shared<const te::ComputeDAG>(ops::buildOp(op.name, op.example).dag());
  testing::Checker checker(dag, 3);
  schedule::State plain(dag);
  lower::LowerOptions lo;
  lo.vector_lanes = target->lanes();
  auto r = checker.check(plain, 2, 1e-4, 1e-4, lo, *target);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << "plain: max abs err " << r.cmp.max_abs_err << "\n" << r.lowered;
  auto st = schedule::State::replay(dag, measure::defaultScheduleFor(*dag, *target));
  ASSERT_TRUE(st.ok()) << st.error();
  r = checker.check(*st, 2, 1e-4, 1e-4, lower::lowerOptionsFor(*target), *target);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << "default: max abs err " << r.cmp.max_abs_err << "\n" << r.lowered;
}

std::vector<std::string> opNames() {
  std::vector<std::string> n;
  for (const auto& op : ops::allOps()) n.push_back(op.name);
  return n;
}

INSTANTIATE_TEST_SUITE_P(Registry, OpCodegen,
                         ::testing::Combine(::testing::ValuesIn(opNames()),
                                            ::testing::Values("x86-64-v3", "x86-64-v4")),
                         [](const auto& i) {
                           std::string isa = std::get<1>(i.param) == "x86-64-v3" ? "avx2" : "avx512";
                           return std::get<0>(i.param) + "_" + isa;
                         });

}  // namespace
}  // namespace ttune
