// Models whose later shapes depend on run-time values, run stage by stage (executor::StagedModel):
// results against plain C++ computations, what is compiled when, and the caching of stages.
#include "executor/staged_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <numeric>

#include "frontend/onnx/staged_import.h"
#include "onnx_builder.h"
#include "support/temp_dir.h"

namespace ttune::frontend {
namespace {

using testing::ModelBuilder;
using testing::setAttr;

runtime::NDArray floats(const te::Shape& s, const std::vector<float>& v) {
  runtime::NDArray a(s, te::DType::Float32);
  std::copy(v.begin(), v.end(), a.as<float>());
  return a;
}

runtime::NDArray scalarInt(int64_t v) {
  runtime::NDArray a(te::Shape{}, te::DType::Int64);
  a.as<int64_t>()[0] = v;
  return a;
}

std::string save(const TempDir& dir, ModelBuilder& b, const std::string& name) {
  std::string path = dir.path + "/" + name + ".onnx";
  std::ofstream(path, std::ios::binary) << b.bytes();
  return path;
}

executor::StagedModel staged(const std::string& path) { return executor::StagedModel(path, {}, {}, {}); }

// y = relu(x); out = 2 * y[nonzero(y)]; total = sum(out): the count of positives is the shape.
ModelBuilder nonZeroModel() {
  ModelBuilder b(13);
  b.input("x", {int64_t{1}, int64_t{12}});
  b.initializer("one", scalarInt(1));
  b.floats("two", {}, {2.0f});
  b.node("Relu", {"x"}, {"y"});
  b.node("NonZero", {"y"}, {"nz"});
  setAttr(b.node("Gather", {"nz", "one"}, {"idx"}), "axis", int64_t{0});
  setAttr(b.node("Gather", {"y", "idx"}, {"g"}), "axis", int64_t{1});
  b.node("Mul", {"g", "two"}, {"out"});
  setAttr(b.node("ReduceSum", {"out"}, {"total"}), "keepdims", int64_t{0});
  b.output("out");
  b.output("total");
  return b;
}

TEST(StagedModel, NonZeroCompilesTheRestPerCountAndCachesStages) {
  TempDir dir("ttune-staged");
  ModelBuilder b = nonZeroModel();
  // The whole-model import names the node and the model input.
  try {
    importOnnxModel(b.model());
    ADD_FAILURE() << "the import succeeded";
  } catch (const RuntimeValueError& e) {
    EXPECT_EQ(e.value, "y");
    EXPECT_NE(std::string(e.what()).find("(from the model input \"x\")"), std::string::npos) << e.what();
  }
  executor::StagedModel m = staged(save(dir, b, "nonzero"));
  auto check = [&](const std::vector<float>& x) {
    std::vector<float> want;
    float total = 0;
    for (float v : x)
      if (v > 0) want.push_back(2 * v), total += 2 * v;
    std::vector<runtime::NDArray> outs = m.run({floats({1, 12}, x)});
    ASSERT_EQ(outs.size(), 2u);
    ASSERT_EQ(outs[0].shape(), (te::Shape{1, static_cast<int64_t>(want.size())}));
    for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(outs[0].as<float>()[i], want[i]);
    EXPECT_NEAR(outs[1].as<float>()[0], total, 1e-4);
  };
  std::vector<float> a{1, -2, 3, 0, 5, -6, 7, 8, -9, 10, 0, 12}, b2{-1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11, 12};
  check(a);  // 7 positives
  EXPECT_EQ(m.stats().stages_compiled, 2);
  EXPECT_EQ(m.stats().host_nodes, 1);
  check(b2);  // 6 positives: the second stage again, for the new shape
  EXPECT_EQ(m.stats().stages_compiled, 3);
  std::vector<float> c{9, 8, 7, 6, 5, 4, -1, -1, -1, -1, -1, 0};
  check(c);  // 6 positives again: nothing compiled
  EXPECT_EQ(m.stats().stages_compiled, 3);
  EXPECT_EQ(m.stats().stages_run, 6);
}

// A shape input computed from a model input: bound as a constant for the next stage.
TEST(StagedModel, ComputedShapeArgumentsAreBoundForTheNextStage) {
  TempDir dir("ttune-staged");
  ModelBuilder b(13);
  b.input("x", {int64_t{2}, int64_t{6}});
  b.input("s", {int64_t{2}}, te::DType::Int64);
  b.ints("neg", {-1, -1});
  b.node("Mul", {"s", "neg"}, {"shape"});  // the model passes the negated shape
  b.node("Neg", {"shape"}, {"shape2"});
  b.node("Reshape", {"x", "shape2"}, {"r"});
  b.node("Relu", {"r"}, {"out"});
  b.output("out");
  executor::StagedModel m = staged(save(dir, b, "reshape"));
  std::vector<float> xv(12);
  for (int i = 0; i < 12; ++i) xv[i] = static_cast<float>(i % 5) - 2.0f;
  for (auto [r, c] : {std::pair<int64_t, int64_t>{3, 4}, {4, 3}, {3, 4}}) {
    runtime::NDArray s({2}, te::DType::Int64);
    s.as<int64_t>()[0] = r, s.as<int64_t>()[1] = c;
    std::vector<runtime::NDArray> outs = m.run({floats({2, 6}, xv), s});
    ASSERT_EQ(outs[0].shape(), (te::Shape{r, c}));
    for (int i = 0; i < 12; ++i) EXPECT_EQ(outs[0].as<float>()[i], std::max(0.0f, xv[i]));
  }
  EXPECT_EQ(m.stats().stages_compiled, 3);  // the first stage once, the rest once per bound shape
}

// A Loop whose trip count is a model input: unrolled per count once it is known; loop-carried
// values and stacked scan outputs.
TEST(StagedModel, LoopWithARunTimeTripCountIsUnrolledPerCount) {
  TempDir dir("ttune-staged");
  ModelBuilder b(13);
  b.input("x", {int64_t{3}});
  b.input("n", {}, te::DType::Int64);
  onnx::NodeProto& loop = b.node("Loop", {"n", "", "x"}, {"final", "steps"});
  onnx::AttributeProto* a = loop.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* body = a->mutable_g();
  body->set_name("double");
  auto value = [](onnx::ValueInfoProto* v, const std::string& name, int type) {
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  };
  value(body->add_input(), "i", onnx::TensorProto::INT64);
  value(body->add_input(), "c_in", onnx::TensorProto::BOOL);
  value(body->add_input(), "x_in", onnx::TensorProto::FLOAT);
  for (const char* o : {"c_out", "x_out", "scan"}) value(body->add_output(), o, onnx::TensorProto::FLOAT);
  auto add = [&](const std::string& op, std::vector<std::string> ins, const std::string& out) {
    onnx::NodeProto* n = body->add_node();
    n->set_op_type(op);
    for (const auto& i : ins) n->add_input(i);
    n->add_output(out);
  };
  add("Identity", {"c_in"}, "c_out");
  add("Cast", {"i"}, "i_float");
  setAttr(*body->mutable_node(1), "to", int64_t{onnx::TensorProto::FLOAT});
  add("Add", {"x_in", "x_in"}, "doubled");
  add("Add", {"doubled", "i_float"}, "x_out");  // x <- 2 x + i
  add("Identity", {"x_out"}, "scan");
  b.output("final");
  b.output("steps");
  executor::StagedModel m = staged(save(dir, b, "loop"));
  std::vector<float> x{1, -2, 0.5f};
  for (int64_t n : {3, 1, 3}) {
    std::vector<runtime::NDArray> outs = m.run({floats({3}, x), scalarInt(n)});
    ASSERT_EQ(outs[1].shape(), (te::Shape{n, 3}));
    std::vector<float> v = x;
    for (int64_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        v[k] = 2 * v[k] + static_cast<float>(i);
        EXPECT_FLOAT_EQ(outs[1].as<float>()[i * 3 + k], v[k]);
      }
    for (int k = 0; k < 3; ++k) EXPECT_FLOAT_EQ(outs[0].as<float>()[k], v[k]);
  }
  EXPECT_EQ(m.stats().stages_compiled, 3);  // the (empty) first stage, then one unrolled loop per count
}

// No positive element: NonZero selects nothing, and everything after it is empty (or, for the
// reduction, its identity) without a kernel; the model still runs with positives afterwards.
TEST(StagedModel, EmptySelectionsRunAsEmptyValues) {
  TempDir dir("ttune-staged");
  ModelBuilder b = nonZeroModel();
  executor::StagedModel m = staged(save(dir, b, "nonzero_empty"));
  std::vector<float> none(12, -1.0f);
  std::vector<runtime::NDArray> outs = m.run({floats({1, 12}, none)});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].shape(), (te::Shape{1, 0}));
  ASSERT_EQ(outs[1].numElements(), 1);
  EXPECT_EQ(outs[1].as<float>()[0], 0.0f);  // the sum of nothing
  std::vector<float> some(12, -1.0f);
  some[4] = 3;
  outs = m.run({floats({1, 12}, some)});
  ASSERT_EQ(outs[0].shape(), (te::Shape{1, 1}));
  EXPECT_EQ(outs[0].as<float>()[0], 6.0f);
}

// An If whose condition is known from shapes but whose branch needs a run-time value (the
// detection heads' NMS inside torchvision's "no boxes?" test): the branch runs as a staged model
// of its own, reading a value of the enclosing graph; an integer reduction is compiled inside it;
// TopK on run-time data is sorted on the host (ties: lower index first).
TEST(StagedModel, IfBranchThatNeedsARunTimeValueRunsStaged) {
  TempDir dir("ttune-staged");
  ModelBuilder b(13);
  b.input("x", {int64_t{1}, int64_t{12}});
  b.initializer("one", scalarInt(1));
  b.initializer("twelve", scalarInt(12));
  b.ints("k", {3});
  b.node("Relu", {"x"}, {"y"});
  b.node("Shape", {"x"}, {"shape"});
  setAttr(b.node("Gather", {"shape", "one"}, {"width"}), "axis", int64_t{0});
  b.node("Equal", {"width", "twelve"}, {"cond"});
  onnx::NodeProto& node = b.node("If", {"cond"}, {"m"});
  auto branch = [&](const char* name, auto fill) {
    onnx::AttributeProto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* g = a->mutable_g();
    g->set_name(name);
    fill(*g);
    onnx::ValueInfoProto* o = g->add_output();
    o->set_name(std::string(name) + "_out");
    o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  };
  branch("then_branch", [](onnx::GraphProto& g) {
    onnx::NodeProto* nz = g.add_node();
    nz->set_op_type("NonZero");
    nz->add_input("y");  // captured from the enclosing graph
    nz->add_output("nz");
    onnx::NodeProto* r = g.add_node();
    r->set_op_type("ReduceMax");
    r->add_input("nz");
    r->add_output("then_branch_out");
    setAttr(*r, "keepdims", int64_t{0});
  });
  branch("else_branch", [](onnx::GraphProto& g) {
    onnx::NodeProto* c = g.add_node();
    c->set_op_type("Constant");
    c->add_output("else_branch_out");
    setAttr(*c, "value", scalarInt(-1));
  });
  onnx::NodeProto& topk = b.node("TopK", {"y", "k"}, {"top", "top_idx"});
  setAttr(topk, "axis", int64_t{1});
  b.output("m");
  b.output("top");
  b.output("top_idx");
  executor::StagedModel m = staged(save(dir, b, "if_branch"));
  auto check = [&](const std::vector<float>& x) {
    std::vector<runtime::NDArray> outs = m.run({floats({1, 12}, x)});
    ASSERT_EQ(outs.size(), 3u);
    int64_t want = std::numeric_limits<int64_t>::min();  // ReduceMax of nothing: the lowest int64
    for (int64_t i = 0; i < 12; ++i)
      if (x[i] > 0) want = std::max(want, i);
    EXPECT_EQ(outs[0].as<int64_t>()[0], want);
    std::vector<int64_t> order(12);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t c) { return std::max(0.0f, x[a]) > std::max(0.0f, x[c]); });
    ASSERT_EQ(outs[1].shape(), (te::Shape{1, 3}));
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(outs[2].as<int64_t>()[j], order[j]);
      EXPECT_EQ(outs[1].as<float>()[j], std::max(0.0f, x[order[j]]));
    }
  };
  check({-1, 2, -3, 4, 4, -6, 7, -8, 9, 2, -1, 0});
  check({-1, -2, -3, -4, -4, -6, -7, -8, -9, -2, -1, 0});  // nothing selected; TopK of ties
  check({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  EXPECT_GT(m.stats().host_nodes, 0);
}

TEST(StagedModel, AStaticModelIsOneStage) {
  TempDir dir("ttune-staged");
  ModelBuilder b(13);
  b.input("x", {int64_t{2}, int64_t{3}});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  executor::StagedModel m = staged(save(dir, b, "static"));
  std::vector<runtime::NDArray> outs = m.run({floats({2, 3}, {-1, 2, -3, 4, -5, 6})});
  EXPECT_EQ(outs[0].as<float>()[1], 2.0f);
  EXPECT_EQ(m.stats().stages_compiled, 1);
  EXPECT_EQ(m.stats().host_nodes, 0);
}

// A TopK over a long axis (a recommender's top items, a sampler's top tokens) compares every pair
// of elements as a kernel: beyond 4096 elements the import asks for its data as a constant, so
// `run` sorts it on the host in a staged run.
TEST(StagedModel, TopKOverALongAxisIsSortedOnTheHost) {
  TempDir dir("ttune-staged");
  const int64_t n = 5000, k = 3;
  ModelBuilder b(13);
  b.input("x", {int64_t{1}, n});
  b.ints("k", {k});
  b.node("Relu", {"x"}, {"y"});
  b.node("TopK", {"y", "k"}, {"top", "top_idx"});
  b.output("top");
  b.output("top_idx");
  EXPECT_THROW(importOnnxModel(b.model()), RuntimeValueError);
  executor::StagedModel m = staged(save(dir, b, "topk_long"));
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>((i * 7919) % 4999) - 100.0f;
  std::vector<runtime::NDArray> outs = m.run({floats({1, n}, x)});
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t c) {
    return std::max(0.0f, x[static_cast<size_t>(a)]) > std::max(0.0f, x[static_cast<size_t>(c)]);
  });
  ASSERT_EQ(outs[1].shape(), (te::Shape{1, k}));
  for (int64_t j = 0; j < k; ++j) {
    EXPECT_EQ(outs[1].as<int64_t>()[j], order[static_cast<size_t>(j)]);
    EXPECT_EQ(outs[0].as<float>()[j], std::max(0.0f, x[static_cast<size_t>(order[static_cast<size_t>(j)])]));
  }
  EXPECT_EQ(m.stats().host_nodes, 1);
}

// A detector level's TopK (torchvision's one-stage heads): the scores that pass a threshold are
// selected, K = min(count, limit), and the kept scores are concatenated with another level's.
// When nothing passes, K = 0: empty values and indices, as ONNX Runtime returns, and the
// concatenation is the other level alone.
TEST(StagedModel, TopKOfAnEmptySelectionTakesKZero) {
  TempDir dir("ttune-staged");
  ModelBuilder b(13);
  b.input("x", {int64_t{6}});
  b.input("other", {int64_t{2}});
  b.floats("thr", {}, {0.5f});
  b.ints("limit", {3});
  b.ints("flat", {-1});
  b.node("Greater", {"x", "thr"}, {"pass"});
  b.node("NonZero", {"pass"}, {"nz"});
  b.node("Reshape", {"nz", "flat"}, {"idx"});
  setAttr(b.node("Gather", {"x", "idx"}, {"sel"}), "axis", int64_t{0});
  b.node("Shape", {"sel"}, {"count"});
  b.node("Min", {"count", "limit"}, {"k"});
  b.node("TopK", {"sel", "k"}, {"top", "top_idx"});
  setAttr(b.node("Concat", {"top", "other"}, {"scores"}), "axis", int64_t{0});
  b.output("scores");
  b.output("top_idx");
  executor::StagedModel m = staged(save(dir, b, "topk_level"));
  const runtime::NDArray other = floats({2}, {7, 8});
  std::vector<runtime::NDArray> outs = m.run({floats({6}, {0.1f, 0.2f, 0.3f, 0.0f, 0.4f, 0.1f}), other});
  ASSERT_EQ(outs.size(), 2u);
  ASSERT_EQ(outs[0].shape(), (te::Shape{2}));
  EXPECT_EQ(outs[0].as<float>()[0], 7.0f);
  EXPECT_EQ(outs[0].as<float>()[1], 8.0f);
  EXPECT_EQ(outs[1].shape(), (te::Shape{0}));
  EXPECT_EQ(outs[1].dtype(), te::DType::Int64);
  // Some pass: the best min(count, 3) in order, then the other level.
  outs = m.run({floats({6}, {0.9f, 0.2f, 0.7f, 0.6f, 0.8f, 0.1f}), other});
  ASSERT_EQ(outs[0].shape(), (te::Shape{5}));
  const std::vector<float> want = {0.9f, 0.8f, 0.7f, 7, 8};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(outs[0].as<float>()[i], want[i]) << i;
  ASSERT_EQ(outs[1].shape(), (te::Shape{3}));
  EXPECT_EQ(outs[1].as<int64_t>()[0], 0);  // positions within the 4 selected: 0.9, 0.8, 0.7
  EXPECT_EQ(outs[1].as<int64_t>()[1], 3);
  EXPECT_EQ(outs[1].as<int64_t>()[2], 1);
}

// torchvision's mask and keypoint post-processing: a Loop over the detections whose body resizes
// each detection's mask to its box (a shape computed from run-time data), pads it into the image
// and appends it to a carried tensor. The body needs a run-time value of an iteration, so the
// loop is evaluated on the host as a whole: here each row is mask i tiled sizes[i] times and
// zero-padded to 8, after the carried tensor's initial row (torchvision's starts empty).
TEST(StagedModel, LoopWhoseBodyNeedsARunTimeValueRunsOnTheHost) {
  TempDir dir("ttune-staged");
  ModelBuilder body(13);
  body.input("i", {}, te::DType::Int64);
  body.input("c_in", {}, te::DType::Bool);
  body.input("res_in", {std::string("n"), int64_t{8}});
  body.ints("zero", {0});
  body.ints("axes0", {0});
  setAttr(body.node("Gather", {"sizes", "i"}, {"s"}), "axis", int64_t{0});
  setAttr(body.node("Gather", {"masks", "i"}, {"m"}), "axis", int64_t{0});
  body.node("Unsqueeze", {"s", "axes0"}, {"reps"});
  body.node("Tile", {"m", "reps"}, {"tiled"});
  body.node("Mul", {"reps", "two"}, {"used"});
  body.node("Sub", {"eight", "used"}, {"rest"});
  setAttr(body.node("Concat", {"zero", "rest"}, {"pads"}), "axis", int64_t{0});
  body.node("Pad", {"tiled", "pads"}, {"row"});
  body.node("Unsqueeze", {"row", "axes0"}, {"row2"});
  setAttr(body.node("Concat", {"res_in", "row2"}, {"res_out"}), "axis", int64_t{0});
  body.node("Identity", {"c_in"}, {"c_out"});
  body.output("c_out");
  body.output("res_out");
  // The body reads sizes, masks (run-time inputs), two and eight (initializers) from the model.
  onnx::GraphProto& bg = *body.model().mutable_graph();
  for (const char* captured : {"two", "eight"})
    bg.mutable_initializer()->erase(std::remove_if(bg.mutable_initializer()->begin(), bg.mutable_initializer()->end(),
                                                   [&](const onnx::TensorProto& t) { return t.name() == captured; }),
                                    bg.mutable_initializer()->end());

  ModelBuilder b(13);
  b.input("sizes", {int64_t{3}}, te::DType::Int64);
  b.input("masks", {int64_t{3}, int64_t{2}});
  b.ints("two", {2});
  b.ints("eight", {8});
  b.floats("first_row", {1, 8}, std::vector<float>(8, 9.0f));
  b.ints("three", {3});
  b.node("Squeeze", {"three"}, {"n"});
  onnx::NodeProto& loop = b.node("Loop", {"n", "", "first_row"}, {"res"});
  setAttr(loop, "body", bg);
  b.output("res");
  executor::StagedModel m = staged(save(dir, b, "paste_loop"));
  const runtime::NDArray masks = floats({3, 2}, {1, 2, 3, 4, 5, 6});
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{1, 4, 2}, std::vector<int64_t>{3, 1, 1}}) {
    runtime::NDArray s(te::Shape{3}, te::DType::Int64);
    std::copy(sizes.begin(), sizes.end(), s.as<int64_t>());
    int host_before = m.stats().host_nodes;
    std::vector<runtime::NDArray> outs = m.run({s, masks});
    ASSERT_EQ(outs.size(), 1u);
    ASSERT_EQ(outs[0].shape(), (te::Shape{4, 8}));
    for (int64_t c = 0; c < 8; ++c) EXPECT_EQ(outs[0].as<float>()[c], 9.0f);
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t c = 0; c < 8; ++c) {
        float want = c < 2 * sizes[static_cast<size_t>(r)] ? masks.as<float>()[r * 2 + c % 2] : 0.0f;
        EXPECT_EQ(outs[0].as<float>()[(r + 1) * 8 + c], want) << "row " << r << " column " << c;
      }
    EXPECT_EQ(m.stats().host_nodes - host_before, 1);  // the loop, once per run
  }
}

// Selections that are empty along one axis keep their other extents: no row selected, a column
// of batch indices [0, 1] next to the boxes [0, 4] is [0, 5] (torchvision's RoI format), and
// resizing it gives an empty result of the resized extents.
TEST(StagedModel, EmptySelectionsKeepTheirOtherExtents) {
  TempDir dir("ttune-staged");
  ModelBuilder b(13);
  b.input("scores", {int64_t{4}});
  b.input("boxes", {int64_t{4}, int64_t{4}});
  b.floats("thr", {}, {0.5f});
  b.ints("flat", {-1});
  b.ints("first", {0});
  b.ints("one", {1});
  b.ints("axes0", {0});
  b.floats("scales", {3}, {1, 1, 2});
  b.node("Greater", {"scores", "thr"}, {"pass"});
  b.node("NonZero", {"pass"}, {"nz"});
  b.node("Reshape", {"nz", "flat"}, {"idx"});
  setAttr(b.node("Gather", {"boxes", "idx"}, {"sel"}), "axis", int64_t{0});
  b.node("Shape", {"sel"}, {"shape"});
  b.node("Slice", {"shape", "first", "one"}, {"rows"});
  setAttr(b.node("Concat", {"rows", "one"}, {"col_shape"}), "axis", int64_t{0});
  b.node("ConstantOfShape", {"col_shape"}, {"col"});
  setAttr(b.node("Concat", {"col", "sel"}, {"rois"}), "axis", int64_t{1});
  b.node("Unsqueeze", {"rois", "axes0"}, {"rois3"});
  b.node("Resize", {"rois3", "", "scales"}, {"wide"});
  b.output("rois");
  b.output("wide");
  executor::StagedModel m = staged(save(dir, b, "empty_rois"));
  runtime::NDArray boxes(te::Shape{4, 4}, te::DType::Float32);
  std::iota(boxes.as<float>(), boxes.as<float>() + 16, 1.0f);
  std::vector<runtime::NDArray> outs = m.run({floats({4}, {0.1f, 0.2f, 0.3f, 0.4f}), boxes});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].shape(), (te::Shape{0, 5}));
  EXPECT_EQ(outs[1].shape(), (te::Shape{1, 0, 10}));
  outs = m.run({floats({4}, {0.1f, 0.9f, 0.3f, 0.8f}), boxes});
  ASSERT_EQ(outs[0].shape(), (te::Shape{2, 5}));
  ASSERT_EQ(outs[1].shape(), (te::Shape{1, 2, 10}));
  for (int64_t r = 0; r < 2; ++r) {
    int64_t box = r == 0 ? 1 : 3;
    EXPECT_EQ(outs[0].as<float>()[r * 5], 0.0f);
    for (int64_t c = 0; c < 4; ++c) {
      float v = boxes.as<float>()[box * 4 + c];
      EXPECT_EQ(outs[0].as<float>()[r * 5 + 1 + c], v);
      EXPECT_EQ(outs[1].as<float>()[r * 10 + 2 + 2 * c], v);  // nearest: each column twice
      EXPECT_EQ(outs[1].as<float>()[r * 10 + 3 + 2 * c], v);
    }
  }
}

}  // namespace
}  // namespace ttune::frontend
