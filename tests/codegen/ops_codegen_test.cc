// Every registered operator, compiled plain and with the default schedule, computes what the
// reference evaluator does.
#include <gtest/gtest.h>

#include "common/check.h"
#include "ops/registry.h"
#include "schedule/default_schedule.h"

namespace ttune {
namespace {

class OpCodegen : public ::testing::TestWithParam<std::string> {};

TEST_P(OpCodegen, PlainAndDefaultScheduleMatchReference) {
  const ops::OpEntry& op = ops::findOp(GetParam());
  auto dag = std::make_shared<const te::ComputeDAG>(ops::buildOp(op.name, op.example).dag());
  testing::Checker checker(dag, 3);
  schedule::State plain(dag);
  auto r = checker.check(plain, 2);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << "plain: max abs err " << r.cmp.max_abs_err << "\n" << r.lowered;
  auto st = schedule::State::replay(dag, schedule::defaultSchedule(*dag));
  ASSERT_TRUE(st.ok()) << st.error();
  r = checker.check(*st, 2);
  ASSERT_TRUE(r.built) << r.error;
  EXPECT_TRUE(r.cmp.ok()) << "default: max abs err " << r.cmp.max_abs_err << "\n" << r.lowered;
}

std::vector<std::string> opNames() {
  std::vector<std::string> n;
  for (const auto& op : ops::allOps()) n.push_back(op.name);
  return n;
}

INSTANTIATE_TEST_SUITE_P(Registry, OpCodegen, ::testing::ValuesIn(opNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace ttune
