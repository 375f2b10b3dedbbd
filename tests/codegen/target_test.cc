// Targets by name, what this machine can run, register-tile shapes per register file, and code
// for both x86 ISA levels checked against the reference. (Full-tile versions: tests/lower; the
// default schedule's own choices: tests/schedule/default_schedule_test.cc.)
#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "codegen/target.h"
#include "common/check.h"
#include "measure/builder.h"
#include "ops/nn.h"
#include "schedule/record.h"
#include "support/json.h"

namespace ttune {
namespace {

using schedule::Isa;

TEST(Target, NamedLevelsHaveTheirLanesAndRegisters) {
  auto v3 = codegen::resolveTarget("x86-64-v3");
  ASSERT_TRUE(v3.ok()) << v3.error();
  EXPECT_EQ(v3->isa, Isa::Avx2);
  EXPECT_EQ(v3->lanes(), 8);
  EXPECT_EQ(v3->vector_registers, 16);
  EXPECT_TRUE(v3->fma);
  auto v4 = codegen::resolveTarget("x86-64-v4");
  ASSERT_TRUE(v4.ok()) << v4.error();
  EXPECT_EQ(v4->isa, Isa::Avx512);
  EXPECT_EQ(v4->lanes(), 16);
  EXPECT_EQ(v4->vector_registers, 32);
  auto zen3 = codegen::resolveTarget("znver3");
  ASSERT_TRUE(zen3.ok()) << zen3.error();
  EXPECT_EQ(zen3->isa, Isa::Avx2);
  EXPECT_EQ(zen3->cpu, "znver3");
  auto skx = codegen::resolveTarget("skylake-avx512");
  ASSERT_TRUE(skx.ok()) << skx.error();
  EXPECT_EQ(skx->isa, Isa::Avx512);
  // A named target compiled here inherits this machine's caches and cores.
  EXPECT_EQ(v3->l2_bytes, codegen::hostTarget().l2_bytes);
  EXPECT_EQ(v3->cores, codegen::hostTarget().cores);
}

TEST(Target, HostIsRunnableAndDescribed) {
  const schedule::Target& h = codegen::hostTarget();
  EXPECT_TRUE(codegen::runnable(h).ok());
  EXPECT_GT(h.l1d_bytes, 0);
  EXPECT_GT(h.cores, 0);
  std::string d = codegen::describe(h);
  EXPECT_NE(d.find(h.cpu), std::string::npos) << d;
  EXPECT_NE(d.find(schedule::isaName(h.isa)), std::string::npos) << d;
}

TEST(Target, UnknownNameIsOneClearSentence) {
  auto t = codegen::resolveTarget("pentium-9000");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().find("unknown target 'pentium-9000'"), std::string::npos) << t.error();
  EXPECT_NE(t.error().find("x86-64-v3"), std::string::npos) << t.error();
}

TEST(Target, CodeTheHostCannotRunIsRefusedByName) {
  // A target needing an instruction-set feature this machine lacks (AMX tiles on most hosts).
  schedule::Target t = codegen::hostTarget();
  if (t.features.find("+amx-tile") != std::string::npos) GTEST_SKIP() << "this machine has AMX";
  t.name = "amx-machine";
  t.features += ",+amx-tile";
  Status s = codegen::runnable(t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("amx-tile"), std::string::npos) << s.error();
  EXPECT_NE(s.error().find("amx-machine"), std::string::npos) << s.error();
  // System features a hypervisor hides do not matter to kernels.
  schedule::Target u = codegen::hostTarget();
  u.features += ",+rdpru,+mwaitx";
  EXPECT_TRUE(codegen::runnable(u).ok());
}

TEST(Target, AvxLevelsCompileWhateverTheHost) {
  // Code for either ISA can be generated and inspected on any x86-64 machine.
  te::Tensor a = te::placeholder("A", {64, 64});
  te::Tensor b = te::placeholder("B", {64, 64}, te::DType::Float32, true);
  auto mm =
      std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, b}, std::vector<te::Tensor>{ops::matmul(a, b)});
  for (const schedule::Target& t : testing::isaTargets()) {
    auto st = schedule::State::replay(mm, measure::defaultScheduleFor(*mm, t));
    ASSERT_TRUE(st.ok()) << st.error();
    auto f = lower::lower(*st, "kernel");
    ASSERT_TRUE(f.ok()) << f.error();
    auto text = codegen::emitAssembly(*f, t);
    ASSERT_TRUE(text.ok()) << text.error();
    const char* reg = t.isa == Isa::Avx512 ? "zmm" : "ymm";
    EXPECT_NE(text->find(reg), std::string::npos) << schedule::isaName(t.isa);
    if (t.isa == Isa::Avx2) {
      EXPECT_EQ(text->find("zmm"), std::string::npos) << "AVX2 code uses AVX-512 registers";
    }
  }
}

TEST(RegisterTile, FitsTheRegisterFileAndCoversTheLatency) {
  for (const schedule::Target& t : testing::isaTargets()) {
    for (int64_t rows : {0, 1, 2, 3, 7, 14, 28, 56, 1024})
      for (int64_t vecs : {0, 1, 2, 3, 4, 8, 16, 64, 256}) {
        schedule::RegisterTile rt = schedule::registerTileFor(t, rows, vecs);
        EXPECT_LE(schedule::registersNeeded(rt.rows * rt.vectors, rt.vectors), t.vector_registers)
            << schedule::isaName(t.isa) << " rows " << rows << " vectors " << vecs;
        if (rows > 0) {
          EXPECT_LE(rt.rows, rows);
        }
        if (vecs > 0) {
          EXPECT_LE(rt.vectors, vecs);
        }
        // Enough independent accumulators to keep two FMA pipes busy whenever the extents allow.
        if ((rows == 0 || rows >= 8) && (vecs == 0 || vecs >= 4)) {
          EXPECT_GE(rt.rows * rt.vectors, 8);
        }
      }
  }
  // More registers, a bigger tile.
  auto v3 = *codegen::resolveTarget("x86-64-v3");
  auto v4 = *codegen::resolveTarget("x86-64-v4");
  auto a = schedule::registerTileFor(v3, 1024, 128), b = schedule::registerTileFor(v4, 1024, 64);
  EXPECT_GT(b.rows * b.vectors, a.rows * a.vectors);
  // A tile that divides the extents wins over a slightly larger one that leaves a tail.
  auto c = schedule::registerTileFor(v4, 56, 4);
  EXPECT_EQ(56 % c.rows, 0) << c.rows;
  EXPECT_EQ(4 % c.vectors, 0) << c.vectors;
}

// With 16 registers the 4-cycle model's 8 accumulators leave the FMA chains no slack; 12 (6 x 2)
// or 10 (5 x 2) ran 1.07-1.2x faster on 14- to 56-wide images (tails have their own versions),
// never with more loads per FMA; on 7-wide images no bigger tile was clearly faster, and 8 stay.
TEST(RegisterTile, SixteenRegistersTakeSlackWhereItClearlyPays) {
  auto v3 = *codegen::resolveTarget("x86-64-v3");
  for (int64_t rows : {14, 28, 56, 112}) {
    schedule::RegisterTile rt = schedule::registerTileFor(v3, rows, 4);
    EXPECT_GE(rt.rows * rt.vectors, 10) << rows;
    // No more loads per FMA than the 8-accumulator tile (4 x 2: 6 loads for 8 FMAs).
    EXPECT_LE((rt.rows + rt.vectors) * 8, 6 * rt.rows * rt.vectors) << rows;
  }
  schedule::RegisterTile seven = schedule::registerTileFor(v3, 7, 4);
  EXPECT_EQ(seven.rows * seven.vectors, 8);
  // Rows that divide: the slack tile was already the 4-cycle model's choice (fewer loads per FMA).
  schedule::RegisterTile twelve = schedule::registerTileFor(v3, 12, 4);
  EXPECT_EQ(twelve.rows * twelve.vectors, 12);
  // 32 registers already hold more than enough accumulators: the tiles stay as they were.
  auto v4 = *codegen::resolveTarget("x86-64-v4");
  for (int64_t rows : {7, 14, 28, 56}) {
    schedule::RegisterTile rt = schedule::registerTileFor(v4, rows, 4);
    EXPECT_GE(rt.rows * rt.vectors, 14) << rows;
  }
}

// Regression: a private tile clamped to the output's 24 channels, written by vectors of 16 lanes
// (two vectors per row, the second a tail of 8) with rows of 24 floats: the tail vector's
// inactive lanes alias the next row of the tile. They used to be stored unmasked, corrupting
// it (found by transferring AVX-512 schedules to a smaller kernel).
TEST(RegisterTile, TailVectorOfAClampedTileLeavesTheNextRowAlone) {
  const char* json = R"([
    {"kind":"cache_write","stage":"conv2d_nchw","scope":"local"},
    {"kind":"split","stage":"conv2d_nchw.local","iter":"ff","extent":null,"lengths":[1,2,16],"inner_to_outer":true},
    {"kind":"split","stage":"conv2d_nchw.local","iter":"yy","extent":null,"lengths":[2,5,1],"inner_to_outer":true},
    {"kind":"split","stage":"conv2d_nchw.local","iter":"xx","extent":null,"lengths":[2,1,1],"inner_to_outer":true},
    {"kind":"reorder","stage":"conv2d_nchw.local","order":["nn","ff.0","yy.0","xx.0","ff.1","yy.1","xx.1","rc","ry","rx",
                                                          "ff.2","yy.2","xx.2","yy.3","xx.3","ff.3"]},
    {"kind":"follow_split","stage":"conv2d_nchw","iter":"ff","src_step":1,"n_split":1},
    {"kind":"follow_split","stage":"conv2d_nchw","iter":"yy","src_step":2,"n_split":1},
    {"kind":"follow_split","stage":"conv2d_nchw","iter":"xx","src_step":3,"n_split":1},
    {"kind":"reorder","stage":"conv2d_nchw","order":["nn","ff.0","yy.0","xx.0","ff.1","yy.1","xx.1"]},
    {"kind":"compute_at","stage":"conv2d_nchw.local","target_stage":"conv2d_nchw","target_iter":"xx.0"},
    {"kind":"annotate","stage":"conv2d_nchw.local","iter":"ff.3","annotation":"vectorize"}])";
  te::Tensor x = te::placeholder("data", {1, 2, 10, 10});
  te::Tensor w = te::placeholder("weight", {24, 2, 3, 3}, te::DType::Float32, true);
  auto dag = std::make_shared<const te::ComputeDAG>(
      std::vector<te::Tensor>{x, w}, std::vector<te::Tensor>{ops::conv2d_nchw(x, w, {1, 1}, {1, 1, 1, 1})});
  std::vector<schedule::Step> steps;
  for (const Json& j : Json::parse(json)) steps.push_back(*schedule::stepFromJson(j));
  auto st = schedule::State::replay(dag, steps);
  ASSERT_TRUE(st.ok()) << st.error();
  testing::Checker checker(dag);
  for (const schedule::Target& t : testing::isaTargets()) {
    if (!testing::skipReason(t).empty()) continue;
    for (int opt : {0, 3}) {
      auto r = checker.check(*st, opt, 1e-4, 1e-4, {}, t);
      ASSERT_TRUE(r.built) << r.error;
      EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa) << " -O" << opt << " max abs err " << r.cmp.max_abs_err;
    }
  }
}

// Rows 4 KiB apart (an NHWC 1x1 conv with 1024 input channels) all fall into one set of an
// 8-way 32 KiB L1: at most seven of them; 2 KiB apart they alternate between two sets.
TEST(RegisterTile, RowsSharingAnL1SetStayFewerThanItsWays) {
  for (const schedule::Target& base : testing::isaTargets()) {
    schedule::Target t = base;
    t.l1d_bytes = 32 << 10;
    t.l1d_ways = 8;
    for (int64_t stride : {4096, 8192, 16384 + 4096})
      EXPECT_LE(schedule::registerTileFor(t, 14, 16, stride).rows, 7) << stride;
    EXPECT_LE(schedule::registerTileFor(t, 28, 16, 2048).rows, 14);
    // Strides that spread rows over many sets leave the tile as without the constraint.
    for (int64_t stride : {0, 256, 1024 + 64}) {
      schedule::RegisterTile a = schedule::registerTileFor(t, 56, 4, stride), b = schedule::registerTileFor(t, 56, 4);
      EXPECT_EQ(a.rows, b.rows) << stride;
      EXPECT_EQ(a.vectors, b.vectors) << stride;
    }
  }
}

TEST(RegisterTile, ElementwiseTileIsSmallAndFits) {
  for (const schedule::Target& t : testing::isaTargets()) {
    for (int64_t rows : {0, 1, 2, 3, 7, 14, 56})
      for (int64_t vecs : {0, 1, 2, 3, 4, 60}) {
        for (bool dividing : {false, true}) {
          schedule::RegisterTile rt = schedule::elementwiseTileFor(t, rows, vecs, dividing);
          EXPECT_LE(schedule::registersNeeded(rt.rows * rt.vectors, rt.vectors), t.vector_registers);
          // Rows that divide the extent where a tile of 6 to 8 accumulators allows it.
          if (dividing && (rows == 7 || rows == 14 || rows == 56) && (vecs == 0 || vecs >= 2)) {
            EXPECT_EQ(rows % rt.rows, 0) << rows;
          }
          EXPECT_LE(rt.vectors, 2);
          EXPECT_LE(rt.rows * rt.vectors, 8) << "no reuse to gain from a larger tile";
          if (rows > 0) {
            EXPECT_LE(rt.rows, rows);
          }
          if (vecs > 0) {
            EXPECT_LE(rt.vectors, vecs);
          }
          if ((rows == 0 || rows >= 6) && (vecs == 0 || vecs >= 2)) {
            EXPECT_GE(rt.rows * rt.vectors, 6) << "accumulators in flight";
          }
        }
      }
  }
}

}  // namespace
}  // namespace ttune
