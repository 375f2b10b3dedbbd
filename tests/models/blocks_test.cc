// Numerical checks of the zoo's building blocks at tiny sizes: each block (and tiny versions of
// the two transformers) is built with the zoo's own functions, evaluated node by node with the te
// reference evaluator, and compared with the architecture written out by hand from the published
// definition (torchvision / HuggingFace) using independent loop implementations. The reference
// interpreter is cross-checked against te on tiny whole networks.
#include <gtest/gtest.h>

#include <cmath>

#include "models/bert.h"
#include "models/efficientnet.h"
#include "models/googlenet.h"
#include "models/mnasnet.h"
#include "models/mobilebert.h"
#include "models/mobilenet.h"
#include "models/resnet.h"
#include "models/zoo.h"
#include "reference.h"

namespace ttune::models {
namespace {

using runtime::NDArray;
namespace ref = testing;

NDArray randomInput(te::Shape shape, uint64_t seed) {
  NDArray x = NDArray::empty(std::move(shape), te::DType::Float32);
  x.fillRandom(seed, -1.0, 1.0);
  return x;
}

// Weight accessors on one built graph.
struct Weights {
  const graph::Graph& g;
  const NDArray& operator()(const std::string& name) const { return ref::constantOf(g, name); }
  NDArray conv(const std::string& name, const NDArray& x, int64_t stride, int64_t pad, int64_t groups = 1) const {
    return ref::conv2d(x, (*this)(name + ".weight"), stride, pad, groups);
  }
  NDArray convBias(const std::string& name, const NDArray& x) const {
    return ref::add(conv(name, x, 1, 0), (*this)(name + ".bias"));
  }
  NDArray bn(const std::string& name, const NDArray& x, double eps = 1e-5) const {
    const Weights& w = *this;
    return ref::batchNorm(x, w(name + ".weight"), w(name + ".bias"), w(name + ".running_mean"),
                          w(name + ".running_var"), eps);
  }
  NDArray linear(const std::string& name, const NDArray& x) const {
    return ref::add(ref::dense(x, (*this)(name + ".weight")), (*this)(name + ".bias"));
  }
  NDArray layerNorm(const std::string& name, const NDArray& x, double eps) const {
    return ref::layerNorm(x, (*this)(name + ".weight"), (*this)(name + ".bias"), eps);
  }
  NDArray noNorm(const std::string& name, const NDArray& x) const {
    return ref::add(ref::mul(x, (*this)(name + ".weight")), (*this)(name + ".bias"));
  }
};

NDArray relu(const NDArray& x) { return ref::unary(x, ref::relu); }
NDArray relu6(const NDArray& x) {
  return ref::unary(x, [](double v) { return std::min(std::max(v, 0.0), 6.0); });
}
NDArray silu(const NDArray& x) { return ref::unary(x, ref::silu); }

// Builds a one-block graph on an input of `shape` and checks te against the hand reference.
template <class BuildBlock, class Reference>
void checkBlock(te::Shape shape, BuildBlock build, Reference reference) {
  Builder b(11);
  int x = b.input("x", shape);
  graph::Graph g = b.finish({build(b, x)});
  NDArray input = randomInput(shape, 5);
  NDArray got = ref::evaluateWithTe(g, {input})[0];
  NDArray want = reference(Weights{g}, input);
  EXPECT_TRUE(ref::near(got, want));
  EXPECT_TRUE(ref::near(ref::interpret(g, {input})[0], want));
}

TEST(Blocks, ResNetBasicBlockWithDownsample) {
  checkBlock(
      {1, 4, 6, 6}, [](Builder& b, int x) { return basicBlock(b, "blk", x, 8, 2); },
      [](const Weights& w, const NDArray& x) {
        NDArray y = relu(w.bn("blk.bn1", w.conv("blk.conv1", x, 2, 1)));
        y = w.bn("blk.bn2", w.conv("blk.conv2", y, 1, 1));
        NDArray s = w.bn("blk.downsample.1", w.conv("blk.downsample.0", x, 2, 0));
        return relu(ref::add(y, s));
      });
}

TEST(Blocks, ResNetBottleneckWithIdentityShortcut) {
  checkBlock(
      {1, 8, 5, 5}, [](Builder& b, int x) { return bottleneckBlock(b, "blk", x, 2, 1); },
      [](const Weights& w, const NDArray& x) {
        NDArray y = relu(w.bn("blk.bn1", w.conv("blk.conv1", x, 1, 0)));
        y = relu(w.bn("blk.bn2", w.conv("blk.conv2", y, 1, 1)));
        y = w.bn("blk.bn3", w.conv("blk.conv3", y, 1, 0));
        return relu(ref::add(y, x));
      });
}

TEST(Blocks, ResNetBottleneckStridesOnThe3x3Conv) {
  Builder b(1);
  int x = b.input("x", {1, 8, 8, 8});
  bottleneckBlock(b, "blk", x, 4, 2);
  graph::Graph g = b.finish({});
  for (const graph::Node& n : g.nodes()) {
    if (auto* c = std::get_if<graph::Conv2dAttrs>(&n.attrs)) {
      bool strided = n.name == "blk.conv2" || n.name == "blk.downsample.0";
      EXPECT_EQ(c->strides[0], strided ? 2 : 1) << n.name;
    }
  }
}

TEST(Blocks, MobileNetV2InvertedResidual) {
  checkBlock(
      {1, 4, 5, 5}, [](Builder& b, int x) { return invertedResidual(b, "blk", x, 4, 1, 6); },
      [](const Weights& w, const NDArray& x) {
        NDArray y = relu6(w.bn("blk.conv.0.1", w.conv("blk.conv.0.0", x, 1, 0)));
        y = relu6(w.bn("blk.conv.1.1", w.conv("blk.conv.1.0", y, 1, 1, 24)));
        y = w.bn("blk.conv.3", w.conv("blk.conv.2", y, 1, 0));
        return ref::add(x, y);
      });
  // Expansion 1, stride 2: depthwise then projection, no shortcut.
  checkBlock(
      {1, 4, 6, 6}, [](Builder& b, int x) { return invertedResidual(b, "blk", x, 6, 2, 1); },
      [](const Weights& w, const NDArray& x) {
        NDArray y = relu6(w.bn("blk.conv.0.1", w.conv("blk.conv.0.0", x, 2, 1, 4)));
        return w.bn("blk.conv.2", w.conv("blk.conv.1", y, 1, 0));
      });
}

TEST(Blocks, EfficientNetMBConvWithSqueezeExcitation) {
  checkBlock(
      {1, 8, 6, 6},
      [](Builder& b, int x) { return mbConv(b, "blk", x, {.expand_ratio = 6, .kernel = 5, .stride = 1, .out = 8}); },
      [](const Weights& w, const NDArray& x) {
        NDArray y = silu(w.bn("blk.block.0.1", w.conv("blk.block.0.0", x, 1, 0)));
        y = silu(w.bn("blk.block.1.1", w.conv("blk.block.1.0", y, 1, 2, 48)));
        NDArray s = ref::globalAvgPool(y);
        s = silu(w.convBias("blk.block.2.fc1", s));
        EXPECT_EQ(s.shape()[1], 2);  // squeeze = in / 4
        s = ref::unary(w.convBias("blk.block.2.fc2", s), ref::sigmoid);
        y = ref::mul(s, y);
        y = w.bn("blk.block.3.1", w.conv("blk.block.3.0", y, 1, 0));
        return ref::add(y, x);
      });
}

TEST(Blocks, GoogLeNetInception) {
  checkBlock(
      {1, 6, 5, 5},
      [](Builder& b, int x) {
        return inception(b, "inc", x, {2, 3, 4, 2, 3, 2});
      },
      [](const Weights& w, const NDArray& x) {
        auto basic = [&](const std::string& p, const NDArray& in, int64_t pad) {
          return relu(w.bn(p + ".bn", w.conv(p + ".conv", in, 1, pad), 1e-3));
        };
        NDArray b1 = basic("inc.branch1", x, 0);
        NDArray b2 = basic("inc.branch2.1", basic("inc.branch2.0", x, 0), 1);
        NDArray b3 = basic("inc.branch3.1", basic("inc.branch3.0", x, 0), 1);
        NDArray b4 = basic("inc.branch4.1", ref::maxPool(x, 3, 1, 1, true), 0);
        return ref::concat({b1, b2, b3, b4}, 1);
      });
}

TEST(Blocks, MnasNetInvertedResidual) {
  checkBlock(
      {1, 4, 5, 5}, [](Builder& b, int x) { return mnasInvertedResidual(b, "blk", x, 4, 5, 1, 3); },
      [](const Weights& w, const NDArray& x) {
        NDArray y = relu(w.bn("blk.layers.1", w.conv("blk.layers.0", x, 1, 0)));
        y = relu(w.bn("blk.layers.4", w.conv("blk.layers.3", y, 1, 2, 12)));
        y = w.bn("blk.layers.7", w.conv("blk.layers.6", y, 1, 0));
        return ref::add(y, x);
      });
}

NDArray tokenIds(int64_t seq, int64_t vocab) {
  NDArray ids = NDArray::empty({1, seq}, te::DType::Int64);
  ids.fillRandom(3, 0, static_cast<double>(vocab));
  return ids;
}

NDArray idArray(int64_t n, int64_t step) {
  NDArray a({n}, te::DType::Int64);
  for (int64_t i = 0; i < n; ++i) a.as<int64_t>()[i] = i * step;
  return a;
}

// softmax(q k^T / sqrt(d)) v per head, heads as column blocks of [S, H*D].
NDArray attentionByHand(const NDArray& q, const NDArray& k, const NDArray& v, int64_t heads) {
  int64_t d = q.shape()[1] / heads;
  std::vector<NDArray> ctx;
  for (int64_t h = 0; h < heads; ++h) {
    NDArray qh = ref::slice(q, 1, h * d, (h + 1) * d), kh = ref::slice(k, 1, h * d, (h + 1) * d);
    NDArray scores =
        ref::unary(ref::matmul(qh, kh, false, true), [d](double s) { return s / std::sqrt(static_cast<double>(d)); });
    ctx.push_back(ref::matmul(ref::softmaxLastAxis(scores), ref::slice(v, 1, h * d, (h + 1) * d), false, false));
  }
  return ref::concat(ctx, 1);
}

TEST(Transformers, TinyBertMatchesTheHuggingFaceComputation) {
  BertConfig c{.layers = 2,
               .hidden = 8,
               .heads = 2,
               .intermediate = 16,
               .seq = 5,
               .vocab = 13,
               .max_positions = 7,
               .type_vocab = 2,
               .num_labels = 2};
  graph::Graph g = buildBert(c, 4);
  Weights w{g};
  NDArray ids = tokenIds(c.seq, c.vocab);
  NDArray x = ref::gather(w("embeddings.word_embeddings.weight"), ref::reshape(ids, {c.seq}));
  x = ref::add(x, ref::gather(w("embeddings.position_embeddings.weight"), idArray(c.seq, 1)));
  x = ref::add(x, ref::gather(w("embeddings.token_type_embeddings.weight"), idArray(c.seq, 0)));
  x = w.layerNorm("embeddings.LayerNorm", x, 1e-12);
  for (int l = 0; l < c.layers; ++l) {
    std::string p = "encoder.layer." + std::to_string(l);
    NDArray ctx = attentionByHand(w.linear(p + ".attention.self.query", x), w.linear(p + ".attention.self.key", x),
                                  w.linear(p + ".attention.self.value", x), c.heads);
    NDArray a = w.layerNorm(p + ".attention.output.LayerNorm",
                            ref::add(w.linear(p + ".attention.output.dense", ctx), x), 1e-12);
    NDArray f = ref::unary(w.linear(p + ".intermediate.dense", a), ref::gelu);
    x = w.layerNorm(p + ".output.LayerNorm", ref::add(w.linear(p + ".output.dense", f), a), 1e-12);
  }
  NDArray pooled = ref::unary(w.linear("pooler.dense", ref::slice(x, 0, 0, 1)), [](double v) { return std::tanh(v); });
  NDArray want = w.linear("classifier", pooled);
  EXPECT_TRUE(ref::near(ref::evaluateWithTe(g, {ids})[0], want));
  EXPECT_TRUE(ref::near(ref::interpret(g, {ids})[0], want));
}

TEST(Transformers, TinyMobileBertMatchesTheHuggingFaceComputation) {
  MobileBertConfig c{.layers = 2,
                     .hidden = 16,
                     .embedding = 4,
                     .bottleneck = 8,
                     .heads = 2,
                     .intermediate = 12,
                     .feedforward_networks = 4,
                     .seq = 5,
                     .vocab = 13,
                     .max_positions = 7,
                     .type_vocab = 2,
                     .num_labels = 2};
  graph::Graph g = buildMobileBert(c, 4);
  Weights w{g};
  NDArray ids = tokenIds(c.seq, c.vocab);
  NDArray e = ref::gather(w("embeddings.word_embeddings.weight"), ref::reshape(ids, {c.seq}));
  // Trigram input: row i is [e[i+1], e[i], e[i-1]] with zeros past the ends.
  NDArray tri({c.seq, 3 * c.embedding}, te::DType::Float32);
  for (int64_t i = 0; i < c.seq; ++i)
    for (int64_t j = 0; j < c.embedding; ++j) {
      float* row = tri.as<float>() + i * 3 * c.embedding;
      const float* E = e.as<float>();
      row[j] = i + 1 < c.seq ? E[(i + 1) * c.embedding + j] : 0.0f;
      row[c.embedding + j] = E[i * c.embedding + j];
      row[2 * c.embedding + j] = i > 0 ? E[(i - 1) * c.embedding + j] : 0.0f;
    }
  NDArray h = w.linear("embeddings.embedding_transformation", tri);
  h = ref::add(h, ref::gather(w("embeddings.position_embeddings.weight"), idArray(c.seq, 1)));
  h = ref::add(h, ref::gather(w("embeddings.token_type_embeddings.weight"), idArray(c.seq, 0)));
  h = w.noNorm("embeddings.LayerNorm", h);
  for (int l = 0; l < c.layers; ++l) {
    std::string p = "encoder.layer." + std::to_string(l);
    NDArray layer_input = w.noNorm(p + ".bottleneck.input.LayerNorm", w.linear(p + ".bottleneck.input.dense", h));
    NDArray shared = w.noNorm(p + ".bottleneck.attention.LayerNorm", w.linear(p + ".bottleneck.attention.dense", h));
    NDArray ctx =
        attentionByHand(w.linear(p + ".attention.self.query", shared), w.linear(p + ".attention.self.key", shared),
                        w.linear(p + ".attention.self.value", h), c.heads);
    NDArray a = w.noNorm(p + ".attention.output.LayerNorm",
                         ref::add(w.linear(p + ".attention.output.dense", ctx), layer_input));
    for (int f = 0; f < 3; ++f) {
      std::string q = p + ".ffn." + std::to_string(f);
      NDArray t = relu(w.linear(q + ".intermediate.dense", a));
      a = w.noNorm(q + ".output.LayerNorm", ref::add(w.linear(q + ".output.dense", t), a));
    }
    NDArray t = relu(w.linear(p + ".intermediate.dense", a));
    NDArray o = w.noNorm(p + ".output.LayerNorm", ref::add(w.linear(p + ".output.dense", t), a));
    h = w.noNorm(p + ".output.bottleneck.LayerNorm", ref::add(w.linear(p + ".output.bottleneck.dense", o), h));
  }
  NDArray want = w.linear("classifier", ref::slice(h, 0, 0, 1));
  EXPECT_TRUE(ref::near(ref::evaluateWithTe(g, {ids})[0], want));
  EXPECT_TRUE(ref::near(ref::interpret(g, {ids})[0], want));
}

// The interpreter (used for whole-model activation checks) agrees with te on tiny whole CNNs.
TEST(Interpreter, AgreesWithTeOnTinyNetworks) {
  std::vector<graph::Graph> graphs;
  graphs.push_back(
      buildResNet({.bottleneck = false, .layers = {1, 1, 1, 1}, .width = 4, .image = 32, .num_classes = 10}, 2));
  graphs.push_back(
      buildResNet({.bottleneck = true, .layers = {1, 1, 1, 1}, .width = 2, .image = 32, .num_classes = 10}, 2));
  graphs.push_back(buildEfficientNet({.width_mult = 0.25, .depth_mult = 0.25, .image = 32, .num_classes = 10}, 2));
  for (const graph::Graph& g : graphs) {
    NDArray x = randomInput(g.value(g.inputs()[0]).shape, 9);
    EXPECT_TRUE(ref::near(ref::interpret(g, {x})[0], ref::evaluateWithTe(g, {x})[0]));
  }
}

TEST(Structure, GoogLeNetPoolsUseCeilMode) {
  graph::Graph g = buildModel("googlenet");
  auto shapeOf = [](const graph::Graph& gr, const std::string& name) {
    for (const graph::Value& v : gr.values())
      if (v.name == name) return v.shape;
    return te::Shape{};
  };
  EXPECT_EQ(shapeOf(g, "maxpool1"), (te::Shape{1, 64, 56, 56}));
  EXPECT_EQ(shapeOf(g, "maxpool2"), (te::Shape{1, 192, 28, 28}));
  EXPECT_EQ(shapeOf(g, "maxpool3"), (te::Shape{1, 480, 14, 14}));
  EXPECT_EQ(shapeOf(g, "maxpool4"), (te::Shape{1, 832, 7, 7}));
  EXPECT_EQ(shapeOf(g, "inception5b.concat"), (te::Shape{1, 1024, 7, 7}));
}

TEST(Structure, ChannelRoundingFollowsTorchvision) {
  EXPECT_EQ(makeDivisible(32 * 1.4), 48);
  EXPECT_EQ(makeDivisible(24 * 1.4), 32);
  EXPECT_EQ(makeDivisible(112 * 1.4), 160);
  EXPECT_EQ(makeDivisible(192 * 1.4), 272);
  EXPECT_EQ(makeDivisible(320 * 1.4), 448);
  EXPECT_EQ(makeDivisible(16 * 0.25), 8);  // at least the divisor
  EXPECT_EQ(makeDivisible(10.0), 16);      // 8 would lose more than 10%
}

}  // namespace
}  // namespace ttune::models
