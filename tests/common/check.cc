#include "common/check.h"

#include "codegen/codegen.h"
#include "codegen/jit.h"
#include "lower/lower.h"
#include "measure/builder.h"
#include "measure/measurer.h"
#include "schedule/dag_rewrite.h"
#include "te/evaluator.h"

namespace ttune::testing {

std::vector<runtime::NDArray> randomInputs(const te::ComputeDAG& dag, uint64_t seed, int64_t int_hi) {
  std::vector<runtime::NDArray> out;
  for (size_t i = 0; i < dag.inputs().size(); ++i) {
    const te::Tensor& t = dag.inputs()[i];
    runtime::NDArray a = runtime::NDArray::empty(t.shape(), t.dtype());
    if (te::isFloat(t.dtype()))
      a.fillRandom(seed * 7919 + i, -1.0, 1.0);
    else
      a.fillRandom(seed * 7919 + i, 0, static_cast<double>(int_hi));
    out.push_back(a);
  }
  return out;
}

std::vector<runtime::NDArray> fullRangeInputs(const te::ComputeDAG& dag, uint64_t seed) {
  std::vector<runtime::NDArray> out;
  for (size_t i = 0; i < dag.inputs().size(); ++i) {
    const te::Tensor& t = dag.inputs()[i];
    runtime::NDArray a = runtime::NDArray::empty(t.shape(), t.dtype());
    if (te::isFloat(t.dtype()))
      a.fillRandom(seed + i, -3.0, 3.0);
    else
      a.fillRandom(seed + i, static_cast<double>(te::intTypeMin(t.dtype())),
                   static_cast<double>(te::intTypeMax(t.dtype())) + 1);
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
  return Checker(state.originalDag(), seed).check(state, 3, atol, rtol);
}

Checker::Checker(std::shared_ptr<const te::ComputeDAG> dag, uint64_t seed) : dag_(std::move(dag)) {
  inputs_ = randomInputs(*dag_, seed);
  expected_ = referenceOutputs(*dag_, inputs_);
}

Checker::Checker(std::shared_ptr<const te::ComputeDAG> dag, std::vector<runtime::NDArray> inputs)
    : dag_(std::move(dag)), inputs_(std::move(inputs)) {
  expected_ = referenceOutputs(*dag_, inputs_);
}

Expected<DefaultCode> defaultScheduleAssembly(std::shared_ptr<const te::ComputeDAG> dag,
                                              const schedule::Target& target) {
  auto st = schedule::State::replay(dag, measure::defaultScheduleFor(*dag, target));
  if (!st.ok()) return Unexpected("replay: " + st.error());
  auto f = lower::lower(*st, "kernel", lower::lowerOptionsFor(target));
  if (!f.ok()) return Unexpected("lower: " + f.error());
  auto as = codegen::emitAssembly(*f, target);
  if (!as.ok()) return Unexpected("assembly: " + as.error());
  return DefaultCode{*as, lower::toString(*f)};
}

std::vector<schedule::Target> isaTargets() {
  std::vector<schedule::Target> out;
  for (const char* name : {"x86-64-v3", "x86-64-v4"}) {
    auto t = codegen::resolveTarget(name);
    if (t.ok()) out.push_back(*t);
  }
  return out;
}

std::string skipReason(const schedule::Target& target) {
  Status s = codegen::runnable(target);
  return s.ok() ? "" : s.error();
}

CheckResult Checker::check(const schedule::State& state, int opt_level, double atol, double rtol,
                           const std::optional<lower::LowerOptions>& lowering, const schedule::Target& target) const {
  CheckResult r;
  auto f = lower::lower(state, "kernel", lowering ? *lowering : lower::lowerOptionsFor(target));
  if (!f.ok()) {
    r.error = "lower: " + f.error();
    return r;
  }
  r.lowered = lower::toString(*f);
  auto obj = codegen::compile(*f, codegen::CompileOptions{opt_level, target});
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
  std::vector<runtime::NDArray> in = measure::scheduledInputs(*dag_, inputs_, state.dag(), state.weightLayouts());
  std::vector<runtime::NDArray> outs;
  std::vector<void*> args;
  for (auto& a : in) args.push_back(a.data());
  for (const te::Tensor& t : state.dag().outputs()) {
    outs.push_back(runtime::NDArray(t.shape(), t.dtype()));
    args.push_back(outs.back().data());
  }
  (**k)(args.data());
  for (size_t i = 0; i < outs.size(); ++i) {
    runtime::Comparison c = runtime::compare(outs[i], expected_[i], atol, rtol);
    r.cmp.max_abs_err = std::max(r.cmp.max_abs_err, c.max_abs_err);
    r.cmp.max_rel_err = std::max(r.cmp.max_rel_err, c.max_rel_err);
    r.cmp.mismatches += c.mismatches;
    r.cmp.non_finite += c.non_finite;
  }
  return r;
}

}  // namespace ttune::testing
