// The pieces of an exported runtime that read data from outside: the model image (embedded in a
// library) and the weights file (shipped beside it). Every malformed input must be refused with a
// reason, never read out of bounds. The plan itself is tested in tests/runtime.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "codegen/target.h"
#include "deploy/cpu_features.h"
#include "deploy/image.h"
#include "deploy/weights_file.h"
#include "runtime/plan.h"
#include "runtime/sample_plan.h"
#include "temp_dir.h"

namespace ttune::deploy {
namespace {

namespace fs = std::filesystem;
using runtime::expectSamePlan;
using runtime::samplePlan;

TEST(ModelImage, RoundTripsAndRefusesEveryTruncation) {
  ModelImage m;
  m.name = "tiny";
  m.target = "znver4 (avx512)";
  m.cpu_features = {"avx2", "avx512f"};
  m.weights_digest = 0x1234abcd5678ef00ULL;
  m.plan = samplePlan();
  ASSERT_EQ(runtime::validatePlan(m.plan), "");
  std::string bytes = serializeImage(m);
  ModelImage back;
  std::string error;
  ASSERT_TRUE(parseImage(bytes.data(), bytes.size(), back, error)) << error;
  EXPECT_EQ(back.name, "tiny");
  EXPECT_EQ(back.target, m.target);
  EXPECT_EQ(back.cpu_features, m.cpu_features);
  EXPECT_EQ(back.weights_digest, m.weights_digest);
  expectSamePlan(back.plan, m.plan);
  for (size_t n = 0; n < bytes.size(); ++n) {
    ModelImage cut;
    EXPECT_FALSE(parseImage(bytes.data(), n, cut, error)) << "accepted the first " << n << " bytes";
    EXPECT_FALSE(error.empty());
  }
  std::string longer = bytes + "x";
  EXPECT_FALSE(parseImage(longer.data(), longer.size(), back, error));
}

using testing::TempDir;

TEST(WeightsFile, RoundTripsAndRefusesDamagedOrForeignFiles) {
  TempDir dir;
  std::vector<float> a(300), b(7);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.5f * static_cast<float>(i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = -1.0f * static_cast<float>(i);
  std::vector<WeightSpan> spans = {{a.data(), 1200}, {b.data(), 28}};
  uint64_t digest = weightsDigest(spans);
  std::string path = (dir.path / "m.weights").string(), error;
  ASSERT_TRUE(writeWeightsFile(path, spans, digest, error)) << error;

  LoadedWeights w;
  ASSERT_EQ(loadWeightsFile(path, {1200, 28}, digest, w, error), LoadStatus::Ok) << error;
  ASSERT_EQ(w.ptrs.size(), 2u);
  for (void* p : w.ptrs) EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(std::memcmp(w.ptrs[0], a.data(), 1200), 0);
  EXPECT_EQ(std::memcmp(w.ptrs[1], b.data(), 28), 0);

  auto expectRefused = [&](const std::string& file, LoadStatus status, const std::string& says,
                           std::vector<int64_t> sizes = {1200, 28}, uint64_t d = 0) {
    LoadedWeights x;
    std::string e;
    EXPECT_EQ(loadWeightsFile(file, sizes, d ? d : digest, x, e), status) << e;
    EXPECT_NE(e.find(says), std::string::npos) << e;
    EXPECT_NE(e.find(file), std::string::npos) << e;
  };
  expectRefused((dir.path / "missing.weights").string(), LoadStatus::IoError, "No such file");
  expectRefused(dir.path.string(), LoadStatus::IoError, "not a regular file");
  expectRefused(path, LoadStatus::Corrupt, "another export", {1200, 28}, digest + 1);
  expectRefused(path, LoadStatus::Corrupt, "another export", {1200});

  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  auto variant = [&](const std::string& name, const std::string& content) {
    std::string p = (dir.path / name).string();
    std::ofstream(p, std::ios::binary) << content;
    return p;
  };
  expectRefused(variant("short.weights", bytes.substr(0, 20)), LoadStatus::Corrupt, "not a ttune weights file");
  expectRefused(variant("text.weights", std::string(bytes.size(), 'x')), LoadStatus::Corrupt,
                "not a ttune weights file");
  expectRefused(variant("cut.weights", bytes.substr(0, bytes.size() - 10)), LoadStatus::Corrupt, "truncated");
  std::string flipped = bytes;
  flipped[flipped.size() - 100] ^= 0x10;  // inside the first weight's data
  expectRefused(variant("flipped.weights", flipped), LoadStatus::Corrupt, "does not match its digest");
  std::string version = bytes;
  version[8] = 7;
  expectRefused(variant("version.weights", version), LoadStatus::Corrupt, "format version 7");
}

TEST(CpuFeatures, ThisMachineRunsCodeForItselfAndUnknownFeaturesAreNotChecked) {
  std::vector<std::string> host = codegen::kernelFeatures(codegen::hostTarget());
  EXPECT_FALSE(host.empty());
  EXPECT_TRUE(missingCpuFeatures(host).empty());
  EXPECT_TRUE(missingCpuFeatures({"a-feature-no-cpu-has"}).empty());
  // Agrees with LLVM's view of this machine for every feature the check knows.
  auto x86_64_v4 = codegen::resolveTarget("x86-64-v4");
  ASSERT_TRUE(x86_64_v4.ok());
  bool runnable = codegen::runnable(*x86_64_v4).ok();
  EXPECT_EQ(missingCpuFeatures(codegen::kernelFeatures(*x86_64_v4)).empty(), runnable);
}

}  // namespace
}  // namespace ttune::deploy
