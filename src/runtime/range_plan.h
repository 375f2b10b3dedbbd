// RangePlan: how a model compiled for ranges of sizes (graph/size_ranges.h) runs, as plain data --
// its size parameters (each read from the length of some input axis, each with its range), every
// input's and output's dimensions as formulas of the sizes, and one Plan per bucket of the ranges
// (kernels specialized for the bucket's sizes, buffers laid out at the bucket's largest sizes,
// Plan::num_sizes size arguments).
//
// A call's sizes are read from its inputs' shapes, checked, and choose the bucket; its inputs are
// copied into buffers at the bucket's largest sizes (the leading corner of each) and its outputs
// copied out of them, unless a tensor already has that shape. The in-process executor
// (executor/range_model.h) and exported libraries (deploy/capi.cc) both do this through these
// functions, so both accept the same calls and refuse the others with the same sentence.
//
// Standard library only (compiled into exported runtimes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/plan.h"

namespace ttune::runtime {

// A dimension as a function of the sizes: scale * s[a] * s[b] + offset, where a factor whose
// index is -1 is 1 (so a fixed dimension has scale 0 and its length as offset).
struct DimFormula {
  int64_t scale = 0, offset = 0;
  int32_t a = -1, b = -1;
  bool fixed() const { return a < 0 && b < 0; }
  int64_t at(const std::vector<int64_t>& sizes) const;
  bool operator==(const DimFormula&) const = default;
};

struct SizeParam {
  std::string name;
  int64_t min = 1, max = 1;
  uint32_t input = 0, axis = 0;  // the input axis whose length it is
};

struct RangeBucket {
  std::vector<int64_t> min, max;  // per size
  Plan plan;                      // tensors at the bucket's largest sizes
};

struct RangePlan {
  std::vector<SizeParam> sizes;  // empty: a model of one size
  std::vector<std::vector<DimFormula>> input_dims, output_dims;
  std::vector<RangeBucket> buckets;
  bool empty() const { return sizes.empty(); }
};

std::vector<int64_t> shapeAt(const std::vector<DimFormula>& dims, const std::vector<int64_t>& sizes);

// The sizes (in RangePlan::sizes order) of a call whose inputs have these shapes; "" on success,
// else one sentence naming the input or size at fault. `inputs` names the inputs.
std::string readSizes(const RangePlan& rp, const std::vector<TensorSpec>& inputs,
                      const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>& sizes);

// The sizes at the corners of a bucket's ranges (each size at its min or max): where a*n + b and
// a*n*m formulas take their extremes, and which decide them on the whole bucket.
std::vector<std::vector<int64_t>> bucketCorners(const RangeBucket& b);

// The bucket that runs sizes inside the ranges (buckets.size() if none does).
size_t bucketOf(const RangePlan& rp, const std::vector<int64_t>& sizes);

// Copies the leading corner `small` of a tensor laid out at `big` between a dense buffer of
// shape `small` and one of shape `big`, one innermost row at a time: into `big` (into_big) or out of it.
void copyCorner(const void* src, void* dst, const std::vector<int64_t>& small, const std::vector<int64_t>& big,
                int64_t elem_bytes, bool into_big);

// Staging a call for a bucket whose plan runs at shape `big` (the bucket's largest sizes): a
// tensor of the call already at `big` is used in place, any other goes through `stage`, a
// buffer of shape `big`. stageInput copies an input there and returns the buffer the plan
// reads; outputBuffer returns the one it writes; unstageOutput copies an output that went
// through its stage back to the caller's `data` (nothing when it did not).
const void* stageInput(const void* data, void* stage, const std::vector<int64_t>& shape,
                       const std::vector<int64_t>& big, int64_t elem_bytes);
void* outputBuffer(void* data, void* stage, const std::vector<int64_t>& shape, const std::vector<int64_t>& big);
void unstageOutput(const void* buffer, void* data, const std::vector<int64_t>& shape, const std::vector<int64_t>& big,
                   int64_t elem_bytes);

// Empty when the range plan fits the model's `inputs` and `outputs` and its buckets' plans are
// valid and hold every size of their ranges, else what is wrong (a plan from a file is checked
// before use).
std::string validateRangePlan(const RangePlan& rp, const std::vector<TensorSpec>& inputs,
                              const std::vector<TensorSpec>& outputs);

void serializeRangePlan(const RangePlan& rp, std::string& out);
bool parseRangePlan(const char*& data, const char* end, RangePlan& rp, std::string& error);

}  // namespace ttune::runtime
