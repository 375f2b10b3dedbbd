// The order in which a round runs the configurations being compared. What ran just before a
// configuration changes its time (executor/latency.cc has the measurements: a model run right
// after a different one is slower for tens of milliseconds, and a long block of heavy code
// leaves the next one slower or faster by a few percent), so a fixed order, or one rotated by a
// round, gives each configuration the same predecessor every round and biases its ratio.
// Balanced orders are the rows of a Williams design: over a full cycle of rows (n rounds for an
// even number n of configurations, 2n for an odd one) every configuration follows every other
// exactly once inside the rounds, so first-order carry-over meets all of them alike.
#pragma once

#include <cstddef>
#include <vector>

namespace ttune::measure {

enum class RoundOrder {
  Fixed,     // 0, 1, ..., n-1 in every round
  Rotating,  // round r starts at configuration r mod n (the cyclic predecessors stay fixed)
  Balanced,  // rows of a Williams design, one per round
};

// The configurations of round `round` (0-based) in the order they run: a permutation of 0..n-1.
std::vector<size_t> roundOrder(RoundOrder order, size_t n, int round);

// Rounds in one full cycle of the order (after which it repeats).
int roundOrderCycle(RoundOrder order, size_t n);

}  // namespace ttune::measure
