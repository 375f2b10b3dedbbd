// ConvTranspose (1-D to 3-D, groups, strides, dilations, output padding, output_shape), 3-D Conv
// and pooling, and Einsum, each checked against a plain loop written here from the ONNX operator
// definitions: the imported graph through the reference evaluator and compiled as `ttune run`
// compiles it (optimized, fused, default schedules, this machine's code).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

#include "executor/executor.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "onnx_builder.h"
#include "support/error.h"
#include "test_util.h"

namespace ttune::frontend {
namespace {

using namespace testing;
using I = int64_t;
using Ints = std::vector<int64_t>;

// Row-major offset of `idx` in `shape`.
int64_t offset(const te::Shape& shape, const Ints& idx) {
  int64_t o = 0;
  for (size_t d = 0; d < shape.size(); ++d) o = o * shape[d] + idx[d];
  return o;
}

// Calls f for every index of `shape`.
void forEachIndex(const te::Shape& shape, const std::function<void(const Ints&)>& f) {
  Ints idx(shape.size(), 0);
  if (te::shapeElements(shape) == 0) return;
  for (;;) {
    f(idx);
    size_t d = shape.size();
    while (d > 0 && ++idx[d - 1] == shape[d - 1]) idx[--d] = 0;
    if (d == 0) return;
  }
}

int countConvolutions(const graph::Graph& g) {
  int n = 0;
  for (const std::string& op : opNames(g)) n += op.find("conv2d") != std::string::npos ? 1 : 0;
  return n;
}

// Imports the model, then checks the reference evaluator and the compiled graph against `want`.
void checkModel(ModelBuilder& b, const std::vector<runtime::NDArray>& inputs, const runtime::NDArray& want,
                const std::function<void(const graph::Graph&)>& inspect = {}) {
  graph::Graph g = importOnnxModel(b.model());
  if (inspect) inspect(g);
  {
    SCOPED_TRACE("reference evaluator");
    expectClose(graph::evaluateGraph(g, inputs)[0], want, 1e-4, 1e-4);
  }
  graph::optimizeGraph(g);
  executor::CompiledModel m = executor::CompiledModel::compile(g);
  SCOPED_TRACE("compiled");
  expectClose(m.run(inputs)[0], want, 1e-4, 1e-4);
}

// ---- ConvTranspose ------------------------------------------------------------------------------

struct Deconv {
  te::Shape x;  // [N, C, spatial...]
  I m = 1, groups = 1;
  Ints kernel = {}, strides = {}, dilations = {}, pads = {}, output_padding = {}, output_shape = {};
  bool bias = false;
};

// y[n, g*Mg + mm, i*s - p_begin + k*d] += x[n, g*Cg + ci, i] * w[g*Cg + ci, mm, k], straight from
// the operator's definition; output_shape moves the padding as ONNX's reference does.
runtime::NDArray deconvReference(const Deconv& p, const runtime::NDArray& x, const runtime::NDArray& w,
                                 const runtime::NDArray* bias) {
  size_t s = p.kernel.size();
  I cg = p.x[1] / p.groups, mg = p.m / p.groups;
  Ints begin(s), out(s);
  for (size_t d = 0; d < s; ++d) {
    I full = p.strides[d] * (p.x[d + 2] - 1) + p.output_padding[d] + (p.kernel[d] - 1) * p.dilations[d] + 1;
    if (!p.output_shape.empty()) {
      I total = full - p.output_shape[d];
      I half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      begin[d] = total - half;
      out[d] = p.output_shape[d];
    } else {
      begin[d] = p.pads[d];
      out[d] = full - p.pads[d] - p.pads[d + s];
    }
  }
  te::Shape ys{p.x[0], p.m};
  ys.insert(ys.end(), out.begin(), out.end());
  runtime::NDArray y(ys, te::DType::Float32);
  te::Shape ws = w.shape();
  forEachIndex(p.x, [&](const Ints& xi) {
    I grp = xi[1] / cg;
    float xv = x.as<float>()[offset(p.x, xi)];
    te::Shape ks(ws.begin() + 2, ws.end());
    forEachIndex(ks, [&](const Ints& k) {
      Ints yi{xi[0], 0};
      for (size_t d = 0; d < s; ++d) {
        I o = xi[d + 2] * p.strides[d] - begin[d] + k[d] * p.dilations[d];
        if (o < 0 || o >= out[d]) return;
        yi.push_back(o);
      }
      for (I mm = 0; mm < mg; ++mm) {
        yi[1] = grp * mg + mm;
        Ints wi{xi[1], mm};
        wi.insert(wi.end(), k.begin(), k.end());
        y.as<float>()[offset(ys, yi)] += xv * w.as<float>()[offset(ws, wi)];
      }
    });
  });
  if (bias) forEachIndex(ys, [&](const Ints& yi) { y.as<float>()[offset(ys, yi)] += bias->as<float>()[yi[1]]; });
  return y;
}

void checkDeconv(Deconv p, bool constant_weight = true) {
  size_t s = p.kernel.size();
  if (p.strides.empty()) p.strides.assign(s, 1);
  if (p.dilations.empty()) p.dilations.assign(s, 1);
  if (p.pads.empty()) p.pads.assign(2 * s, 0);
  if (p.output_padding.empty()) p.output_padding.assign(s, 0);
  te::Shape ws{p.x[1], p.m / p.groups};
  ws.insert(ws.end(), p.kernel.begin(), p.kernel.end());
  ModelBuilder b(13);
  b.input("x", {p.x.begin(), p.x.end()});
  runtime::NDArray w = randomArray(ws, 11), bias = randomArray({p.m}, 12);
  if (constant_weight)
    b.initializer("w", w);
  else
    b.input("w", {ws.begin(), ws.end()});
  if (p.bias) b.initializer("b", bias);
  onnx::NodeProto& n = b.node(
      "ConvTranspose", p.bias ? std::vector<std::string>{"x", "w", "b"} : std::vector<std::string>{"x", "w"}, {"y"});
  setAttr(n, "strides", p.strides);
  setAttr(n, "dilations", p.dilations);
  setAttr(n, "group", p.groups);
  setAttr(n, "output_padding", p.output_padding);
  if (p.output_shape.empty())
    setAttr(n, "pads", p.pads);
  else
    setAttr(n, "output_shape", p.output_shape);
  b.output("y");
  runtime::NDArray x = randomArray(p.x, 13);
  std::vector<runtime::NDArray> inputs{x};
  if (!constant_weight) inputs.push_back(w);
  checkModel(b, inputs, deconvReference(p, x, w, p.bias ? &bias : nullptr), [&](const graph::Graph& g) {
    // One convolution for all phases, its weight folded at import when constant.
    EXPECT_EQ(countConvolutions(g), 1) << ::testing::PrintToString(opNames(g));
    bool weight_gathered = false;
    for (const graph::Node& node : g.nodes())
      weight_gathered = weight_gathered || node.name.find("phase_weight") != std::string::npos;
    EXPECT_EQ(weight_gathered, !constant_weight);
  });
}

TEST(OnnxConvTranspose, UpConvolutionsAndTheirPadding) {
  {
    SCOPED_TRACE("U-Net 2x2 stride 2");
    checkDeconv({.x = {1, 8, 5, 6}, .m = 4, .kernel = {2, 2}, .strides = {2, 2}, .bias = true});
  }
  {
    SCOPED_TRACE("DCGAN 4x4 stride 2 pad 1");
    checkDeconv({.x = {2, 4, 4, 3}, .m = 3, .kernel = {4, 4}, .strides = {2, 2}, .pads = {1, 1, 1, 1}, .bias = true});
  }
  {
    SCOPED_TRACE("groups, asymmetric strides, output padding");
    checkDeconv({.x = {1, 4, 3, 4},
                 .m = 6,
                 .groups = 2,
                 .kernel = {3, 3},
                 .strides = {3, 2},
                 .pads = {1, 0, 0, 1},
                 .output_padding = {2, 1}});
  }
  {
    SCOPED_TRACE("dilation and stride on one axis, weight an input");
    checkDeconv({.x = {1, 2, 4, 5}, .m = 3, .kernel = {3, 2}, .strides = {2, 3}, .dilations = {2, 2}}, false);
  }
  {
    SCOPED_TRACE("output_shape beyond the full length");
    checkDeconv({.x = {1, 2, 3, 3}, .m = 2, .kernel = {3, 3}, .strides = {3, 2}, .output_shape = {11, 9}});
  }
  {
    SCOPED_TRACE("1-D");
    checkDeconv({.x = {2, 3, 7}, .m = 5, .kernel = {5}, .strides = {3}, .pads = {2, 1}, .bias = true});
  }
  {
    SCOPED_TRACE("3-D");
    checkDeconv({.x = {1, 2, 3, 4, 3}, .m = 2, .kernel = {2, 3, 2}, .strides = {2, 1, 2}, .pads = {0, 1, 0, 1, 0, 0}});
  }
}

// ---- 3-D convolution and pooling ----------------------------------------------------------------

TEST(OnnxConv3d, GroupsStridesPadsDilationsAndBias) {
  te::Shape xs{2, 4, 5, 6, 7}, ws{6, 2, 3, 3, 2};
  Ints strides{2, 1, 2}, dil{1, 2, 1}, pads{1, 1, 0, 1, 2, 1};
  I groups = 2;
  ModelBuilder b(13);
  b.input("x", {xs.begin(), xs.end()});
  runtime::NDArray w = b.random("w", ws, 21), bias = b.random("b", {6}, 22);
  onnx::NodeProto& n = b.node("Conv", {"x", "w", "b"}, {"y"});
  setAttr(n, "strides", strides);
  setAttr(n, "dilations", dil);
  setAttr(n, "pads", pads);
  setAttr(n, "group", groups);
  b.output("y");
  runtime::NDArray x = randomArray(xs, 23);
  te::Shape ys{2, 6};
  for (size_t d = 0; d < 3; ++d)
    ys.push_back((xs[d + 2] + pads[d] + pads[d + 3] - ((ws[d + 2] - 1) * dil[d] + 1)) / strides[d] + 1);
  runtime::NDArray want(ys, te::DType::Float32);
  forEachIndex(ys, [&](const Ints& yi) {
    float acc = bias.as<float>()[yi[1]];
    I grp = yi[1] / 3;
    forEachIndex({2, ws[2], ws[3], ws[4]}, [&](const Ints& k) {
      Ints xi{yi[0], grp * 2 + k[0]};
      for (size_t d = 0; d < 3; ++d) {
        I p = yi[d + 2] * strides[d] - pads[d] + k[d + 1] * dil[d];
        if (p < 0 || p >= xs[d + 2]) return;
        xi.push_back(p);
      }
      acc += x.as<float>()[offset(xs, xi)] * w.as<float>()[offset(ws, {yi[1], k[0], k[1], k[2], k[3]})];
    });
    want.as<float>()[offset(ys, yi)] = acc;
  });
  checkModel(b, {x}, want, [](const graph::Graph& g) { EXPECT_EQ(countConvolutions(g), 1); });
}

TEST(OnnxPool3d, MaxWithCeilAndAverageWithoutPadding) {
  te::Shape xs{1, 3, 5, 6, 7};
  Ints kernel{2, 3, 3}, strides{2, 2, 2}, pads{0, 1, 1, 1, 1, 0};
  for (bool is_max : {true, false}) {
    SCOPED_TRACE(is_max ? "max, ceil_mode" : "average, count_include_pad 0");
    ModelBuilder b(13);
    b.input("x", {xs.begin(), xs.end()});
    onnx::NodeProto& n = b.node(is_max ? "MaxPool" : "AveragePool", {"x"}, {"y"});
    setAttr(n, "kernel_shape", kernel);
    setAttr(n, "strides", strides);
    setAttr(n, "pads", pads);
    setAttr(n, "ceil_mode", I(is_max ? 1 : 0));
    b.output("y");
    runtime::NDArray x = randomArray(xs, 31);
    te::Shape ys{1, 3};
    for (size_t d = 0; d < 3; ++d) {
      I span = xs[d + 2] + pads[d] + pads[d + 3] - kernel[d];
      I o = (is_max ? (span + strides[d] - 1) / strides[d] : span / strides[d]) + 1;
      if (is_max && (o - 1) * strides[d] >= xs[d + 2] + pads[d]) --o;  // the last window starts in the input
      ys.push_back(o);
    }
    runtime::NDArray want(ys, te::DType::Float32);
    forEachIndex(ys, [&](const Ints& yi) {
      float best = -std::numeric_limits<float>::infinity(), sum = 0;
      int count = 0;
      forEachIndex({kernel[0], kernel[1], kernel[2]}, [&](const Ints& k) {
        Ints xi{yi[0], yi[1]};
        for (size_t d = 0; d < 3; ++d) {
          I p = yi[d + 2] * strides[d] - pads[d] + k[d];
          if (p < 0 || p >= xs[d + 2]) return;
          xi.push_back(p);
        }
        float v = x.as<float>()[offset(xs, xi)];
        best = std::max(best, v), sum += v, ++count;
      });
      want.as<float>()[offset(ys, yi)] = is_max ? best : sum / static_cast<float>(count);
    });
    checkModel(b, {x}, want);
  }
}

// ---- Einsum -------------------------------------------------------------------------------------

// Brute force over every assignment of the labels; a size-1 axis broadcasts. `terms` are the input
// terms with letters only (ellipses written out by the caller), `out` the output term.
runtime::NDArray einsumReference(const std::vector<std::string>& terms, const std::string& out,
                                 const std::vector<runtime::NDArray>& xs) {
  std::map<char, int64_t> size;
  for (size_t t = 0; t < terms.size(); ++t)
    for (size_t a = 0; a < terms[t].size(); ++a) size[terms[t][a]] = std::max(size[terms[t][a]], xs[t].shape()[a]);
  std::string labels;
  te::Shape all;
  for (const auto& [l, n] : size) labels += l, all.push_back(n);
  te::Shape ys;
  for (char l : out) ys.push_back(size[l]);
  runtime::NDArray y(ys, te::DType::Float32);
  forEachIndex(all, [&](const Ints& v) {
    auto at = [&](char l) { return v[labels.find(l)]; };
    float prod = 1;
    for (size_t t = 0; t < terms.size(); ++t) {
      Ints idx;
      for (size_t a = 0; a < terms[t].size(); ++a) idx.push_back(xs[t].shape()[a] == 1 ? 0 : at(terms[t][a]));
      prod *= xs[t].as<float>()[offset(xs[t].shape(), idx)];
    }
    Ints yi;
    for (char l : out) yi.push_back(at(l));
    y.as<float>()[offset(ys, yi)] += prod;
  });
  return y;
}

struct EinsumCase {
  std::string equation;
  std::vector<te::Shape> shapes;
  std::vector<std::string> terms;  // the reference's spelling
  std::string out;
  bool constant_last = false;  // the last operand an initializer
};

TEST(OnnxEinsum, ProductsSumsDiagonalsAndEllipses) {
  std::vector<EinsumCase> cases = {
      {"bij,bjk->bik", {{3, 4, 5}, {3, 5, 2}}, {"bij", "bjk"}, "bik"},
      {"bij,jk->bik", {{2, 4, 5}, {5, 6}}, {"bij", "jk"}, "bik", true},
      {"bhqd,bhkd->bhqk", {{1, 2, 5, 4}, {1, 2, 3, 4}}, {"bhqd", "bhkd"}, "bhqk"},
      {"i,j->ij", {{3}, {4}}, {"i", "j"}, "ij"},
      {"ij,jk", {{3, 4}, {4, 2}}, {"ij", "jk"}, "ik"},
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}, {"ij", "jk", "kl"}, "il"},
      {"ij->", {{3, 4}}, {"ij"}, ""},
      {"ii->i", {{4, 4}}, {"ii"}, "i"},
      {"bii,bij->bj", {{2, 3, 3}, {2, 3, 4}}, {"bii", "bij"}, "bj"},
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 6}}, {"xyij", "yjk"}, "xyik"},
      {"ijk->kji", {{2, 3, 4}}, {"ijk"}, "kji"},
      {"bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}}, {"bn", "anm", "bm"}, "ba"},
  };
  for (const EinsumCase& k : cases) {
    SCOPED_TRACE(k.equation);
    ModelBuilder b(13);
    std::vector<std::string> names;
    std::vector<runtime::NDArray> arrays, inputs;
    for (size_t i = 0; i < k.shapes.size(); ++i) {
      names.push_back("x" + std::to_string(i));
      arrays.push_back(randomArray(k.shapes[i], 40 + i));
      if (k.constant_last && i + 1 == k.shapes.size()) {
        b.initializer(names.back(), arrays.back());
      } else {
        b.input(names.back(), {k.shapes[i].begin(), k.shapes[i].end()});
        inputs.push_back(arrays.back());
      }
    }
    setAttr(b.node("Einsum", names, {"y"}), "equation", k.equation);
    b.output("y");
    checkModel(b, inputs, einsumReference(k.terms, k.out, arrays), [&](const graph::Graph& g) {
      if (k.constant_last) {
        EXPECT_EQ(countOp(g, "dense"), 1) << "a product with a constant weight is a dense layer";
      }
    });
  }
}

TEST(OnnxEinsum, MalformedEquationsAreOneSentence) {
  for (const auto& [eq, want] :
       std::vector<std::pair<std::string, std::string>>{{"ij,jk->ik", "2 input terms for 1 inputs"},
                                                        {"ijk->i", "does not match input 0 of rank 2"},
                                                        {"ij->iz", "repeated or in no input"},
                                                        {"i1->i", "not a letter"}}) {
    SCOPED_TRACE(eq);
    ModelBuilder b(13);
    b.input("x", {I(3), I(4)});
    setAttr(b.node("Einsum", {"x"}, {"y"}), "equation", eq);
    b.output("y");
    try {
      importOnnxModel(b.model());
      ADD_FAILURE() << "imported";
    } catch (const Error& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(want), std::string::npos) << msg;
      EXPECT_EQ(msg.rfind("node #0 (Einsum): ", 0), 0u) << msg;
    }
  }
}

}  // namespace
}  // namespace ttune::frontend
