// One compiled model for ranges of sizes (graph/size_ranges.h, executor/range_model.h): ONNX
// models with symbolic dimensions, compiled once for `--dim name=min..max` and run at sizes that
// were and were not among the sizes the check imported, against the reference evaluator of the
// model imported at each size. Models a range cannot follow are refused in one sentence; a run
// at a size out of range or of a wrong shape fails in one sentence and leaves the model usable.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/model_loader.h"
#include "cli/run_cli.h"
#include "codegen/target.h"
#include "executor/range_model.h"
#include "frontend/onnx_builder.h"
#include "graph/reference.h"
#include "range_models.h"
#include "support/error.h"
#include "support/json.h"

namespace ttune::cli {
namespace {

using frontend::testing::ModelBuilder;
using frontend::testing::setAttr;
namespace fs = std::filesystem;
using testing::attentionModel;
using testing::cnnModel;
using testing::runCli;
using testing::writeModel;

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
      SCOPED_TRACE("sizes " + std::to_string(sizes[0]) + (sizes.size() > 1 ? "," + std::to_string(sizes[1]) : ""));
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
  // A batch is cut down to 1; a bucket too narrow to check serves each of its sizes alone.
  std::vector<graph::SizeRange> batch = graph::rangeBuckets({"batch", 1, 8});
  ASSERT_EQ(batch.size(), 5u);  // 5..8, 4, 3, 2, 1
  EXPECT_EQ(batch[0].min, 5);
  EXPECT_EQ(batch[1].min, 4);
  EXPECT_EQ(batch[1].max, 4);
  EXPECT_EQ(batch[4].max, 1);
  EXPECT_EQ(graph::rangeBuckets({"batch", 1, 3}).size(), 1u);    // too narrow to cut: the check refuses it
  EXPECT_EQ(graph::rangeBuckets({"seq", 100, 512}).size(), 3u);  // 257..512, 129..256, 100..128
  std::vector<graph::SizeRange> from8 = graph::rangeBuckets({"seq", 8, 64});
  ASSERT_EQ(from8.size(), 4u);  // 33..64, 17..32, 9..16, 8
  EXPECT_EQ(from8[3].min, 8);
  EXPECT_EQ(from8[3].max, 8);
}

TEST(RangeModel, AnAttentionBlockRunsEverySequenceLengthFromOneModel) {
  ModelSource src;
  src.spec = attentionModel();
  src.dims = {"seq=1..40"};
  // Buckets 21..40, 11..20 and 1..10; 1, 10, 11, 20, 21 and 40 are their ends, 7 and 23 sizes
  // the check never imported.
  checkAtSizes(src, {{40}, {1}, {7}, {10}, {11}, {20}, {21}, {23}, {39}});
}

TEST(RangeModel, AReshapeMergingTwoSizedAxesRunsEveryBatchAndSequenceFromOneModel) {
  ModelSource src;
  src.spec = testing::mergedAxesModel();
  src.dims = {"seq=1..20", "batch=1..6"};
  checkAtSizes(src, {{20, 6}, {1, 1}, {7, 3}, {11, 1}, {1, 6}, {13, 5}});
}

TEST(RangeModel, TransferTunesTheLargestSizeOfEveryBucketThatHasNoRunsOfItsOwn) {
  fs::path dir = fs::temp_directory_path() / ("ttune-range-transfer-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string model = testing::mergedAxesModel(), bank = (dir / "bank.db").string();
  std::string text;
  ASSERT_EQ(
      runCli({"tune", model, "--dim", "seq=20", "--dim", "batch=6", "--trials", "8", "--db", bank, "--json"}, &text), 0)
      << text;
  ASSERT_EQ(runCli({"transfer", model, "--dim", "seq=1..20", "--dim", "batch=6", "--db", bank, "--json"}, &text), 0)
      << text;
  Json j = Json::parse(text);
  ASSERT_EQ(j.at("sizes").size(), 2u);  // buckets 11..20 and 1..10
  EXPECT_EQ(j["sizes"][0].at("model"), "merged@batch=6,seq=20");
  EXPECT_TRUE(j["sizes"][0].contains("skipped")) << "the tuned size keeps its own choice";
  EXPECT_EQ(j["sizes"][1].at("model"), "merged@batch=6,seq=10");
  EXPECT_EQ(j["sizes"][1].at("transfer").at("sources")[0], "merged@batch=6,seq=20");
  // Run again, every size has runs of its own now.
  ASSERT_EQ(runCli({"transfer", model, "--dim", "seq=1..20", "--dim", "batch=6", "--db", bank, "--json"}, &text), 0);
  j = Json::parse(text);
  EXPECT_TRUE(j["sizes"][1].contains("skipped"));
  ASSERT_EQ(runCli({"run", model, "--dim", "seq=1..20", "--dim", "batch=6", "--db", bank, "--at", "seq=7"}, &text), 0);
  EXPECT_NE(text.find("agrees with the model compiled for this size"), std::string::npos) << text;
  fs::remove_all(dir);
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
