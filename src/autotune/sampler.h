// Random annotation of sketches (the initial population, Ansor §4.2) and mutation of
// complete states. Both work on step lists and replay them, so every result is a valid State.
//
// Differences from the reference: split lengths may also be non-dividing (ttune lowers them
// exactly, with tail loops), which gives extents with few divisors (primes, 7x7 feature maps)
// tilings Ansor cannot express. Like the reference, search states carry no layout rewrite;
// finalizeForMeasurement() adds it to what is built and recorded.
#pragma once

#include <optional>
#include <vector>

#include "codegen/target.h"
#include "schedule/state.h"
#include "support/rng.h"

namespace ttune::autotune {

struct SamplerOptions {
  // Lanes and vector registers: the innermost tile of a tiled reduction (its accumulators) must
  // fit the register file (sampled states are repaired, mutations that do not fit rejected).
  schedule::Target target = codegen::hostTarget();
  int num_cores = 2;
  int64_t max_innermost_split = 64;
  int64_t max_vectorize = 32;  // lanes of a vectorized loop
  std::vector<int64_t> unroll_choices = {0, 16, 64, 512};
  double non_dividing_prob = 0.15;  // per split, raised for extents with few divisors
};

// Fills a sketch's unset split lengths and adds compute locations, parallel, unroll and
// vectorize annotations. nullopt when the draw is invalid.
std::optional<schedule::State> sampleState(const schedule::State& sketch, Rng& rng, const SamplerOptions& opt);

// The steps to build and record for a search state: its steps plus a layout rewrite of every
// constant weight a tiled reduction reads (when the tiling allows one).
std::vector<schedule::Step> finalizeForMeasurement(const schedule::State& state);
// The reverse: the search-state steps of recorded or default steps (layout rewrites dropped).
std::vector<schedule::Step> withoutLayoutRewrites(const std::vector<schedule::Step>& steps);

// One random mutation (tile size 0.90, auto-unroll 0.04, compute location 0.05, parallel 0.01).
std::optional<schedule::State> mutateState(const schedule::State& state, Rng& rng, const SamplerOptions& opt);

// Vector registers the register tiles of a state need: the most over its multi-level-tiled
// reductions, counting the innermost spatial loops (after the last reduction loop) as
// accumulators, the innermost one in vectors of `lanes`, plus its operand vectors and a broadcast.
int tileRegisters(const schedule::State& state, int lanes);
// The steps with the innermost tile lengths of over-budget tiled reductions shrunk (a factor moved
// one level out, so exact splits stay exact) until their register tiles fit `registers`; nullopt
// when they cannot be made to fit.
std::optional<schedule::State> fitRegisters(const schedule::State& state, int lanes, int registers);

// All ways to write `extent` as outer * l[0] * ... * l[n-1] exactly, innermost <= cap (memoized).
const std::vector<std::vector<int64_t>>& exactFactorizations(int64_t extent, int n, int64_t cap);

}  // namespace ttune::autotune
