// The importer's clear one-line errors: unsupported operators, values defined twice, malformed
// and corrupted files, opsets, unresolvable dimensions, run-time shape inputs and unsupported
// attribute values each name what is at fault in one sentence, and never crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "frontend/onnx/onnx_importer.h"
#include "graph/reference.h"
#include "onnx_builder.h"
#include "ops/ops.h"
#include "support/error.h"
#include "test_util.h"

namespace ttune::frontend {
namespace {

using namespace testing;
using I = int64_t;

TEST(OnnxErrors, UnsupportedOperatorNamesNodeAndOp) {
  ModelBuilder b(13);
  b.input("x", {I(4)});
  b.node("Relu", {"x"}, {"r"});
  b.node("Bernoulli", {"r"}, {"y"}, "my_coin");
  b.output("y");
  EXPECT_EQ(importError(b.model()), "node \"my_coin\" (Bernoulli): operator Bernoulli is not supported");
}

// Every value has one definition (ONNX's single static assignment): a second producer, a node
// redefining an input, a duplicate initializer are refused in one sentence naming both sites;
// subgraphs are their own scopes.
TEST(OnnxErrors, AValueDefinedTwiceIsRefusedNamingBothDefinitions) {
  ModelBuilder twice(13);
  twice.input("x", {I(4)});
  twice.node("Relu", {"x"}, {"r"}, "first");
  twice.node("Neg", {"x"}, {"r"});
  twice.node("Abs", {"r"}, {"y"});
  twice.output("y");
  EXPECT_EQ(importError(twice.model()),
            "the model is not a valid ONNX model: value \"r\" is produced by node #1 (Neg) and already by node "
            "\"first\" (Relu) (every value has one definition)");

  ModelBuilder shadow(13);
  shadow.input("x", {I(4)});
  shadow.node("Relu", {"x"}, {"x"});
  shadow.output("x");
  EXPECT_EQ(
      importError(shadow.model()),
      "the model is not a valid ONNX model: value \"x\" is produced by node #0 (Relu) and already by a graph input "
      "(every value has one definition)");

  ModelBuilder init(13);
  init.input("x", {I(2)});
  init.floats("w", {2}, {1, 2});
  init.floats("w", {2}, {3, 4});
  init.node("Add", {"x", "w"}, {"y"});
  init.output("y");
  EXPECT_EQ(importError(init.model()), "the model is not a valid ONNX model: initializer \"w\" is given twice");

  // An initializer also listed as an input (IR < 4) is one definition, not two.
  ModelBuilder listed(13);
  listed.input("x", {I(2)});
  listed.floats("w", {2}, {1, 2});
  listed.input("w", {I(2)});
  listed.node("Add", {"x", "w"}, {"y"});
  listed.output("y");
  EXPECT_NO_THROW(importOnnxBytes(listed.bytes()));
}

// Output shapes that depend on values: evaluated at import from constants, otherwise one sentence
// naming the model input the values come from (which OnnxOptions::constant_inputs can bind).
TEST(OnnxErrors, DataDependentShapesNameTheModelInput) {
  ModelBuilder u(13);
  u.input("x", {I(4)});
  u.node("Relu", {"x"}, {"r"});
  u.node("Unique", {"r"}, {"y"});
  u.output("y");
  EXPECT_EQ(importError(u.model()),
            "node #1 (Unique): the X input \"r\" is computed at run time (from the model input "
            "\"x\"), but ttune needs it as a constant at import");
  OnnxOptions opt;
  runtime::NDArray x({4}, te::DType::Float32);
  float v[4] = {2, -1, 2, 3};
  std::copy(v, v + 4, x.as<float>());
  opt.constant_inputs["x"] = x;
  graph::Graph g = importOnnxModel(u.model(), opt);
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (te::Shape{3}));  // relu: 2, 0, 2, 3 -> 0, 2, 3
}

TEST(OnnxErrors, MalformedBytesAndFiles) {
  try {
    importOnnxBytes(std::string("\x0a\xff\xff\xff\xff\x0f garbage", 12));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "the data is not a valid ONNX model (protobuf parsing failed)");
  }
  std::string path = ::testing::TempDir() + "ttune_bad.onnx";
  std::ofstream(path, std::ios::binary) << std::string("\x0a\xff\xff\xff\xff\x0f garbage", 12);
  try {
    importOnnx(path);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "the ONNX file \"" + path + "\" is not a valid ONNX model (protobuf parsing failed)");
  }
  std::remove(path.c_str());
  try {
    importOnnx("/nonexistent/model.onnx");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot open the ONNX file \"/nonexistent/model.onnx\"");
  }
  try {  // valid protobuf, but no graph
    importOnnxBytes("");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "the model is not a valid ONNX model (it has no graph)");
  }
}

TEST(OnnxErrors, OpsetOutOfRange) {  // opsets below 11 are upgraded (old_opset_test.cc)
  for (int opset : {18}) {
    ModelBuilder b(opset);
    b.input("x", {I(4)});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    EXPECT_EQ(importError(b.model()), "the model uses opset " + std::to_string(opset) +
                                          " of the default ONNX domain, but ttune supports opsets 11 to 17 (convert "
                                          "the model, e.g. with onnx.version_converter)");
  }
}

TEST(OnnxErrors, UnresolvableDimensions) {
  ModelBuilder b(13);
  b.input("x", {std::string("n"), I(4)});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  EXPECT_EQ(importError(b.model()),
            "input \"x\" dimension 0 is the symbolic \"n\"; set it with "
            "OnnxOptions::dim_values[\"n\"] or OnnxOptions::input_shapes[\"x\"]");
  b.model()
      .mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->clear_dim_param();
  EXPECT_EQ(importError(b.model()),
            "input \"x\" dimension 0 is unknown; set the full shape with OnnxOptions::input_shapes[\"x\"]");
  OnnxOptions opt;
  opt.input_shapes["nope"] = {1};
  EXPECT_EQ(importError(b.model(), opt),
            "OnnxOptions::input_shapes names \"nope\", which is not an input of the model");
}

TEST(OnnxErrors, RuntimeShapeInputNamesNodeAndInput) {
  ModelBuilder b(13);
  b.input("x", {I(2), I(6)});
  b.input("s", {I(2)}, te::DType::Int64);
  b.node("Reshape", {"x", "s"}, {"y"}, "reshape1");
  b.output("y");
  EXPECT_EQ(importError(b.model()),
            "node \"reshape1\" (Reshape): the shape input \"s\" is computed at run time, but "
            "ttune needs it as a constant at import");
  // ... which constant_inputs resolves.
  OnnxOptions opt;
  runtime::NDArray s({2}, te::DType::Int64);
  s.as<int64_t>()[0] = 3, s.as<int64_t>()[1] = 4;
  opt.constant_inputs["s"] = s;
  graph::Graph g = importOnnxModel(b.model(), opt);
  EXPECT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (te::Shape{3, 4}));
}

TEST(OnnxErrors, ShapeComputedFromModelInputsNamesThem) {
  ModelBuilder b(13);
  b.input("x", {I(2), I(6)});
  b.input("s", {I(2)}, te::DType::Int64);
  b.input("t", {I(2)}, te::DType::Int64);
  b.node("Add", {"s", "t"}, {"st"}, "add1");
  b.node("Reshape", {"x", "st"}, {"y"}, "reshape1");
  b.output("y");
  EXPECT_EQ(importError(b.model()),
            "node \"reshape1\" (Reshape): the shape input \"st\" is computed at run time (from "
            "the model inputs \"s\", \"t\"), but ttune needs it as a constant at import");
}

TEST(OnnxErrors, UnsupportedAttributeValues) {
  {
    ModelBuilder b(13);
    b.input("x", {I(1), I(1), I(5), I(5)});
    b.random("w", {1, 1, 3, 3}, 1);
    setAttr(b.node("Conv", {"x", "w"}, {"y"}, "Conv_12"), "auto_pad", std::string("SAME_MIDDLE"));
    b.output("y");
    EXPECT_EQ(importError(b.model()), "node \"Conv_12\" (Conv): auto_pad SAME_MIDDLE is not supported");
  }
  {
    ModelBuilder b(13);
    b.input("x", {I(1), I(1), I(4), I(4), I(4)});
    setAttr(b.node("MaxPool", {"x"}, {"y", "idx"}), "kernel_shape", std::vector<int64_t>{2, 2, 2});
    b.output("y");
    b.output("idx");
    EXPECT_EQ(importError(b.model()), "node #0 (MaxPool): the Indices output of a 3-D max pooling is not supported");
  }
  {
    ModelBuilder b(13);
    b.input("x", {I(3)});
    setAttr(b.node("Cast", {"x"}, {"y"}), "to", I(onnx::TensorProto::COMPLEX64));
    b.output("y");
    EXPECT_EQ(importError(b.model()),
              "node #0 (Cast): the target type has element type COMPLEX64, which ttune does not "
              "support (only the real number types and BOOL are: no STRING or COMPLEX)");
  }
  {
    ModelBuilder b(15);
    b.input("x", {I(1), I(2), I(3)});
    for (const char* n : {"s", "b", "m", "v"}) b.random(n, {2}, 1, 0.5, 1);
    setAttr(b.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}), "training_mode", I(1));
    b.output("y");
    EXPECT_EQ(importError(b.model()), "node #0 (BatchNormalization): training mode is not supported (inference only)");
  }
  {
    ModelBuilder b(13);
    b.input("x", {I(1), I(2), I(2), I(2), I(2), I(2)});
    b.random("w", {1, 2, 1, 1, 1, 1}, 1);
    b.node("Conv", {"x", "w"}, {"y"});
    b.output("y");
    EXPECT_EQ(importError(b.model()),
              "node #0 (Conv): the input has rank 6, but convolution needs rank 3, 4 or 5 (N, C, spatial...)");
  }
  {
    ModelBuilder b(13);
    b.input("x", {I(4)}, te::DType::Int32);
    b.node("Relu", {"x"}, {"r"});
    onnx::NodeProto& n = b.node("Gelu", {"r"}, {"y"});
    n.set_domain("com.example");
    b.output("y");
    EXPECT_EQ(importError(b.model()), "node #1 (Gelu): operator com.example.Gelu is not supported");
  }
}

// Corrupted files give an Error (or import), never a crash or another exception.
// Corrupted bytes of an opset-13 model and of an opset-9 one (which ONNX's checker and version
// converter see first): one-sentence errors or an import, nothing else.
TEST(OnnxErrors, CorruptedModelsNeverCrash) {
  ModelBuilder b(13);
  b.input("x", {I(1), I(2), I(5), I(5)});
  b.random("w", {3, 2, 3, 3}, 1);
  b.random("bias", {3}, 2);
  b.ints("shape", {1, -1});
  setAttr(b.node("Conv", {"x", "w", "bias"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  setAttr(b.node("MaxPool", {"c"}, {"p"}), "kernel_shape", std::vector<int64_t>{2, 2});
  b.node("Reshape", {"p", "shape"}, {"f"});
  b.node("Softmax", {"f"}, {"y"});
  b.output("y");
  ModelBuilder old(9);
  old.input("x", {I(1), I(2), I(6), I(6)});
  old.floats("scales", {4}, {1, 1, 2, 2});
  onnx::NodeProto& slice = old.node("Slice", {"x"}, {"s"});
  setAttr(slice, "starts", std::vector<int64_t>{1});
  setAttr(slice, "ends", std::vector<int64_t>{5});
  setAttr(slice, "axes", std::vector<int64_t>{2});
  setAttr(old.node("Upsample", {"s", "scales"}, {"u"}), "mode", std::string("linear"));
  onnx::NodeProto& clip = old.node("Clip", {"u"}, {"y"});
  setAttr(clip, "min", -0.5f);
  setAttr(clip, "max", 0.5f);
  old.output("y");
  importOnnxBytes(old.bytes());  // the uncorrupted one imports
  uint64_t state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull, state >> 33; };
  int imported = 0, rejected = 0;
  for (int trial = 0; trial < 800; ++trial) {
    const std::string good = trial % 2 ? old.bytes() : b.bytes();
    std::string bad = good;
    int flips = 1 + static_cast<int>(next() % 4);
    for (int k = 0; k < flips; ++k) bad[next() % bad.size()] = static_cast<char>(next() & 0xff);
    try {
      importOnnxBytes(bad);
      ++imported;
    } catch (const Error& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "trial " << trial << " threw a non-ttune exception: " << e.what();
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(imported + rejected, 0);
}

}  // namespace
}  // namespace ttune::frontend
