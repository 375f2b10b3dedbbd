// The pieces of an exported runtime that read data from outside: the execution plan and model
// image (embedded in a library) and the weights file (shipped beside it). Every malformed input
// must be refused with a reason, never read out of bounds.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "codegen/target.h"
#include "deploy/cpu_features.h"
#include "deploy/image.h"
#include "deploy/weights_file.h"
#include "runtime/plan.h"
#include "temp_dir.h"

namespace ttune::deploy {
namespace {

namespace fs = std::filesystem;
using runtime::BufferKind;
using runtime::BufferRef;

runtime::Plan samplePlan() {
  runtime::Plan p;
  p.inputs = {{"x", {1, 3, 8, 8}, runtime::ElemType::Float32}, {"ids", {4}, runtime::ElemType::Int64}};
  p.outputs = {{"y", {1, 10}, runtime::ElemType::Float32}, {"x_again", {1, 3, 8, 8}, runtime::ElemType::Float32}};
  p.weight_bytes = {1200, 40};
  p.workspace_bytes = 128;
  p.num_kernels = 2;
  p.args = {{BufferKind::Input, 0, 0}, {BufferKind::Weight, 0, 0}, {BufferKind::Workspace, 0, 64},
            {BufferKind::Workspace, 0, 64}, {BufferKind::Weight, 1, 0}, {BufferKind::Output, 0, 0}};
  p.calls = {{0, 0, 3}, {1, 3, 3}};
  p.copies = {{1, {BufferKind::Input, 0, 0}}};
  return p;
}

void expectSamePlan(const runtime::Plan& a, const runtime::Plan& b) {
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    EXPECT_EQ(a.inputs[i].name, b.inputs[i].name);
    EXPECT_EQ(a.inputs[i].shape, b.inputs[i].shape);
    EXPECT_EQ(a.inputs[i].dtype, b.inputs[i].dtype);
  }
  EXPECT_EQ(a.outputs.size(), b.outputs.size());
  EXPECT_EQ(a.weight_bytes, b.weight_bytes);
  EXPECT_EQ(a.workspace_bytes, b.workspace_bytes);
  EXPECT_EQ(a.num_kernels, b.num_kernels);
  EXPECT_EQ(a.args, b.args);
  ASSERT_EQ(a.calls.size(), b.calls.size());
  for (size_t i = 0; i < a.calls.size(); ++i) {
    EXPECT_EQ(a.calls[i].kernel, b.calls[i].kernel);
    EXPECT_EQ(a.calls[i].first_arg, b.calls[i].first_arg);
    EXPECT_EQ(a.calls[i].num_args, b.calls[i].num_args);
  }
  ASSERT_EQ(a.copies.size(), b.copies.size());
  EXPECT_EQ(a.copies[0].output, b.copies[0].output);
  EXPECT_EQ(a.copies[0].source, b.copies[0].source);
}

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

TEST(Plan, InvalidIndicesAreRefused) {
  auto refused = [](runtime::Plan p, const std::string& why) {
    std::string bytes;
    runtime::serializePlan(p, bytes);
    runtime::Plan back;
    std::string error;
    const char* data = bytes.data();
    EXPECT_FALSE(runtime::parsePlan(data, bytes.data() + bytes.size(), back, error)) << why;
    EXPECT_NE(error.find("invalid"), std::string::npos) << error;
  };
  runtime::Plan p = samplePlan();
  p.args[0].index = 2;  // no input 2
  refused(p, "input index");
  p = samplePlan();
  p.args[2].offset = 128;  // the workspace ends there
  refused(p, "workspace offset");
  p = samplePlan();
  p.args[0].offset = 3 * 8 * 8 * 4;  // a view past the end of input 0
  refused(p, "input view offset");
  p = samplePlan();
  p.args[4].offset = 40;  // a view past the end of weight 1
  refused(p, "weight view offset");
  p = samplePlan();
  p.args[0].offset = 3 * 8 * 4;  // a view inside input 0 (a contiguous slice) is fine
  EXPECT_EQ(runtime::validatePlan(p), "");
  p = samplePlan();
  p.calls[1].kernel = 2;
  refused(p, "kernel index");
  p = samplePlan();
  p.calls[1].num_args = 4;
  refused(p, "argument range");
  p = samplePlan();
  p.copies[0].source = {BufferKind::Weight, 1, 0};
  EXPECT_EQ(runtime::validatePlan(p), "");  // a weight may be copied to an output...
  p.outputs[1].dtype = static_cast<runtime::ElemType>(200);  // no such element type
  refused(p, "dtype");  // ...but element types are checked
}

TEST(Plan, RunsCallsWithResolvedBuffersThenCopies) {
  runtime::Plan p = samplePlan();
  static std::vector<std::vector<void*>> seen;
  seen.clear();
  auto record = [](void** args) { seen.push_back({args[0], args[1], args[2]}); };
  TtuneKernelFn kernels[2] = {+record, +record};
  alignas(64) char w0[1200], w1[64], ws[128];
  float x[192], ids_and_y[16], x_again[192];
  for (int i = 0; i < 192; ++i) x[i] = static_cast<float>(i);
  void* weights[2] = {w0, w1};
  const void* inputs[2] = {x, ids_and_y};
  void* outputs[2] = {ids_and_y, x_again};
  runtime::runPlan(p, {kernels, weights, ws, inputs, outputs});
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (std::vector<void*>{x, w0, ws + 64}));
  EXPECT_EQ(seen[1], (std::vector<void*>{ws + 64, w1, ids_and_y}));
  EXPECT_EQ(std::memcmp(x, x_again, sizeof x), 0);
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

  auto expectRefused = [&](const std::string& file, LoadStatus status, const std::string& says, std::vector<int64_t> sizes = {1200, 28},
                           uint64_t d = 0) {
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
  expectRefused(variant("text.weights", std::string(bytes.size(), 'x')), LoadStatus::Corrupt, "not a ttune weights file");
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
