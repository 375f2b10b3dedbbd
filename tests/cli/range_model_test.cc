// One compiled model for ranges of sizes (graph/size_ranges.h, executor/range_model.h): ONNX
// models with symbolic dimensions, compiled once for `--dim name=min..max` and run at sizes that
// were and were not among the sizes the check imported, against the reference evaluator of the
// model imported at each size. Models a range cannot follow are refused in one sentence; a run
// at a size out of range or of a wrong shape fails in one sentence and leaves the model usable.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/model_loader.h"
#include "codegen/target.h"
#include "executor/range_model.h"
#include "frontend/onnx_builder.h"
#include "graph/reference.h"
#include "support/error.h"

namespace ttune::cli {
namespace {

using frontend::testing::ModelBuilder;
using frontend::testing::setAttr;

std::string writeModel(ModelBuilder& b, const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("ttune_range_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / (name + ".onnx")).string();
  std::ofstream(path, std::ios::binary) << b.bytes();
  return path;
}

// An attention block as exporters write it: the reshape target is computed from the input's
// shape (Shape, Gather, Concat), positions come from a table sliced to the sequence, and the
// sequence axis is reduced by the softmax and the second product.
std::string attentionModel() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, std::string("seq"), int64_t{16}});
  b.random("wq", {16, 16}, 1);
  b.random("wk", {16, 16}, 2);
  b.random("wv", {16, 16}, 3);
  b.random("pos", {64, 16}, 4);
  b.random("gamma", {16}, 5, 0.5, 1.5);
  b.random("beta", {16}, 6);
  b.ints("zero", {0});
  b.ints("one", {1});
  b.ints("heads", {1, 2, 8});  // batch, heads, head size (sequence from the shape)
  b.node("Shape", {"x"}, {"shape"});
  b.node("Gather", {"shape", "one"}, {"seq_len"});
  b.node("Slice", {"pos", "zero", "seq_len", "zero"}, {"pos_s"});
  b.node("Add", {"x", "pos_s"}, {"h"});
  b.node("MatMul", {"h", "wq"}, {"q"});
  b.node("MatMul", {"h", "wk"}, {"k"});
  b.node("MatMul", {"h", "wv"}, {"v"});
  b.node("Slice", {"heads", "zero", "one"}, {"h_b"});
  b.node("Slice", {"heads", "one", "heads_end"}, {"h_rest"});
  b.ints("heads_end", {3});
  auto& cat = b.node("Concat", {"h_b", "seq_len", "h_rest"}, {"qshape"});
  setAttr(cat, "axis", int64_t{0});
  for (const char* t : {"q", "k", "v"}) {
    std::string n = t;
    b.node("Reshape", {n, "qshape"}, {n + "4"});
    auto& tr = b.node("Transpose", {n + "4"}, {n + "t"});
    setAttr(tr, "perm", n == "k" ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3});
  }
  b.node("MatMul", {"qt", "kt"}, {"scores"});
  auto& sm = b.node("Softmax", {"scores"}, {"p"});
  setAttr(sm, "axis", int64_t{-1});
  b.node("MatMul", {"p", "vt"}, {"ctx"});
  auto& back = b.node("Transpose", {"ctx"}, {"ctx_t"});
  setAttr(back, "perm", std::vector<int64_t>{0, 2, 1, 3});
  b.ints("flat", {1, -1, 16});
  b.node("Reshape", {"ctx_t", "flat"}, {"ctx2"});
  b.node("Add", {"ctx2", "h"}, {"res"});
  auto& ln = b.node("LayerNormalization", {"res", "gamma", "beta"}, {"y"});
  setAttr(ln, "axis", int64_t{-1});
  b.output("y");
  return writeModel(b, "attention");
}

// A small CNN over a batch of images: convolution, pooling, flatten, a dense layer.
std::string cnnModel() {
  ModelBuilder b;
  b.input("img", {std::string("batch"), int64_t{3}, int64_t{10}, int64_t{10}});
  b.random("w", {8, 3, 3, 3}, 7);
  b.random("bias", {8}, 8);
  b.random("fc", {10, 8}, 9);
  b.random("fcb", {10}, 10);
  auto& conv = b.node("Conv", {"img", "w", "bias"}, {"c"});
  setAttr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"});
  b.node("GlobalAveragePool", {"r"}, {"g"});
  b.node("Flatten", {"g"}, {"f"});
  auto& gemm = b.node("Gemm", {"f", "fc", "fcb"}, {"logits"});
  setAttr(gemm, "transB", int64_t{1});
  b.output("logits");
  return writeModel(b, "cnn");
}

// Checks the range model at each size against the reference evaluator of the model imported at
// that size, on the same seeded inputs.
void checkAtSizes(const ModelSource& src, const std::vector<std::vector<int64_t>>& points) {
  const schedule::Target& target = codegen::hostTarget();
  auto model = executor::RangeCompiledModel::compile(loadRangeBuckets(src, target), executor::ModelOptions{});
  for (const std::vector<int64_t>& sizes : points) {
    graph::Graph g = loadModel(atSizes(src, sizes), target);
    std::vector<runtime::NDArray> inputs = executor::randomInputs(g, 3);
    std::vector<runtime::NDArray> want = graph::evaluateGraph(g, inputs);
    std::vector<runtime::NDArray> got = model->run(inputs);
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < want.size(); ++o) {
      ASSERT_EQ(got[o].shape(), want[o].shape()) << "size " << sizes[0];
      runtime::Comparison c = runtime::compare(got[o], want[o], 1e-3, 1e-3);
      EXPECT_TRUE(c.ok()) << "at size " << sizes[0] << ": " << c.mismatches << " mismatches, max abs err "
                          << c.max_abs_err;
    }
  }
}

TEST(RangeModel, ARangeIsServedInBucketsAFactorOfTwoApart) {
  std::vector<graph::SizeRange> b = graph::rangeBuckets({"seq", 1, 512});
  ASSERT_EQ(b.size(), 7u);  // 257..512, 129..256, ..., 9..16, 1..8
  EXPECT_EQ(b[0].min, 257);
  EXPECT_EQ(b[0].max, 512);
  EXPECT_EQ(b[1].min, 129);
  EXPECT_EQ(b[5].min, 9);
  EXPECT_EQ(b[6].min, 1);
  EXPECT_EQ(b[6].max, 8);
  EXPECT_EQ(graph::rangeBuckets({"batch", 1, 8}).size(), 1u);
  EXPECT_EQ(graph::rangeBuckets({"seq", 100, 512}).size(), 3u);  // 257..512, 129..256, 100..128
}

TEST(RangeModel, AnAttentionBlockRunsEverySequenceLengthFromOneModel) {
  ModelSource src;
  src.spec = attentionModel();
  src.dims = {"seq=1..40"};
  // Buckets 21..40, 11..20 and 1..10; 1, 10, 11, 20, 21 and 40 are their ends, 7 and 23 sizes
  // the check never imported.
  checkAtSizes(src, {{40}, {1}, {7}, {10}, {11}, {20}, {21}, {23}, {39}});
}

TEST(RangeModel, ACnnRunsEveryBatchFromOneModel) {
  ModelSource src;
  src.spec = cnnModel();
  src.dims = {"batch=1..6"};
  checkAtSizes(src, {{6}, {1}, {2}, {5}});
}

TEST(RangeModel, ARunOutsideTheRangeOrOfAWrongShapeFailsAndTheModelStaysUsable) {
  ModelSource src;
  src.spec = cnnModel();
  src.dims = {"batch=1..6"};
  auto model = executor::RangeCompiledModel::compile(loadRangeBuckets(src, codegen::hostTarget()), {});
  runtime::NDArray big({7, 3, 10, 10}, te::DType::Float32), odd({2, 3, 9, 10}, te::DType::Float32);
  try {
    model->run({big});
    FAIL() << "a batch of 7 ran";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "size batch = 7 (axis 0 of input img) is outside its range 1..6");
  }
  try {
    model->run({odd});
    FAIL() << "a 9x10 image ran";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "input img must be [2, 3, 10, 10] at these sizes, got [2, 3, 9, 10]");
  }
  runtime::NDArray ok({3, 3, 10, 10}, te::DType::Float32);
  ok.fillRandom(1);
  EXPECT_EQ(model->run({ok})[0].shape(), (te::Shape{3, 10}));
}

TEST(RangeModel, AModelWhoseArithmeticFollowsASizeOtherwiseIsRefused) {
  // The mean over the sequence divides by its length: a constant the range cannot follow.
  ModelBuilder b;
  b.input("x", {int64_t{1}, std::string("seq"), int64_t{4}});
  auto& mean = b.node("ReduceMean", {"x"}, {"m"});
  setAttr(mean, "axes", std::vector<int64_t>{1});
  b.output("m");
  ModelSource src;
  src.spec = writeModel(b, "mean");
  src.dims = {"seq=1..30"};
  try {
    loadRangeBuckets(src, codegen::hostTarget());
    FAIL() << "a mean over a range compiled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be compiled once for its ranges"), std::string::npos) << e.what();
  }
  src.dims = {"seq=1..3"};
  EXPECT_THROW(loadRangeBuckets(src, codegen::hostTarget()), Error);  // too narrow to check
}

}  // namespace
}  // namespace ttune::cli
