// Size ranges: one compiled model for every size in declared ranges (`--dim seq=1..512`).
//
// The model is imported at several sizes of its ranges, the probes (probeSizes; the first at
// every range's largest size). analyzeRanges checks that the probes are one model: the same
// nodes, values and kernels; each kernel's ops equal up to their extents once their index
// expressions are simplified on their domains; a constant whose shape follows a size equal to the
// corner of the largest size's, any other constant equal. It fits each extent that changes as an
// expression of the sizes (a*n + b of one size, or a*n*m of two). The kernels at the largest
// sizes get those expressions as run-time extents (te/runtime_extents.h): laid out at the largest
// sizes, they compute at any size what the kernels built at that size compute. That is verified
// at the probe sizes and assumed between them: index arithmetic that changed form only between
// probes would escape the check (the tests run whole models at sizes that are not probes).
//
// Views stay views only where the valid part of a value is one leading run of its buffer; a model
// whose reshapes mix a sized axis with axes after it (a [batch, seq] pair merged into one axis
// when both are ranges) is refused, naming the kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/fusion.h"
#include "graph/graph.h"
#include "support/expected.h"

namespace ttune::graph {

struct SizeRange {
  std::string name;  // the model's symbolic dimension
  int64_t min = 1, max = 1;
};

// The buckets a range is served in, largest first. Kernels compiled for a range run its smaller
// sizes with the schedules chosen for its largest (on BERT-base: 1.9x the time of the model
// compiled for the size at 1/8 of the range's largest, 1.5x at 1/3, 1.06-1.13x at 1/2;
// docs/ranges.md), so a range is cut at max, max/2, max/4, ... (a range of up to 16 sizes down
// to 1, a larger one no bucket ending below 8) and each bucket is compiled as a range of its own;
// a bucket too narrow to check (fewer than two sizes of at least 2 below its largest) becomes one
// bucket per size, in which the size is bound. A range whose largest bucket cannot be checked is
// returned whole (the check refuses it).
std::vector<SizeRange> rangeBuckets(const SizeRange& range);

// The sizes (one per range, in order) to import the model at: every range's largest size first,
// then, per range, two other sizes of it (the others at their largest), then all ranges at once
// at other sizes. Sizes of 1 are avoided (an axis of extent 1 simplifies away); a range too
// narrow for two other sizes of at least 2 gets what it has.
std::vector<std::vector<int64_t>> probeSizes(const std::vector<SizeRange>& ranges);

struct ProbeGraph {
  std::vector<int64_t> sizes;  // one per range
  Graph graph;                 // imported and optimized at those sizes
};

struct RangeModel {
  std::vector<SizeRange> ranges;
  std::vector<te::Var> vars;    // one per range, named as it
  Graph graph;                  // at the largest sizes
  std::vector<Kernel> kernels;  // partition(graph), axes that follow a size with run-time extents
  // Per kernel: its workload key at the largest sizes, under which the bank files its schedules
  // (a range kernel's own key includes its run-time extents).
  std::vector<std::string> largest_keys;
  // Per value of `graph`: each axis's extent as an expression of `vars` (a constant when fixed).
  std::vector<std::vector<te::Expr>> value_extents;
};

// Fails with one sentence naming the value, kernel or op that does not follow the sizes.
Expected<RangeModel> analyzeRanges(const std::vector<SizeRange>& ranges, std::vector<ProbeGraph> probes);

// "batch=2,seq=16": sizes (one per range) as --at and the messages spell them.
std::string sizesText(const std::vector<SizeRange>& ranges, const std::vector<int64_t>& sizes);

// The value of an extent expression at the given sizes (one per var).
int64_t extentAt(const te::Expr& extent, const std::vector<te::Var>& vars, const std::vector<int64_t>& sizes);

}  // namespace ttune::graph
