// Static analysis of a ComputeDAG's ops for the sketch rules (Ansor §4.1, Table 1):
//  - simple access: every read index is a constant or `axis +/- constant` of the op's own axes;
//  - strictly inlineable: simple access, same axis order, no duplicated axis, no exp and no
//    select/branch (a stage that reads nothing is always inlineable);
//  - needs multi-level tiling: at least two producers miss one of the op's spatial axes, or one
//    does and the op reduces (data reuse: matmul, conv, batched products);
//  - elementwise match: a single-consumer chain with equal shapes and plain same-order reads.
#pragma once

#include <vector>

#include "te/compute_dag.h"

namespace ttune::autotune {

struct OpInfo {
  bool is_compute = false;
  bool is_output = false;
  bool has_reduce = false;
  bool simple_access = false;
  bool strictly_inlineable = false;
  bool needs_multi_level_tiling = false;
  int64_t space_len = 1;   // product of spatial extents
  int64_t reduce_len = 1;  // product of reduction extents
};

class DagAnalysis {
 public:
  explicit DagAnalysis(const te::ComputeDAG& dag);
  const OpInfo& info(int op) const { return info_[op]; }
  // True when `consumer` reads `op` element-wise (same shape, reads indexed by its own axes in
  // order), possibly through a chain of such single-consumer ops.
  bool elementwiseMatch(int op, int consumer) const;

 private:
  const te::ComputeDAG& dag_;
  std::vector<OpInfo> info_;
};

}  // namespace ttune::autotune
