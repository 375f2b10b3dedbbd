#include "graph/winograd.h"

#include <cstring>

#include "ops/winograd.h"
#include "support/assert.h"

namespace ttune::graph {

namespace {

bool qualifies(const Graph& g, const Node& n, const WinogradOptions& o) {
  const Conv2dAttrs* c = std::get_if<Conv2dAttrs>(&n.attrs);
  if (!c || c->layout != Layout::NHWC || c->groups != 1 || c->strides != Hw{1, 1} || c->dilation != Hw{1, 1})
    return false;
  if (n.inputs.size() != 2 || !g.value(n.inputs[1]).isConstant()) return false;
  const te::Shape& w = g.value(n.inputs[1]).shape;  // HWIO
  return w.size() == 4 && w[0] == 3 && w[1] == 3 && w[2] >= o.min_channels && w[3] >= o.min_channels &&
         g.value(n.inputs[1]).dtype == te::DType::Float32 && g.value(n.inputs[0]).dtype == te::DType::Float32;
}

}  // namespace

int64_t winogradTileFor(int64_t n, int64_t h, int64_t w, const WinogradOptions& o) {
  if (o.tile != 0) return o.tile;
  auto cost = [&](int64_t m) {
    double tiles = double(n) * double((h + m - 1) / m) * double((w + m - 1) / m);
    return double((m + 2) * (m + 2)) * (tiles + o.weight_load_cost);
  };
  return cost(2) < cost(4) ? 2 : 4;
}

int useWinograd(Graph& g, const WinogradOptions& o) {
  TT_ASSERT(o.tile == 0 || ops::winogradTileSupported(o.tile), "winograd pass: unsupported tile");
  std::vector<Node> original = g.nodes();
  std::vector<int> remap(g.values().size());
  for (size_t v = 0; v < remap.size(); ++v) remap[v] = static_cast<int>(v);
  auto mapped = [&](int v) { return v >= 0 && v < static_cast<int>(remap.size()) ? remap[v] : v; };
  std::vector<Node> nodes;
  int rewritten = 0;
  for (const Node& n0 : original) {
    Node n = n0;
    for (int& v : n.inputs) v = mapped(v);
    if (!qualifies(g, n, o)) {
      nodes.push_back(n);
      continue;
    }
    const Conv2dAttrs& c = std::get<Conv2dAttrs>(n.attrs);
    // Copies: adding values below may move the graph's value table.
    const te::Shape wshape = g.value(n.inputs[1]).shape, oshape = g.value(n.output).shape;
    const std::string wname = g.value(n.inputs[1]).name;
    int64_t C = wshape[2], K = wshape[3], m = winogradTileFor(oshape[0], oshape[1], oshape[2], o), a = m + 2;
    const float* w = g.value(n.inputs[1]).constant->as<float>();
    std::vector<float> u = ops::winogradWeights(std::vector<float>(w, w + 9 * C * K), C, K, m);
    runtime::NDArray ua({a, a, C, K}, te::DType::Float32);
    std::memcpy(ua.data(), u.data(), u.size() * sizeof(float));
    int uv = g.addConstant(wname + ".winograd", std::move(ua));
    int tiles = g.addNode(n.name + ".winograd_input", WinogradInputAttrs{m, c.pads}, {n.inputs[0]});
    nodes.push_back(g.nodes().back());
    int prod = g.addNode(n.name + ".winograd_gemm", MatMulAttrs{}, {tiles, uv});
    nodes.push_back(g.nodes().back());
    int y = g.addNode(n.name, WinogradOutputAttrs{m, oshape[0], oshape[1], oshape[2]}, {prod});
    nodes.push_back(g.nodes().back());
    TT_ASSERT(g.value(y).shape == oshape, "winograd pass: output shape differs from the convolution's");
    for (size_t v = remap.size(); v < g.values().size(); ++v) remap.push_back(static_cast<int>(v));
    remap[n.output] = y;
    ++rewritten;
  }
  if (rewritten == 0) return 0;
  g.redirectOutputs(mapped, ".direct_superseded");
  g.setNodes(std::move(nodes));
  return rewritten;
}

}  // namespace ttune::graph
