#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "codegen/target.h"
#include "executor/executor.h"
#include "executor/latency.h"
#include "graph/flatten.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "measure/speedup.h"

namespace ttune::executor {
namespace {

using namespace graph;

runtime::NDArray randomArray(te::Shape shape, uint64_t seed, double lo = -0.5, double hi = 0.5) {
  runtime::NDArray a(shape, te::DType::Float32);
  a.fillRandom(seed, lo, hi);
  return a;
}

void expectOutputsMatch(const std::vector<runtime::NDArray>& out, const std::vector<runtime::NDArray>& expected) {
  ASSERT_EQ(out.size(), expected.size());
  for (size_t i = 0; i < out.size(); ++i) {
    auto c = runtime::compare(out[i], expected[i], 1e-4, 1e-4);
    EXPECT_TRUE(c.ok()) << "output " << i << " max abs err " << c.max_abs_err;
  }
}

// A small CNN: conv-bn-relu x2 with a residual, max pool, global pool, flatten, dense, softmax;
// plus a second output read from the middle.
Graph smallCnn() {
  Graph g;
  int x = g.addInput("x", {1, 3, 17, 15});
  Conv2dAttrs c1;
  c1.pads = {1, 1, 1, 1};
  int a = g.addNode("c1", c1, {x, g.addConstant("w1", randomArray({8, 3, 3, 3}, 1))});
  a = g.addNode("bn1", BatchNormAttrs{1e-5},
                {a, g.addConstant("g1", randomArray({8}, 2, 0.5, 1.5)), g.addConstant("b1", randomArray({8}, 3)),
                 g.addConstant("m1", randomArray({8}, 4)), g.addConstant("v1", randomArray({8}, 5, 0.5, 1.5))});
  a = g.addNode("r1", UnaryAttrs{UnaryKind::Relu}, {a});
  Conv2dAttrs c2;
  c2.pads = {1, 1, 1, 1};
  int b = g.addNode("c2", c2, {a, g.addConstant("w2", randomArray({8, 8, 3, 3}, 6))});
  b = g.addNode("bias2", BinaryAttrs{BinaryKind::Add}, {b, g.addConstant("bb2", randomArray({1, 8, 1, 1}, 7))});
  b = g.addNode("res", BinaryAttrs{BinaryKind::Add}, {b, a});
  b = g.addNode("r2", UnaryAttrs{UnaryKind::Relu}, {b});
  Pool2dAttrs mp;
  mp.kernel = {3, 3};
  mp.strides = {2, 2};
  mp.pads = {1, 1, 1, 1};
  mp.ceil_mode = true;
  int p = g.addNode("mp", mp, {b});
  int gp = g.addNode("gap", GlobalPool2dAttrs{PoolKind::Avg}, {p});
  int f = g.addNode("flat", ReshapeAttrs{{1, 8}}, {gp});
  int d = g.addNode("fc", DenseAttrs{}, {f, g.addConstant("wf", randomArray({10, 8}, 8))});
  d = g.addNode("fcb", BinaryAttrs{BinaryKind::Add}, {d, g.addConstant("bf", randomArray({10}, 9))});
  int s = g.addNode("sm", SoftmaxAttrs{-1}, {d});
  g.markOutput(s);
  g.markOutput(p);
  return g;
}

TEST(Executor, RunsSmallCnnLikeTheReference) {
  Graph g = smallCnn();
  auto inputs = randomInputs(g, 3);
  auto expected = evaluateGraph(g, inputs);
  optimizeGraph(g);
  CompiledModel m = CompiledModel::compile(g);
  EXPECT_GE(m.kernels().size(), 5u);
  expectOutputsMatch(m.run(inputs), expected);
  CheckReport rep;
  CheckOptions sampled;
  sampled.samples_per_output = 32;
  sampled.whole_up_to_elements = 0;
  auto out2 = m.runChecked(inputs, &rep, sampled);
  EXPECT_TRUE(rep.ok()) << rep.worst_kernel << " " << rep.max_abs_err;
  EXPECT_EQ(rep.kernels_checked, static_cast<int>(m.kernels().size()));
  EXPECT_EQ(rep.kernels_checked_whole, 0);
  // Checked whole: every output element of every distinct kernel.
  CheckReport all;
  CheckOptions whole;
  whole.whole_up_to_elements = int64_t(1) << 20;
  m.runChecked(inputs, &all, whole);
  EXPECT_TRUE(all.ok()) << all.worst_kernel << " " << all.max_abs_err;
  EXPECT_EQ(all.kernels_checked_whole, all.kernels_checked);
  EXPECT_GT(all.points, rep.points);
  EXPECT_TRUE(runtime::compare(out2[0], expected[0]).ok());
  // Profiling runs the same kernels: same outputs, a time for every distinct kernel.
  std::vector<double> secs;
  auto out3 = m.runProfiled(inputs, secs);
  ASSERT_EQ(secs.size(), m.kernels().size());
  for (double s : secs) EXPECT_GT(s, 0.0);
  for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(runtime::compare(out3[i], expected[i], 1e-4, 1e-4).ok());
}

// A causal mask writes -inf into attention scores: the check must count equal infinities as
// matches (inf - inf is NaN, which once made every masked model fail `ttune run --check`).
// Interleaved timing runs each configuration per_round times a round, once when a run takes
// single_run_from_s or more (decisions on models that run for seconds).
TEST(Executor, TimedRoundsRunSlowConfigurationsOnce) {
  Graph g = smallCnn();
  optimizeGraph(g);
  measure::RoundsProtocol p;
  p.min_rounds = p.max_rounds = 5;
  ModelTimings three = timeModels(g, {ModelOptions{}, ModelOptions{}}, p, {.per_round = 3});
  ModelTimings once = timeModels(g, {ModelOptions{}, ModelOptions{}}, p, {.per_round = 3, .single_run_from_s = 1e-12});
  ASSERT_EQ(three.timed_runs.size(), 2u);
  ASSERT_EQ(once.timed_runs.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(three.timed_runs[i], 15);
    EXPECT_EQ(once.timed_runs[i], 5);
    EXPECT_EQ(once.speedup[i].rounds(), 5);
  }
}

// Code built elsewhere under the executor's key and entry (a transfer's measured builds) is
// loaded from the cache instead of compiled; code under another entry is refused.
TEST(Executor, ModelsLoadKernelsBuiltElsewhereFromTheCache) {
  Graph g = smallCnn();
  auto inputs = randomInputs(g, 3);
  auto expected = evaluateGraph(g, inputs);
  optimizeGraph(g);
  const schedule::Target target = codegen::hostTarget();
  std::vector<Kernel> ks = graph::partition(g);
  std::shared_ptr<KernelCache> cache = makeKernelCache();
  std::set<std::string> added;
  for (const TunableKernel& t : graph::tunableKernels(ks)) {
    const Kernel& k = *t.kernel;
    std::vector<schedule::Step> steps = measure::defaultScheduleFor(*k.dag, target);
    const std::string key = kernelCacheKey(k.workload_key, steps, target);
    measure::BuildResult wrong = measure::buildOne({k.dag, steps}, "kernel", target);
    ASSERT_TRUE(wrong.ok()) << wrong.message;
    EXPECT_FALSE(addBuilt(*cache, key, wrong));
    measure::BuildResult right = measure::buildOne({k.dag, steps}, kernelEntry(key), target);
    ASSERT_TRUE(right.ok()) << right.message;
    EXPECT_TRUE(addBuilt(*cache, key, right));
    added.insert(k.workload_key);
  }
  ASSERT_FALSE(added.empty());
  ModelOptions opt;
  opt.cache = cache;
  CompiledModel m = CompiledModel::compile(g, opt);
  size_t from_cache = 0;
  for (const KernelStats& st : m.kernels()) {
    EXPECT_EQ(st.cached, added.count(st.workload_key) > 0) << st.class_name;
    from_cache += st.cached;
  }
  EXPECT_EQ(from_cache, added.size());
  expectOutputsMatch(m.run(inputs), expected);
}

TEST(Executor, CheckAcceptsMatchingInfinities) {
  Graph g;
  int x = g.addInput("x", {4, 4});
  runtime::NDArray mask({4, 4}, te::DType::Bool), minus_inf({1}, te::DType::Float32);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j <= i; ++j) mask.as<uint8_t>()[i * 4 + j] = 1;
  minus_inf.as<float>()[0] = -INFINITY;
  int scores = g.addNode("mask", WhereAttrs{}, {g.addConstant("causal", mask), x, g.addConstant("ninf", minus_inf)});
  g.markOutput(scores);
  g.markOutput(g.addNode("sm", SoftmaxAttrs{-1}, {scores}));
  optimizeGraph(g);
  CompiledModel m = CompiledModel::compile(g);
  CheckReport rep;
  auto out = m.runChecked(randomInputs(g, 1), &rep);
  EXPECT_EQ(rep.kernels_checked, static_cast<int>(m.kernels().size()));  // an unchecked kernel has no mismatch
  EXPECT_TRUE(rep.ok()) << rep.mismatches << " mismatches in " << rep.worst_kernel;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].as<float>()[1], -INFINITY);  // above the diagonal: the infinities were compared
}

TEST(Executor, ReusesIntermediateBuffers) {
  // A chain of kernels that cannot fuse (each value read twice): buffers must be recycled.
  Graph g;
  int x = g.addInput("x", {64, 64});
  int v = x;
  for (int i = 0; i < 8; ++i) {
    int e = g.addNode("e" + std::to_string(i), UnaryAttrs{UnaryKind::Tanh}, {v});
    v = g.addNode("m" + std::to_string(i), BinaryAttrs{BinaryKind::Mul}, {e, e});
  }
  g.markOutput(v);
  optimizeGraph(g);
  CompiledModel m = CompiledModel::compile(g);
  EXPECT_LE(m.workspaceBytes(), 3 * 64 * 64 * 4);
  auto inputs = randomInputs(g, 5);
  auto expected = evaluateGraph(g, inputs);
  auto out = m.run(inputs);
  EXPECT_TRUE(runtime::compare(out[0], expected[0]).ok());
}

TEST(Executor, ProvidedScheduleIsUsedAndBadOneFallsBack) {
  Graph g = smallCnn();
  optimizeGraph(g);
  int calls = 0;
  ModelOptions opt;
  opt.schedules = [&](const Kernel& k) -> std::optional<std::vector<schedule::Step>> {
    ++calls;
    if (k.class_name == "dense+add")
      return std::vector<schedule::Step>{schedule::SplitStep{"dense", "nope", 1, {2}, true}};
    return std::nullopt;
  };
  CompiledModel m = CompiledModel::compile(g, opt);
  EXPECT_EQ(calls, static_cast<int>(m.kernels().size()));
  bool saw = false;
  for (const auto& k : m.kernels())
    if (k.class_name == "dense+add") {
      saw = true;
      EXPECT_NE(k.schedule_source.find("the provided schedule failed"), std::string::npos) << k.schedule_source;
    }
  EXPECT_TRUE(saw);
  auto inputs = randomInputs(g, 3);
  CheckReport rep;
  m.runChecked(inputs, &rep);
  EXPECT_EQ(rep.kernels_checked, static_cast<int>(m.kernels().size()));
  EXPECT_TRUE(rep.ok());
}

// A ResNet-style bottleneck on a 7x7 image whose 1x1 convolutions run on [1, 1, 49, C]
// (graph/flatten.h): a downsample convolution sharing the block's input, a residual add that
// only one chain can take, a head convolution read only by the graph output's transpose (left
// alone). Compiled for this host, it computes what the original graph computes.
Graph bottleneck() {
  Graph g;
  int x = g.addInput("x", {1, 32, 7, 7});
  auto conv = [&](const std::string& name, int in, int64_t c, int64_t k, int64_t kernel, uint64_t seed) {
    Conv2dAttrs a;
    int64_t p = kernel / 2;
    a.pads = {p, p, p, p};
    return g.addNode(name, a,
                     {in, g.addConstant(name + ".w", randomArray({k, c, kernel, kernel}, seed)),
                      g.addConstant(name + ".b", randomArray({k}, seed + 100))});
  };
  int a = g.addNode("r1", UnaryAttrs{UnaryKind::Relu}, {conv("c1", x, 32, 16, 1, 1)});
  int b = g.addNode("r2", UnaryAttrs{UnaryKind::Relu}, {conv("c2", a, 16, 16, 3, 2)});
  int c = g.addNode("scale3", BinaryAttrs{BinaryKind::Mul},
                    {conv("c3", b, 16, 32, 1, 3), g.addConstant("s3", randomArray({1, 32, 1, 1}, 4))});
  int d = conv("down", x, 32, 32, 1, 5);
  int e = g.addNode("r3", UnaryAttrs{UnaryKind::Relu}, {g.addNode("res", BinaryAttrs{BinaryKind::Add}, {c, d})});
  g.markOutput(g.addNode("gap", GlobalPool2dAttrs{PoolKind::Avg}, {e}));
  g.markOutput(conv("head", e, 32, 16, 1, 6));
  return g;
}

TEST(Executor, FlattenedPointwiseConvolutionsRunLikeTheReference) {
  Graph g = bottleneck();
  auto inputs = randomInputs(g, 5);
  auto expected = evaluateGraph(g, inputs);
  GraphOptions opt;
  opt.flatten_pointwise = [](const PointwiseConv& c) { return c.row_pixels == 7 && c.image_pixels == 49; };
  optimizeGraph(g, opt);
  CompiledModel m = CompiledModel::compile(g);
  int flat = 0, views = 0;
  for (const graph::Kernel& k : m.instances()) {
    views += k.alias_only;
    const te::Shape& out = k.dag->outputs()[0].shape();
    if (k.class_name.rfind("conv2d_nhwc", 0) == 0 && out.size() == 4 && out[1] == 1 && out[2] == 49) ++flat;
  }
  // c1, c3 and the downsample run flat; the head does not (its one reader, the transpose back
  // to NCHW for the graph output, would be cut off from it).
  EXPECT_EQ(flat, 3);
  EXPECT_GE(views, 3);  // x (one view for both readers), c1's and c3's chain ends
  expectOutputsMatch(m.run(inputs), expected);
  CheckReport rep;
  m.runChecked(inputs, &rep);
  EXPECT_EQ(rep.kernels_checked, static_cast<int>(m.kernels().size()));
  EXPECT_TRUE(rep.ok()) << rep.worst_kernel << " " << rep.max_abs_err;
}

// The tile model flattens where rows within an image row waste the AVX2 tile (ResNet's 7- and
// 14-wide 1x1 convolutions), and not where the image row already fits it.
TEST(Executor, PointwiseFlatteningFollowsTheTileModel) {
  auto avx2 = codegen::resolveTarget("x86-64-v3");
  auto avx512 = codegen::resolveTarget("x86-64-v4");
  ASSERT_TRUE(avx2.ok() && avx512.ok());
  FlattenDecision v3 = flattenByTileModel(*avx2), v4 = flattenByTileModel(*avx512);
  EXPECT_TRUE(v3({7, 49, 1024, 2048}));
  EXPECT_TRUE(v3({14, 196, 512, 1024}));
  EXPECT_FALSE(v3({112, 112 * 112, 64, 64}));
  EXPECT_FALSE(v4({7, 49, 1024, 2048}));
}

}  // namespace
}  // namespace ttune::executor
