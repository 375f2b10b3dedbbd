// Feature extraction: layout, exact values on a hand-written matmul schedule (the reference's test
// anchor), expected trip counts on imperfect tiles checked against a brute-force count of store
// executions, degenerate loops, failures, determinism and throughput.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "autotune/feature_walker.h"
#include "autotune/features.h"
#include "common/random_schedule.h"
#include "lower/lower.h"
#include "lower/stmt_functor.h"
#include "ops/registry.h"
#include "schedule/default_schedule.h"
#include "support/timer.h"

namespace ttune::autotune {
namespace {

using namespace schedule;

std::shared_ptr<const te::ComputeDAG> opDag(const std::string& op, const std::vector<std::string>& params) {
  return std::make_shared<const te::ComputeDAG>(ops::buildOp(op, params).dag());
}

State applySteps(const std::shared_ptr<const te::ComputeDAG>& dag, const std::vector<Step>& steps) {
  auto s = State::replay(dag, steps);
  EXPECT_TRUE(s.ok()) << s.error();
  return *s;
}

// The reference's anchor: matmul 512^3, i split by 16, j by 8, j.1 vectorized, i.0 parallel.
State tiledMatmul(int64_t n = 512, int64_t ti = 16, int64_t tj = 8) {
  auto dag = opDag("matmul", {"M=" + std::to_string(n), "N=" + std::to_string(n), "K=" + std::to_string(n)});
  return applySteps(dag, {SplitStep{"matmul", "i", n, {ti}, true}, SplitStep{"matmul", "j", n, {tj}, true},
                          ReorderStep{"matmul", {"i.0", "j.0", "k", "i.1", "j.1"}},
                          AnnotationStep{"matmul", "j.1", IterAnnotation::Vectorize},
                          AnnotationStep{"matmul", "i.0", IterAnnotation::Parallel}});
}

std::vector<StoreFeatures> storeFeatures(const State& s) {
  auto f = lower::lower(s, "kernel");
  EXPECT_TRUE(f.ok()) << f.error();
  return extractStoreFeatures(*f, &s);
}

const BufferFeatures* findBuffer(const StoreFeatures& f, float BufferFeatures::*kind) {
  for (const BufferFeatures& b : f.buffers)
    if (b.*kind == 1) return &b;
  return nullptr;
}

TEST(FeatureLayout, NamesMatchTheVector) {
  const auto& names = featureNames();
  EXPECT_EQ(names.size(), kNumFeatures);
  EXPECT_EQ(kNumFeatures, 177u);
  EXPECT_EQ(StoreFeatures::kVersion, 1u);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  EXPECT_EQ(names.front(), "float_mad");
  EXPECT_EQ(names[ComputeFeatures::kCount], "b0.acc_read");
  EXPECT_EQ(names[ComputeFeatures::kCount + 5 * BufferFeatures::kCount - 1], "b4.local_scope");
  EXPECT_EQ(names[ComputeFeatures::kCount + 5 * BufferFeatures::kCount + 9], "ai_curve_9");
  EXPECT_EQ(names.back(), "auto_unroll_max_step");
  StoreFeatures f;
  std::vector<float> v;
  f.appendScaled(v);
  EXPECT_EQ(v.size(), kNumFeatures);
}

TEST(FeatureValues, MatmulAnchor) {
  State s = tiledMatmul();
  std::vector<StoreFeatures> fs = storeFeatures(s);
  ASSERT_EQ(fs.size(), 2u);  // init, update
  const double n = 512;
  const StoreFeatures& up = fs[1];
  EXPECT_EQ(up.compute.float_mad, n * n * n);  // the update is one FMA per iteration
  EXPECT_EQ(up.compute.float_addsub, 0);
  EXPECT_EQ(up.compute.float_mul, 0);
  EXPECT_EQ(up.compute.vec_num, 1);
  EXPECT_EQ(up.compute.vec_len, 8);
  EXPECT_EQ(up.compute.vec_prod, 8);
  EXPECT_EQ(up.compute.vec_pos_inner_spatial, 1);
  EXPECT_EQ(up.compute.parallel_num, 1);
  EXPECT_EQ(up.compute.parallel_prod, n / 16);
  EXPECT_EQ(up.compute.parallel_pos_outer_spatial, 1);
  EXPECT_EQ(up.compute.unroll_pos_none, 1);
  EXPECT_EQ(up.compute.exec_ratio, 1);
  EXPECT_EQ(up.outer.outer_prod, n * n * n);
  EXPECT_EQ(up.outer.num_loops, 5);
  EXPECT_EQ(up.compute.rolled_len, 16);  // i.1: the vector loop j.1 is not a loop in machine code
  EXPECT_EQ(up.compute.rolled_reduce, 0);
  EXPECT_EQ(up.compute.rolled_max_stride, n);  // A and C move by a row per i.1
  EXPECT_EQ(up.compute.rolled_body, 8);
  EXPECT_EQ(up.compute.vec_max_stride, 1);  // B and C contiguous, A broadcast
  EXPECT_EQ(up.compute.parallel_launches, 1);
  // C (read and written): Ansor's anchor values.
  const BufferFeatures* c = findBuffer(up, &BufferFeatures::acc_readwrite);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->bytes, n * n * n * 4);
  EXPECT_EQ(c->unique_bytes, n * n * 4);
  EXPECT_EQ(c->reuse_loop, 1);
  EXPECT_EQ(c->reuse_dis_iter, 8 * 16);
  EXPECT_EQ(c->reuse_dis_bytes, (8 * 16 + 8 + 16) * 4);
  EXPECT_EQ(c->reuse_ct, n);
  EXPECT_EQ(c->stride, 1);
  EXPECT_EQ(c->rolled_stride, n);
  // A[i, k] is read with stride 512 (i.1) under the vector loop that does not move it.
  const BufferFeatures& a = up.buffers[0];
  EXPECT_EQ(a.acc_read, 1);
  EXPECT_EQ(a.stride, n);
  EXPECT_EQ(a.unique_bytes, n * n * 4);
  EXPECT_EQ(a.reuse_ct, 8);
  EXPECT_EQ(a.lines, n * n * n / 8);
  EXPECT_EQ(a.rolled_stride, n);
  // B[k, j]: unique bytes are the whole matrix, reused across i.1.
  const BufferFeatures& b = up.buffers[2];
  EXPECT_EQ(b.acc_read, 1);
  EXPECT_EQ(b.unique_bytes, n * n * 4);
  EXPECT_EQ(b.reuse_ct, 16);
  // The arithmetic intensity grows outwards.
  EXPECT_GT(up.ai_curve[9], up.ai_curve[0]);
  // The init store: serial reuse of C with the update inside j.0.
  const StoreFeatures& init = fs[0];
  EXPECT_EQ(init.outer.outer_prod, n * n);
  EXPECT_EQ(init.compute.float_mad, 0);
  EXPECT_EQ(init.buffers[0].acc_write, 1);
  EXPECT_EQ(init.buffers[0].reuse_serial, 1);
  // Scaled vector: log2p of the raw values.
  StateFeatures sf = *featuresOf(s);
  ASSERT_EQ(sf.n_stores, 2);
  EXPECT_FLOAT_EQ(sf.row(1)[0], static_cast<float>(std::log2(n * n * n + 1)));
  EXPECT_EQ(sf.flat().size(), 1 + 2 * kNumFeatures);
  EXPECT_EQ(sf.flat()[0], 2.f);
}

TEST(FeatureValues, ConvWindowFootprint) {
  // Unpadded 3x3 convolution: the data tile read per output row is (OW + 2) wide, and the whole
  // input is touched exactly once in unique bytes.
  auto dag = opDag("conv2d", {"C=4", "H=10", "W=12", "K=8", "pad=0"});
  State s(dag);
  std::vector<StoreFeatures> fs = storeFeatures(s);
  ASSERT_EQ(fs.size(), 2u);
  const StoreFeatures& up = fs[1];
  EXPECT_EQ(up.compute.float_mad, 8.0 * 8 * 10 * 4 * 9);
  const BufferFeatures* data = nullptr;
  for (const BufferFeatures& b : up.buffers)
    if (b.acc_read == 1 && b.unique_bytes == 4 * 10 * 12 * 4) data = &b;
  ASSERT_NE(data, nullptr) << "no read of the whole input";
}

// Counts store executions by running the loop structure (small kernels only). Statements that do
// not run are walked all the same (live false), so that every store has its place in the order.
struct BruteForce : lower::StmtVisitor {
  std::vector<double> counts;
  std::vector<const lower::Store*> order;
  detail::Env env;
  bool live = true;

  void visitFor(const lower::For& f) override {
    int64_t ext = live ? detail::evalInt(f.extent, env).value() : 0;
    if (!live || ext <= 0) return walk(f.body, false);
    for (int64_t i = 0; i < ext; ++i) {
      env.emplace_back(f.var.get(), i);
      visit(f.body);
      env.pop_back();
    }
  }
  void visitStore(const lower::Store& st) override {
    auto it = std::find(order.begin(), order.end(), &st);
    if (it == order.end()) {
      order.push_back(&st);
      counts.push_back(0);
      it = order.end() - 1;
    }
    if (live) counts[it - order.begin()] += 1;
  }
  void visitIf(const lower::IfThenElse& i) override {
    bool c = live && detail::evalInt(i.cond, env).value() != 0;
    bool was = live;
    walk(i.then_case, was && c);
    walk(i.else_case, was && !c);
  }
  void visitLet(const lower::LetStmt& l) override {
    env.emplace_back(l.var.get(), live ? detail::evalInt(l.value, env).value() : 0);
    visit(l.body);
    env.pop_back();
  }
  void visitPrefetch(const lower::Prefetch&) override {}
  void walk(const lower::Stmt& s, bool now_live) {
    bool was = live;
    live = now_live;
    visit(s);
    live = was;
  }
};

std::vector<double> bruteForceCounts(const lower::Stmt& body) {
  BruteForce run;
  run.visit(body);
  return run.counts;
}

TEST(FeatureValues, ImperfectTilesCountRealWork) {
  // 50 = 3 x 4 x 5 - 10: the last outer tile has two zero-trip inner tiles.
  auto dag = opDag("matmul", {"M=50", "N=50", "K=50"});
  State s = applySteps(dag, {SplitStep{"matmul", "i", 50, {4, 5}, true}, SplitStep{"matmul", "j", 50, {16}, true},
                             ReorderStep{"matmul", {"i.0", "j.0", "k", "i.1", "i.2", "j.1"}},
                             AnnotationStep{"matmul", "j.1", IterAnnotation::Vectorize}});
  std::vector<StoreFeatures> fs = storeFeatures(s);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_DOUBLE_EQ(fs[1].outer.outer_prod, 50.0 * 50 * 50);
  EXPECT_DOUBLE_EQ(fs[1].compute.float_mad, 50.0 * 50 * 50);
  EXPECT_DOUBLE_EQ(fs[0].outer.outer_prod, 50.0 * 50);
  EXPECT_NEAR(fs[1].compute.exec_ratio, (50.0 * 50) / (60.0 * 64), 1e-6);
  EXPECT_NEAR(fs[1].compute.vec_tail_frac, 0.25, 1e-6);  // j.1 is short in 1 of 4 j tiles
  EXPECT_EQ(fs[1].compute.unknown_extents, 0);
  StateFeatures sf = *featuresOf(s);
  for (float v : sf.data) ASSERT_TRUE(std::isfinite(v));
}

TEST(FeatureValues, ExpectedTripsMatchBruteForceOnRandomSchedules) {
  // Random schedules (non-dividing splits, fuses, compute_at) of small kernels: the expected
  // execution count of every store equals a brute-force count, up to the stratified sampling.
  struct Case {
    const char* op;
    std::vector<std::string> params;
  };
  std::vector<Case> cases = {{"matmul", {"M=19", "N=24", "K=13"}},
                             {"conv2d", {"C=5", "H=11", "W=9", "K=6", "stride=2", "pad=1"}},
                             {"softmax", {"shape=3x37"}}};
  int stores = 0, exact = 0;
  for (const Case& c : cases) {
    auto dag = opDag(c.op, c.params);
    for (int seed = 0; seed < 40; ++seed) {
      State s = testing::randomSchedule(dag, 500 + seed);
      auto f = lower::lower(s, "kernel");
      if (!f.ok()) continue;
      std::vector<double> truth = bruteForceCounts(f->body);
      std::vector<StoreFeatures> fs = extractStoreFeatures(*f, &s);
      ASSERT_EQ(truth.size(), fs.size());
      for (size_t i = 0; i < fs.size(); ++i) {
        ++stores;
        double est = fs[i].outer.outer_prod;
        exact += std::fabs(est - truth[i]) <= 1e-6 * std::max(1.0, truth[i]);
        EXPECT_NEAR(est, truth[i], 0.1 * truth[i] + 1e-9) << c.op << " seed " << seed << " store " << i << "\n"
                                                          << lower::toString(*f);
      }
    }
  }
  EXPECT_GE(exact, stores * 9 / 10) << exact << " of " << stores << " exact";
}

TEST(FeatureValues, DegenerateLoops) {
  // Hand-written IR: a zero-trip loop, a one-trip loop, and a loop whose extent reads memory.
  auto buf = std::make_shared<te::Buffer>(te::Buffer{"X", te::DType::Float32, 64, te::MemScope::Arg});
  auto ext = std::make_shared<te::Buffer>(te::Buffer{"n", te::DType::Int64, 1, te::MemScope::Arg});
  te::Var i("i"), j("j"), k("k");
  lower::Stmt zero =
      lower::makeFor(i, te::intImm(0), 0, lower::ForKind::Serial, lower::makeStore(buf, i, te::floatImm(1.0)));
  lower::Stmt one =
      lower::makeFor(j, te::intImm(1), 1, lower::ForKind::Vectorized, lower::makeStore(buf, j, te::floatImm(2.0)));
  lower::Stmt unknown = lower::makeFor(k, te::bufferLoad(ext, te::intImm(0)), 8, lower::ForKind::Serial,
                                       lower::makeStore(buf, k, te::bufferLoad(buf, k) * te::floatImm(3.0)));
  lower::LoweredFunc func{"f", {buf, ext}, lower::makeSeq({zero, one, unknown}), {}};
  std::vector<StoreFeatures> fs = extractStoreFeatures(func);
  ASSERT_EQ(fs.size(), 3u);
  EXPECT_EQ(fs[0].outer.outer_prod, 0);
  EXPECT_EQ(fs[0].buffers[0].bytes, 0);
  EXPECT_EQ(fs[0].buffers[0].unique_bytes, 0);
  EXPECT_EQ(fs[1].outer.outer_prod, 1);
  EXPECT_EQ(fs[1].compute.vec_len, 1);
  EXPECT_EQ(fs[2].compute.unknown_extents, 1);
  EXPECT_EQ(fs[2].outer.outer_prod, 8);  // the known upper bound, not 1
  EXPECT_EQ(fs[2].compute.float_mul, 8);
  StateFeatures sf = extractFeatures(func);
  for (float v : sf.data) ASSERT_TRUE(std::isfinite(v));
}

TEST(FeatureValues, GuardsBecomeFractions) {
  // A fused loop over a non-dividing split keeps an `if`: the store runs 19*24 times, not 20*24.
  auto dag = opDag("matmul", {"M=19", "N=24", "K=3"});
  State s = applySteps(dag, {SplitStep{"matmul", "i", 19, {5}, true}, FuseStep{"matmul", {"i.1", "j"}}});
  auto f = lower::lower(s, "kernel");
  ASSERT_TRUE(f.ok());
  std::vector<StoreFeatures> fs = extractStoreFeatures(*f, &s);
  std::vector<double> truth = bruteForceCounts(f->body);
  ASSERT_EQ(fs.size(), truth.size());
  for (size_t i = 0; i < fs.size(); ++i) EXPECT_DOUBLE_EQ(fs[i].outer.outer_prod, truth[i]) << lower::toString(*f);
  EXPECT_DOUBLE_EQ(truth.back(), 19.0 * 24 * 3);
}

TEST(FeatureApi, FailureIsAReason) {
  auto dag = opDag("matmul", {"M=16", "N=16", "K=16"});
  State s(dag);
  ASSERT_TRUE(s.apply(SplitStep{"matmul", "i", 16, {std::nullopt}, true}).ok());  // a sketch: length unset
  auto f = featuresOf(s);
  ASSERT_FALSE(f.ok());
  EXPECT_FALSE(f.error().empty());
  std::vector<StateFeatures> all = featuresOfAll({s, tiledMatmul(64)}, 2);
  EXPECT_FALSE(all[0].valid());
  EXPECT_TRUE(all[1].valid());
}

TEST(FeatureApi, Deterministic) {
  auto dag = opDag("conv2d", {"C=5", "H=11", "W=9", "K=6", "stride=2", "pad=1"});
  std::vector<State> states;
  for (int i = 0; i < 30; ++i) states.push_back(testing::randomSchedule(dag, 77 + i));
  std::vector<StateFeatures> a = featuresOfAll(states, 1), b = featuresOfAll(states, 2);
  for (size_t i = 0; i < states.size(); ++i) {
    ASSERT_EQ(a[i].n_stores, b[i].n_stores);
    ASSERT_EQ(a[i].data, b[i].data);  // bit-identical
    auto c = featuresOf(states[i]);
    if (c.ok()) {
      ASSERT_EQ(c->data, a[i].data);
    }
  }
}

}  // namespace
}  // namespace ttune::autotune
