// Adapting a schedule found for one kernel to another kernel of the same class (different
// shapes). Replayed verbatim, a schedule's split lengths may not divide the new extents: ttune
// lowers that exactly (tail loops), but the tiles may fit the new shape badly. adaptSplits
// re-factorizes each such split to the exact factorization of the new extent closest to the
// original lengths (log distance, the innermost length weighted most: it is the vector width),
// and records the new extents in the steps (the reference keeps stale ones, ansor-study §8.3).
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

}  // namespace ttune::transfer
