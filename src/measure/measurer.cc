#include "measure/measurer.h"

#include <algorithm>
#include <ctime>
#include <limits>

#include "codegen/jit.h"
#include "lower/lower.h"
#include "schedule/dag_rewrite.h"
#include "support/assert.h"
#include "support/error.h"
#include "support/timer.h"
#include "te/evaluator.h"

namespace ttune::measure {

using schedule::ErrorKind;

runtime::NDArray packWeight(const schedule::WeightLayout& layout, const runtime::NDArray& original) {
  auto dag = std::make_shared<const te::ComputeDAG>(schedule::packingDag(layout, original.dtype()));
  schedule::State st(dag);
  auto f = lower::lower(st, "pack");
  TT_ASSERT(f.ok(), "packing kernel does not lower: " + (f.ok() ? std::string() : f.error()));
  auto obj = codegen::compile(*f, codegen::CompileOptions{1});
  TT_ASSERT(obj.ok(), "packing kernel does not compile");
  auto k = codegen::loadKernel(*obj);
  TT_ASSERT(k.ok(), "packing kernel does not load");
  runtime::NDArray out(layout.packed_shape, original.dtype());
  void* args[] = {original.data(), out.data()};
  (**k)(args);
  return out;
}

std::vector<runtime::NDArray> scheduledInputs(const te::ComputeDAG& original, const std::vector<runtime::NDArray>& inputs,
                                              const te::ComputeDAG& scheduled,
                                              const std::vector<schedule::WeightLayout>& layouts) {
  std::map<std::string, runtime::NDArray> by_name;
  for (size_t i = 0; i < original.inputs().size(); ++i) by_name[original.inputs()[i].name()] = inputs[i];
  for (const schedule::WeightLayout& lay : layouts) {
    auto it = by_name.find(lay.original);
    if (it != by_name.end()) by_name[lay.packed] = packWeight(lay, it->second);
  }
  std::vector<runtime::NDArray> out;
  for (const te::Tensor& t : scheduled.inputs()) {
    auto it = by_name.find(t.name());
    TT_ASSERT(it != by_name.end(), "scheduled kernel input " + t.name() + " has no source");
    out.push_back(it->second);
  }
  return out;
}

Measurer::Measurer(MeasureOptions options)
    : options_(options), builder_(options.build_threads, options.build_timeout_s, options.target) {
  Status can = codegen::runnable(options_.target);
  if (!can.ok()) fail(can.error());
}

const Measurer::Reference& Measurer::reference(const std::shared_ptr<const te::ComputeDAG>& dag) {
  auto it = refs_.find(dag.get());
  if (it != refs_.end()) return it->second.second;
  Reference ref;
  std::vector<void*> args;
  for (size_t i = 0; i < dag->inputs().size(); ++i) {
    const te::Tensor& t = dag->inputs()[i];
    runtime::NDArray a = runtime::NDArray::empty(t.shape(), t.dtype());
    if (te::isFloat(t.dtype())) a.fillRandom(options_.seed * 1000 + i, -1.0, 1.0);
    else a.fillRandom(options_.seed * 1000 + i, 0, 2);
    ref.inputs.push_back(a);
    args.push_back(a.data());
  }
  for (const te::Tensor& t : dag->outputs()) {
    ref.outputs.push_back(runtime::NDArray(t.shape(), t.dtype()));
    args.push_back(ref.outputs.back().data());
  }
  te::evaluate(*dag, args);
  return refs_.emplace(dag.get(), std::make_pair(dag, std::move(ref))).first->second.second;
}

std::vector<schedule::RecordResult> Measurer::measure(const std::vector<MeasureInput>& inputs) {
  std::vector<std::vector<schedule::RecordResult>> r = measureRounds(inputs, 1);
  std::vector<schedule::RecordResult> out;
  for (auto& one : r) out.push_back(std::move(one[0]));
  return out;
}

std::vector<std::vector<schedule::RecordResult>> Measurer::measureRounds(const std::vector<MeasureInput>& inputs, int rounds) {
  TT_ASSERT(rounds > 0, "measureRounds: no rounds");
  std::vector<BuildResult> built = builder_.build(inputs);
  std::vector<std::vector<schedule::RecordResult>> out(inputs.size(), std::vector<schedule::RecordResult>(rounds));
  for (int round = 0; round < rounds; ++round)
    for (size_t i = 0; i < inputs.size(); ++i) {
      Timer timer;
      schedule::RecordResult& r = out[i][round];
      r.timestamp = static_cast<int64_t>(std::time(nullptr));
      r.build_s = built[i].build_s;
      if (!built[i].ok()) {
        r.error = built[i].error;
        r.error_msg = built[i].message;
        continue;
      }
      RunRequest req;
      // The last round takes the code; earlier ones time a copy.
      req.code = round + 1 == rounds ? std::move(built[i].code) : built[i].code;
      const te::ComputeDAG& sched = *built[i].scheduled;
      for (const te::Tensor& t : sched.inputs()) req.args.push_back(ArgSpec{t.shape(), t.dtype(), false});
      for (const te::Tensor& t : sched.outputs()) req.args.push_back(ArgSpec{t.shape(), t.dtype(), true});
      if (options_.check) {
        const Reference& ref = reference(inputs[i].dag);
        req.data = scheduledInputs(*inputs[i].dag, ref.inputs, sched, built[i].layouts);
        req.expected = ref.outputs;
        req.atol = options_.atol;
        req.rtol = options_.rtol;
      }
      req.seed = options_.seed;
      req.timing = options_.timing;
      if (inputs[i].slow_cutoff_s > 0) req.timing.slow_cutoff_s = inputs[i].slow_cutoff_s;
      req.threads = options_.threads;
      req.timeout_s = options_.run_timeout_s;
      RunResult rr = runner_.run(req);
      r.error = rr.error;
      r.error_msg = rr.message;
      if (rr.ok()) r.costs_s = rr.timing.costs_s;
      r.measure_s = timer.seconds();
    }
  return out;
}

std::vector<double> Measurer::timeSideBySide(const std::vector<MeasureInput>& inputs, int rounds) {
  std::vector<std::vector<schedule::RecordResult>> r = measureRounds(inputs, rounds);
  std::vector<double> out;
  for (std::vector<schedule::RecordResult>& one : r) {
    std::vector<double> t;
    for (const schedule::RecordResult& x : one) t.push_back(x.ok() ? x.median() : std::numeric_limits<double>::infinity());
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    out.push_back(t[t.size() / 2]);
  }
  return out;
}

}  // namespace ttune::measure
