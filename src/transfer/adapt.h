// Adapting a schedule found for one kernel to another kernel of the same class (different
// shapes). Replayed verbatim, a schedule's split lengths may not divide the new extents: ttune
// lowers that exactly (tail loops), but the tiles may fit the new shape badly. adaptSplits
// re-factorizes each such split to the exact factorization of the new extent closest to the
// original lengths (log distance, the innermost length weighted most: it is the vector width),
// and records the new extents in the steps (Ansor's implementation keeps stale ones).
#pragma once

#include <memory>
#include <vector>

#include "schedule/state.h"
#include "support/expected.h"

namespace ttune::transfer {

// The steps with every non-dividing split re-factorized for `dag`; fails when the steps do not
// replay on `dag` at all.
Expected<std::vector<schedule::Step>> adaptSplits(const std::vector<schedule::Step>& steps,
                                                  const std::shared_ptr<const te::ComputeDAG>& dag);

// A schedule measured on a target with `from_lanes` vector lanes, for one with `to_lanes` lanes
// and `registers` vector registers: every vectorized loop made by a split keeps its number of
// vectors (its innermost length scaled by to/from, the factor moved to the next level out), then
// register tiles that no longer fit are shrunk (autotune::fitRegisters). E.g. an AVX-512 tile of
// 14 rows x 32 lanes becomes 6 x 16 on AVX2. Fails when the steps do not replay on `dag`.
Expected<std::vector<schedule::Step>> adaptLanes(const std::vector<schedule::Step>& steps,
                                                 const std::shared_ptr<const te::ComputeDAG>& dag, int from_lanes,
                                                 int to_lanes, int registers);

}  // namespace ttune::transfer
