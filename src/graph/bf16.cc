#include "graph/bf16.h"

#include "te/float16.h"

namespace ttune::graph {

namespace {

// The anchors that compute in bfloat16: every convolution but a depthwise one, dense, matmul.
bool computesInBf16(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || n.inputs[0] < 0 || n.inputs[1] < 0) return false;
  if (g.value(n.inputs[0]).dtype != te::DType::Float32 || g.value(n.inputs[1]).dtype != te::DType::Float32)
    return false;
  if (const Conv2dAttrs* c = std::get_if<Conv2dAttrs>(&n.attrs)) {
    const te::Shape& w = g.value(n.inputs[1]).shape;
    int64_t per_group = c->layout == Layout::NCHW ? w[1] : w[2];
    return per_group > 1;
  }
  return std::holds_alternative<DenseAttrs>(n.attrs) || std::holds_alternative<MatMulAttrs>(n.attrs);
}

runtime::NDArray toBf16(const runtime::NDArray& f) {
  runtime::NDArray out(f.shape(), te::DType::BFloat16);
  const float* src = f.as<float>();
  uint16_t* dst = out.as<uint16_t>();
  for (int64_t i = 0; i < f.numElements(); ++i) dst[i] = te::floatToBf16(src[i]);
  return out;
}

}  // namespace

int useBf16(Graph& g) {
  std::vector<Node> nodes;
  int rewritten = 0;
  for (Node n : std::vector<Node>(g.nodes())) {
    if (!computesInBf16(g, n)) {
      nodes.push_back(std::move(n));
      continue;
    }
    for (int k = 0; k < 2; ++k) {
      int v = n.inputs[k];
      if (g.value(v).isConstant()) {
        n.inputs[k] = g.addConstant(g.value(v).name + ".bf16", toBf16(*g.value(v).constant));
      } else {
        n.inputs[k] =
            g.addNode(n.name + (k == 0 ? ".input_bf16" : ".operand_bf16"), CastAttrs{te::DType::BFloat16}, {v});
        nodes.push_back(g.nodes().back());
      }
    }
    nodes.push_back(std::move(n));
    ++rewritten;
  }
  if (rewritten > 0) g.setNodes(std::move(nodes));
  return rewritten;
}

}  // namespace ttune::graph
