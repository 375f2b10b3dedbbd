#include <gtest/gtest.h>
#include "autotune/cost_model.h"
#include "codegen/codegen.h"
#include "codegen/jit.h"
#include "common/random_schedule.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "support/timer.h"
namespace ttune::autotune {
TEST(Scratch, CompileTime) {
  auto dag = std::make_shared<const te::ComputeDAG>(ops::buildOp("matmul", {"M=64","N=64","K=64"}).dag());
  for (int opt : {0, 1, 2, 3}) {
    Timer t; int n = 0;
    for (int i = 0; i < 20; ++i) {
      auto s = testing::randomSchedule(dag, 1000 + i);
      auto f = lower::lower(s, "k");
      if (!f.ok()) continue;
      auto o = codegen::compile(*f, codegen::CompileOptions{opt});
      n += o.ok();
    }
    printf("opt %d: %.1f ms per kernel (%d)\n", opt, t.millis() / 20, n);
  }
}
}
