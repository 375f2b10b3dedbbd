// The cost model's prior (cli/cost_prior.h): `tune --cost-model bank` trains the cost model on
// the bank's records of other models first, never on the model's own, and says so; `scratch`
// (the experiment's baseline) starts it empty.
#include "cli/cost_prior.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "cli/run_cli.h"
#include "cli/small_cnn.h"
#include "codegen/target.h"
#include "support/json.h"

namespace ttune::cli {
namespace {

namespace fs = std::filesystem;
using testing::runCli;
using testing::writeCnn;

Json tuneJson(const std::vector<std::string>& args) {
  std::string out;
  EXPECT_EQ(runCli(args, &out), 0);
  return Json::parse(out, nullptr, false);
}

TEST(CostPrior, TuningStartsFromOtherModelsRecordsNeverItsOwn) {
  fs::path dir = fs::temp_directory_path() / ("ttune-cost-prior-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  writeCnn(dir / "cnn_a.onnx", 16, 8, 16, 1);
  writeCnn(dir / "cnn_b.onnx", 20, 16, 16, 2);
  const std::string db = (dir / "bank.db").string();
  auto tune = [&](const std::string& model, const char* trials, const char* start) {
    return tuneJson({"tune", (dir / (model + ".onnx")).string(), "--trials", trials, "--db", db, "--threads", "1",
                     "--new-run", "--no-refine", "--population", "64", "--cost-model", start, "--json"});
  };
  Json a = tune("cnn_a", "40", "scratch");
  ASSERT_FALSE(a.is_discarded());
  EXPECT_EQ(a["cost_model"], "scratch");
  EXPECT_FALSE(a.contains("cost_model_prior"));

  // cnn_b's kernels differ in size from cnn_a's: cnn_a's records are its prior.
  Json b = tune("cnn_b", "24", "bank");
  ASSERT_FALSE(b.is_discarded());
  EXPECT_EQ(b["cost_model"], "bank");
  ASSERT_TRUE(b.contains("cost_model_prior"));
  const Json& p = b["cost_model_prior"];
  auto bank = store::Bank::open(db);
  ASSERT_TRUE(bank.ok());
  auto keysOf = [&](const std::string& model) {
    std::set<std::string> keys;
    for (const store::ModelKernel& k : bank->modelKernels(model)) keys.insert(k.workload.workload_key);
    return keys;
  };
  const std::set<std::string> keys_a = keysOf("cnn_a"), keys_b = keysOf("cnn_b");
  ASSERT_FALSE(keys_a.empty());
  // cnn_a's records, less those of a kernel cnn_b has too (the dense layer has the same size).
  store::RecordQuery qa;
  qa.model = "cnn_a";
  int expected = 0;
  for (const schedule::Record& r : bank->records(qa)) expected += !keys_b.count(r.workload_key);
  EXPECT_GT(expected, 20);
  EXPECT_EQ(p["records_read"].get<int>(), expected);
  EXPECT_GE(p["groups"].get<int>(), 1);
  EXPECT_GT(p["samples"].get<int>(), 10);
  EXPECT_EQ(p["other_machine_groups"], 0);

  // Directly: cnn_a's prior holds cnn_b's kernels only, none of its own.
  std::vector<schedule::Record> all = bank->records({});
  ASSERT_FALSE(all.empty());
  SourceDags dags(*bank, codegen::hostTarget(), schedule::Baseline::Strong);
  CostPrior prior = bankCostPrior(*bank, "cnn_a", all.front().target, dags);
  EXPECT_GT(prior.samples.size(), 0u);
  for (const autotune::TrainingSample& s : prior.samples) {
    const std::string key = s.task.substr(0, s.task.find(" @ "));
    EXPECT_FALSE(keys_a.count(key)) << "cnn_a's own kernel " << key << " is in its prior";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ttune::cli
