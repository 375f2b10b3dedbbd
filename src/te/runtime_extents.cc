#include "te/runtime_extents.h"

#include <unordered_map>

#include "support/error.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::te {

namespace {

IterVar withExtent(IterVar iv, const Expr& extent, const std::string& op) {
  if (!extent.defined()) return iv;
  IntBound b = constIntBound(extent, {});
  TT_CHECK_ARG(b.lo == IntBound::kNegInf || b.lo <= iv.extent, "the run-time extent of axis ", iv.name(), " of ", op,
               " is always larger than its extent ", iv.extent);
  iv.runtime_extent = extent;
  return iv;
}

}  // namespace

ComputeDAG withRuntimeExtents(const ComputeDAG& dag, const std::function<std::vector<Expr>(int)>& extents,
                              const std::function<Expr(int)>& bodies) {
  std::unordered_map<const Operation*, Tensor> remap;
  for (int i = 0; i < dag.numOps(); ++i) {
    const Tensor& t = dag.ops()[i];
    const Operation& op = t.op();
    if (op.isPlaceholder()) {
      remap.emplace(t.get(), t);
      continue;
    }
    const ComputeOp& c = op.compute();
    std::vector<Expr> ext = extents(i);
    size_t n_axes = c.axes.size() + c.reduceAxes().size();
    TT_CHECK_ARG(ext.empty() || ext.size() == n_axes, "op ", op.name(), " has ", n_axes, " axes, not ", ext.size());
    ext.resize(n_axes);
    std::vector<IterVar> axes;
    for (size_t d = 0; d < c.axes.size(); ++d) axes.push_back(withExtent(c.axes[d], ext[d], op.name()));
    Expr given = bodies ? bodies(i) : Expr();
    Expr body = rewriteReads(given.defined() ? given : c.body,
                             [&](const TensorRead& r, std::vector<Expr> idx) { return remap.at(r.tensor.get())(idx); });
    if (const Reduce* red = body.as<Reduce>()) {
      std::vector<IterVar> raxes;
      for (size_t d = 0; d < red->axes.size(); ++d)
        raxes.push_back(withExtent(red->axes[d], ext[c.axes.size() + d], op.name()));
      body = reduce(red->kind, red->source, std::move(raxes), red->cond);
    }
    remap.emplace(t.get(), computeWithAxes(op.name(), std::move(axes), body, op.tag()));
  }
  std::vector<Tensor> inputs, outputs;
  for (const Tensor& t : dag.inputs()) inputs.push_back(remap.at(t.get()));
  for (const Tensor& t : dag.outputs()) outputs.push_back(remap.at(t.get()));
  return ComputeDAG(std::move(inputs), std::move(outputs));
}

std::vector<Expr> runtimeExtentsOf(const Operation& op) {
  std::vector<Expr> out;
  if (!op.isCompute()) return out;
  for (const IterVar& iv : op.compute().axes) out.push_back(iv.runtime_extent);
  for (const IterVar& iv : op.compute().reduceAxes()) out.push_back(iv.runtime_extent);
  return out;
}

bool hasRuntimeExtents(const ComputeDAG& dag) { return !dag.sizeParams().empty(); }

}  // namespace ttune::te
