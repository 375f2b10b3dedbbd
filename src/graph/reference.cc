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
  for (size_t ni = 0; ni < g.nodes().size(); ++ni) {
    const Node& n = g.node(static_cast<int>(ni));
    std::vector<te::Tensor> ph, ins;
    std::vector<void*> args;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (n.inputs[k] < 0) {
        ph.emplace_back();
        continue;
      }
      const Value& val = g.value(n.inputs[k]);
      ph.push_back(te::placeholder("i" + std::to_string(k), val.shape, val.dtype, val.isConstant()));
      ins.push_back(ph.back());
      args.push_back(vals[n.inputs[k]].data());
    }
    te::Tensor out = g.buildNode(static_cast<int>(ni), ph);
    te::ComputeDAG dag(ins, {out});
    runtime::NDArray res(out.shape(), out.dtype());
    args.push_back(res.data());
    te::evaluate(dag, args);
    vals[n.output] = res;
  }
  std::vector<runtime::NDArray> outs;
  for (int o : g.outputs()) outs.push_back(vals[o]);
  return outs;
}

}  // namespace ttune::graph
