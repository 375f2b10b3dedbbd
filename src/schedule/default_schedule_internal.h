// Internal to the default schedule (default_schedule*.cc): the access analyses and loop helpers
// its stage kinds share, and the reduction forms kept in default_schedule_reduction.cc (register
// tile, row and whole-tensor rfactor). Each definition says why it decides as it does.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "schedule/default_schedule.h"
#include "schedule/step.h"
#include "te/compute_dag.h"

namespace ttune::schedule::default_schedule_detail {

// Reductions at least this long get a register tile; shorter ones a plain vectorized loop nest.
constexpr int64_t kMinTiledReduce = 16;

// Loop helpers (default_schedule.cc).
// Fuses the given leading loops (when more than one) and returns the name of the parallel loop.
std::string fuseOuter(std::vector<Step>& steps, const std::string& stage, const std::vector<std::string>& outer);
// Outer loops to fuse for parallelism: a prefix of `axes` whose product reaches min_parallel.
std::vector<std::string> parallelPrefix(const std::vector<std::pair<std::string, int64_t>>& axes, int64_t min_parallel);

// Access analyses (default_schedule_reduction.cc).
// The product of c's reduction extents.
int64_t reduceLength(const te::ComputeOp& c);
// True when every non-constant read is invariant in `axis` or (unless `invariant`) contiguous
// along it, so a vector along `axis` needs neither gathers nor scatters.
bool vectorFriendly(const te::Expr& body, const te::IterVar& axis, bool invariant = false);
bool vectorFriendly(const te::ComputeOp& c, const te::IterVar& axis, bool invariant = false);
// True when no index of `read` depends on `var`.
bool readInvariantIn(const te::TensorRead& read, const te::IterVar& var);
// True when c has an axis of at least `lanes` elements to vectorize along which some read is
// invariant (the broadcast operand of an outer-product register tile).
bool hasBroadcastAxis(const te::ComputeOp& c, int64_t lanes);

// The reduction forms (default_schedule_reduction.cc): whether each fits stage c, and the steps
// that schedule it.
bool tiledReductionFits(const te::ComputeOp& c, int64_t lanes);
// The register tile of reduction `ri`, computed in its element-wise `consumer` (or a cache-write
// copy when consumer is -1).
void tiledReduction(std::vector<Step>& steps, const te::ComputeDAG& dag, int ri, int consumer,
                    const DefaultScheduleOptions& opt);
bool rowReductionFits(const te::ComputeOp& c, int64_t lanes);
void rowReduction(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& name,
                  const DefaultScheduleOptions& opt);
bool wholeReductionFits(const te::ComputeOp& c, int64_t lanes);
void wholeReduction(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& name,
                    const DefaultScheduleOptions& opt);

}  // namespace ttune::schedule::default_schedule_detail
