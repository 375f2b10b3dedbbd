#include "graph/reference.h"

#include "support/error.h"
#include "te/compute_dag.h"
#include "te/evaluator.h"

namespace ttune::graph {

std::vector<runtime::NDArray> evaluateGraph(const Graph& g, const std::vector<runtime::NDArray>& inputs) {
  TT_CHECK_ARG(inputs.size() == g.inputs().size(), "the graph takes ", g.inputs().size(), " inputs, got ",
               inputs.size());
  std::vector<runtime::NDArray> vals(g.values().size());
  for (size_t i = 0; i < g.inputs().size(); ++i) vals[g.inputs()[i]] = inputs[i];
  for (size_t v = 0; v < g.values().size(); ++v)
    if (g.value(static_cast<int>(v)).isConstant()) vals[v] = *g.value(static_cast<int>(v)).constant;
  for (const Node& n : g.nodes()) {
    std::vector<const runtime::NDArray*> operands;
    for (int v : n.inputs) operands.push_back(v < 0 ? nullptr : &vals[v]);
    vals[n.output] = evaluateNode(g, n, operands);
  }
  std::vector<runtime::NDArray> outs;
  for (int o : g.outputs()) outs.push_back(vals[o]);
  return outs;
}

}  // namespace ttune::graph
