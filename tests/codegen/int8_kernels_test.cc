// int8 kernels: integer convolutions and products with their default schedules, compiled for
// targets with and without dot-product units, bit-exact against the reference evaluator on
// inputs over the operands' whole range; the code uses the unit the target has (vpdpbusd with
// VNNI, vpmaddwd without, sdot on AArch64 dotprod), checked in the assembly of every target,
// also those this machine cannot run.
#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "common/check.h"
#include "measure/builder.h"
#include "ops/registry.h"

namespace ttune {
namespace {

struct Case {
  std::string op;
  std::vector<std::string> params;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"conv2d", {"layout=NHWC", "C=32", "K=64", "H=9", "W=10", "pad=1", "precision=u8s8"}},
      {"conv2d_bias_relu", {"layout=NHWC", "C=16", "K=24", "H=7", "W=7", "R=1", "S=1", "precision=u8s8"}},
      {"conv2d", {"layout=NHWC", "C=8", "K=20", "H=8", "W=8", "stride=2", "pad=1", "precision=s8s8"}},
      {"conv2d", {"layout=NHWC", "C=3", "K=16", "H=11", "W=11", "R=7", "S=7", "stride=2", "pad=3", "precision=u8s8"}},
      {"conv2d", {"layout=NHWC", "C=16", "K=32", "H=6", "W=6", "groups=2", "pad=1", "precision=u8s8"}},
      {"depthwise_conv2d", {"layout=NHWC", "C=24", "H=8", "W=8", "precision=u8s8"}},
      {"dense", {"M=7", "N=40", "K=64", "precision=u8s8"}},
      {"dense", {"M=3", "N=17", "K=36", "precision=u8u8"}},
      {"matmul", {"M=6", "N=19", "K=32", "precision=u8s8"}},
      {"batch_matmul", {"B=2", "M=5", "N=16", "K=12", "precision=s8s8"}},
  };
  return c;
}

std::shared_ptr<const te::ComputeDAG> dagOf(const Case& c) {
  return std::make_shared<const te::ComputeDAG>(ops::buildOp(c.op, c.params).dag());
}

std::string label(const Case& c) {
  std::string s = c.op;
  for (const std::string& p : c.params) s += " " + p;
  return s;
}

TEST(Int8Kernels, DefaultSchedulesAreExactOnEveryTargetThisMachineRuns) {
  std::vector<schedule::Target> targets = testing::isaTargets();
  targets.push_back(codegen::hostTarget());
  for (const schedule::Target& t : targets) {
    if (!testing::skipReason(t).empty()) {
      std::cout << "[  SKIPPED ] " << t.name << ": " << testing::skipReason(t) << "\n";
      continue;
    }
    for (const Case& c : cases()) {
      SCOPED_TRACE(t.name + " (int8 group " + std::to_string(t.int8_group) + "): " + label(c));
      auto dag = dagOf(c);
      testing::Checker checker(dag, testing::fullRangeInputs(*dag, 11));
      auto st = schedule::State::replay(dag, measure::defaultScheduleFor(*dag, t));
      ASSERT_TRUE(st.ok()) << st.error();
      testing::CheckResult r = checker.check(*st, 3, 0, 0, {}, t);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << r.lowered << " mismatches " << r.cmp.mismatches << " max_abs_err "
                              << r.cmp.max_abs_err;
    }
  }
}

// The group loop without packed weights (no layout rewrite): operands gathered per group member
// and interleaved, still exact.
TEST(Int8Kernels, GroupLoopOverUnpackedWeightsIsExact) {
  for (const schedule::Target& t : testing::isaTargets()) {
    if (!testing::skipReason(t).empty()) continue;
    for (const Case& c : {cases()[0], cases()[6]}) {
      SCOPED_TRACE(t.name + ": " + label(c));
      auto dag = dagOf(c);
      std::vector<schedule::Step> steps;
      for (const schedule::Step& s : measure::defaultScheduleFor(*dag, t))
        if (!std::holds_alternative<schedule::LayoutRewriteStep>(s)) steps.push_back(s);
      auto st = schedule::State::replay(dag, steps);
      ASSERT_TRUE(st.ok()) << st.error();
      testing::Checker checker(dag, testing::fullRangeInputs(*dag, 5));
      testing::CheckResult r = checker.check(*st, 3, 0, 0, {}, t);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << r.lowered;
    }
  }
}

// Which instruction each target's int8 code uses, read from its assembly.
TEST(Int8Kernels, CodeUsesTheTargetsDotProductUnit) {
  struct Expect {
    const char* target;
    int group;
    const char* op;
    const char* instruction;
    std::vector<std::string> params;
  };
  const std::vector<Expect> expects = {
      {"znver4", 4, "dense", "vpdpbusd", {"M=8", "N=64", "K=64", "precision=u8s8"}},     // AVX512-VNNI
      {"alderlake", 4, "dense", "vpdpbusd", {"M=8", "N=64", "K=64", "precision=u8s8"}},  // AVX-VNNI (256-bit)
      {"x86-64-v3", 2, "dense", "vpmaddwd", {"M=8", "N=64", "K=64", "precision=u8s8"}},  // AVX2
      {"x86-64-v4", 2, "dense", "vpmaddwd", {"M=8", "N=64", "K=64", "precision=u8s8"}},  // AVX-512 without VNNI
      {"znver4", 4, "dense", "vpmaddwd", {"M=8", "N=64", "K=64", "precision=s8s8"}},     // no u8 operand
      {"cortex-a76", 4, "dense", "sdot", {"M=8", "N=64", "K=64", "precision=s8s8"}},     // Arm dotprod
  };
  for (const Expect& e : expects) {
    SCOPED_TRACE(std::string(e.target) + " " + e.op);
    auto t = codegen::resolveTarget(e.target);
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->int8_group, e.group);
    auto code = testing::defaultScheduleAssembly(
        std::make_shared<const te::ComputeDAG>(ops::buildOp(e.op, e.params).dag()), *t);
    ASSERT_TRUE(code.ok()) << code.error();
    EXPECT_NE(code->assembly.find(e.instruction), std::string::npos) << code->lowered;
  }
  auto a72 = codegen::resolveTarget("cortex-a72");
  ASSERT_TRUE(a72.ok());
  EXPECT_EQ(a72->int8_group, 1);  // NEON without dotprod: widened multiply-adds
}

}  // namespace
}  // namespace ttune
