// DAG-changing schedule steps: cache_write, cache_read, rfactor and weight layout rewrite each
// build a new ComputeDAG from the old one. New ops get derived names (<op>.local, <op>.rf,
// <weight>.packed); ops that are not involved keep their names, axes and definitions, so the
// stages of a State that refer to them stay valid.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schedule/state.h"
#include "support/expected.h"
#include "te/compute_dag.h"

namespace ttune::schedule {

Expected<te::ComputeDAG> cacheWriteDag(const te::ComputeDAG& dag, const std::string& op, const std::string& scope);
Expected<te::ComputeDAG> cacheReadDag(const te::ComputeDAG& dag, const std::string& producer, const std::string& scope,
                                      const std::vector<std::string>& readers);
// The same rewrites, memoized on the identity of the input DAG: replaying states of one task
// applies the same cache_write / cache_read to the same DAG object thousands of times per search
// round, and rebuilding (and re-hashing) a DAG with large expressions dominated mutation. The
// memo holds its inputs alive (an address is never reused while its entry exists) and is
// bounded; it is thread-safe, and the results are immutable and shared.
Expected<std::shared_ptr<const te::ComputeDAG>> cacheWriteDagShared(const std::shared_ptr<const te::ComputeDAG>& dag,
                                                                    const std::string& op, const std::string& scope);
Expected<std::shared_ptr<const te::ComputeDAG>> cacheReadDagShared(const std::shared_ptr<const te::ComputeDAG>& dag,
                                                                   const std::string& producer,
                                                                   const std::string& scope,
                                                                   const std::vector<std::string>& readers);
// `stage` is the reduction's stage with its splits applied; `iter` one of its reduction leaves.
Expected<te::ComputeDAG> rfactorDag(const te::ComputeDAG& dag, const Stage& stage, const std::string& iter,
                                    int factor_axis);

Expected<te::ComputeDAG> layoutRewriteDag(const te::ComputeDAG& dag, const Stage& stage, const std::string& placeholder,
                                          WeightLayout* layout);
// The DAG that packs the original weight into the layout (input: original, output: packed).
te::ComputeDAG packingDag(const WeightLayout& layout, te::DType dtype);

}  // namespace ttune::schedule
