// Importer behaviour beyond single models: options, TensorProto conversion, elision of no-op
// nodes, opset-11 attribute forms and operator details (softmax coercion, 1-D matmul, conv padding
// modes, contrib Gelu). Its errors are tested in import_errors_test.cc.
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

// ---- TensorProto conversion ---------------------------------------------------------------------

TEST(OnnxTensors, TypedFieldsRawDataAndErrors) {
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.add_float_data(1.5f);
  t.add_float_data(-2.0f);
  runtime::NDArray a = tensorFromProto(t);
  EXPECT_EQ(a.shape(), (te::Shape{2}));
  EXPECT_EQ(a.as<float>()[1], -2.0f);

  onnx::TensorProto b;
  b.set_data_type(onnx::TensorProto::BOOL);
  b.add_dims(3);
  for (int v : {1, 0, 1}) b.add_int32_data(v);
  runtime::NDArray ba = tensorFromProto(b);
  EXPECT_EQ(ba.dtype(), te::DType::Bool);
  EXPECT_EQ(ba.as<uint8_t>()[1], 0);

  onnx::TensorProto i;
  i.set_data_type(onnx::TensorProto::INT64);  // a scalar
  i.add_int64_data(-7);
  runtime::NDArray ia = tensorFromProto(i);
  EXPECT_EQ(ia.shape(), te::Shape{});
  EXPECT_EQ(ia.as<int64_t>()[0], -7);

  runtime::NDArray r = randomArray({3, 2}, 1);
  runtime::NDArray back = tensorFromProto(toProto("r", r));
  expectClose(back, r, 0, 0);

  t.add_float_data(3.0f);
  try {
    tensorFromProto(t);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "tensor \"w\" has 3 values in float_data but its shape needs 2");
  }
  onnx::TensorProto d;
  d.set_name("d");
  d.set_data_type(onnx::TensorProto::COMPLEX128);
  try {
    tensorFromProto(d);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "tensor \"d\" has element type COMPLEX128, which ttune does not support (only the real number types and BOOL "
        "are: no STRING or COMPLEX)");
  }
  // The typed fields of the other element types: doubles in double_data, uint32 / uint64 in
  // uint64_data, 16-bit integers and the 16-bit floats' bits in int32_data.
  onnx::TensorProto f64;
  f64.set_data_type(onnx::TensorProto::DOUBLE);
  f64.add_dims(2);
  f64.add_double_data(0.1);
  f64.add_double_data(-1e300);
  runtime::NDArray fa = tensorFromProto(f64);
  EXPECT_EQ(fa.dtype(), te::DType::Float64);
  EXPECT_EQ(fa.as<double>()[0], 0.1);
  EXPECT_EQ(fa.as<double>()[1], -1e300);
  onnx::TensorProto u64;
  u64.set_data_type(onnx::TensorProto::UINT64);
  u64.add_dims(1);
  u64.add_uint64_data(UINT64_MAX);
  EXPECT_EQ(tensorFromProto(u64).as<uint64_t>()[0], UINT64_MAX);
  onnx::TensorProto h;
  h.set_data_type(onnx::TensorProto::FLOAT16);
  h.add_dims(1);
  h.add_int32_data(0x3c00);
  EXPECT_EQ(tensorFromProto(h).as<uint16_t>()[0], 0x3c00);
  onnx::TensorProto s16;
  s16.set_data_type(onnx::TensorProto::INT16);
  s16.add_dims(1);
  s16.add_int32_data(-300);
  EXPECT_EQ(tensorFromProto(s16).as<int16_t>()[0], -300);
}

TEST(OnnxTensors, ExternalData) {
  std::string dir = ::testing::TempDir();
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  {
    std::ofstream f(dir + "/ttune_weights.bin", std::ios::binary);
    f << "PAD!";
    f.write(reinterpret_cast<const char*>(v.data()), 24);
  }
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.add_dims(3);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto kv = [&](const char* k, const std::string& val) {
    onnx::StringStringEntryProto* e = t.add_external_data();
    e->set_key(k);
    e->set_value(val);
  };
  kv("location", "ttune_weights.bin");
  kv("offset", "4");
  kv("length", "24");
  runtime::NDArray a = tensorFromProto(t, dir);
  EXPECT_EQ(a.shape(), (te::Shape{2, 3}));
  EXPECT_EQ(a.as<float>()[5], 6.0f);
  std::remove((dir + "/ttune_weights.bin").c_str());
}

// ---- elision, naming, attribute forms -----------------------------------------------------------

TEST(OnnxImport, IdentityAndDropoutAreElided) {
  ModelBuilder b(13);
  b.input("x", {I(2), I(3)});
  b.node("Identity", {"x"}, {"i"});
  b.node("Dropout", {"i"}, {"d", "mask"});
  b.node("Relu", {"d"}, {"y"}, "act");
  b.output("y");
  b.output("mask");
  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"relu"}));
  EXPECT_EQ(g.node(0).name, "act");
  ASSERT_EQ(g.outputs().size(), 2u);
  EXPECT_EQ(g.value(g.outputs()[0]).name, "y");
  EXPECT_EQ(g.value(g.outputs()[1]).name, "mask");
  EXPECT_TRUE(g.value(g.outputs()[1]).isConstant());  // inference: everything kept
  EXPECT_EQ(g.value(g.outputs()[1]).dtype, te::DType::Bool);
}

// Training-mode dropout is the identity only when its ratio is 0 (swin_t's attention dropout).
TEST(OnnxImport, TrainingModeDropoutOfRatioZeroIsTheIdentity) {
  for (float ratio : {0.0f, 0.1f}) {
    ModelBuilder b(13);
    b.input("x", {I(2), I(3)});
    b.floats("ratio", {}, {ratio});
    runtime::NDArray on({}, te::DType::Bool);
    on.as<uint8_t>()[0] = 1;
    b.initializer("training", on);
    b.node("Dropout", {"x", "ratio", "training"}, {"d"});
    b.node("Relu", {"d"}, {"y"});
    b.output("y");
    if (ratio == 0) {
      EXPECT_EQ(opNames(importOnnxModel(b.model())), (std::vector<std::string>{"relu"}));
    } else {
      EXPECT_EQ(importError(b.model()),
                "node #0 (Dropout): training mode with a ratio of 0.1 is not supported (inference only)");
    }
  }
}

TEST(OnnxImport, UnnamedNodesGetOpTypeAndIndex) {
  ModelBuilder b(13);
  b.input("x", {I(2)});
  b.node("Relu", {"x"}, {"r"});
  b.node("Sigmoid", {"r"}, {"y"});
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(g.node(0).name, "Relu_0");
  EXPECT_EQ(g.node(1).name, "Sigmoid_1");
  EXPECT_EQ(g.value(g.node(0).output).name, "r");
}

// Opset 11 spellings: Squeeze / Unsqueeze / Split / ReduceSum take attributes; Clip constant inputs.
TEST(OnnxImport, Opset11AttributeForms) {
  ModelBuilder b(11);
  b.input("x", {I(1), I(6), I(4)});
  setAttr(b.node("Squeeze", {"x"}, {"sq"}), "axes", std::vector<int64_t>{0});
  onnx::NodeProto& split = b.node("Split", {"sq"}, {"a", "c"});
  setAttr(split, "axis", I(0));
  setAttr(split, "split", std::vector<int64_t>{2, 4});
  setAttr(b.node("Unsqueeze", {"a"}, {"ua"}), "axes", std::vector<int64_t>{0, -1});
  onnx::NodeProto& rs = b.node("ReduceSum", {"c"}, {"rc"});
  setAttr(rs, "axes", std::vector<int64_t>{1});
  setAttr(rs, "keepdims", I(0));
  b.floats("lo", {}, {-0.25f});
  b.floats("hi", {}, {0.5f});
  b.node("Clip", {"rc", "lo", "hi"}, {"y"});
  b.output("ua");
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (te::Shape{1, 2, 4, 1}));
  EXPECT_EQ(g.value(g.outputs()[1]).shape, (te::Shape{4}));
  runtime::NDArray x = randomArray({1, 6, 4}, 1);
  std::vector<runtime::NDArray> out = graph::evaluateGraph(g, {x});
  std::vector<float> a(x.as<float>(), x.as<float>() + 8), y(4);
  for (int i = 0; i < 4; ++i) {  // rows 2..5, summed over their 4 columns
    float s = 0;
    for (int j = 0; j < 4; ++j) s += x.as<float>()[(i + 2) * 4 + j];
    y[i] = std::min(std::max(s, -0.25f), 0.5f);
  }
  expectClose(out[0], floatArray({1, 2, 4, 1}, a));
  expectClose(out[1], floatArray({4}, y));
}

// Opsets 11/12 Softmax and LogSoftmax coerce the input to 2-D at `axis`; 13 normalizes one axis.
TEST(OnnxImport, SoftmaxAxisSemanticsByOpset) {
  runtime::NDArray x = randomArray({2, 3, 4}, 1, -3, 3);
  for (int opset : {11, 13})
    for (bool log : {false, true}) {
      ModelBuilder b(opset);
      b.input("x", {I(2), I(3), I(4)});
      setAttr(b.node(log ? "LogSoftmax" : "Softmax", {"x"}, {"y"}), "axis", I(1));
      b.output("y");
      graph::Graph g = importOnnxModel(b.model());
      std::vector<float> want(24);
      for (int n = 0; n < 2; ++n) {
        auto at = [&](int i, int k) { return n * 12 + i * 4 + k; };
        if (opset == 11) {  // over the 12 elements of each batch entry
          float mx = -1e30f, s = 0;
          for (int e = 0; e < 12; ++e) mx = std::max(mx, x.as<float>()[n * 12 + e]);
          for (int e = 0; e < 12; ++e) s += std::exp(x.as<float>()[n * 12 + e] - mx);
          for (int e = 0; e < 12; ++e) {
            float v = x.as<float>()[n * 12 + e] - mx;
            want[n * 12 + e] = log ? v - std::log(s) : std::exp(v) / s;
          }
        } else {  // over axis 1 only
          for (int k = 0; k < 4; ++k) {
            float mx = -1e30f, s = 0;
            for (int i = 0; i < 3; ++i) mx = std::max(mx, x.as<float>()[at(i, k)]);
            for (int i = 0; i < 3; ++i) s += std::exp(x.as<float>()[at(i, k)] - mx);
            for (int i = 0; i < 3; ++i) {
              float v = x.as<float>()[at(i, k)] - mx;
              want[at(i, k)] = log ? v - std::log(s) : std::exp(v) / s;
            }
          }
        }
      }
      SCOPED_TRACE(std::to_string(opset) + (log ? " LogSoftmax" : " Softmax"));
      expectClose(graph::evaluateGraph(g, {x})[0], floatArray({2, 3, 4}, want));
    }
}

// MatMul with 1-D operands and the batched / dense conventions.
TEST(OnnxImport, MatMulForms) {
  struct Case {
    te::Shape a, b;
    bool b_const;
    const char* expect_op;
  };
  for (const Case& cs : {Case{{4}, {4, 3}, true, "dense"}, Case{{1, 5, 4}, {4, 3}, true, "dense"},
                         Case{{2, 5, 4}, {4, 3}, true, "matmul"}, Case{{2, 3, 4}, {4}, false, "matmul"},
                         Case{{4}, {2, 4, 3}, false, "matmul"}, Case{{4}, {4}, false, "matmul"}}) {
    ModelBuilder b(13);
    std::vector<Dim> ad(cs.a.begin(), cs.a.end()), bd(cs.b.begin(), cs.b.end());
    b.input("a", ad);
    runtime::NDArray bv = randomArray(cs.b, 2);
    if (cs.b_const)
      b.initializer("b", bv);
    else
      b.input("b", bd);
    b.node("MatMul", {"a", "b"}, {"y"});
    b.output("y");
    graph::Graph g = importOnnxModel(b.model());
    SCOPED_TRACE(te::shapeToString(cs.a) + " x " + te::shapeToString(cs.b));
    EXPECT_EQ(countOp(g, cs.expect_op), 1);
    runtime::NDArray av = randomArray(cs.a, 1);
    std::vector<runtime::NDArray> ins{av};
    if (!cs.b_const) ins.push_back(bv);
    runtime::NDArray got = graph::evaluateGraph(g, ins)[0];
    // numpy matmul semantics with loops: promote 1-D operands, broadcast the batch.
    te::Shape as = cs.a.size() == 1 ? te::Shape{1, cs.a[0]} : cs.a,
              bs = cs.b.size() == 1 ? te::Shape{cs.b[0], 1} : cs.b;
    int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    int64_t batch_a = te::shapeElements(as) / (m * k), batch_b = te::shapeElements(bs) / (k * n);
    int64_t batch = std::max(batch_a, batch_b);
    std::vector<float> want;
    for (int64_t t = 0; t < batch; ++t)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float s = 0;
          for (int64_t kk = 0; kk < k; ++kk)
            s += av.as<float>()[(batch_a == 1 ? 0 : t) * m * k + i * k + kk] *
                 bv.as<float>()[(batch_b == 1 ? 0 : t) * k * n + kk * n + j];
          want.push_back(s);
        }
    ASSERT_EQ(got.numElements(), static_cast<int64_t>(want.size()));
    expectClose(got, floatArray(got.shape(), want));
  }
}

// Depthwise SAME_UPPER with stride 2, SAME_LOWER (extra pad before), a dilated 1-D conv.
TEST(OnnxImport, ConvPaddingModesAndOneD) {
  {
    ModelBuilder b(13);
    b.input("x", {I(1), I(3), I(7), I(7)});
    runtime::NDArray w = b.random("w", {3, 1, 3, 3}, 1);
    onnx::NodeProto& n = b.node("Conv", {"x", "w"}, {"y"});
    setAttr(n, "group", I(3));
    setAttr(n, "strides", std::vector<int64_t>{2, 2});
    setAttr(n, "auto_pad", std::string("SAME_UPPER"));
    b.output("y");
    graph::Graph g = importOnnxModel(b.model());
    auto a = std::get<graph::Conv2dAttrs>(g.node(0).attrs);
    EXPECT_EQ(a.pads, (graph::Pad4{1, 1, 1, 1}));
    runtime::NDArray x = randomArray({1, 3, 7, 7}, 2);
    te::Tensor X = ph("x", {1, 3, 7, 7}), W = ph("w", {3, 1, 3, 3});
    expectClose(graph::evaluateGraph(g, {x})[0],
                evalTe({X, W}, ops::depthwise_conv2d_nchw(X, W, {2, 2}, {1, 1, 1, 1}), {x, w}));
  }
  {
    ModelBuilder b(13);
    b.input("x", {I(1), I(2), I(5), I(5)});
    b.random("w", {2, 2, 2, 2}, 1);
    setAttr(b.node("Conv", {"x", "w"}, {"y"}), "auto_pad", std::string("SAME_LOWER"));
    b.output("y");
    graph::Graph g = importOnnxModel(b.model());
    EXPECT_EQ(std::get<graph::Conv2dAttrs>(g.node(0).attrs).pads, (graph::Pad4{1, 1, 0, 0}));
    EXPECT_EQ(g.value(g.outputs()[0]).shape, (te::Shape{1, 2, 5, 5}));
  }
  {
    ModelBuilder b(13);
    b.input("x", {I(2), I(3), I(10)});
    runtime::NDArray w = b.random("w", {4, 3, 3}, 1), bias = b.random("b", {4}, 2);
    onnx::NodeProto& n = b.node("Conv", {"x", "w", "b"}, {"y"});
    setAttr(n, "dilations", std::vector<int64_t>{2});
    setAttr(n, "pads", std::vector<int64_t>{1, 2});
    b.output("y");
    graph::Graph g = importOnnxModel(b.model());
    EXPECT_EQ(opNames(g), (std::vector<std::string>{"reshape", "conv2d_nchw", "add", "reshape"}));
    runtime::NDArray x = randomArray({2, 3, 10}, 3);
    runtime::NDArray got = graph::evaluateGraph(g, {x})[0];
    ASSERT_EQ(got.shape(), (te::Shape{2, 4, 9}));
    std::vector<float> want;
    for (int nn = 0; nn < 2; ++nn)
      for (int f = 0; f < 4; ++f)
        for (int o = 0; o < 9; ++o) {
          float s = bias.as<float>()[f];
          for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k) {
              int pos = o + 2 * k - 1;
              if (pos >= 0 && pos < 10)
                s += x.as<float>()[(nn * 3 + c) * 10 + pos] * w.as<float>()[(f * 3 + c) * 3 + k];
            }
          want.push_back(s);
        }
    expectClose(got, floatArray({2, 4, 9}, want));
  }
}

TEST(OnnxImport, ContribGelu) {
  ModelBuilder b(13);
  onnx::OperatorSetIdProto* ms = b.model().add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  b.input("x", {I(6)});
  b.node("Gelu", {"x"}, {"y"}).set_domain("com.microsoft");
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  ASSERT_EQ(opNames(g), (std::vector<std::string>{"gelu"}));
  runtime::NDArray x = randomArray({6}, 1, -3, 3);
  std::vector<float> want;
  for (int i = 0; i < 6; ++i) {
    float v = x.as<float>()[i];
    want.push_back(0.5f * v * (1.0f + std::erf(v / std::sqrt(2.0f))));
  }
  expectClose(graph::evaluateGraph(g, {x})[0], floatArray({6}, want));
}

// Negative pads crop (a slice), positive ones pad; empty constants in a Concat add nothing; an
// Expand to the input's own shape is elided.
TEST(OnnxImport, PadCropConcatEmptyExpandNoop) {
  ModelBuilder b(13);
  b.input("x", {I(2), I(4)});
  b.ints("pads", {0, -1, 0, 2});
  b.floats("value", {}, {0.5f});
  b.node("Pad", {"x", "pads", "value"}, {"p"});
  b.node("Shape", {"p"}, {"s"});
  b.ints("zero", {0});
  b.node("Slice", {"s", "zero", "zero"}, {"prefix"});  // empty
  setAttr(b.node("Concat", {"prefix", "s"}, {"shape"}), "axis", I(0));
  b.node("Expand", {"p", "shape"}, {"y"});
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"slice", "pad"}));
  runtime::NDArray x = randomArray({2, 4}, 1);
  std::vector<float> want;
  for (int i = 0; i < 2; ++i) {
    for (int j = 1; j < 4; ++j) want.push_back(x.as<float>()[i * 4 + j]);
    want.push_back(0.5f);
    want.push_back(0.5f);
  }
  expectClose(graph::evaluateGraph(g, {x})[0], floatArray({2, 5}, want));
}

// Constant subgraphs fold, except broadcasts that would only materialize large constants.
TEST(OnnxImport, ConstantFoldingPolicy) {
  ModelBuilder b(13);
  b.input("x", {I(1), I(300), I(300)});
  b.floats("one", {}, {1.0f});
  b.ints("big", {1, 300, 300});
  b.node("Expand", {"one", "big"}, {"ones"});  // 90000 elements from 1: stays a node
  b.node("Add", {"x", "ones"}, {"a"});
  b.random("w", {4, 3}, 1);
  setAttr(b.node("Transpose", {"w"}, {"wt"}), "perm", std::vector<int64_t>{1, 0});  // folds
  b.node("Shape", {"wt"}, {"s"});
  b.node("ReduceSum", {"a"}, {"r"});
  b.output("r");
  b.output("s");
  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"expand", "add", "reduce_sum"}));
  const graph::Value& s = g.value(g.outputs()[1]);
  ASSERT_TRUE(s.isConstant());
  EXPECT_EQ(s.constant->as<int64_t>()[0], 3);
  EXPECT_EQ(s.constant->as<int64_t>()[1], 4);
}

// TopK is one indices node plus a gather_elements of the values (graph ops have one output); K
// must be a constant (bound at import, e.g. by OnnxOptions::constant_inputs).
TEST(OnnxImport, TopKEmitsOneNodePerOutput) {
  ModelBuilder b(13);
  b.input("x", {I(2), I(5)});
  b.ints("k", {2});
  b.node("TopK", {"x", "k"}, {"values", "indices"}, "topk");
  b.output("values");
  b.output("indices");
  graph::Graph g = importOnnxModel(b.model());
  EXPECT_EQ(opNames(g), (std::vector<std::string>{"topk", "gather_elements"}));
  runtime::NDArray x = floatArray({2, 5}, {1, 5, 3, 5, 2, -1, -2, 0, 4, 4});
  std::vector<runtime::NDArray> out = graph::evaluateGraph(g, {x});
  expectClose(out[0], floatArray({2, 2}, {5, 5, 4, 4}));
  ASSERT_EQ(out[1].dtype(), te::DType::Int64);
  EXPECT_EQ((std::vector<int64_t>(out[1].as<int64_t>(), out[1].as<int64_t>() + 4)), (std::vector<int64_t>{1, 3, 3, 4}));

  ModelBuilder r(13);
  r.input("x", {I(2), I(5)});
  r.input("k", {I(1)}, te::DType::Int64);
  r.node("TopK", {"x", "k"}, {"values", "indices"}, "TopK_3");
  r.output("values");
  EXPECT_EQ(
      importError(r.model()),
      "node \"TopK_3\" (TopK): the K input \"k\" is computed at run time, but ttune needs it as a constant at import");
}

// Mod: floor modulo on integers (the divisor's sign), C fmod with fmod = 1; float needs fmod.
TEST(OnnxImport, ModSemantics) {
  for (int64_t fmod : {0, 1}) {
    ModelBuilder b(13);
    b.input("a", {I(4)}, te::DType::Int64);
    b.input("b", {I(4)}, te::DType::Int64);
    setAttr(b.node("Mod", {"a", "b"}, {"y"}), "fmod", fmod);
    b.output("y");
    graph::Graph g = importOnnxModel(b.model());
    runtime::NDArray a({4}, te::DType::Int64), d({4}, te::DType::Int64);
    std::vector<int64_t> av = {7, -7, 7, -7}, dv = {3, 3, -3, -3};
    for (int i = 0; i < 4; ++i) a.as<int64_t>()[i] = av[i], d.as<int64_t>()[i] = dv[i];
    runtime::NDArray y = graph::evaluateGraph(g, {a, d})[0];
    std::vector<int64_t> want = fmod ? std::vector<int64_t>{1, -1, 1, -1} : std::vector<int64_t>{1, 2, -2, -1};
    EXPECT_EQ((std::vector<int64_t>(y.as<int64_t>(), y.as<int64_t>() + 4)), want) << "fmod " << fmod;
  }
  ModelBuilder f(13);
  f.input("a", {I(4)});
  f.input("b", {I(4)});
  f.node("Mod", {"a", "b"}, {"y"}, "m");
  f.output("y");
  EXPECT_EQ(importError(f.model()), "node \"m\" (Mod): float operands need fmod = 1");
}

// InstanceNormalization is composed from graph reductions; EyeLike is a constant.
TEST(OnnxImport, InstanceNormAndEyeLike) {
  ModelBuilder b(13);
  b.input("x", {I(2), I(3), I(4)});
  b.floats("scale", {3}, {1, 2, 0.5f});
  b.floats("bias", {3}, {0, 1, -1});
  setAttr(b.node("InstanceNormalization", {"x", "scale", "bias"}, {"y"}), "epsilon", 1e-3f);
  b.input("x2", {I(2), I(3)});
  b.node("EyeLike", {"x2"}, {"e"});
  b.output("y");
  b.output("e");
  graph::Graph g = importOnnxModel(b.model());
  runtime::NDArray x = randomArray({2, 3, 4}, 3, -2, 2);
  runtime::NDArray x2 = randomArray({2, 3}, 4);
  std::vector<runtime::NDArray> out = graph::evaluateGraph(g, {x, x2});
  std::vector<float> want(24), sc = {1, 2, 0.5f}, bi = {0, 1, -1};
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c) {
      const float* p = x.as<float>() + (n * 3 + c) * 4;
      double mean = 0, var = 0;
      for (int i = 0; i < 4; ++i) mean += p[i] / 4.0;
      for (int i = 0; i < 4; ++i) var += (p[i] - mean) * (p[i] - mean) / 4.0;
      for (int i = 0; i < 4; ++i)
        want[static_cast<size_t>((n * 3 + c) * 4 + i)] =
            static_cast<float>((p[i] - mean) / std::sqrt(var + 1e-3) * sc[c] + bi[c]);
    }
  expectClose(out[0], floatArray({2, 3, 4}, want));
  expectClose(out[1], floatArray({2, 3}, {1, 0, 0, 0, 1, 0}));
}

TEST(OnnxImport, SupportedOpList) {
  std::vector<std::string> ops = supportedOnnxOps();
  for (const char* op : {"Conv", "Gemm", "MatMul", "BatchNormalization", "LayerNormalization", "Softmax", "Reshape",
                         "Shape", "Gather", "Slice", "Split", "Resize", "Pad", "Tile"})
    EXPECT_TRUE(isSupportedOnnxOp(op)) << op;
  EXPECT_TRUE(isSupportedOnnxOp("Gelu", "com.microsoft"));
  EXPECT_FALSE(isSupportedOnnxOp("Gelu"));
  EXPECT_FALSE(isSupportedOnnxOp("Bernoulli"));
  EXPECT_GT(ops.size(), 80u);
}

// A Resize of a constant (a heatmap inside a loop evaluated on the host) is resampled at import
// without graph nodes: bit for bit what the gather, multiply and add nodes compute for the same
// data given at run time, in every mode, growing and shrinking, with and without exclude_outside.
TEST(OnnxImport, ResizeOfAConstantFoldsAsItsNodesCompute) {
  const runtime::NDArray x = randomArray({1, 2, 7, 5}, 3);
  struct Case {
    const char* mode;
    const char* coord;
    int64_t exclude;
    std::vector<int64_t> sizes;
  };
  const std::vector<Case> cases = {{"nearest", "asymmetric", 0, {1, 2, 11, 9}},
                                   {"linear", "half_pixel", 0, {1, 2, 12, 3}},
                                   {"linear", "align_corners", 0, {1, 2, 4, 10}},
                                   {"cubic", "half_pixel", 0, {1, 2, 13, 8}},
                                   {"cubic", "pytorch_half_pixel", 1, {1, 2, 5, 11}}};
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.mode) + " " + k.coord);
    auto model = [&](bool constant) {
      ModelBuilder b(13);
      if (constant)
        b.initializer("x", x);
      else
        b.input("x", {I(1), I(2), I(7), I(5)});
      b.ints("sizes", k.sizes);
      onnx::NodeProto& r = b.node("Resize", {"x", "", "", "sizes"}, {"y"});
      setAttr(r, "mode", std::string(k.mode));
      setAttr(r, "coordinate_transformation_mode", std::string(k.coord));
      setAttr(r, "exclude_outside", k.exclude);
      b.output("y");
      return importOnnxModel(b.model());
    };
    graph::Graph folded = model(true), nodes = model(false);
    ASSERT_TRUE(folded.nodes().empty());
    ASSERT_FALSE(nodes.nodes().empty());
    const runtime::NDArray& got = *folded.value(folded.outputs()[0]).constant;
    runtime::NDArray want = graph::evaluateGraph(nodes, {x})[0];
    ASSERT_EQ(got.shape(), want.shape());
    for (int64_t i = 0; i < want.numElements(); ++i)
      ASSERT_EQ(got.as<float>()[i], want.as<float>()[i]) << "element " << i;
  }
}

}  // namespace
}  // namespace ttune::frontend
