// `ttune experiment` end to end on a small set in CI-sized time, under the paper's conditions
// (--defaults basic): three small CNNs (ONNX files written here) that share their kernel classes
// are each tuned from scratch, transfer-tuned leave-one-out from the other two in every default
// mode, and compared with their tuning run. The results file must hold, per model, the tuning
// run, each mode's transfer and comparison with speedups and their intervals; a resumed run must
// measure nothing again; a run with the other baseline must be refused on the same folder.
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
using testing::runCli;
using I = int64_t;

// conv 3x3 + relu, conv 3x3 stride 2 + relu, global pool, dense: a small CNN of the given sizes.
void writeCnn(const fs::path& path, int64_t hw, int64_t c1, int64_t c2, uint64_t seed) {
  ModelBuilder b;
  b.input("x", {I(1), I(3), hw, hw});
  b.random("w1", {c1, 3, 3, 3}, seed, -0.5, 0.5);
  b.random("b1", {c1}, seed + 1);
  auto& conv1 = b.node("Conv", {"x", "w1", "b1"}, {"c1"});
  frontend::testing::setAttr(conv1, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"});
  b.random("w2", {c2, c1, 3, 3}, seed + 2, -0.5, 0.5);
  b.random("b2", {c2}, seed + 3);
  auto& conv2 = b.node("Conv", {"r1", "w2", "b2"}, {"c2"});
  frontend::testing::setAttr(conv2, "pads", std::vector<int64_t>{1, 1, 1, 1});
  frontend::testing::setAttr(conv2, "strides", std::vector<int64_t>{2, 2});
  b.node("Relu", {"c2"}, {"r2"});
  b.node("GlobalAveragePool", {"r2"}, {"p"});
  b.node("Flatten", {"p"}, {"f"});
  b.random("wf", {10, c2}, seed + 4);
  frontend::testing::setAttr(b.node("Gemm", {"f", "wf"}, {"y"}), "transB", I(1));
  b.output("y");
  std::ofstream(path, std::ios::binary) << b.bytes();
}

TEST(Experiment, BasicBaselineOnASmallSetCompletesResumesAndRefusesTheOtherBaseline) {
  fs::path dir = fs::temp_directory_path() / ("ttune-experiment-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<std::string> names = {"cnn_a", "cnn_b", "cnn_c"};
  writeCnn(dir / "cnn_a.onnx", 16, 8, 16, 1);
  writeCnn(dir / "cnn_b.onnx", 20, 16, 16, 2);
  writeCnn(dir / "cnn_c.onnx", 12, 8, 32, 3);
  std::string models = (dir / "cnn_a.onnx").string() + "," + (dir / "cnn_b.onnx").string() + "," +
                       (dir / "cnn_c.onnx").string();
  std::string out = (dir / "out").string();
  std::vector<std::string> args = {"experiment", "--defaults", "basic", "--models", models, "--trials", "24",
                                   "--out", out, "--threads", "1", "--step", "5"};
  ASSERT_EQ(runCli(args), 0);

  std::ifstream in(out + "/results.json");
  Json res = Json::parse(in);
  EXPECT_EQ(res["defaults"], "basic");
  EXPECT_EQ(res["trials"], 24);
  for (const std::string& m : names) {
    SCOPED_TRACE(m);
    const Json& mj = res["models"][m];
    ASSERT_TRUE(mj.contains("tune"));
    EXPECT_EQ(mj["tune"]["trials"], 24);
    for (const char* mode : {"pool", "auto", "beyond", "then-tune"}) {
      SCOPED_TRACE(mode);
      ASSERT_TRUE(mj["modes"].contains(mode));
      const Json& c = mj["modes"][mode]["comparison"];
      // Every ratio the report reads comes with its interval and the rounds behind it.
      for (const char* prefix : {"tuned_", "transfer_"}) {
        ASSERT_TRUE(c.contains(std::string(prefix) + "rounds")) << c.dump();
        EXPECT_GT(c[std::string(prefix) + "rounds"].get<int>(), 0);
        EXPECT_LE(c[std::string(prefix) + "speedup_lo"].get<double>(), c[std::string(prefix) + "speedup"].get<double>());
        EXPECT_LE(c[std::string(prefix) + "speedup"].get<double>(), c[std::string(prefix) + "speedup_hi"].get<double>());
      }
      ASSERT_TRUE(c.contains("measurable_gain"));
    }
  }
  EXPECT_TRUE(fs::exists(out + "/results.md"));
  EXPECT_TRUE(fs::exists(out + "/results.svg"));

  // Resumed: everything is in results.json, nothing is measured again.
  auto before = fs::last_write_time(out + "/bank.db");
  ASSERT_EQ(runCli(args), 0);
  EXPECT_EQ(fs::last_write_time(out + "/bank.db"), before);
  // One folder, one baseline.
  args[2] = "strong";
  EXPECT_NE(runCli(args), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ttune::cli
