// DAG-changing schedule steps: cache_write, cache_read, rfactor and weight layout rewrite each
// build a new ComputeDAG from the old one. New ops get derived names (<op>.local, <op>.rf,
// <weight>.packed); ops that are not involved keep their names, axes and definitions, so the
// stages of a State that refer to them stay valid.
#pragma once

#include <string>
#include <vector>

#include "schedule/state.h"
#include "support/expected.h"
#include "te/compute_dag.h"

namespace ttune::schedule {

Expected<te::ComputeDAG> cacheWriteDag(const te::ComputeDAG& dag, const std::string& op,
                                       const std::string& scope);
Expected<te::ComputeDAG> cacheReadDag(const te::ComputeDAG& dag, const std::string& producer,
                                      const std::string& scope, const std::vector<std::string>& readers);
// `stage` is the reduction's stage with its splits applied; `iter` one of its reduction leaves.
Expected<te::ComputeDAG> rfactorDag(const te::ComputeDAG& dag, const Stage& stage, const std::string& iter,
                                    int factor_axis);

Expected<te::ComputeDAG> layoutRewriteDag(const te::ComputeDAG& dag, const Stage& stage,
                                          const std::string& placeholder, WeightLayout* layout);
// The DAG that packs the original weight into the layout (input: original, output: packed).
te::ComputeDAG packingDag(const WeightLayout& layout, te::DType dtype);

}  // namespace ttune::schedule
