#include "graph/passes.h"

#include "graph/winograd.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "graph/bf16.h"
#include "graph/conv_regions.h"
#include "graph/layout.h"
#include "graph/padding_taps.h"
#include "support/assert.h"
#include "support/overload.h"

namespace ttune::graph {

namespace {

// Rewrites every node input through `map` (value id -> value id).
void remapInputs(std::vector<Node>& nodes, std::vector<int>& outputs, const std::unordered_map<int, int>& map) {
  auto f = [&](int v) {
    for (auto it = map.find(v); it != map.end(); it = map.find(v)) v = it->second;
    return v;
  };
  for (Node& n : nodes)
    for (int& v : n.inputs)
      if (v >= 0) v = f(v);
  for (int& o : outputs) o = f(o);
}

bool allConstant(const Graph& g, const Node& n) {
  for (int v : n.inputs)
    if (v >= 0 && !g.value(v).isConstant()) return false;
  return true;
}

}  // namespace

void foldConstants(Graph& g, int64_t max_elements) {
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.node(static_cast<int>(i));
    const Value& out = g.value(n.output);
    bool foldable = allConstant(g, n) && te::shapeElements(out.shape) <= max_elements;
    if (!foldable) {
      kept.push_back(n);
      continue;
    }
    g.mutableValue(n.output).constant = evaluateConstantNode(g, n);
  }
  g.setNodes(std::move(kept));
}

void foldBatchNorm(Graph& g) {
  auto consumers = g.consumers();
  std::vector<Node> nodes = g.nodes();
  std::vector<bool> drop(nodes.size(), false);
  std::unordered_map<int, int> remap;
  for (size_t bi = 0; bi < nodes.size(); ++bi) {
    Node& bn = nodes[bi];
    const BatchNormAttrs* ba = std::get_if<BatchNormAttrs>(&bn.attrs);
    if (!ba || bn.inputs.size() != 5) continue;
    bool params_const = true;
    for (int k = 1; k < 5; ++k) params_const = params_const && g.value(bn.inputs[k]).isConstant();
    if (!params_const) continue;
    // Walk back over an optional constant bias add to the conv.
    int x = bn.inputs[0];
    int add_node = -1;
    int p = g.value(x).producer;
    if (p >= 0 && consumers[x].size() == 1) {
      const Node& pn = nodes[p];
      const BinaryAttrs* b = std::get_if<BinaryAttrs>(&pn.attrs);
      if (b && b->kind == BinaryKind::Add && g.value(pn.inputs[1]).isConstant()) {
        add_node = p;
        x = pn.inputs[0];
        p = g.value(x).producer;
      }
    }
    if (p < 0 || consumers[x].size() != 1) continue;
    Node& conv = nodes[p];
    const Conv2dAttrs* ca = std::get_if<Conv2dAttrs>(&conv.attrs);
    if (!ca || ca->layout != Layout::NCHW || conv.inputs.size() != 2 || !g.value(conv.inputs[1]).isConstant() ||
        g.value(conv.inputs[1]).dtype != te::DType::Float32)
      continue;
    const runtime::NDArray& w = *g.value(conv.inputs[1]).constant;
    int64_t K = w.shape()[0];
    const Value& gamma = g.value(bn.inputs[1]);
    if (gamma.shape != te::Shape{K}) continue;
    const float* gm = gamma.constant->as<float>();
    const float* bt = g.value(bn.inputs[2]).constant->as<float>();
    const float* mu = g.value(bn.inputs[3]).constant->as<float>();
    const float* vr = g.value(bn.inputs[4]).constant->as<float>();
    std::vector<float> bias(K, 0.0f);
    if (add_node >= 0) {
      const Value& b = g.value(nodes[add_node].inputs[1]);
      if (te::shapeElements(b.shape) != K) continue;
      for (int64_t k = 0; k < K; ++k) bias[k] = b.constant->as<float>()[k];
    }
    runtime::NDArray nw = w.clone();
    int64_t per = w.numElements() / K;
    runtime::NDArray nb({1, K, 1, 1}, te::DType::Float32);
    for (int64_t k = 0; k < K; ++k) {
      float s = gm[k] / std::sqrt(vr[k] + static_cast<float>(ba->epsilon));
      for (int64_t e = 0; e < per; ++e) nw.as<float>()[k * per + e] *= s;
      nb.as<float>()[k] = (bias[k] - mu[k]) * s + bt[k];
    }
    int wv = g.addConstant(g.value(conv.inputs[1]).name + ".bn_folded", nw);
    int bv = g.addConstant(bn.name + ".bias", nb);
    conv.inputs[1] = wv;
    // The batch norm becomes the bias add (same output value, so readers need no change).
    bn.attrs = BinaryAttrs{BinaryKind::Add};
    bn.inputs = {conv.output, bv};
    if (add_node >= 0) drop[add_node] = true;
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!drop[i]) kept.push_back(nodes[i]);
  g.setNodes(std::move(kept));
}

void fuseActivations(Graph& g) {
  auto consumers = g.consumers();
  std::vector<Node> nodes = g.nodes();
  std::vector<bool> drop(nodes.size(), false);
  std::vector<int> outputs = g.outputs();
  auto is_output = [&](int v) { return std::find(outputs.begin(), outputs.end(), v) != outputs.end(); };
  for (Node& m : nodes) {
    const BinaryAttrs* b = std::get_if<BinaryAttrs>(&m.attrs);
    if (!b || b->kind != BinaryKind::Mul || m.inputs.size() != 2 || m.inputs[0] < 0 || m.inputs[1] < 0) continue;
    for (int side = 0; side < 2; ++side) {
      int x = m.inputs[1 - side], gate = m.inputs[side];
      int p = g.value(gate).producer;
      if (p < 0 || consumers[gate].size() != 1 || is_output(gate) || g.value(x).shape != g.value(m.output).shape)
        continue;
      const UnaryAttrs* u = std::get_if<UnaryAttrs>(&nodes[p].attrs);
      if (!u || nodes[p].inputs.size() != 1 || nodes[p].inputs[0] != x) continue;
      // ONNX HardSwish is x * HardSigmoid(x) with alpha 1/6, beta 1/2.
      bool hard =
          u->kind == UnaryKind::HardSigmoid && std::abs(u->alpha - 1.0 / 6) < 1e-6 && std::abs(u->beta - 0.5) < 1e-6;
      if (u->kind != UnaryKind::Sigmoid && !hard) continue;
      m.attrs = UnaryAttrs{hard ? UnaryKind::HardSwish : UnaryKind::Silu};
      m.inputs = {x};
      drop[p] = true;
      break;
    }
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!drop[i]) kept.push_back(nodes[i]);
  g.setNodes(std::move(kept));
}

void transposeRightOperands(Graph& g) {
  const size_t original = g.nodes().size();
  std::vector<std::pair<size_t, int>> rewrites;  // matmul node, its operand's transpose node
  for (size_t i = 0; i < original; ++i) {
    const Node& n = g.node(static_cast<int>(i));
    const MatMulAttrs* m = std::get_if<MatMulAttrs>(&n.attrs);
    if (!m || !m->transpose_b || n.inputs.size() != 2 || n.inputs[1] < 0 || g.value(n.inputs[1]).isConstant()) continue;
    size_t rank = g.value(n.inputs[1]).shape.size();
    if (rank < 2) continue;
    std::vector<int64_t> perm(rank);
    for (size_t d = 0; d < rank; ++d) perm[d] = static_cast<int64_t>(d);
    std::swap(perm[rank - 1], perm[rank - 2]);
    int t = g.addNode(n.name + ".b_transposed", TransposeAttrs{perm}, {n.inputs[1]});
    rewrites.push_back({i, g.value(t).producer});
  }
  if (rewrites.empty()) return;
  std::vector<Node> nodes;
  size_t next = 0;
  for (size_t i = 0; i < original; ++i) {
    Node n = g.node(static_cast<int>(i));
    if (next < rewrites.size() && rewrites[next].first == i) {
      const Node& t = g.node(rewrites[next].second);
      nodes.push_back(t);
      std::get<MatMulAttrs>(n.attrs).transpose_b = false;
      n.inputs[1] = t.output;
      ++next;
    }
    nodes.push_back(std::move(n));
  }
  g.setNodes(std::move(nodes));
}

void removeIdentities(Graph& g) {
  std::vector<Node> kept;
  std::unordered_map<int, int> remap;
  std::vector<int> outputs = g.outputs();
  for (const Node& n : g.nodes()) {
    bool identity = false;
    if (const UnaryAttrs* u = std::get_if<UnaryAttrs>(&n.attrs)) identity = u->kind == UnaryKind::Identity;
    if (std::holds_alternative<ReshapeAttrs>(n.attrs) || std::holds_alternative<ExpandAttrs>(n.attrs))
      identity = n.inputs[0] >= 0 && g.value(n.inputs[0]).shape == g.value(n.output).shape;
    bool is_output = std::find(outputs.begin(), outputs.end(), n.output) != outputs.end();
    // A graph output must stay a distinct value unless its source is not an input.
    if (identity && !(is_output && g.value(n.inputs[0]).producer < 0)) {
      remap[n.output] = n.inputs[0];
      continue;
    }
    kept.push_back(n);
  }
  remapInputs(kept, outputs, remap);
  g.setNodes(std::move(kept));
  g.setOutputs(std::move(outputs));
}

void eliminateDeadCode(Graph& g) {
  std::vector<bool> live_value(g.values().size(), false);
  for (int o : g.outputs()) live_value[o] = true;
  std::vector<bool> keep(g.nodes().size(), false);
  for (int i = static_cast<int>(g.nodes().size()) - 1; i >= 0; --i) {
    const Node& n = g.node(i);
    if (!live_value[n.output]) continue;
    keep[i] = true;
    for (int v : n.inputs)
      if (v >= 0) live_value[v] = true;
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) kept.push_back(g.node(static_cast<int>(i)));
  g.setNodes(std::move(kept));
}

void optimizeGraph(Graph& g, const GraphOptions& options) {
  foldConstants(g);
  foldBatchNorm(g);
  dropPaddingTaps(g);
  splitConvRegions(g);
  fuseActivations(g);
  transposeRightOperands(g);
  if (options.channels_last) convertToChannelsLast(g, options.vector_lanes);
  if (options.channels_last && options.winograd) useWinograd(g);
  if (options.channels_last) flattenPointwiseConvs(g, options.flatten_pointwise);
  if (options.bf16) useBf16(g);
  removeIdentities(g);
  eliminateDeadCode(g);
}

}  // namespace ttune::graph
