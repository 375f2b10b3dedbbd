// Bounds code size: when replicating an unrolled loop would emit more than `max_nodes`
// expression nodes (a vectorized loop counting once per vector of `lanes`, a loop with a
// run-time extent twice for its tail version), the outermost unrolled loops become serial until
// it fits. Keeps compile time bounded for any schedule.
#pragma once

#include "lower/loop_ir.h"

namespace ttune::lower {

Stmt limitUnrolling(const Stmt& s, int64_t max_nodes, int lanes);

}  // namespace ttune::lower
