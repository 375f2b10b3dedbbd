// Sketch generation (Ansor, OSDI 2020, §4.1): the high-level structures of schedules for a DAG, derived
// by per-stage rules applied from the last stage to the first. A sketch is a State whose split
// steps have unset lengths; annotation (sampler.h) fills them and adds the low-level choices.
//
// CPU rules, in order, for each stage:
//   AlwaysInline            strictly inlineable non-output stage without reduction -> inline
//   AddRfactor              reductions with little parallelism -> rfactor outer or inner part
//   AddCacheWrite           multi-level-tiled stage without an element-wise consumer -> also a
//                           variant with a local write-back stage
//   MultiLevelTilingWithFusion  tile SSRSRS and fuse the element-wise consumer at level 1 or 2
//   MultiLevelTiling        tile SSRSRS
//   SkipStage               leave the stage as it is
// An int8 or bfloat16 product's innermost reduction axis gets one more, fixed part: the target's
// dot-product group, innermost and unrolled (schedule/dot_group.h); sampling and mutation keep
// it whole.
// A rule either adds states and lets later rules run on the same input (apply) or ends the rule
// list for the stage (apply and skip rest), as in the reference.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schedule/state.h"

namespace ttune::autotune {

struct SketchOptions {
  int num_cores = 2;              // for the rfactor rule's parallelism test
  std::string tiling = "SSRSRS";  // multi-level tiling structure
  int int8_group = 1;             // the target's dot-product groups (Target::int8_group,
  int bf16_group = 1;             // Target::bf16_group)
};

std::vector<schedule::State> generateSketches(const std::shared_ptr<const te::ComputeDAG>& dag,
                                              const SketchOptions& options = {});

// The stage name of the stage that cache_write created for `stage`, if any step did.
bool isCacheWriteStage(const schedule::State& s, const std::string& stage);

}  // namespace ttune::autotune
