// Random valid schedules for property tests: a random sequence of step attempts of every kind
// (splits with dividing and non-dividing lengths, reorders, fuses, annotations, auto-unroll,
// compute_at/inline/root, cache_write, rfactor, layout rewrite); attempts that do not apply are
// dropped, so the result always replays. Deterministic for a seed.
#pragma once

#include <memory>

#include "schedule/state.h"
#include "support/rng.h"

namespace ttune::testing {

schedule::State randomSchedule(const std::shared_ptr<const te::ComputeDAG>& dag, uint64_t seed, int max_attempts = 14);

}  // namespace ttune::testing
