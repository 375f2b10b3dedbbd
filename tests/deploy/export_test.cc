// Exported models: the library loaded through its C API computes bit for bit what the in-process
// executor computes, matches the reference evaluator, refuses bad input with a sentence instead
// of crashing, exports nothing but the C API and links no part of the compiler; and the C example
// (examples/c) built with the system compiler agrees with `ttune run`.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "codegen/target.h"
#include "deploy/cpu_features.h"
#include "deploy/exporter.h"
#include "executor/executor.h"
#include "exported_library.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "models/zoo.h"
#include "onnx_builder.h"
#include "reference.h"
#include "runtime/npy.h"
#include "support/error.h"
#include "temp_dir.h"
#include "ttune/ttune_model.h"

namespace ttune::deploy {
namespace {

using namespace testing;

TEST(Export, SmallOnnxModelMatchesTheExecutorBitForBitAndTheReference) {
  TempDir dir;
  graph::Graph original = frontend::importOnnx(smallOnnx(dir.path));
  graph::Graph g = original;
  graph::optimizeGraph(g);
  executor::CompiledModel m = executor::CompiledModel::compile(g);
  ExportResult r = exportModel(m.artifacts(), options(dir.path, "small"));
  EXPECT_EQ(r.kernels, static_cast<int>(m.kernels().size()));
  EXPECT_TRUE(fs::exists(dir.path / "libsmall.so"));
  EXPECT_TRUE(fs::exists(dir.path / "libsmall.a"));
  EXPECT_TRUE(fs::exists(dir.path / "small.h"));
  EXPECT_TRUE(fs::exists(dir.path / "ttune_model.h"));
  for (const char* f : {"small-config.cmake", "small.pc", "small-static.pc"})
    EXPECT_TRUE(fs::exists(dir.path / f)) << f;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 9)
      << "no scratch files are left";

  Library lib(r.library);
  ASSERT_NE(lib.handle, nullptr);
  EXPECT_EQ(lib.abi_version(), TTUNE_ABI_VERSION);
  ttune_model* em = lib.create(dir.path.c_str(), 2);
  ASSERT_NE(em, nullptr) << lib.last_error();
  EXPECT_STREQ(lib.last_error(), "");
  EXPECT_STREQ(lib.name(em), "small");
  ASSERT_EQ(lib.num_inputs(em), 1);
  ASSERT_EQ(lib.num_outputs(em), 3);
  ttune_tensor_info info;
  ASSERT_EQ(lib.input_info(em, 0, &info), TTUNE_OK);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, TTUNE_FLOAT32);
  EXPECT_EQ(te::Shape(info.shape, info.shape + info.ndim), (te::Shape{1, 3, 12, 12}));
  EXPECT_EQ(info.bytes, 1 * 3 * 12 * 12 * 4);
  ASSERT_EQ(lib.output_info(em, 1, &info), TTUNE_OK);
  EXPECT_STREQ(info.name, "p");

  for (uint64_t seed : {1, 2, 3}) {
    std::vector<runtime::NDArray> inputs = executor::randomInputs(g, seed);
    std::vector<runtime::NDArray> want = m.run(inputs);
    std::vector<runtime::NDArray> got = runExported(lib, em, inputs);
    expectBitIdentical(got, want);
    std::vector<runtime::NDArray> ref = graph::evaluateGraph(original, inputs);
    for (size_t i = 0; i < ref.size() && i < got.size(); ++i) {
      runtime::Comparison c = runtime::compare(got[i], ref[i], 1e-5, 1e-5);
      EXPECT_TRUE(c.ok()) << "output " << i << ": max abs error " << c.max_abs_err;
    }
  }
  // Described tensors (ttune_model_run_tensors): the declared shape is required.
  auto run_tensors = reinterpret_cast<decltype(&ttune_model_run_tensors)>(dlsym(lib.handle, "ttune_model_run_tensors"));
  ASSERT_NE(run_tensors, nullptr);
  std::vector<runtime::NDArray> inputs = executor::randomInputs(g, 4), want = m.run(inputs);
  std::vector<runtime::NDArray> got;
  std::vector<te::Shape> in_shapes{inputs[0].shape()}, out_shapes;
  std::vector<ttune_tensor> outs;
  for (const runtime::NDArray& w : want) {
    got.push_back(runtime::NDArray::empty(w.shape(), w.dtype()));
    out_shapes.emplace_back(w.shape().size(), 0);
  }
  for (size_t o = 0; o < got.size(); ++o)
    outs.push_back({got[o].data(), TTUNE_FLOAT32, static_cast<int32_t>(got[o].shape().size()), out_shapes[o].data(),
                    got[o].bytes()});
  ttune_tensor in{inputs[0].data(), TTUNE_FLOAT32, 4, in_shapes[0].data(), inputs[0].bytes()};
  ASSERT_EQ(run_tensors(em, 1, &in, 3, outs.data()), TTUNE_OK) << lib.last_error();
  expectBitIdentical(got, want);
  EXPECT_EQ(out_shapes[0], want[0].shape());
  in_shapes[0][2] = 11;
  EXPECT_EQ(run_tensors(em, 1, &in, 3, outs.data()), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(lib.last_error(), "input x of model small must be float32 [1, 3, 12, 12], got float32 [1, 3, 11, 12]");
  lib.destroy(em);
}

// A quantized model with 8-bit inputs and outputs: uint8 x -> QLinearConv (uint8) ->
// DequantizeLinear (float32) -> QuantizeLinear (int8).
TEST(Export, QuantizedModelHasEightBitTensorsAndMatchesTheExecutor) {
  TempDir dir;
  ModelBuilder b(13);
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{10}, int64_t{10}}, te::DType::UInt8);
  runtime::NDArray w({4, 3, 3, 3}, te::DType::UInt8);
  w.fillRandom(5, 0, 256);
  b.initializer("w", w);
  runtime::NDArray zp8({}, te::DType::UInt8), zi8({}, te::DType::Int8);
  zp8.fill(100);
  zi8.fill(-3);
  b.initializer("xz", zp8);
  b.initializer("wz", zp8);
  b.initializer("yz", zp8);
  b.initializer("oz", zi8);
  b.floats("xs", {}, {0.02f});
  b.floats("ws", {}, {0.01f});
  b.floats("ys", {}, {0.05f});
  b.floats("os", {}, {0.03f});
  b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"q"});
  b.node("DequantizeLinear", {"q", "ys", "yz"}, {"d"});
  b.node("QuantizeLinear", {"d", "os", "oz"}, {"o"});
  b.output("q");
  b.output("o");
  std::string path = (dir.path / "quant.onnx").string();
  std::ofstream(path, std::ios::binary) << b.bytes();
  graph::Graph original = frontend::importOnnx(path);
  graph::Graph g = original;
  graph::optimizeGraph(g);
  executor::CompiledModel m = executor::CompiledModel::compile(g);
  ExportResult r = exportModel(m.artifacts(), options(dir.path, "quant"));
  Library lib(r.library);
  ASSERT_NE(lib.handle, nullptr);
  ttune_model* em = lib.create(dir.path.c_str(), 1);
  ASSERT_NE(em, nullptr) << lib.last_error();
  ttune_tensor_info info;
  ASSERT_EQ(lib.input_info(em, 0, &info), TTUNE_OK);
  EXPECT_EQ(info.dtype, TTUNE_UINT8);
  EXPECT_EQ(info.bytes, 3 * 10 * 10);
  ASSERT_EQ(lib.output_info(em, 0, &info), TTUNE_OK);
  EXPECT_EQ(info.dtype, TTUNE_UINT8);
  ASSERT_EQ(lib.output_info(em, 1, &info), TTUNE_OK);
  EXPECT_EQ(info.dtype, TTUNE_INT8);
  for (uint64_t seed : {1, 2}) {
    std::vector<runtime::NDArray> inputs = executor::randomInputs(g, seed, 256);
    std::vector<runtime::NDArray> want = m.run(inputs);
    expectBitIdentical(runExported(lib, em, inputs), want);
    std::vector<runtime::NDArray> ref = graph::evaluateGraph(original, inputs);
    for (size_t i = 0; i < ref.size(); ++i) EXPECT_TRUE(runtime::compare(want[i], ref[i], 0, 0).ok()) << "output " << i;
  }
  lib.destroy(em);
}

// Every element type the C API names: a model whose inputs and outputs are float16, bfloat16,
// float64, int16, uint16, uint32 and uint64, exported, matches the executor bit for bit and the
// reference evaluator; the header's codes are the C API's.
TEST(Export, ModelWithEveryNewElementTypeMatchesTheExecutor) {
  TempDir dir;
  ModelBuilder b(13);
  b.input("h", {int64_t{2}, int64_t{19}}, te::DType::Float16);
  b.input("bf", {int64_t{2}, int64_t{19}}, te::DType::BFloat16);
  b.input("d", {int64_t{2}, int64_t{19}}, te::DType::Float64);
  b.input("s", {int64_t{2}, int64_t{19}}, te::DType::Int16);
  b.input("u", {int64_t{2}, int64_t{19}}, te::DType::UInt64);
  b.node("Mul", {"h", "h"}, {"h2"});  // float16 computed in float32
  setAttr(b.node("Cast", {"bf"}, {"bf32"}), "to", int64_t{onnx::TensorProto::FLOAT});
  b.node("Exp", {"d"}, {"de"});  // float64 math
  setAttr(b.node("Cast", {"s"}, {"s16"}), "to", int64_t{onnx::TensorProto::UINT16});
  setAttr(b.node("Cast", {"u"}, {"u32"}), "to", int64_t{onnx::TensorProto::UINT32});
  b.node("Max", {"u", "u"}, {"umax"});
  for (const char* o : {"h2", "bf32", "de", "s16", "u32", "umax"}) b.output(o);
  std::string path = (dir.path / "dtypes.onnx").string();
  std::ofstream(path, std::ios::binary) << b.bytes();
  graph::Graph original = frontend::importOnnx(path);
  graph::Graph g = original;
  graph::optimizeGraph(g);
  executor::CompiledModel m = executor::CompiledModel::compile(g);
  ExportResult r = exportModel(m.artifacts(), options(dir.path, "dtypes"));
  Library lib(r.library);
  ASSERT_NE(lib.handle, nullptr);
  ttune_model* em = lib.create(dir.path.c_str(), 1);
  ASSERT_NE(em, nullptr) << lib.last_error();
  const int want_in[] = {TTUNE_FLOAT16, TTUNE_BFLOAT16, TTUNE_FLOAT64, TTUNE_INT16, TTUNE_UINT64};
  const int want_out[] = {TTUNE_FLOAT16, TTUNE_FLOAT32, TTUNE_FLOAT64, TTUNE_UINT16, TTUNE_UINT32, TTUNE_UINT64};
  ttune_tensor_info info;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(lib.input_info(em, i, &info), TTUNE_OK);
    EXPECT_EQ(info.dtype, want_in[i]) << "input " << i;
  }
  for (int i = 0; i < 6; ++i) {
    ASSERT_EQ(lib.output_info(em, i, &info), TTUNE_OK);
    EXPECT_EQ(info.dtype, want_out[i]) << "output " << i;
  }
  EXPECT_EQ(TTUNE_INT16, 6);
  EXPECT_EQ(TTUNE_BFLOAT16, 12);
  std::ifstream header(dir.path / "dtypes.h");
  std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("TTUNE_FLOAT16"), std::string::npos);
  for (uint64_t seed : {1, 2}) {
    std::vector<runtime::NDArray> inputs = executor::randomInputs(g, seed, 1000);
    std::vector<runtime::NDArray> want = m.run(inputs);
    expectBitIdentical(runExported(lib, em, inputs), want);
    std::vector<runtime::NDArray> ref = graph::evaluateGraph(original, inputs);
    for (size_t i = 0; i < ref.size(); ++i) EXPECT_TRUE(runtime::compare(want[i], ref[i], 0, 0).ok()) << "output " << i;
  }
  lib.destroy(em);
}

TEST(Npy, EveryElementTypeRoundTrips) {
  TempDir dir;
  for (te::DType t : {te::DType::Int16, te::DType::UInt16, te::DType::UInt32, te::DType::UInt64, te::DType::Float64,
                      te::DType::Float16}) {
    SCOPED_TRACE(te::dtypeName(t));
    runtime::NDArray a({3, 5}, t);
    a.fillRandom(3, -100, 100);
    std::string p = (dir.path / (std::string(te::dtypeName(t)) + ".npy")).string();
    ASSERT_TRUE(runtime::writeNpy(p, a).ok());
    auto back = runtime::readNpy(p);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->dtype(), t);
    EXPECT_EQ(std::memcmp(back->data(), a.data(), static_cast<size_t>(a.bytes())), 0);
  }
  // bfloat16 goes out as its uint16 bits (numpy has no bfloat16) and comes back as uint16.
  runtime::NDArray bf({4}, te::DType::BFloat16);
  bf.fill(1.5);
  std::string p = (dir.path / "bf.npy").string();
  ASSERT_TRUE(runtime::writeNpy(p, bf).ok());
  auto back = runtime::readNpy(p);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->dtype(), te::DType::UInt16);
  EXPECT_EQ(back->as<uint16_t>()[0], 0x3fc0);
}

class ExportedSmallModel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    graph_ = new graph::Graph(loadOptimized(smallOnnx(dir_->path)));
    ExportResult r = exportModel(executor::compileArtifacts(*graph_), options(dir_->path, "small"));
    lib_ = new Library(r.library);
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete graph_;
  }
  static TempDir* dir_;
  static graph::Graph* graph_;
  static Library* lib_;  // kept loaded (see Library)
};
TempDir* ExportedSmallModel::dir_ = nullptr;
graph::Graph* ExportedSmallModel::graph_ = nullptr;
Library* ExportedSmallModel::lib_ = nullptr;

TEST_F(ExportedSmallModel, BadArgumentsAreErrorsWithOneSentenceNotCrashes) {
  const Library& lib = *lib_;
  std::string weights = (dir_->path / "small.weights").string();
  auto createFails = [&](const char* path, int threads, int status, const std::string& says) {
    ttune_model* m = lib.create(path, threads);
    EXPECT_EQ(m, nullptr);
    EXPECT_EQ(lib.last_status(), status) << lib.last_error();
    std::string e = lib.last_error();
    EXPECT_NE(e.find(says), std::string::npos) << e;
    EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 0) << e;
  };
  createFails(nullptr, 1, TTUNE_ERROR_INVALID_ARGUMENT, "null pointer");
  createFails(dir_->path.c_str(), -1, TTUNE_ERROR_INVALID_ARGUMENT, "thread count");
  createFails((dir_->path / "nowhere").c_str(), 1, TTUNE_ERROR_IO, "nowhere");
  // A directory without the weights, a damaged copy, the weights of another export.
  fs::create_directories(dir_->path / "empty");
  createFails((dir_->path / "empty").c_str(), 1, TTUNE_ERROR_IO, "empty/small.weights");
  std::string bytes;
  {
    std::ifstream in(weights, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  bytes[bytes.size() / 2] ^= 0x40;
  std::ofstream(dir_->path / "damaged.weights", std::ios::binary) << bytes;
  createFails((dir_->path / "damaged.weights").c_str(), 1, TTUNE_ERROR_CORRUPT, "corrupt");
  std::ofstream(dir_->path / "half.weights", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  createFails((dir_->path / "half.weights").c_str(), 1, TTUNE_ERROR_CORRUPT, "truncated");
  {
    TempDir other;  // the same model with other weights
    ExportResult r =
        exportModel(executor::compileArtifacts(loadOptimized(smallOnnx(other.path, 11))), options(other.path, "small"));
    createFails(r.weights.c_str(), 1, TTUNE_ERROR_CORRUPT, "another export");
  }

  ttune_model* m = lib.create(weights.c_str(), 1);  // the file itself works as well as its directory
  ASSERT_NE(m, nullptr) << lib.last_error();
  ttune_tensor_info info;
  EXPECT_EQ(lib.input_info(m, 1, &info), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lib.last_error()).find("input index 1 is out of range"), std::string::npos) << lib.last_error();
  EXPECT_EQ(lib.output_info(m, -1, &info), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.output_info(m, 0, nullptr), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.input_info(nullptr, 0, &info), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.num_inputs(nullptr), -1);
  EXPECT_EQ(lib.last_status(), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(lib.name(nullptr), "");

  std::vector<runtime::NDArray> inputs = executor::randomInputs(*graph_, 1);
  std::vector<float> y(10), p(8 * 6 * 6), x(3 * 12 * 12);
  const void* in[1] = {inputs[0].data()};
  void* out[3] = {y.data(), p.data(), x.data()};
  void* out_null[3] = {y.data(), nullptr, x.data()};
  const void* in_null[1] = {nullptr};
  EXPECT_EQ(lib.run(nullptr, in, out), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.run(m, nullptr, out), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lib.last_error()).find("input array"), std::string::npos) << lib.last_error();
  EXPECT_EQ(lib.run(m, in, nullptr), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.run(m, in_null, out), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.run(m, in, out_null), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lib.last_error()).find("output 1 (p) is a null pointer"), std::string::npos)
      << lib.last_error();
  EXPECT_EQ(lib.run_n(m, 2, in, 3, out), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lib.last_error()).find("takes 1 inputs, got 2"), std::string::npos) << lib.last_error();
  EXPECT_EQ(lib.run_n(m, 1, in, 2, out), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lib.run(m, in, out), TTUNE_OK) << lib.last_error();
  EXPECT_STREQ(lib.last_error(), "");
  EXPECT_EQ(lib.last_status(), TTUNE_OK);
  EXPECT_EQ(std::memcmp(x.data(), inputs[0].data(), x.size() * 4), 0) << "the input passed through as output 2";
  lib.destroy(m);
  lib.destroy(nullptr);
}

TEST_F(ExportedSmallModel, ErrorsAreThreadLocalAndConcurrentRunsAgree) {
  const Library& lib = *lib_;
  ttune_model* m = lib.create(dir_->path.c_str(), 2);
  ASSERT_NE(m, nullptr) << lib.last_error();
  std::thread([&] { EXPECT_EQ(lib.create(nullptr, 1), nullptr); }).join();
  EXPECT_STREQ(lib.last_error(), "") << "another thread's error leaked into this one";

  std::vector<runtime::NDArray> inputs = executor::randomInputs(*graph_, 4);
  std::vector<runtime::NDArray> want = runExported(lib, m, inputs);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(3, 0);
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < 20; ++r) {
        std::vector<runtime::NDArray> got = runExported(lib, m, inputs);
        for (size_t i = 0; i < got.size(); ++i)
          mismatches[t] += std::memcmp(got[i].data(), want[i].data(), static_cast<size_t>(want[i].bytes())) != 0;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches, (std::vector<int>{0, 0, 0}));
  lib.destroy(m);
}

TEST_F(ExportedSmallModel, ExportsOnlyTheCApi) {
  std::vector<std::string> api = apiSymbols();
  EXPECT_GE(api.size(), 14u);
  for (const std::string& s : api) EXPECT_NE(dlsym(lib_->handle, s.c_str()), nullptr) << s;
  for (const char* internal : {"ttune_parallel_for", "ttune_alloc", "ttune_free", "ttune_embedded"})
    EXPECT_EQ(dlsym(lib_->handle, internal), nullptr) << internal << " is exported";
  std::string nm = (dir_->path / "nm.txt").string();
  ASSERT_EQ(std::system(("nm -D --defined-only " + (dir_->path / "libsmall.so").string() + " > " + nm).c_str()), 0);
  std::ifstream in(nm);
  int defined = 0;
  for (std::string line; std::getline(in, line);) {
    ++defined;
    EXPECT_NE(std::find(api.begin(), api.end(), line.substr(line.rfind(' ') + 1)), api.end()) << line;
  }
  EXPECT_EQ(defined, static_cast<int>(api.size()));
}

// Code for a CPU with features this one lacks is refused when loaded, not run into SIGILL.
TEST(Export, ForeignTargetIsRefusedOnThisCpu) {
  auto target = codegen::resolveTarget("sapphirerapids");
  ASSERT_TRUE(target.ok()) << target.error();
  std::vector<std::string> missing = missingCpuFeatures(codegen::kernelFeatures(*target));
  if (missing.empty()) GTEST_SKIP() << "this machine runs sapphirerapids code";
  TempDir dir;
  executor::ModelOptions opt;
  opt.target = *target;
  ExportResult r =
      exportModel(executor::compileArtifacts(loadOptimized(smallOnnx(dir.path)), opt), options(dir.path, "spr", false));
  EXPECT_FALSE(fs::exists(dir.path / "libspr.a"));
  Library lib(r.library);
  EXPECT_EQ(lib.create(dir.path.c_str(), 1), nullptr);
  std::string e = lib.last_error();
  EXPECT_NE(e.find("this CPU lacks " + missing[0]), std::string::npos) << e;
  EXPECT_NE(e.find("sapphirerapids"), std::string::npos) << e;
}

TEST(Export, BadNameOrDirectoryIsAClearError) {
  TempDir dir;
  executor::ModelArtifacts a = executor::compileArtifacts(loadOptimized(smallOnnx(dir.path)));
  try {
    exportModel(a, options(dir.path, "1bad-name"));
    ADD_FAILURE() << "a bad name was accepted";
  } catch (const ttune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--name must be a C identifier"), std::string::npos) << e.what();
  }
  std::ofstream(dir.path / "file") << "x";
  try {
    exportModel(a, options(dir.path / "file", "m"));
    ADD_FAILURE() << "a file was accepted as the export directory";
  } catch (const ttune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create export directory"), std::string::npos) << e.what();
  }
  try {
    exportModel(a, options(dir.path / "out", "m", true, "no-such-compiler-ttune"));
    ADD_FAILURE() << "a missing compiler was not noticed";
  } catch (const ttune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-compiler-ttune"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("C/C++ toolchain"), std::string::npos) << e.what();
  }
}

// ---- the command line and the C example ---------------------------------------------------------

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs a shell command; its output goes to `log`; returns the exit status.
int shell(const std::string& cmd, const fs::path& log) {
  int rc = std::system((cmd + " > " + log.string() + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::vector<runtime::NDArray> readAll(const fs::path& dir, const std::string& prefix, int n) {
  std::vector<runtime::NDArray> out;
  for (int i = 0; i < n; ++i) {
    auto a = runtime::readNpy((dir / (prefix + std::to_string(i) + ".npy")).string());
    EXPECT_TRUE(a.ok()) << a.error();
    if (a.ok()) out.push_back(*a);
  }
  return out;
}

struct ExampleRun {
  std::vector<runtime::NDArray> ttune_run;
  // Per build of the C example (its Makefile with -l / the archive / pkg-config, the CMake consumer
  // with each imported target): the program's name and its outputs.
  std::vector<std::pair<std::string, std::vector<runtime::NDArray>>> programs;
  std::string ldd;
};

// `ttune export MODEL`, the C example built against it with the system compiler (linking the
// shared library and, separately, the static archive; with `consumers` also through the export's
// pkg-config files and by the CMake project examples/cmake through find_package), every program
// run on `inputs`, and `ttune run` on the same inputs.
ExampleRun exportAndRunTheCExample(const std::string& model, const std::vector<runtime::NDArray>& inputs, int outputs,
                                   const fs::path& dir, bool consumers = false) {
  const std::string ttune = TTUNE_BIN;
  fs::path out = dir / "export", log = dir / "log.txt";
  ExampleRun r;
  EXPECT_EQ(shell(ttune + " export " + model + " -o " + out.string() + " --name m", log), 0) << slurp(log);
  const std::string make =
      "make -s -C " + std::string(TTUNE_EXAMPLES) + "/c MODEL_DIR=" + out.string() + " NAME=m OUT=" + dir.string();
  EXPECT_EQ(shell(make + " " + (dir / "run_model").string() + " static", log), 0) << slurp(log);
  std::vector<fs::path> programs = {dir / "run_model", dir / "run_model_static"};
  if (consumers) {
    EXPECT_EQ(shell(make + " pkgconfig", log), 0) << slurp(log);
    const fs::path build = dir / "cmake-consumer";
    EXPECT_EQ(
        shell(std::string(TTUNE_CMAKE) + " -S " + TTUNE_EXAMPLES + "/cmake -B " + build.string() +
                  " -DTTUNE_MODEL=m -Dm_DIR=" + out.string() + " && " + TTUNE_CMAKE + " --build " + build.string(),
              log),
        0)
        << slurp(log);
    for (const char* p : {"run_model_pc", "run_model_pc_static"}) programs.push_back(dir / p);
    for (const char* p : {"run_model", "run_model_static"}) programs.push_back(build / p);
  }
  std::string in_args, r_args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    fs::path p = dir / ("in" + std::to_string(i) + ".npy");
    EXPECT_TRUE(runtime::writeNpy(p.string(), inputs[i]).ok());
    in_args += " " + p.string();
  }
  for (int i = 0; i < outputs; ++i) r_args += " " + (dir / ("r" + std::to_string(i) + ".npy")).string();
  for (size_t k = 0; k < programs.size(); ++k) {
    const std::string prefix = "p" + std::to_string(k) + "_";
    std::string o_args;
    for (int i = 0; i < outputs; ++i) o_args += " " + (dir / (prefix + std::to_string(i) + ".npy")).string();
    EXPECT_EQ(shell(programs[k].string() + " " + out.string() + in_args + " -o" + o_args + " --threads 2", log), 0)
        << programs[k] << ": " << slurp(log);
    r.programs.emplace_back(programs[k].string(), readAll(dir, prefix, outputs));
  }
  EXPECT_EQ(shell(ttune + " run " + model + " --threads 2 --inputs" + in_args + " --outputs" + r_args, log), 0)
      << slurp(log);
  r.ttune_run = readAll(dir, "r", outputs);
  EXPECT_EQ(shell("ldd " + (out / "libm.so").string(), log), 0);
  r.ldd = slurp(log);
  return r;
}

// Every build of the example computes bit for bit what `ttune run` computes.
void expectEveryProgramAgrees(const ExampleRun& r) {
  for (const auto& [program, got] : r.programs) {
    SCOPED_TRACE(program);
    expectBitIdentical(got, r.ttune_run);
  }
}

void expectNoCompilerInside(const std::string& ldd) {
  for (const char* lib : {"LLVM", "xgboost", "sqlite", "protobuf", "onnx", "stdc++"})
    EXPECT_EQ(ldd.find(lib), std::string::npos) << "the exported library depends on " << lib << ":\n" << ldd;
}

TEST(CExample, SmallOnnxModelAgreesWithTtuneRunAndTheReferenceHoweverItIsLinked) {
  TempDir dir;
  std::string onnx = smallOnnx(dir.path);
  std::vector<runtime::NDArray> inputs = executor::randomInputs(loadOptimized(onnx), 7);
  ExampleRun r = exportAndRunTheCExample(onnx, inputs, 3, dir.path, /*consumers=*/true);
  ASSERT_EQ(r.programs.size(), 6u);
  expectEveryProgramAgrees(r);
  const std::vector<runtime::NDArray>& shared = r.programs[0].second;
  std::vector<runtime::NDArray> ref = graph::evaluateGraph(frontend::importOnnx(onnx), inputs);
  ASSERT_EQ(shared.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i)
    EXPECT_TRUE(runtime::compare(shared[i], ref[i], 1e-5, 1e-5).ok()) << "output " << i;
  expectNoCompilerInside(r.ldd);
}

TEST(CExample, MobileNetV2AgreesWithTtuneRunAndAnIndependentImplementation) {
  TempDir dir;
  graph::Graph g = models::buildModel("mobilenet_v2");
  std::vector<runtime::NDArray> inputs = executor::randomInputs(g, 3);
  ExampleRun r = exportAndRunTheCExample("mobilenet_v2", inputs, 1, dir.path);
  ASSERT_EQ(r.programs.size(), 2u);
  expectEveryProgramAgrees(r);
  std::vector<runtime::NDArray> expected = models::testing::interpret(g, inputs);
  ASSERT_EQ(r.programs[0].second.size(), 1u);
  EXPECT_TRUE(models::testing::near(r.programs[0].second[0], expected[0], 1e-3, 1e-3));
  expectNoCompilerInside(r.ldd);
}

TEST(CExample, ExportCommandErrorsAreOneLine) {
  TempDir dir;
  fs::path log = dir.path / "log.txt";
  const std::string ttune = TTUNE_BIN;
  EXPECT_EQ(shell(ttune + " export mobilenet_v2", log), 2) << slurp(log);
  EXPECT_EQ(shell(ttune + " export mobilenet_v2 -o " + dir.path.string() + " --name 9lives", log), 1);
  EXPECT_EQ(slurp(log),
            "ttune: --name must be a C identifier (letters, digits and _, not starting with a digit), got '9lives'\n");
  EXPECT_EQ(shell(ttune + " export no_such_model -o " + dir.path.string(), log), 1);
  std::string said = slurp(log);
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
  EXPECT_EQ(shell(ttune + " export mobilenet_v2 -o " + dir.path.string() + " --records " +
                      (dir.path / "missing.jsonl").string(),
                  log),
            1);
  EXPECT_NE(slurp(log).find("missing.jsonl"), std::string::npos) << slurp(log);
}

}  // namespace
}  // namespace ttune::deploy
