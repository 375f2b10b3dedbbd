// Exported models for ranges of sizes (`ttune export --dim seq=1..40`): the library serves every
// size of its ranges through the C API bit for bit as the in-process range model does, reports
// its sizes and the shapes that follow them, and refuses calls out of range or without shapes in
// one sentence, staying usable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "cli/model_loader.h"
#include "cli/range_models.h"
#include "codegen/target.h"
#include "deploy/image.h"
#include "executor/range_model.h"
#include "exported_library.h"
#include "runtime/npy.h"
#include "support/error.h"
#include "temp_dir.h"

namespace ttune::deploy {
namespace {

using namespace testing;

struct ShapedApi {
  decltype(&ttune_model_num_sizes) num_sizes;
  decltype(&ttune_model_size_info) size_info;
  decltype(&ttune_model_output_shape) output_shape;
  decltype(&ttune_model_run_shaped) run_shaped;
  decltype(&ttune_model_run_tensors) run_tensors;
  explicit ShapedApi(Library& lib) {
    lib.load(run_tensors, "ttune_model_run_tensors");
    lib.load(num_sizes, "ttune_model_num_sizes");
    lib.load(size_info, "ttune_model_size_info");
    lib.load(output_shape, "ttune_model_output_shape");
    lib.load(run_shaped, "ttune_model_run_shaped");
  }
};

// Runs the exported model on inputs of any size: output buffers as ttune_model_output_shape says.
std::vector<runtime::NDArray> runShaped(const Library& lib, const ShapedApi& api, ttune_model* m,
                                        const std::vector<runtime::NDArray>& inputs) {
  std::vector<const void*> in;
  std::vector<const int64_t*> shapes;
  for (const auto& a : inputs) {
    in.push_back(a.data());
    shapes.push_back(a.shape().data());
  }
  std::vector<runtime::NDArray> outs;
  std::vector<void*> out;
  for (int o = 0; o < lib.num_outputs(m); ++o) {
    ttune_tensor_info info;
    EXPECT_EQ(lib.output_info(m, o, &info), TTUNE_OK);
    te::Shape shape(static_cast<size_t>(info.ndim));
    EXPECT_EQ(api.output_shape(m, shapes.data(), o, shape.data()), TTUNE_OK) << lib.last_error();
    outs.push_back(runtime::NDArray::empty(shape, static_cast<te::DType>(info.dtype)));
    out.push_back(outs.back().data());
  }
  int rc = api.run_shaped(m, static_cast<int>(in.size()), in.data(), shapes.data(), static_cast<int>(out.size()),
                          out.data());
  EXPECT_EQ(rc, TTUNE_OK) << lib.last_error();
  return rc == TTUNE_OK ? outs : std::vector<runtime::NDArray>{};
}

// The model at `sizes` (one range), its seeded inputs.
std::vector<runtime::NDArray> inputsAt(const cli::ModelSource& src, int64_t size, uint64_t seed) {
  graph::Graph g = cli::loadModel(cli::atSizes(src, {size}), codegen::hostTarget());
  return executor::randomInputs(g, seed);
}

TEST(RangeExport, AnAttentionBlockServesEverySequenceLengthBitForBitAsTheInProcessModel) {
  TempDir dir;
  cli::ModelSource src;
  src.spec = cli::testing::attentionModel();
  src.dims = {"seq=1..40"};
  auto model = executor::RangeCompiledModel::compile(cli::loadRangeBuckets(src, codegen::hostTarget()), {});
  ASSERT_EQ(model->numBuckets(), 3u);
  ExportResult r = exportModel(model->artifacts(), options(dir.path, "attn", false));
  Library lib(r.library);
  ASSERT_NE(lib.handle, nullptr);
  ShapedApi api(lib);
  ttune_model* em = lib.create(dir.path.c_str(), 2);
  ASSERT_NE(em, nullptr) << lib.last_error();

  ASSERT_EQ(api.num_sizes(em), 1);
  ttune_size_info size;
  ASSERT_EQ(api.size_info(em, 0, &size), TTUNE_OK);
  EXPECT_STREQ(size.name, "seq");
  EXPECT_EQ(size.min, 1);
  EXPECT_EQ(size.max, 40);
  EXPECT_EQ(size.input, 0);
  EXPECT_EQ(size.axis, 1);
  ttune_tensor_info info;
  ASSERT_EQ(lib.input_info(em, 0, &info), TTUNE_OK);
  EXPECT_EQ(te::Shape(info.shape, info.shape + info.ndim), (te::Shape{1, -1, 16}));
  EXPECT_EQ(info.bytes, 40 * 16 * 4) << "bytes at the largest sizes";

  // Every bucket's ends and sizes the range check never imported.
  for (int64_t seq : {40, 1, 7, 10, 11, 20, 21, 23, 39}) {
    std::vector<runtime::NDArray> inputs = inputsAt(src, seq, static_cast<uint64_t>(seq));
    std::vector<runtime::NDArray> want = model->run(inputs);
    std::vector<runtime::NDArray> got = runShaped(lib, api, em, inputs);
    SCOPED_TRACE("seq " + std::to_string(seq));
    expectBitIdentical(got, want);
  }
  lib.destroy(em);
}

TEST(RangeExport, TheImageRoundTripsAndRefusesEveryTruncationAndABucketOutsideTheRanges) {
  cli::ModelSource src;
  src.spec = cli::testing::attentionModel();
  src.dims = {"seq=1..40"};
  executor::ModelOptions opt;
  ModelImage m;
  m.name = "attn";
  executor::ModelArtifacts a = executor::compileRangeArtifacts(cli::loadRangeBuckets(src, codegen::hostTarget()), opt);
  m.plan = a.plan;
  m.ranges = a.ranges;
  ASSERT_EQ(m.ranges.buckets.size(), 3u);
  std::string bytes = serializeImage(m), error;
  ModelImage back;
  ASSERT_TRUE(parseImage(bytes.data(), bytes.size(), back, error)) << error;
  ASSERT_EQ(back.ranges.buckets.size(), 3u);
  EXPECT_EQ(back.ranges.input_dims, m.ranges.input_dims);
  EXPECT_EQ(back.ranges.buckets[2].plan.calls.size(), m.ranges.buckets[2].plan.calls.size());
  for (size_t n = 0; n < bytes.size(); ++n) {
    ModelImage cut;
    EXPECT_FALSE(parseImage(bytes.data(), n, cut, error)) << "accepted the first " << n << " bytes";
  }
  m.ranges.buckets[0].max[0] = 41;
  bytes = serializeImage(m);
  EXPECT_FALSE(parseImage(bytes.data(), bytes.size(), back, error));
  EXPECT_NE(error.find("outside the model's ranges"), std::string::npos) << error;
}

TEST(RangeExport, TheCommandExportsABatchRangeThatRefusesBadCallsAndStaysUsable) {
  TempDir dir;
  cli::ModelSource src;
  src.spec = cli::testing::cnnModel();
  src.dims = {"batch=1..6"};
  fs::path out = dir.path / "export";
  const std::string cmd = std::string(TTUNE_BIN) + " export " + src.spec + " --dim batch=1..6 -o " + out.string() +
                          " --name cnn --no-static > " + (dir.path / "log.txt").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  Library lib((out / "libcnn.so").string());
  ASSERT_NE(lib.handle, nullptr);
  ShapedApi api(lib);
  ttune_model* em = lib.create(out.c_str(), 1);
  ASSERT_NE(em, nullptr) << lib.last_error();
  auto model = executor::RangeCompiledModel::compile(cli::loadRangeBuckets(src, codegen::hostTarget()), {});
  for (int64_t batch : {6, 1, 3}) {
    std::vector<runtime::NDArray> inputs = inputsAt(src, batch, 5);
    SCOPED_TRACE("batch " + std::to_string(batch));
    expectBitIdentical(runShaped(lib, api, em, inputs), model->run(inputs));
  }

  runtime::NDArray big({7, 3, 10, 10}, te::DType::Float32), odd({2, 3, 9, 10}, te::DType::Float32);
  runtime::NDArray logits({7, 10}, te::DType::Float32);
  const void* in[] = {big.data()};
  void* outs[] = {logits.data()};
  const int64_t* big_shape[] = {big.shape().data()};
  EXPECT_EQ(api.run_shaped(em, 1, in, big_shape, 1, outs), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(lib.last_error(), "size batch = 7 (axis 0 of input img) is outside its range 1..6");
  const int64_t* odd_shape[] = {odd.shape().data()};
  EXPECT_EQ(api.run_shaped(em, 1, in, odd_shape, 1, outs), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(lib.last_error(), "input img must be [2, 3, 10, 10] at these sizes, got [2, 3, 9, 10]");
  EXPECT_EQ(api.run_shaped(em, 1, in, nullptr, 1, outs), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lib.last_error()).find("takes inputs of several sizes (batch 1..6)"), std::string::npos)
      << lib.last_error();
  EXPECT_EQ(lib.run(em, in, outs), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lib.last_error()).find("ttune_model_run_shaped"), std::string::npos) << lib.last_error();
  int64_t shape[2] = {0, 0};
  EXPECT_EQ(api.output_shape(em, big_shape, 0, shape), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(api.size_info(em, 1, nullptr), TTUNE_ERROR_INVALID_ARGUMENT);

  std::vector<runtime::NDArray> inputs = inputsAt(src, 2, 9);
  expectBitIdentical(runShaped(lib, api, em, inputs), model->run(inputs));

  // Described tensors: dtypes, ranks and buffer sizes are checked, the output's shape filled.
  inputs = inputsAt(src, 3, 4);
  te::Shape in_shape = inputs[0].shape(), out_shape(2, 0);
  runtime::NDArray result({6, 10}, te::DType::Float32);  // room for a batch of 6
  ttune_tensor t_in{inputs[0].data(), TTUNE_FLOAT32, 4, in_shape.data(), inputs[0].bytes()};
  ttune_tensor t_out{result.data(), TTUNE_FLOAT32, 2, out_shape.data(), result.bytes()};
  ASSERT_EQ(api.run_tensors(em, 1, &t_in, 1, &t_out), TTUNE_OK) << lib.last_error();
  EXPECT_EQ(out_shape, (te::Shape{3, 10}));
  runtime::NDArray first3 = runtime::NDArray::empty({3, 10}, te::DType::Float32);
  std::memcpy(first3.data(), result.data(), static_cast<size_t>(first3.bytes()));
  expectBitIdentical({first3}, model->run(inputs));
  ttune_tensor wrong_type = t_in;
  wrong_type.dtype = TTUNE_INT32;
  EXPECT_EQ(api.run_tensors(em, 1, &wrong_type, 1, &t_out), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(lib.last_error(), "input img of model cnn must be float32 of rank 4, got int32 [3, 3, 10, 10]");
  ttune_tensor small_out = t_out;
  small_out.bytes = 40;
  EXPECT_EQ(api.run_tensors(em, 1, &t_in, 1, &small_out), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(lib.last_error(), "output logits of model cnn needs 120 bytes, its buffer has 40");
  ttune_tensor short_in = t_in;
  short_in.bytes = 100;
  EXPECT_EQ(api.run_tensors(em, 1, &short_in, 1, &t_out), TTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lib.last_error()).find("needs 3600 bytes"), std::string::npos) << lib.last_error();
  lib.destroy(em);

  // The C example runs it at the size of its .npy input.
  const fs::path log = dir.path / "make.txt", npy_in = dir.path / "in.npy", got = dir.path / "out.npy";
  const std::string make = "make -s -C " + std::string(TTUNE_EXAMPLES) + "/c MODEL_DIR=" + out.string() +
                           " NAME=cnn OUT=" + dir.path.string() + " " + (dir.path / "run_model").string();
  ASSERT_EQ(std::system((make + " > " + log.string() + " 2>&1").c_str()), 0);
  inputs = inputsAt(src, 5, 11);
  ASSERT_TRUE(runtime::writeNpy(npy_in.string(), inputs[0]).ok());
  const std::string run = (dir.path / "run_model").string() + " " + out.string() + " " + npy_in.string() + " -o " +
                          got.string() + " > " + log.string() + " 2>&1";
  ASSERT_EQ(std::system(run.c_str()), 0);
  auto written = runtime::readNpy(got.string());
  ASSERT_TRUE(written.ok()) << written.error();
  expectBitIdentical({*written}, model->run(inputs));
}

}  // namespace
}  // namespace ttune::deploy
