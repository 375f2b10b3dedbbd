#include "frontend/evaluate.h"

#include "support/error.h"
#include "te/compute_dag.h"
#include "te/evaluator.h"

namespace ttune::frontend {

std::vector<runtime::NDArray> evaluateGraph(const graph::Graph& g, const std::vector<runtime::NDArray>& inputs) {
  TT_CHECK_ARG(inputs.size() == g.inputs().size(), "evaluateGraph: the graph has ", g.inputs().size(),
               " inputs but ", inputs.size(), " arrays were given");
  std::vector<runtime::NDArray> vals(g.values().size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const graph::Value& v = g.value(g.inputs()[i]);
    TT_CHECK_ARG(inputs[i].shape() == v.shape && inputs[i].dtype() == v.dtype, "evaluateGraph: input ", v.name,
                 " needs shape ", te::shapeToString(v.shape), " and dtype ", te::dtypeName(v.dtype), ", got ",
                 te::shapeToString(inputs[i].shape()), " ", te::dtypeName(inputs[i].dtype()));
    vals[g.inputs()[i]] = inputs[i];
  }
  for (size_t id = 0; id < g.values().size(); ++id)
    if (g.value(static_cast<int>(id)).isConstant()) vals[id] = *g.value(static_cast<int>(id)).constant;

  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const graph::Node& n = g.node(static_cast<int>(i));
    std::vector<te::Tensor> ph, dag_inputs;
    std::vector<void*> args;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      int v = n.inputs[k];
      if (v < 0) {
        ph.emplace_back();
        continue;
      }
      const graph::Value& x = g.value(v);
      TT_CHECK_ARG(vals[v].defined(), "evaluateGraph: node ", n.name, " reads ", x.name, " before it is computed");
      te::Tensor t = te::placeholder("in" + std::to_string(k), x.shape, x.dtype, x.isConstant());
      ph.push_back(t);
      dag_inputs.push_back(t);
      args.push_back(vals[v].data());
    }
    te::Tensor out = g.buildNode(static_cast<int>(i), ph);
    te::ComputeDAG dag(dag_inputs, {out});
    runtime::NDArray result = runtime::NDArray::empty(out.shape(), out.dtype());
    args.push_back(result.data());
    te::evaluate(dag, args);
    vals[n.output] = result;
  }
  std::vector<runtime::NDArray> outs;
  for (int o : g.outputs()) outs.push_back(vals[o]);
  return outs;
}

}  // namespace ttune::frontend
