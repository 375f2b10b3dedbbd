// `ttune run` on a model whose later shapes depend on run-time values (run in stages): --check
// checks every stage's kernels against the reference evaluator, --profile adds the stages'
// kernel times up; `tune` tunes the kernels of one run's stages and `run --db` takes only the
// choice a run made here for the model (a bank's records from elsewhere are validated against a
// whole model's kernels, which a staged model knows only as it runs).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/cli.h"
#include "cli/run_cli.h"
#include "frontend/onnx_builder.h"
#include "support/json.h"

namespace ttune::cli {
namespace {

namespace fs = std::filesystem;
using frontend::testing::ModelBuilder;
using frontend::testing::setAttr;
using testing::runCli;

// y = relu(x W); out = 2 * y[nonzero(y)]: the count of positives is the second stage's shape.
void writeNonZeroModel(const fs::path& path, int64_t k = 24, int64_t n = 32) {
  ModelBuilder b(13);
  b.input("x", {int64_t{1}, k});
  b.random("w", {k, n}, 7, -1, 1);
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node("Relu", {"m"}, {"y"});
  b.node("NonZero", {"y"}, {"nz"});
  runtime::NDArray one(te::Shape{}, te::DType::Int64);
  one.as<int64_t>()[0] = 1;
  b.initializer("one", one);
  b.floats("two", {}, {2.0f});
  setAttr(b.node("Gather", {"nz", "one"}, {"idx"}), "axis", int64_t{0});
  setAttr(b.node("Gather", {"y", "idx"}, {"g"}), "axis", int64_t{1});
  b.node("Mul", {"g", "two"}, {"out"});
  b.output("out");
  std::ofstream(path, std::ios::binary) << b.bytes();
}

TEST(StagedRun, CheckAndProfileCoverEveryStageAndTheBankIsRefused) {
  fs::path dir = fs::temp_directory_path() / ("ttune-staged-run-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string model = (dir / "nonzero.onnx").string();
  writeNonZeroModel(model);

  std::string text;
  ASSERT_EQ(runCli({"run", model, "--check", "--profile", "--repeat", "2", "--json"}, &text), 0) << text;
  Json j = Json::parse(text);
  EXPECT_TRUE(j.at("staged").get<bool>());
  EXPECT_EQ(j.at("stages").get<int>(), 2);
  EXPECT_EQ(j.at("host_nodes").get<int>(), 1);
  EXPECT_EQ(j.at("check").get<std::string>(), "ok");
  // The first stage's product and the second stage's gather-and-scale, at least.
  EXPECT_GE(j.at("kernels_checked").get<int>(), 2);
  EXPECT_GT(j.at("points_checked").get<int64_t>(), 0);
  EXPECT_EQ(j.at("mismatches").get<int64_t>(), 0);
  ASSERT_GE(j.at("profile").size(), 2u);
  double sum = 0, shares = 0;
  for (const Json& k : j.at("profile")) {
    EXPECT_GT(k.at("occurrences").get<int>(), 0);
    sum += k.at("ms").get<double>();
    shares += k.at("share").get<double>();
  }
  EXPECT_NEAR(sum, j.at("profile_total_ms").get<double>(), 1e-6 * std::max(1.0, sum));
  EXPECT_NEAR(shares, 1.0, 1e-9);
  // Ordered by time, the largest first.
  EXPECT_GE(j.at("profile").front().at("ms").get<double>(), j.at("profile").back().at("ms").get<double>());

  // A bank without a choice made here for this model: refused in one sentence.
  const std::string bank = (dir / "bank.db").string();
  EXPECT_NE(runCli({"run", model, "--db", bank}), 0);
  fs::remove_all(dir);
}

// `tune` on a staged model tunes the kernels of one run's stages (the product before NonZero and
// the gather-and-scale after it); the choice it stores is what `run --db` then takes, here, for
// every stage whose kernels it names; `sources` and `transfer` see a staged model's kernels too.
TEST(StagedRun, TuneAndTransferTakeEveryStagesKernelsAndRunDbUsesTheChoice) {
  fs::path dir = fs::temp_directory_path() / ("ttune-staged-tune-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string model = (dir / "nonzero.onnx").string();
  writeNonZeroModel(model);
  const std::string bank = (dir / "bank.db").string();

  std::string text;
  ASSERT_EQ(runCli({"tune", model, "--trials", "8", "--db", bank, "--json"}, &text), 0) << text;
  Json t = Json::parse(text);
  EXPECT_TRUE(t.at("staged").get<bool>());
  EXPECT_EQ(t.at("trials").get<int64_t>(), 8);
  EXPECT_GE(t.at("tasks").get<int>(), 1);
  EXPECT_FALSE(t.at("check").value("whole_model", true));

  ASSERT_EQ(runCli({"run", model, "--db", bank, "--check", "--json"}, &text), 0) << text;
  Json r = Json::parse(text);
  EXPECT_EQ(r.at("check").get<std::string>(), "ok");
  EXPECT_GE(r.at("scheduled_kernels").get<int>(), 1);

  // Another staged model of the same kernel classes is transfer-tuned from the first one's run.
  const std::string other = (dir / "nonzero_wide.onnx").string();
  writeNonZeroModel(other, 40, 48);
  ASSERT_EQ(runCli({"sources", other, "--db", bank, "--json"}, &text), 0) << text;
  Json src = Json::parse(text);
  ASSERT_EQ(src.at("sources").size(), 1u);
  EXPECT_EQ(src.at("sources")[0].at("model").get<std::string>(), "nonzero");
  ASSERT_EQ(runCli({"transfer", other, "--db", bank, "--json"}, &text), 0) << text;
  Json tr = Json::parse(text);
  EXPECT_TRUE(tr.at("staged").get<bool>());
  EXPECT_GE(tr.at("measured").get<int64_t>(), 1);
  ASSERT_EQ(runCli({"run", other, "--db", bank, "--check", "--json"}, &text), 0) << text;
  EXPECT_EQ(Json::parse(text).at("check").get<std::string>(), "ok");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ttune::cli
