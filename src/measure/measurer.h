// Measurer: builds a batch of candidates in parallel, then times them one after the other in the
// worker process, and returns one RecordResult per candidate (a time, or the kind of error).
// With `check`, each candidate's outputs are compared with the reference evaluator's on seeded
// inputs (the reference is computed once per workload; expensive for big kernels).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "measure/batch_runner.h"
#include "measure/builder.h"
#include "measure/round_order.h"
#include "measure/runner.h"
#include "measure/speedup.h"

namespace ttune::measure {

// Tuning measures thousands of candidates: each repeat lasts at least 15 ms, three repeats
// (the median is what ranks candidates; a 10 ms repeat of a sub-millisecond kernel still holds
// dozens of runs). Benchmarks use longer repeats.
inline TimingOptions tuningTiming() {
  TimingOptions t;
  t.warmup = 1;
  t.repeat = 3;
  t.min_repeat_ms = 15;
  return t;
}

struct MeasureOptions {
  TimingOptions timing = tuningTiming();
  int build_threads = 0;  // 0: one per core
  double build_timeout_s = 15;
  double run_timeout_s = 10;
  int threads = 0;  // kernel threads in the worker; 0: its default
  bool check = false;
  double atol = 1e-3, rtol = 1e-3;
  uint64_t seed = 1;
  // Runnable on this machine, or measured by a worker for it (worker_command.h: on the device, or
  // emulated).
  schedule::Target target = codegen::hostTarget();
  // When set, candidates are timed there, a whole round of them at once (several measurement
  // workers in parallel), instead of one by one in this process's worker.
  std::shared_ptr<BatchRunner> remote;
  // The order of each round's inputs when timed one by one (round_order.h); Balanced except in
  // bench_aa's comparison of orders.
  RoundOrder round_order = RoundOrder::Balanced;
};

// The outcome of compareSideBySide: per input, its speedup over inputs[0], its median time over
// the rounds (+inf when it failed), and a result whose costs are the per-round times.
struct SideBySide {
  std::vector<Speedup> speedup;
  std::vector<double> median_s;
  std::vector<schedule::RecordResult> results;
};

class Measurer {
 public:
  explicit Measurer(MeasureOptions options = {});
  Measurer(MeasureOptions options, WorkerCommand worker);
  std::vector<schedule::RecordResult> measure(const std::vector<MeasureInput>& inputs);
  // The same, also handing back each input's build (its code copied before timing), so that a
  // later compareSideBySide of the same schedules does not compile them again.
  std::vector<schedule::RecordResult> measure(const std::vector<MeasureInput>& inputs,
                                              std::vector<BuildResult>& builds);
  // The two halves of measure(): building alone (a batch larger than what is timed next keeps
  // every build process busy), and timing inputs built before; `builds` keep their code.
  std::vector<BuildResult> build(const std::vector<MeasureInput>& inputs) { return builder_.build(inputs); }
  std::vector<schedule::RecordResult> measureBuilt(const std::vector<MeasureInput>& inputs,
                                                   const std::vector<BuildResult>& builds);
  // Each input built once and timed `rounds` times, the rounds interleaved (all inputs, then all
  // again), so a drift in the machine's load meets every input: result[input][round].
  std::vector<std::vector<schedule::RecordResult>> measureRounds(const std::vector<MeasureInput>& inputs, int rounds);
  // Re-timing side by side (speedup.h): inputs[0] is the baseline (a kernel's default), the
  // inputs are built once and timed in interleaved rounds until every working input's speedup
  // over the baseline is known to the protocol's width or the round cap is hit. A search
  // reports a kernel's best time as the minimum over many noisy measurements of near-equal
  // schedules, which is biased low, and one disturbed measurement of a default makes a pick look
  // better than it is; re-timed side by side, the medians and intervals say what a pick is worth.
  SideBySide compareSideBySide(const std::vector<MeasureInput>& inputs,
                               const RoundsProtocol& protocol = kernelRounds());
  // The same with builds made before (measure above, by a Measurer of the same target):
  // prebuilt[i], when set, is inputs[i]'s build; the others are built here. A transfer re-times
  // each kernel's winner against its default, both measured minutes before: compiling them
  // again cost a ranked transfer about a tenth of its time.
  SideBySide compareSideBySide(const std::vector<MeasureInput>& inputs, const RoundsProtocol& protocol,
                               std::vector<std::optional<BuildResult>> prebuilt);
  // Rounds in flight. Remotely, submit builds a round here and hands it to the workers without
  // waiting, so the caller can search and compile the next while they measure; collect waits for
  // it. Locally the round is timed within submit: a search or compilation running next to a
  // timing on the same cores would disturb it. Each round is collected once, in any order. A
  // remote round's candidates are each charged their share of the time collect waited, the part
  // of measuring that compiling did not hide.
  using RoundId = int64_t;
  RoundId submit(const std::vector<MeasureInput>& inputs);
  std::vector<schedule::RecordResult> collect(RoundId round);
  // Whether submitted rounds are measured while the caller goes on (remote workers).
  bool overlaps() const { return options_.remote != nullptr; }
  // Candidates timed at the same time: 1 here, the live workers remotely.
  int parallelism() const { return options_.remote ? options_.remote->parallelism() : 1; }
  const MeasureOptions& options() const { return options_; }
  Runner& runner() { return runner_; }
  // Whether the timings come from an emulator (worker_command.h): never store them as measurements.
  bool emulated() const { return runner_.command().emulated; }

 private:
  struct Reference {
    std::vector<runtime::NDArray> inputs, outputs;
  };
  schedule::RecordResult timeBuilt(BuildResult& built, const MeasureInput& input, bool last_use);
  // One round of every input, the last use of `built` (its code is taken).
  std::vector<schedule::RecordResult> timeOnce(std::vector<BuildResult>& built,
                                               const std::vector<MeasureInput>& inputs);
  // Times every built input once: one by one here, in round `round`'s order (options_.round_order),
  // or as one batch on the remote runner.
  std::vector<schedule::RecordResult> timeRound(std::vector<BuildResult>& built,
                                                const std::vector<MeasureInput>& inputs,
                                                const std::vector<bool>& wanted, bool last_use, int round);
  RunRequest request(BuildResult& built, const MeasureInput& input, bool last_use);
  // A submitted round: final results (timed here, or not built), and what the remote runner measures.
  struct PendingRound {
    std::vector<schedule::RecordResult> out;
    std::vector<size_t> which;  // inputs sent, in request order
    int64_t batch = -1;         // the runner's round; -1 when nothing was sent
  };
  PendingRound startRemote(std::vector<BuildResult>& built, const std::vector<MeasureInput>& inputs,
                           const std::vector<bool>& wanted, bool last_use);
  std::vector<schedule::RecordResult> finishRemote(PendingRound& round);
  const Reference& reference(const std::shared_ptr<const te::ComputeDAG>& dag);

  MeasureOptions options_;
  Builder builder_;
  Runner runner_;
  std::map<const te::ComputeDAG*, std::pair<std::shared_ptr<const te::ComputeDAG>, Reference>> refs_;
  RoundId next_round_ = 0;
  std::map<RoundId, PendingRound> rounds_;  // submitted, not collected (timed locally: finished)
};

// Inputs of a scheduled kernel from the original inputs: same tensors by name, weights packed
// into the layouts the schedule chose.
std::vector<runtime::NDArray> scheduledInputs(const te::ComputeDAG& original,
                                              const std::vector<runtime::NDArray>& inputs,
                                              const te::ComputeDAG& scheduled,
                                              const std::vector<schedule::WeightLayout>& layouts);
// Packs a weight into a layout (compiled packing kernel).
runtime::NDArray packWeight(const schedule::WeightLayout& layout, const runtime::NDArray& original);

}  // namespace ttune::measure
