#include "measure/measurer.h"

#include <algorithm>
#include <cmath>
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

std::vector<runtime::NDArray> scheduledInputs(const te::ComputeDAG& original,
                                              const std::vector<runtime::NDArray>& inputs,
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

namespace {

WorkerCommand workerOrFail(const schedule::Target& target) {
  auto w = workerCommandFor(target);
  if (!w.ok()) fail(w.error());
  return *w;
}

// Remote workers may run either kind of code; shared objects are what every worker loads.
WorkerCommand remoteOrLocal(const MeasureOptions& options) {
  if (!options.remote) return workerOrFail(options.target);
  WorkerCommand w;
  w.argv = {options.remote->describe()};
  w.shared_objects = true;
  return w;
}

}  // namespace

Measurer::Measurer(MeasureOptions options) : Measurer(options, remoteOrLocal(options)) {}

Measurer::Measurer(MeasureOptions options, WorkerCommand worker)
    : options_(options),
      builder_(options.build_threads, options.build_timeout_s, options.target,
               worker.shared_objects || options.remote != nullptr),
      runner_(std::move(worker)) {}

const Measurer::Reference& Measurer::reference(const std::shared_ptr<const te::ComputeDAG>& dag) {
  auto it = refs_.find(dag.get());
  if (it != refs_.end()) return it->second.second;
  Reference ref;
  std::vector<void*> args;
  for (size_t i = 0; i < dag->inputs().size(); ++i) {
    const te::Tensor& t = dag->inputs()[i];
    runtime::NDArray a = runtime::NDArray::empty(t.shape(), t.dtype());
    if (te::isFloat(t.dtype()))
      a.fillRandom(options_.seed * 1000 + i, -1.0, 1.0);
    else
      a.fillRandom(options_.seed * 1000 + i, 0, 2);
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
  std::vector<BuildResult> built = builder_.build(inputs);
  return timeOnce(built, inputs);
}

std::vector<schedule::RecordResult> Measurer::measure(const std::vector<MeasureInput>& inputs,
                                                      std::vector<BuildResult>& builds) {
  builds = builder_.build(inputs);
  return measureBuilt(inputs, builds);
}

std::vector<schedule::RecordResult> Measurer::measureBuilt(const std::vector<MeasureInput>& inputs,
                                                           const std::vector<BuildResult>& builds) {
  TT_ASSERT(builds.size() == inputs.size(), "measureBuilt: one build per input");
  std::vector<BuildResult> copy = builds;  // the caller's builds keep their code
  return timeOnce(copy, inputs);
}

std::vector<schedule::RecordResult> Measurer::timeOnce(std::vector<BuildResult>& built,
                                                       const std::vector<MeasureInput>& inputs) {
  const std::vector<bool> all(inputs.size(), true);
  return timeRound(built, inputs, all, true, 0);
}

RunRequest Measurer::request(BuildResult& built, const MeasureInput& input, bool last_use) {
  RunRequest req;
  // The last use takes the code; earlier ones time a copy.
  req.code = last_use ? std::move(built.code) : built.code;
  const te::ComputeDAG& sched = *built.scheduled;
  for (const te::Tensor& t : sched.inputs()) req.args.push_back(ArgSpec{t.shape(), t.dtype(), false});
  for (const te::Tensor& t : sched.outputs()) req.args.push_back(ArgSpec{t.shape(), t.dtype(), true});
  if (options_.check) {
    const Reference& ref = reference(input.dag);
    req.data = scheduledInputs(*input.dag, ref.inputs, sched, built.layouts);
    req.expected = ref.outputs;
    req.atol = options_.atol;
    req.rtol = options_.rtol;
  }
  req.seed = options_.seed;
  req.timing = options_.timing;
  if (input.slow_cutoff_s > 0) req.timing.slow_cutoff_s = input.slow_cutoff_s;
  if (input.number > 0) req.timing.number = input.number;
  req.threads = options_.threads;
  req.timeout_s = options_.run_timeout_s;
  return req;
}

namespace {
schedule::RecordResult startResult(const BuildResult& built) {
  schedule::RecordResult r;
  r.timestamp = static_cast<int64_t>(std::time(nullptr));
  r.build_s = built.build_s;
  if (!built.ok()) {
    r.error = built.error;
    r.error_msg = built.message;
  }
  return r;
}

void finishResult(schedule::RecordResult& r, const RunResult& rr, double measure_s) {
  r.error = rr.error;
  r.error_msg = rr.message;
  if (rr.ok()) r.costs_s = rr.timing.costs_s;
  r.measure_s = measure_s;
}
}  // namespace

schedule::RecordResult Measurer::timeBuilt(BuildResult& built, const MeasureInput& input, bool last_use) {
  Timer timer;
  schedule::RecordResult r = startResult(built);
  if (!built.ok()) return r;
  // Timed after the run returns: as one call's arguments the two may be evaluated in either order
  // (GCC read the timer first, so every candidate's measuring was charged to compiling).
  RunResult rr = runner_.run(request(built, input, last_use));
  finishResult(r, rr, timer.seconds());
  return r;
}

std::vector<schedule::RecordResult> Measurer::timeRound(std::vector<BuildResult>& built,
                                                        const std::vector<MeasureInput>& inputs,
                                                        const std::vector<bool>& wanted, bool last_use, int round) {
  std::vector<schedule::RecordResult> out(inputs.size());
  if (!options_.remote) {
    for (size_t i : roundOrder(options_.round_order, inputs.size(), round))
      if (wanted[i]) out[i] = timeBuilt(built[i], inputs[i], last_use);
    return out;
  }
  PendingRound r = startRemote(built, inputs, wanted, last_use);
  return finishRemote(r);
}

Measurer::PendingRound Measurer::startRemote(std::vector<BuildResult>& built, const std::vector<MeasureInput>& inputs,
                                             const std::vector<bool>& wanted, bool last_use) {
  PendingRound r;
  r.out.resize(inputs.size());
  std::vector<RunRequest> reqs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!wanted[i]) continue;
    r.out[i] = startResult(built[i]);
    if (!built[i].ok()) continue;
    reqs.push_back(request(built[i], inputs[i], last_use));
    r.which.push_back(i);
  }
  if (!reqs.empty()) r.batch = options_.remote->submit(reqs);
  return r;
}

std::vector<schedule::RecordResult> Measurer::finishRemote(PendingRound& r) {
  if (r.batch < 0) return std::move(r.out);
  Timer timer;
  std::vector<RunResult> rr = options_.remote->wait(r.batch);
  TT_ASSERT(rr.size() == r.which.size(), "the remote runner answered a different number of requests");
  // The candidates were timed in parallel: each is charged its share of the time waited for them.
  double share = timer.seconds() / static_cast<double>(rr.size());
  for (size_t k = 0; k < r.which.size(); ++k) finishResult(r.out[r.which[k]], rr[k], share);
  return std::move(r.out);
}

Measurer::RoundId Measurer::submit(const std::vector<MeasureInput>& inputs) {
  const RoundId id = next_round_++;
  std::vector<BuildResult> built = builder_.build(inputs);
  PendingRound r;
  if (overlaps()) {
    r = startRemote(built, inputs, std::vector<bool>(inputs.size(), true), true);
  } else {
    r.out = timeOnce(built, inputs);
  }
  rounds_.emplace(id, std::move(r));
  return id;
}

std::vector<schedule::RecordResult> Measurer::collect(RoundId round) {
  auto it = rounds_.find(round);
  TT_ASSERT(it != rounds_.end(), "Measurer::collect: a round that was not submitted, or collected twice");
  PendingRound r = std::move(it->second);
  rounds_.erase(it);
  return finishRemote(r);
}

std::vector<std::vector<schedule::RecordResult>> Measurer::measureRounds(const std::vector<MeasureInput>& inputs,
                                                                         int rounds) {
  TT_ASSERT(rounds > 0, "measureRounds: no rounds");
  std::vector<BuildResult> built = builder_.build(inputs);
  std::vector<std::vector<schedule::RecordResult>> out(inputs.size(), std::vector<schedule::RecordResult>(rounds));
  const std::vector<bool> all(inputs.size(), true);
  for (int round = 0; round < rounds; ++round) {
    std::vector<schedule::RecordResult> r = timeRound(built, inputs, all, round + 1 == rounds, round);
    for (size_t i = 0; i < inputs.size(); ++i) out[i][round] = std::move(r[i]);
  }
  return out;
}

SideBySide Measurer::compareSideBySide(const std::vector<MeasureInput>& inputs, const RoundsProtocol& protocol) {
  return compareSideBySide(inputs, protocol, std::vector<std::optional<BuildResult>>(inputs.size()));
}

SideBySide Measurer::compareSideBySide(const std::vector<MeasureInput>& inputs, const RoundsProtocol& protocol,
                                       std::vector<std::optional<BuildResult>> prebuilt) {
  TT_ASSERT(!inputs.empty(), "compareSideBySide: no inputs");
  TT_ASSERT(prebuilt.size() == inputs.size(), "compareSideBySide: one prebuilt slot per input");
  std::vector<MeasureInput> to_build;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!prebuilt[i]) to_build.push_back(inputs[i]);
  std::vector<BuildResult> fresh = to_build.empty() ? std::vector<BuildResult>{} : builder_.build(to_build);
  std::vector<BuildResult> built;
  for (size_t i = 0, f = 0; i < inputs.size(); ++i)
    built.push_back(prebuilt[i] ? std::move(*prebuilt[i]) : std::move(fresh[f++]));
  // After the first round each input's runs per repeat are known from its time, so the worker's
  // calibration run is skipped: for a kernel that runs longer than a repeat's minimum (a basic
  // default), it was a third of every round.
  std::vector<MeasureInput> timed = inputs;
  const TimingOptions& to = options_.timing;
  const bool calibrated = to.number <= 0 && to.min_repeat_ms > 0 && !to.cache_flush;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> secs(inputs.size()), ratios(inputs.size());
  SideBySide out;
  out.results.resize(inputs.size());
  for (int round = 0;; ++round) {
    std::vector<double> t(inputs.size(), inf);
    // A schedule that failed once is not timed again: it cannot be chosen.
    std::vector<bool> wanted(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) wanted[i] = round == 0 || out.results[i].ok();
    std::vector<schedule::RecordResult> results = timeRound(built, timed, wanted, false, round);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!wanted[i]) continue;
      schedule::RecordResult& r = results[i];
      if (r.ok()) t[i] = r.median();
      if (round == 0 && calibrated && r.ok()) timed[i].number = runsPerRepeat(t[i], to.min_repeat_ms);
      if (round == 0 || !r.ok())
        out.results[i] = r;
      else
        out.results[i].costs_s.push_back(r.median());
      secs[i].push_back(t[i]);
    }
    for (size_t i = 0; i < inputs.size(); ++i) ratios[i].push_back(std::isfinite(t[i]) ? t[0] / t[i] : 0.0);
    out.speedup.clear();
    for (size_t i = 0; i < inputs.size(); ++i) out.speedup.push_back(speedupOf(ratios[i], protocol.confidence));
    // Failed candidates do not keep the others timing.
    std::vector<Speedup> open;
    for (size_t i = 1; i < inputs.size(); ++i)
      if (out.results[i].ok()) open.push_back(out.speedup[i]);
    if (!out.results[0].ok() || roundsDone(open, round + 1, protocol)) break;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    out.median_s.push_back(out.results[i].ok() ? median(secs[i]) : inf);
    if (out.results[i].ok()) out.results[i].costs_s = secs[i];
  }
  return out;
}

}  // namespace ttune::measure
