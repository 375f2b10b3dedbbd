// Lowering: turns a State (a DAG plus its schedule) into loop IR.
//
// Every non-inlined stage becomes a loop nest over its leaf iterators (in the schedule's order and
// with its annotations); stages computed at another stage are emitted inside that stage's loop,
// over the region the remaining inner loops read (bound inference), into a buffer sized by that
// region; reductions get an init nest before their first reduction loop. Splits whose factors do
// not divide produce ceil-div loops; their guards are turned into tightened loop bounds at the
// innermost loop they depend on, so full tiles run unguarded and only tails run shorter loops
// (a vectorized loop with a short tail falls back to scalar code for that tail only).
#pragma once

#include <optional>
#include <string>

#include "lower/loop_ir.h"
#include "lower/prefetch.h"
#include "schedule/state.h"
#include "schedule/target.h"
#include "support/expected.h"

namespace ttune::lower {

struct LowerOptions {
  // Attached buffers up to this size live on the stack; larger ones on the heap.
  int64_t max_stack_bytes = 256 * 1024;
  // An `unroll` annotation is honoured while the replicated body stays within this many steps.
  int64_t max_explicit_unroll = 1024;
  // Expression nodes of one loop nest after unrolling (bounds compile time; see
  // lower/limit_unrolling.h), counting vectorized loops per `vector_lanes` lanes.
  int64_t max_unrolled_statements = 24000;
  int vector_lanes = 16;
  // Software prefetch of the next parallel iteration's blocks (lower/prefetch.h); off when unset
  // (the cost model's features describe the schedule without it).
  std::optional<PrefetchOptions> prefetch;
};

// The options kernels for `target` are compiled with: its vector width, its cache sizes.
LowerOptions lowerOptionsFor(const schedule::Target& target);

// Fails (with the reason) for schedules that cannot be lowered.
Expected<LoweredFunc> lower(const schedule::State& state, const std::string& name, const LowerOptions& options = {});

}  // namespace ttune::lower
