#include "measure/round_order.h"

#include <algorithm>

#include "support/assert.h"

namespace ttune::measure {

int roundOrderCycle(RoundOrder order, size_t n) {
  if (order == RoundOrder::Fixed || n < 2) return 1;
  if (order == RoundOrder::Rotating || n % 2 == 0) return static_cast<int>(n);
  return static_cast<int>(2 * n);
}

std::vector<size_t> roundOrder(RoundOrder order, size_t n, int round) {
  TT_ASSERT(round >= 0, "round numbers start at 0");
  std::vector<size_t> out(n);
  if (n == 0) return out;
  size_t r = static_cast<size_t>(round % roundOrderCycle(order, n));
  switch (order) {
    case RoundOrder::Fixed:
      for (size_t j = 0; j < n; ++j) out[j] = j;
      break;
    case RoundOrder::Rotating:
      for (size_t j = 0; j < n; ++j) out[j] = (j + r) % n;
      break;
    case RoundOrder::Balanced: {
      // Williams' first row 0, 1, n-1, 2, n-2, ...: its successive differences are 1, -2, 3, -4,
      // ... (mod n), all distinct for even n, so adding a constant (mod n) per row makes every
      // ordered pair adjacent exactly once. For odd n the reversed rows complete the design.
      size_t shift = r % n;
      for (size_t j = 0; j < n; ++j) {
        size_t k = (j + 1) / 2;
        size_t first = j % 2 == 1 ? k : (n - k) % n;
        out[j] = (first + shift) % n;
      }
      if (r >= n) std::reverse(out.begin(), out.end());
      break;
    }
  }
  return out;
}

}  // namespace ttune::measure
