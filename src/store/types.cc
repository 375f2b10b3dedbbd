#include "store/types.h"

#include "te/dtype.h"

namespace ttune::store {

Json dagSignature(const te::ComputeDAG& dag) {
  auto list = [](const std::vector<te::Tensor>& ts) {
    Json arr = Json::array();
    for (const te::Tensor& t : ts) arr.push_back({{"shape", t.shape()}, {"dtype", te::dtypeName(t.dtype())}});
    return arr;
  };
  return {{"inputs", list(dag.inputs())}, {"outputs", list(dag.outputs())}};
}

WorkloadInfo workloadInfo(const te::ComputeDAG& dag, const std::string& class_id, const std::string& class_name) {
  return WorkloadInfo{dag.workloadKey(), class_id, class_name, dag.flops(), dagSignature(dag)};
}

const char* runKindName(RunKind k) {
  switch (k) {
    case RunKind::Tune:
      return "tune";
    case RunKind::Transfer:
      return "transfer";
    case RunKind::Refresh:
      return "refresh";
  }
  return "tune";
}

const char* runStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::Running:
      return "running";
    case RunStatus::Finished:
      return "finished";
    case RunStatus::Interrupted:
      return "interrupted";
  }
  return "running";
}

std::optional<RunKind> parseRunKind(const std::string& s) {
  for (RunKind k : {RunKind::Tune, RunKind::Transfer, RunKind::Refresh})
    if (s == runKindName(k)) return k;
  return std::nullopt;
}

std::optional<RunStatus> parseRunStatus(const std::string& s) {
  for (RunStatus k : {RunStatus::Running, RunStatus::Finished, RunStatus::Interrupted})
    if (s == runStatusName(k)) return k;
  return std::nullopt;
}

}  // namespace ttune::store
