// The execution plan (runtime/plan.h) as the exported runtime reads it: validatePlan refuses every
// index, offset, size and element type out of range and accepts views inside their buffers;
// the byte image round-trips and refuses truncations; runCall, runCopies and runPlan hand each
// kernel the resolved buffers.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/plan.h"
#include "runtime/sample_plan.h"

namespace ttune::runtime {
namespace {

TEST(ElemType, SizesAndNamesOfEveryType) {
  struct Case {
    ElemType t;
    int bytes;
    const char* name;
  };
  for (const Case& c :
       {Case{ElemType::Float32, 4, "float32"}, Case{ElemType::Int32, 4, "int32"}, Case{ElemType::Int64, 8, "int64"},
        Case{ElemType::Bool, 1, "bool"}, Case{ElemType::Int8, 1, "int8"}, Case{ElemType::UInt8, 1, "uint8"},
        Case{ElemType::Int16, 2, "int16"}, Case{ElemType::UInt16, 2, "uint16"}, Case{ElemType::UInt32, 4, "uint32"},
        Case{ElemType::UInt64, 8, "uint64"}, Case{ElemType::Float64, 8, "float64"},
        Case{ElemType::Float16, 2, "float16"}, Case{ElemType::BFloat16, 2, "bfloat16"}}) {
    EXPECT_EQ(elemBytes(c.t), c.bytes) << c.name;
    EXPECT_STREQ(elemName(c.t), c.name);
  }
  EXPECT_EQ(elemBytes(static_cast<ElemType>(13)), 0);  // unknown: no size, so plans naming it are refused
  EXPECT_STREQ(elemName(static_cast<ElemType>(13)), "?");
}

TEST(TensorSpec, ElementsAndBytes) {
  EXPECT_EQ((TensorSpec{"s", {}, ElemType::Float64}.elements()), 1);  // a scalar
  EXPECT_EQ((TensorSpec{"s", {}, ElemType::Float64}.bytes()), 8);
  EXPECT_EQ((TensorSpec{"t", {2, 3, 4}, ElemType::Int16}.bytes()), 48);
  EXPECT_EQ((TensorSpec{"e", {5, 0}, ElemType::Float32}.bytes()), 0);
}

TEST(Plan, SizesAndShapesOutOfRangeAreRefused) {
  EXPECT_EQ(validatePlan(samplePlan()), "");
  EXPECT_EQ(validatePlan(Plan{}), "");  // nothing to run is a valid plan
  Plan p = samplePlan();
  p.workspace_bytes = -1;
  EXPECT_EQ(validatePlan(p), "the workspace size is negative");
  p = samplePlan();
  p.weight_bytes[1] = -4;
  EXPECT_EQ(validatePlan(p), "a weight has a negative size");
  p = samplePlan();
  p.inputs[1].shape = {-1};
  EXPECT_EQ(validatePlan(p), "tensor ids has a bad dimension");
  p = samplePlan();
  p.outputs[0].shape = {int64_t(1) << 30, int64_t(1) << 30};
  EXPECT_EQ(validatePlan(p), "tensor y is too large");
}

TEST(Plan, ACopyNeedsItsWholeOutputInsideTheSource) {
  Plan p = samplePlan();
  p.copies[0].output = 2;
  EXPECT_EQ(validatePlan(p), "a copy names output 2");
  p = samplePlan();
  p.copies[0].source.offset = 4;  // x_again is all of x: no room for an offset
  EXPECT_EQ(validatePlan(p), "an input offset is out of range");
  p = samplePlan();
  p.copies[0].source = {BufferKind::Weight, 0, 0};  // weight 0 (1200 bytes) is larger than x_again (768)
  EXPECT_EQ(validatePlan(p), "");
  p.copies[0].source.offset = 1200 - 768;
  EXPECT_EQ(validatePlan(p), "");
  p.copies[0].source.offset += 1;
  EXPECT_EQ(validatePlan(p), "a weight offset is out of range");
}

TEST(Plan, TheByteImageRoundTripsAndRefusesEveryTruncation) {
  std::string bytes;
  serializePlan(samplePlan(), bytes);
  Plan back;
  std::string error;
  const char* data = bytes.data();
  ASSERT_TRUE(parsePlan(data, bytes.data() + bytes.size(), back, error)) << error;
  EXPECT_EQ(data, bytes.data() + bytes.size());  // the reader stops at the plan's end
  expectSamePlan(back, samplePlan());
  for (size_t n = 0; n < bytes.size(); ++n) {
    const char* cut = bytes.data();
    Plan partial;
    EXPECT_FALSE(parsePlan(cut, bytes.data() + n, partial, error)) << "accepted the first " << n << " bytes";
    EXPECT_FALSE(error.empty());
  }
}

TEST(Plan, InvalidIndicesAreRefused) {
  auto refused = [](Plan p, const std::string& why) {
    std::string bytes;
    serializePlan(p, bytes);
    Plan back;
    std::string error;
    const char* data = bytes.data();
    EXPECT_FALSE(parsePlan(data, bytes.data() + bytes.size(), back, error)) << why;
    EXPECT_NE(error.find("invalid"), std::string::npos) << error;
  };
  Plan p = samplePlan();
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
  EXPECT_EQ(validatePlan(p), "");
  p = samplePlan();
  p.calls[1].kernel = 2;
  refused(p, "kernel index");
  p = samplePlan();
  p.calls[1].num_args = 4;
  refused(p, "argument range");
  p = samplePlan();
  p.copies[0].source = {BufferKind::Weight, 1, 0};
  EXPECT_EQ(validatePlan(p), "");                   // a weight may be copied to an output...
  p.outputs[1].dtype = static_cast<ElemType>(200);  // no such element type
  refused(p, "dtype");                              // ...but element types are checked
}

TEST(Plan, RunsCallsWithResolvedBuffersThenCopies) {
  Plan p = samplePlan();
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
  runPlan(p, {kernels, weights, ws, inputs, outputs});
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (std::vector<void*>{x, w0, ws + 64}));
  EXPECT_EQ(seen[1], (std::vector<void*>{ws + 64, w1, ids_and_y}));
  EXPECT_EQ(std::memcmp(x, x_again, sizeof x), 0);
}

TEST(Plan, RunCallRunsOneCallAndLongArgumentListsReachTheKernel) {
  Plan p;
  p.workspace_bytes = 256;
  p.num_kernels = 1;
  for (uint64_t i = 0; i < 70; ++i)
    p.args.push_back({BufferKind::Workspace, 0, i});  // more than runCall keeps on the stack
  p.calls = {{0, 0, 70}, {0, 0, 2}};
  ASSERT_EQ(validatePlan(p), "");
  static std::vector<std::vector<void*>> seen;
  seen.clear();
  TtuneKernelFn kernel = +[](void** args) { seen.emplace_back(args, args + 70); };
  alignas(64) char ws[256];
  runCall(p, {&kernel, nullptr, ws, nullptr, nullptr}, 0);
  ASSERT_EQ(seen.size(), 1u);
  for (int i = 0; i < 70; ++i) EXPECT_EQ(seen[0][i], ws + i) << "argument " << i;
}

}  // namespace
}  // namespace ttune::runtime
