// Full-tile versions of register tiles (lower/version_tiles.h): full and tail tiles get
// constant-extent versions, and the kernels stay exact on both x86 ISA levels.
#include <gtest/gtest.h>

#include "codegen/target.h"
#include "common/check.h"
#include "lower/lower.h"
#include "lower/stmt_functor.h"
#include "lower/version_tiles.h"
#include "ops/nn.h"
#include "te/arith.h"

namespace ttune {
namespace {

// Ifs, and loops whose extent is the constant `extent`.
struct Counts : lower::StmtVisitor {
  explicit Counts(int64_t extent) : extent(extent) {}
  int64_t extent;
  int ifs = 0, loops = 0;
  void visitIf(const lower::IfThenElse& i) override {
    ++ifs;
    StmtVisitor::visitIf(i);
  }
  void visitFor(const lower::For& f) override {
    int64_t e;
    loops += te::isConstInt(f.extent, &e) && e == extent;
    StmtVisitor::visitFor(f);
  }
};

int countIfs(const lower::Stmt& s) {
  Counts c(0);
  c.visit(s);
  return c.ifs;
}

int countLoopsOfExtent(const lower::Stmt& s, int64_t n) {
  Counts c(n);
  c.visit(s);
  return c.loops;
}

// An NHWC convolution's output C computed through its cache-write tile L: columns in tiles of 4
// rows, channels in vectors of 16.
std::vector<schedule::Step> columnTileSteps(const std::string& C, const std::string& L) {
  using namespace schedule;
  return {
      CacheWriteStep{C, "local"},
      SplitStep{L, "ff", std::nullopt, {16}, true},
      SplitStep{L, "xx", std::nullopt, {4}, true},
      ReorderStep{L, {"nn", "yy", "xx.0", "ff.0", "rc", "ry", "rx", "xx.1", "ff.1"}},
      FollowSplitStep{C, "ff", 1, 1},
      FollowSplitStep{C, "xx", 2, 1},
      ReorderStep{C, {"nn", "yy", "xx.0", "ff.0", "xx.1", "ff.1"}},
      ComputeAtStep{L, C, "ff.0"},
      AnnotationStep{L, "ff.1", IterAnnotation::Vectorize},
      AnnotationStep{C, "ff.1", IterAnnotation::Vectorize},
  };
}

// A 1x1 convolution on a 7x7 NHWC image.
std::shared_ptr<const te::ComputeDAG> pointwiseConv7x7(int64_t c, int64_t k) {
  te::Tensor x = te::placeholder("X", {1, 7, 7, c});
  te::Tensor w = te::placeholder("W", {1, 1, c, k}, te::DType::Float32, true);
  return std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{x, w},
                                                std::vector<te::Tensor>{ops::conv2d_nhwc(x, w, {1, 1}, {0, 0, 0, 0})});
}

TEST(VersionTiles, TailTilesGetAFullTileVersionAndStayExact) {
  // 7 output columns in tiles of 4 and 40 channels in vectors of 16: full tiles and tails.
  auto dag = pointwiseConv7x7(24, 40);
  using namespace schedule;
  std::string C = dag->outputs()[0].name(), L = C + ".local";
  std::vector<Step> steps = columnTileSteps(C, L);
  auto st = State::replay(dag, steps);
  ASSERT_TRUE(st.ok()) << st.error();
  auto f = lower::lower(*st, "kernel");
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_GT(countIfs(lower::versionTiles(f->body)), countIfs(f->body));
  testing::Checker checker(dag);
  for (const schedule::Target& t : testing::isaTargets()) {
    std::string skip = testing::skipReason(t);
    if (!skip.empty()) {
      std::cout << "[  SKIPPED ] " << schedule::isaName(t.isa) << ": " << skip << "\n";
      continue;
    }
    auto r = checker.check(*st, 3, 1e-4, 1e-4, {}, t);
    ASSERT_TRUE(r.built) << r.error;
    EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa) << " max abs err " << r.cmp.max_abs_err << "\n" << r.lowered;
  }
}

// The tail tile of a non-dividing split (7 columns in tiles of 4: one tail of 3) gets its own
// version with constant extents, besides the full tiles' one, so it runs straight-line code; the
// results stay exact on both ISAs, with and without a fused parallel loop over the tiles.
TEST(VersionTiles, TheTailTileGetsAConstantExtentVersion) {
  auto dag = pointwiseConv7x7(24, 32);
  using namespace schedule;
  std::string C = dag->outputs()[0].name(), L = C + ".local";
  for (bool fused : {false, true}) {
    std::vector<Step> steps = columnTileSteps(C, L);
    if (fused) {
      steps.push_back(FuseStep{C, {"nn", "yy", "xx.0", "ff.0"}});
      steps.push_back(AnnotationStep{C, "nn@yy@xx.0@ff.0@", IterAnnotation::Parallel});
    }
    auto st = State::replay(dag, steps);
    ASSERT_TRUE(st.ok()) << st.error();
    auto f = lower::lower(*st, "kernel");
    ASSERT_TRUE(f.ok()) << f.error();
    EXPECT_EQ(countLoopsOfExtent(f->body, 3), 0);
    lower::Stmt v = lower::versionTiles(f->body);
    // The tile's init, reduction and write-back loops over its rows, once more with extent 3.
    EXPECT_GE(countLoopsOfExtent(v, 3), 3) << "fused " << fused << "\n" << lower::toString(v);
    testing::Checker checker(dag);
    for (const schedule::Target& t : testing::isaTargets()) {
      if (!testing::skipReason(t).empty()) continue;
      auto r = checker.check(*st, 3, 1e-4, 1e-4, {}, t);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa) << " max abs err " << r.cmp.max_abs_err << "\n" << r.lowered;
    }
  }
}

}  // namespace
}  // namespace ttune
