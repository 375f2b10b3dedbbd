// Models of opsets below 11 go through ONNX's version converter (frontend/onnx/opset_upgrade.h):
// the attribute forms of opsets 7-10 (Slice / Clip / Pad / TopK attributes, Upsample,
// BatchNormalization's `spatial`) compute what they meant, checked against plain loops through
// the reference evaluator and compiled; a model the converter cannot upgrade faithfully is
// refused in one sentence. Also Scan (opset 9 on), unrolled over its sequence axis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>

#include "frontend/onnx/onnx_importer.h"
#include "onnx_builder.h"
#include "support/error.h"
#include "test_util.h"

namespace ttune::frontend {
namespace {

using namespace testing;
using I = int64_t;

// Opset 8: Slice, Clip and Pad with attributes, BatchNormalization with `spatial`, Upsample with
// a scales attribute, TopK with a k attribute.
TEST(OnnxOldOpsets, OpsetEightAttributeFormsComputeWhatTheyMeant) {
  ModelBuilder b(8);
  b.input("x", {I(1), I(2), I(4), I(5)});
  runtime::NDArray scale = b.random("scale", {2}, 1, 0.5, 1.5), shift = b.random("shift", {2}, 2);
  runtime::NDArray mean = b.random("mean", {2}, 3), var = b.random("var", {2}, 4, 0.5, 2.0);
  onnx::NodeProto& slice = b.node("Slice", {"x"}, {"s"});
  setAttr(slice, "starts", std::vector<int64_t>{1});
  setAttr(slice, "ends", std::vector<int64_t>{3});
  setAttr(slice, "axes", std::vector<int64_t>{2});
  onnx::NodeProto& clip = b.node("Clip", {"s"}, {"c"});
  setAttr(clip, "min", -0.5f);
  setAttr(clip, "max", 0.5f);
  onnx::NodeProto& pad = b.node("Pad", {"c"}, {"p"});
  setAttr(pad, "pads", std::vector<int64_t>{0, 0, 1, 0, 0, 0, 0, 1});
  setAttr(pad, "value", 0.25f);
  onnx::NodeProto& bn = b.node("BatchNormalization", {"p", "scale", "shift", "mean", "var"}, {"n"});
  setAttr(bn, "epsilon", 1e-3f);
  setAttr(bn, "spatial", I(1));
  onnx::NodeProto& up = b.node("Upsample", {"n"}, {"u"});
  setAttr(up, "mode", std::string("nearest"));
  setAttr(up, "scales", std::vector<float>{1, 1, 2, 3});
  setAttr(b.node("TopK", {"u"}, {"values", "indices"}), "k", I(4));
  b.output("values");
  b.output("indices");

  graph::Graph g = importOnnxModel(b.model());
  runtime::NDArray x = randomArray({1, 2, 4, 5}, 5);

  // Plain loops: slice rows 1..2, clip, pad one row above and one column right with 0.25,
  // normalize per channel, repeat rows 2x and columns 3x, take each row's 4 largest (ties: lower
  // index first).
  const float* xv = x.as<float>();
  std::vector<float> n(2 * 3 * 6);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 6; ++w) {
        float v = 0.25f;
        if (h >= 1 && w < 5) v = std::clamp(xv[(c * 4 + h) * 5 + w], -0.5f, 0.5f);  // row h-1 of the slice = x row h
        float inv = 1.0f / std::sqrt(var.as<float>()[c] + 1e-3f);
        n[(c * 3 + h) * 6 + w] = (v - mean.as<float>()[c]) * inv * scale.as<float>()[c] + shift.as<float>()[c];
      }
  runtime::NDArray values({1, 2, 6, 4}, te::DType::Float32), indices({1, 2, 6, 4}, te::DType::Int64);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 6; ++h) {
      std::vector<float> row(18);
      for (int w = 0; w < 18; ++w) row[w] = n[(c * 3 + h / 2) * 6 + w / 3];
      std::vector<int64_t> order(18);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) { return row[p] > row[q]; });
      for (int k = 0; k < 4; ++k) {
        values.as<float>()[(c * 6 + h) * 4 + k] = row[order[k]];
        indices.as<int64_t>()[(c * 6 + h) * 4 + k] = order[k];
      }
    }
  expectOutputs(g, {x}, {values, indices});
}

// Upsample (opset 9, bilinear) and Resize-10 (nearest, shrinking) keep their coordinates:
// x_in = x_out / scale, the nearest pixel below when growing and above when shrinking (as ONNX
// Runtime picks it), not opset 11's half-pixel default the converter would leave them at.
TEST(OnnxOldOpsets, UpsampleAndResizeTenKeepAsymmetricCoordinates) {
  for (int opset : {9, 10}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    ModelBuilder b(opset);
    b.input("x", {I(1), I(1), I(5), I(5)});
    b.floats("up", {4}, {1, 1, 2, 2});
    b.floats("down", {4}, {1, 1, 0.6f, 0.6f});
    setAttr(b.node("Upsample", {"x", "up"}, {"u"}), "mode", std::string("linear"));
    if (opset == 10) setAttr(b.node("Resize", {"x", "down"}, {"d"}), "mode", std::string("nearest"));
    b.output("u");
    if (opset == 10) b.output("d");
    graph::Graph g = importOnnxModel(b.model());
    runtime::NDArray x = randomArray({1, 1, 5, 5}, 7);
    const float* xv = x.as<float>();
    runtime::NDArray up({1, 1, 10, 10}, te::DType::Float32), down({1, 1, 3, 3}, te::DType::Float32);
    for (int h = 0; h < 10; ++h)
      for (int w = 0; w < 10; ++w) {
        // Asymmetric: source h / 2, w / 2; the last row and column clamp.
        int h0 = h / 2, w0 = w / 2, h1 = std::min(h0 + 1, 4), w1 = std::min(w0 + 1, 4);
        float fh = (h % 2) * 0.5f, fw = (w % 2) * 0.5f;
        float top = xv[h0 * 5 + w0] * (1 - fw) + xv[h0 * 5 + w1] * fw;
        float bottom = xv[h1 * 5 + w0] * (1 - fw) + xv[h1 * 5 + w1] * fw;
        up.as<float>()[h * 10 + w] = top * (1 - fh) + bottom * fh;
      }
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 3; ++w) {
        int sh = static_cast<int>(std::ceil(h / 0.6f)), sw = static_cast<int>(std::ceil(w / 0.6f));
        down.as<float>()[h * 3 + w] = xv[sh * 5 + sw];
      }
    if (opset == 10)
      expectOutputs(g, {x}, {up, down});
    else
      expectOutputs(g, {x}, {up});
  }
}

// A weight stored in an external file: the upgraded model still reads it (ONNX 1.12's converter
// alone would leave it empty).
TEST(OnnxOldOpsets, ExternallyStoredWeightsSurviveTheUpgrade) {
  std::string dir = ::testing::TempDir();
  runtime::NDArray w = randomArray({4, 3}, 11);
  {
    std::ofstream f(dir + "/ttune_old_opset.bin", std::ios::binary);
    f.write(static_cast<const char*>(w.data()), 12 * sizeof(float));
  }
  ModelBuilder b(9);
  b.input("x", {I(2), I(4)});
  onnx::TensorProto& t = *b.model().mutable_graph()->add_initializer();
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(4);
  t.add_dims(3);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto* e = t.add_external_data();
  e->set_key("location");
  e->set_value("ttune_old_opset.bin");
  b.node("MatMul", {"x", "w"}, {"y"});
  b.output("y");
  std::string path = dir + "/ttune_old_opset.onnx";
  std::ofstream(path, std::ios::binary) << b.bytes();
  graph::Graph g = importOnnx(path);
  runtime::NDArray x = randomArray({2, 4}, 12), want({2, 3}, te::DType::Float32);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      float acc = 0;
      for (int k = 0; k < 4; ++k) acc += x.as<float>()[i * 4 + k] * w.as<float>()[k * 3 + j];
      want.as<float>()[i * 3 + j] = acc;
    }
  expectOutputs(g, {x}, {want});
  std::remove(path.c_str());
  std::remove((dir + "/ttune_old_opset.bin").c_str());
}

// A body for Scan: state s, scan elements a and b; s' = s + a * b, scan output s'.
onnx::GraphProto multiplyAccumulateBody() {
  ModelBuilder body(13);
  body.input("s_in", {I(2)});
  body.input("a", {I(2)});
  body.input("b", {I(2)});
  body.node("Mul", {"a", "b"}, {"ab"});
  body.node("Add", {"s_in", "ab"}, {"s_out"});
  body.node("Identity", {"s_out"}, {"scan_out"});
  body.output("s_out");
  body.output("scan_out");
  return body.model().graph();
}

// Scan over two inputs, one along axis 1 read backwards; the scan output stacked along axis 1 in
// reverse.
TEST(OnnxScan, TwoInputsDirectionsAndAxesMatchLoops) {
  ModelBuilder b(13);
  b.input("init", {I(2)});
  b.input("xa", {I(3), I(2)});
  b.input("xb", {I(2), I(3)});
  onnx::NodeProto& scan = b.node("Scan", {"init", "xa", "xb"}, {"final", "stacked"});
  setAttr(scan, "body", multiplyAccumulateBody());
  setAttr(scan, "num_scan_inputs", I(2));
  setAttr(scan, "scan_input_axes", std::vector<int64_t>{0, 1});
  setAttr(scan, "scan_input_directions", std::vector<int64_t>{0, 1});
  setAttr(scan, "scan_output_axes", std::vector<int64_t>{-1});
  setAttr(scan, "scan_output_directions", std::vector<int64_t>{1});
  b.output("final");
  b.output("stacked");
  graph::Graph g = importOnnxModel(b.model());

  runtime::NDArray init = randomArray({2}, 1), xa = randomArray({3, 2}, 2), xb = randomArray({2, 3}, 3);
  runtime::NDArray final_state({2}, te::DType::Float32), stacked({2, 3}, te::DType::Float32);
  float s[2] = {init.as<float>()[0], init.as<float>()[1]};
  for (int t = 0; t < 3; ++t)
    for (int i = 0; i < 2; ++i) {
      s[i] += xa.as<float>()[t * 2 + i] * xb.as<float>()[i * 3 + (2 - t)];
      stacked.as<float>()[i * 3 + (2 - t)] = s[i];
    }
  std::copy(s, s + 2, final_state.as<float>());
  expectOutputs(g, {init, xa, xb}, {final_state, stacked});
}

TEST(OnnxScan, MismatchedSequenceLengthsAreOneSentence) {
  ModelBuilder b(13);
  b.input("init", {I(2)});
  b.input("xa", {I(3), I(2)});
  b.input("xb", {I(4), I(2)});
  onnx::NodeProto& scan = b.node("Scan", {"init", "xa", "xb"}, {"final"}, "acc");
  setAttr(scan, "body", multiplyAccumulateBody());
  setAttr(scan, "num_scan_inputs", I(2));
  b.output("final");
  EXPECT_EQ(importError(b.model()),
            "node \"acc\" (Scan): scan input 1 has 4 elements along its scan axis, but scan input 0 has 3");
}

// Opset 8's Scan has a batch axis that the converter drops from the model's inputs: refused,
// since the upgraded model would take other shapes than the user's.
TEST(OnnxOldOpsets, AnUpgradeThatChangesTheModelsInputsIsRefused) {
  ModelBuilder body(8);
  body.input("s_in", {I(2)});
  body.input("a", {I(2)});
  body.node("Add", {"s_in", "a"}, {"s_out"});
  body.output("s_out");
  ModelBuilder b(8);
  b.input("init", {I(1), I(2)});
  b.input("x", {I(1), I(3), I(2)});
  onnx::NodeProto& scan = b.node("Scan", {"", "init", "x"}, {"final"});
  setAttr(scan, "body", body.model().graph());
  setAttr(scan, "num_scan_inputs", I(1));
  b.output("final");
  EXPECT_EQ(importError(b.model()),
            "the model uses opset 8 of the default ONNX domain, and ONNX's version converter cannot upgrade it to "
            "opset 11 without changing its input \"init\" from FLOAT [1, 2] to FLOAT [2]");
}

// The converter trusts the graph: a node missing an input is ONNX's checker's sentence, no crash.
TEST(OnnxOldOpsets, AnInvalidOldModelIsTheCheckersSentence) {
  ModelBuilder b(9);
  b.input("x", {I(1), I(1), I(2), I(2)});
  b.node("Upsample", {"x"}, {"u"});
  b.output("u");
  std::string msg = importError(b.model());
  EXPECT_EQ(
      msg.rfind("the model uses opset 9 of the default ONNX domain and is not a valid model of it (ONNX's checker: ",
                0),
      0u)
      << msg;
  EXPECT_NE(msg.find("Upsample"), std::string::npos) << msg;
}

TEST(OnnxOldOpsets, AnOperatorTheConverterCannotUpgradeIsOneSentence) {
  ModelBuilder b(6);
  b.input("x", {I(4)});
  b.input("y", {I(4)});
  b.node("Greater", {"x", "y"}, {"z"});
  b.output("z");
  std::string msg = importError(b.model());
  EXPECT_EQ(msg.rfind("the model uses opset 6 of the default ONNX domain, and ONNX's version converter cannot upgrade "
                      "it to opset 11: ",
                      0),
            0u)
      << msg;
  EXPECT_NE(msg.find("Greater"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("Assertion"), std::string::npos) << msg;
}

}  // namespace
}  // namespace ttune::frontend
