// Measurer: builds a batch of candidates in parallel, then times them one after the other in the
// worker process, and returns one RecordResult per candidate (a time, or the kind of error).
// With `check`, each candidate's outputs are compared with the reference evaluator's on seeded
// inputs (the reference is computed once per workload; expensive for big kernels).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "measure/builder.h"
#include "measure/runner.h"

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
  int build_threads = 0;     // 0: one per core
  double build_timeout_s = 15;
  double run_timeout_s = 10;
  int threads = 0;           // kernel threads in the worker; 0: its default
  bool check = false;
  double atol = 1e-3, rtol = 1e-3;
  uint64_t seed = 1;
  schedule::Target target = codegen::hostTarget();  // must be runnable on this machine
};

class Measurer {
 public:
  explicit Measurer(MeasureOptions options = {});
  std::vector<schedule::RecordResult> measure(const std::vector<MeasureInput>& inputs);
  // Each input built once and timed `rounds` times, the rounds interleaved (all inputs, then all
  // again), so a drift in the machine's load meets every input: result[input][round].
  std::vector<std::vector<schedule::RecordResult>> measureRounds(const std::vector<MeasureInput>& inputs, int rounds);
  // Re-timing side by side: the median over `rounds` interleaved rounds of each input's time
  // (+inf when a round failed). A search reports a kernel's best time as the minimum over many
  // noisy measurements of near-equal schedules, which is biased low (with a few percent of noise
  // and dozens of candidates within it, the minimum is a lucky draw), and one disturbed
  // measurement of a default makes a pick look better than it is; re-timed side by side the
  // medians say what a pick is worth.
  std::vector<double> timeSideBySide(const std::vector<MeasureInput>& inputs, int rounds = 3);
  const MeasureOptions& options() const { return options_; }
  Runner& runner() { return runner_; }

 private:
  struct Reference {
    std::vector<runtime::NDArray> inputs, outputs;
  };
  const Reference& reference(const std::shared_ptr<const te::ComputeDAG>& dag);

  MeasureOptions options_;
  Builder builder_;
  Runner runner_;
  std::map<const te::ComputeDAG*, std::pair<std::shared_ptr<const te::ComputeDAG>, Reference>> refs_;
};

// Inputs of a scheduled kernel from the original inputs: same tensors by name, weights packed
// into the layouts the schedule chose.
std::vector<runtime::NDArray> scheduledInputs(const te::ComputeDAG& original, const std::vector<runtime::NDArray>& inputs,
                                              const te::ComputeDAG& scheduled,
                                              const std::vector<schedule::WeightLayout>& layouts);
// Packs a weight into a layout (compiled packing kernel).
runtime::NDArray packWeight(const schedule::WeightLayout& layout, const runtime::NDArray& original);

}  // namespace ttune::measure
