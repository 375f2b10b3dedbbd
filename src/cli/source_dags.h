// The kernels' DAGs of the models a bank knows, by workload key: records hold only a workload key
// and steps, and replaying them (to rank them with a cost model, or to train one) needs the DAG.
// Loaded on first use from the specs the models were registered with, under one baseline (the
// basic defaults' graphs have other kernels); a model that no longer loads is skipped with a
// warning.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "schedule/baseline.h"
#include "schedule/target.h"
#include "store/bank.h"
#include "te/compute_dag.h"

namespace ttune::cli {

class SourceDags {
 public:
  SourceDags(const store::Bank& bank, const schedule::Target& target, schedule::Baseline baseline)
      : bank_(bank), target_(target), baseline_(baseline) {}
  // nullptr when no registered model has that kernel.
  std::shared_ptr<const te::ComputeDAG> operator()(const std::string& workload_key);

 private:
  void load();
  const store::Bank& bank_;
  schedule::Target target_;
  schedule::Baseline baseline_;
  bool loaded_ = false;
  std::map<std::string, std::shared_ptr<const te::ComputeDAG>> dags_;
};

}  // namespace ttune::cli
