// Builder: turns candidate schedules into object code, several at a time. A build replays the
// steps on the workload's DAG, lowers and compiles; a failure at any stage is reported with its
// kind (Instantiation for steps that do not apply, CompileError for the rest).
//
// Builder::build isolates compilation: replay happens here, but lowering and LLVM run in child
// processes forked for each batch (one per build thread, each building its share of the batch in
// order and streaming the object code back). A compile that crashes or exceeds the timeout kills
// only its child -- the candidate is recorded as CompileError ("the compiler crashed") or
// CompileTimeout -- and a new child carries on with the rest. So a fault in LLVM costs one
// candidate, never the tuning run. buildOne compiles in the calling thread (no isolation).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "schedule/default_schedule.h"
#include "schedule/record.h"
#include "schedule/state.h"

namespace ttune::measure {

struct MeasureInput {
  std::shared_ptr<const te::ComputeDAG> dag;  // the workload, unscheduled
  std::vector<schedule::Step> steps;
  double slow_cutoff_s = 0;  // see TimingOptions::slow_cutoff_s (0: time fully)
  int number = 0;            // runs per repeat when set (else TimingOptions::number: 0 calibrates)
  std::string entry{};       // the object code's entry symbol (empty: "kernel"; executor::kernelEntry)
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
std::vector<schedule::Step> defaultScheduleFor(const te::ComputeDAG& dag,
                                               const schedule::Target& target = codegen::hostTarget(),
                                               schedule::Baseline baseline = schedule::Baseline::Strong);

// Builds one candidate in the calling thread, for `target`; with `shared_object`, linked into a
// shared object (for a worker without LLVM: codegen/toolchain.h).
BuildResult buildOne(const MeasureInput& input, const std::string& name = "kernel",
                     const schedule::Target& target = codegen::hostTarget(), bool shared_object = false);

class Builder {
 public:
  explicit Builder(int threads = 0, double timeout_s = 15, schedule::Target target = codegen::hostTarget(),
                   bool shared_objects = false);
  std::vector<BuildResult> build(const std::vector<MeasureInput>& inputs);
  const schedule::Target& target() const { return target_; }
  // Tests only: runs in the build child before each compile (to make one crash or hang).
  static void setFaultHookForTesting(std::function<void(const MeasureInput&)> hook);

 private:
  int threads_;
  double timeout_s_;
  schedule::Target target_;
  bool shared_objects_ = false;
};

}  // namespace ttune::measure
