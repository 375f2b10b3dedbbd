// `ttune experiment` end to end on a small set in CI-sized time, under the paper's conditions
// (--defaults basic): three small CNNs (ONNX files written here) that share their kernel classes
// are each tuned from scratch, transfer-tuned leave-one-out from the other two in every default
// mode, and compared with their tuning run. The results file must hold, per model, the tuning
// run, each mode's transfer and comparison with speedups and their intervals; a resumed run must
// measure nothing again; a run with the other baseline must be refused on the same folder; the
// ranked modes resumed into it must measure what they promise; then-tune must continue the mode
// --then-tune-from names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/cli.h"
#include "cli/run_cli.h"
#include "cli/small_cnn.h"
#include "cli/target_option.h"
#include "codegen/target.h"
#include "frontend/onnx_builder.h"
#include "schedule/target.h"
#include "store/bank.h"
#include "support/json.h"

namespace ttune::cli {
namespace {

namespace fs = std::filesystem;
using testing::runCli;
using testing::writeCnn;

std::string readText(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(Experiment, BasicBaselineOnASmallSetCompletesResumesAndRefusesTheOtherBaseline) {
  fs::path dir = fs::temp_directory_path() / ("ttune-experiment-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<std::string> names = {"cnn_a", "cnn_b", "cnn_c"};
  writeCnn(dir / "cnn_a.onnx", 16, 8, 16, 1);
  writeCnn(dir / "cnn_b.onnx", 20, 16, 16, 2);
  writeCnn(dir / "cnn_c.onnx", 12, 8, 32, 3);
  std::string models =
      (dir / "cnn_a.onnx").string() + "," + (dir / "cnn_b.onnx").string() + "," + (dir / "cnn_c.onnx").string();
  std::string out = (dir / "out").string();
  std::vector<std::string> args = {"experiment", "--defaults", "basic",     "--models", models,   "--trials", "24",
                                   "--out",      out,          "--threads", "1",        "--step", "5"};
  ASSERT_EQ(runCli(args), 0);

  std::ifstream in(out + "/results.json");
  Json res = Json::parse(in);
  EXPECT_EQ(res["defaults"], "basic");
  EXPECT_EQ(res["trials"], 24);
  EXPECT_EQ(res["cost_model"], "scratch");  // Ansor's baseline: the tuning runs never see the bank
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
        EXPECT_LE(c[std::string(prefix) + "speedup_lo"].get<double>(),
                  c[std::string(prefix) + "speedup"].get<double>());
        EXPECT_LE(c[std::string(prefix) + "speedup"].get<double>(),
                  c[std::string(prefix) + "speedup_hi"].get<double>());
      }
      ASSERT_TRUE(c.contains("measurable_gain"));
    }
  }
  EXPECT_TRUE(fs::exists(out + "/results.svg"));
  const std::string first_report = readText(out + "/results.md");
  EXPECT_NE(first_report.find("then-tune: the tuner warm-started from the beyond transfer's choice"), std::string::npos)
      << first_report;

  // Resumed: everything is in results.json, nothing is measured again.
  auto before = fs::last_write_time(out + "/bank.db");
  ASSERT_EQ(runCli(args), 0);
  EXPECT_EQ(fs::last_write_time(out + "/bank.db"), before);
  // One folder, one baseline.
  args[2] = "strong";
  EXPECT_NE(runCli(args), 0);

  // The ranked modes, resumed into the same folder: both measure only the prior's 4 best
  // candidates per kernel; ranked-nearest also lets kernels without a same-class source take
  // their nearest class's, as `ttune transfer --top-k 4 --rank prior` does.
  args[2] = "basic";
  args.insert(args.end(), {"--modes", "pool,ranked,ranked-nearest"});
  ASSERT_EQ(runCli(args), 0);
  std::ifstream again(out + "/results.json");
  res = Json::parse(again);
  auto bank = store::Bank::open(out + "/bank.db");
  ASSERT_TRUE(bank.ok()) << bank.error();
  for (const std::string& m : names) {
    for (const char* mode : {"ranked", "ranked-nearest"}) {
      SCOPED_TRACE(m + " " + mode);
      const Json& md = res["models"][m]["modes"][mode];
      ASSERT_TRUE(md.contains("comparison"));
      auto run = bank->run(md["transfer"]["run_id"]);
      ASSERT_TRUE(run.has_value());
      EXPECT_EQ(run->settings["top_k"], 4);
      EXPECT_EQ(run->settings["rank"], "prior");
      EXPECT_EQ(run->settings["nearest_classes"], std::string(mode) == "ranked-nearest");
      for (const Json& k : md["transfer"]["kernels"]) EXPECT_LE(k["measured"].get<int>(), 4) << k.dump();
    }
  }
  EXPECT_NE(readText(out + "/results.md").find("ranked-nearest %max"), std::string::npos);

  // then-tune continues the mode --then-tune-from names; a mode not run is refused, and so is a
  // resume that names another mode than the one the saved then-tune runs continued.
  before = fs::last_write_time(out + "/bank.db");
  std::vector<std::string> from = {"experiment",
                                   "--defaults",
                                   "basic",
                                   "--models",
                                   models,
                                   "--trials",
                                   "24",
                                   "--out",
                                   out,
                                   "--threads",
                                   "1",
                                   "--step",
                                   "5",
                                   "--modes",
                                   "pool,beyond,then-tune",
                                   "--then-tune-from"};
  from.push_back("auto");
  EXPECT_NE(runCli(from), 0);
  from.back() = "pool";
  EXPECT_NE(runCli(from), 0);
  EXPECT_EQ(fs::last_write_time(out + "/bank.db"), before);
  // One model's then-tune redone from its ranked-nearest transfer.
  res["models"]["cnn_a"]["modes"].erase("then-tune");
  std::ofstream(out + "/results.json") << res.dump();
  from[4] = (dir / "cnn_a.onnx").string();
  from[14] = "pool,ranked-nearest,then-tune";
  from.back() = "ranked-nearest";
  from.insert(from.end(), {"--then-tune-trials", "4"});
  ASSERT_EQ(runCli(from), 0);
  res = Json::parse(readText(out + "/results.json"));
  const Json& tt = res["models"]["cnn_a"]["modes"]["then-tune"];
  EXPECT_EQ(tt["from_mode"], "ranked-nearest");
  const std::string last_text = readText(out + "/results.md");
  EXPECT_NE(last_text.find("warm-started from the ranked-nearest transfer's choice"), std::string::npos) << last_text;
  ASSERT_TRUE(tt.contains("comparison"));
  // The transfer-then-tune curve starts at the transfer's point; its speedups carry intervals.
  const Json& tc = tt["comparison"];
  ASSERT_TRUE(tc.contains("continued_speedup_lo")) << tc.dump();
  EXPECT_LE(tc["continued_speedup_lo"].get<double>(), tc["continued_speedup"].get<double>());
  EXPECT_LE(tc["continued_speedup"].get<double>(), tc["continued_speedup_hi"].get<double>());
  if (tc["speedup_transfer"].get<double>() >= tc["speedup_tuned"].get<double>()) {
    EXPECT_EQ(tc["continued_s_to_match_tuned"], tc["transfer_s"]) << tc.dump();
  } else if (tc["continued_s_to_match_tuned"].is_number()) {
    EXPECT_GT(tc["continued_s_to_match_tuned"].get<double>(), tc["transfer_s"].get<double>()) << tc.dump();
  }
  auto continued = bank->run(tt["continued"]["run_id"]);
  ASSERT_TRUE(continued.has_value());
  EXPECT_EQ(continued->settings["warm_start_run"],
            res["models"]["cnn_a"]["modes"]["ranked-nearest"]["transfer"]["run_id"]);
  fs::remove_all(dir);
}

// A pool comparison as `ttune compare` writes it, with only the fields the report reads.
Json poolComparison(double smax, double smax_lo, double stt, double tune_s, double transfer_s, double match_ratio) {
  Json c{{"tuned_speedup", smax},
         {"tuned_speedup_lo", smax_lo},
         {"tuned_speedup_hi", smax + 0.02},
         {"tuned_rounds", 9},
         {"transfer_speedup", stt},
         {"transfer_speedup_lo", stt - 0.02},
         {"transfer_speedup_hi", stt + 0.02},
         {"transfer_rounds", 9},
         {"speedup_tuned", smax},
         {"speedup_transfer", stt},
         {"measurable_gain", smax_lo > 1},
         {"tune_s", tune_s},
         {"transfer_s", transfer_s},
         {"tune_speedup_at_transfer_time", 1.0},
         {"checkpoints", Json::array()}};
  if (std::isfinite(match_ratio)) {
    c["time_to_match_ratio"] = match_ratio;
    c["tune_s_to_match_transfer"] = match_ratio * transfer_s;
  } else {
    c["tune_s_to_match_transfer"] = nullptr;
  }
  return c;
}

// The report's time-to-match geomean is over the models whose tuning gain is measurable: a model
// whose S_max interval contains 1 gets "no gain" instead of a ratio and stays out of it.
TEST(Experiment, TimeToMatchLeavesModelsWithoutAMeasurableTuningGainOut) {
  fs::path dir = fs::temp_directory_path() / ("ttune-experiment-report-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const schedule::Target code = resolveTargetOption("", TargetUse::RunHere);
  Json host{{"cpu", codegen::hostTarget().cpu},
            {"isa", schedule::isaName(code.isa)},
            {"threads", 1},
            {"description", codegen::describe(code)}};
  Json models = Json::object();
  // Matched at 4x and at 9x (geomean 6x); never matched within 600 s of tuning after 60 s of
  // transfer (at least 10x); no gain (its 1.5x "match" is noise and must not count).
  models["a"]["modes"]["pool"]["comparison"] = poolComparison(1.5, 1.3, 1.4, 600, 60, 4.0);
  models["b"]["modes"]["pool"]["comparison"] = poolComparison(1.2, 1.1, 1.1, 600, 30, 9.0);
  models["c"]["modes"]["pool"]["comparison"] = poolComparison(1.3, 1.2, 1.4, 600, 60, NAN);
  models["d"]["modes"]["pool"]["comparison"] = poolComparison(1.01, 0.98, 1.01, 600, 60, 1.5);
  Json root{{"version", 1}, {"host", host}, {"defaults", "strong"}, {"trials", 100}, {"models", models}};
  std::ofstream(dir / "results.json") << root.dump();
  ASSERT_EQ(runCli({"experiment", "--report-only", "--out", dir.string(), "--threads", "1", "--models", "a,b,c,d",
                    "--modes", "pool"}),
            0);
  const std::string md = readText((dir / "results.md").string());
  EXPECT_NE(md.find("pool 6.00x over 2 matched, 1 never matched within the tuning run (counted at their lower bound, "
                    "tune time / transfer time: at least 7.11x over 3), 1 without a measurable tuning gain left out"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| d | 1.01x (0.98-1.03) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| no gain |\n"), std::string::npos) << md;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ttune::cli
