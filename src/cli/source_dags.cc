#include "cli/source_dags.h"

#include "cli/model_loader.h"
#include "support/error.h"
#include "support/log.h"

namespace ttune::cli {

std::shared_ptr<const te::ComputeDAG> SourceDags::operator()(const std::string& key) {
  if (!loaded_) load();
  auto it = dags_.find(key);
  return it == dags_.end() ? nullptr : it->second;
}

void SourceDags::load() {
  loaded_ = true;
  for (const store::ModelInfo& m : bank_.modelInfos()) {
    try {
      ModelSource src;
      src.spec = m.spec;
      src.defaults = baseline_;
      graph::Graph g;
      bool staged = false;
      for (const graph::Kernel& k : modelKernels(src, target_, &g, &staged)) dags_.emplace(k.workload_key, k.dag);
    } catch (const Error& e) {
      logWarning("cannot load model ", m.name, " of the bank to replay its schedules: ", e.what());
    }
  }
}

}  // namespace ttune::cli
