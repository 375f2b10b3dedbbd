#include "common/check.h"

#include "codegen/codegen.h"
#include "codegen/jit.h"
#include "lower/lower.h"
#include "schedule/dag_rewrite.h"
#include "te/evaluator.h"

namespace ttune::testing {

std::vector<runtime::NDArray> randomInputs(const te::ComputeDAG& dag, uint64_t seed, int64_t int_hi) {
  std::vector<runtime::NDArray> out;
  for (size_t i = 0; i < dag.inputs().size(); ++i) {
    const te::Tensor& t = dag.inputs()[i];
    runtime::NDArray a = runtime::NDArray::empty(t.shape(), t.dtype());
    if (te::isFloat(t.dtype())) a.fillRandom(seed * 7919 + i, -1.0, 1.0);
    else a.fillRandom(seed * 7919 + i, 0, static_cast<double>(int_hi));
    out.push_back(a);
  }
  return out;
}

std::vector<runtime::NDArray> referenceOutputs(const te::ComputeDAG& dag, const std::vector<runtime::NDArray>& inputs) {
  std::vector<runtime::NDArray> outs;
  std::vector<void*> args;
  for (const auto& a : inputs) args.push_back(a.data());
  for (const te::Tensor& t : dag.outputs()) {
    outs.push_back(runtime::NDArray(t.shape(), t.dtype()));
    args.push_back(outs.back().data());
  }
  te::evaluate(dag, args);
  return outs;
}

CheckResult checkState(const schedule::State& state, uint64_t seed, double atol, double rtol) {
  CheckResult r;
  const te::ComputeDAG& orig = *state.originalDag();
  auto inputs = randomInputs(orig, seed);
  auto expected = referenceOutputs(orig, inputs);
  auto f = lower::lower(state, "kernel");
  if (!f.ok()) {
    r.error = "lower: " + f.error();
    return r;
  }
  r.lowered = lower::toString(*f);
  auto obj = codegen::compile(*f);
  if (!obj.ok()) {
    r.error = "compile: " + obj.error();
    return r;
  }
  auto k = codegen::loadKernel(*obj);
  if (!k.ok()) {
    r.error = "load: " + k.error();
    return r;
  }
  r.built = true;
  // Arguments of the scheduled DAG, matched by name to the original inputs; packed weights are
  // computed from the originals with the reference evaluator.
  const te::ComputeDAG& dag = state.dag();
  std::vector<runtime::NDArray> actual;
  std::vector<void*> args;
  for (const te::Tensor& t : dag.inputs()) {
    runtime::NDArray arg;
    for (size_t i = 0; i < orig.inputs().size(); ++i)
      if (orig.inputs()[i].name() == t.name()) arg = inputs[i];
    for (const schedule::WeightLayout& lay : state.weightLayouts()) {
      if (lay.packed != t.name()) continue;
      runtime::NDArray src;
      for (size_t i = 0; i < orig.inputs().size(); ++i)
        if (orig.inputs()[i].name() == lay.original) src = inputs[i];
      if (!src.defined()) continue;
      te::ComputeDAG pack = schedule::packingDag(lay, t.dtype());
      arg = runtime::NDArray(lay.packed_shape, t.dtype());
      te::evaluate(pack, {src.data(), arg.data()});
      actual.push_back(arg);  // keep alive
    }
    if (!arg.defined()) {
      r.built = false;
      r.error = "input " + t.name() + " has no counterpart in the original DAG";
      return r;
    }
    args.push_back(arg.data());
  }
  std::vector<runtime::NDArray> outs;
  for (const te::Tensor& t : dag.outputs()) {
    outs.push_back(runtime::NDArray(t.shape(), t.dtype()));
    args.push_back(outs.back().data());
  }
  (**k)(args.data());
  actual = outs;
  for (size_t i = 0; i < actual.size(); ++i) {
    runtime::Comparison c = runtime::compare(actual[i], expected[i], atol, rtol);
    r.cmp.max_abs_err = std::max(r.cmp.max_abs_err, c.max_abs_err);
    r.cmp.max_rel_err = std::max(r.cmp.max_rel_err, c.max_rel_err);
    r.cmp.mismatches += c.mismatches;
    r.cmp.non_finite += c.non_finite;
  }
  return r;
}

}  // namespace ttune::testing
