// Builder: turns candidate schedules into object code, several at a time on a pool of threads
// (each compile has its own LLVM context). A build replays the steps on the workload's DAG,
// lowers and compiles; a failure at any stage is reported with its kind (Instantiation for steps
// that do not apply, CompileError for the rest). LLVM compilation cannot be interrupted, so the
// timeout is checked when a build ends: a build slower than it is reported as CompileTimeout and
// its code discarded; lowering caps unrolling so that compile times stay bounded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "schedule/record.h"
#include "schedule/state.h"

namespace ttune::measure {

struct MeasureInput {
  std::shared_ptr<const te::ComputeDAG> dag;  // the workload, unscheduled
  std::vector<schedule::Step> steps;
  double slow_cutoff_s = 0;  // see TimingOptions::slow_cutoff_s (0: time fully)
};

struct BuildResult {
  schedule::ErrorKind error = schedule::ErrorKind::None;
  std::string message;
  codegen::ObjectCode code;
  std::shared_ptr<const te::ComputeDAG> scheduled;  // the DAG after DAG-changing steps
  std::vector<schedule::WeightLayout> layouts;
  double build_s = 0;
  bool ok() const { return error == schedule::ErrorKind::None; }
};

// The default schedule for a target (its lanes, registers and caches): the untuned baseline
// every command and the search use.
std::vector<schedule::Step> defaultScheduleFor(const te::ComputeDAG& dag, const schedule::Target& target = codegen::hostTarget());

// Builds one candidate in the calling thread, for `target`.
BuildResult buildOne(const MeasureInput& input, const std::string& name = "kernel",
                     const schedule::Target& target = codegen::hostTarget());

class Builder {
 public:
  explicit Builder(int threads = 0, double timeout_s = 15, schedule::Target target = codegen::hostTarget());
  std::vector<BuildResult> build(const std::vector<MeasureInput>& inputs);
  const schedule::Target& target() const { return target_; }

 private:
  int threads_;
  double timeout_s_;
  schedule::Target target_;
};

}  // namespace ttune::measure
