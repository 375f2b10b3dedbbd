// A model compiled once for ranges of sizes (graph/size_ranges.h): each run takes inputs of any
// size in the declared ranges, with no compilation after load. It holds one compiled model per
// bucket of the ranges (graph::rangeBuckets), each with kernels for its bucket's sizes; a run
// goes to the bucket its sizes fall in.
//
// How a run reads its sizes, checks its shapes, picks its bucket and stages its tensors is
// runtime/range_plan.h, shared with exported libraries: every input must have exactly the shape
// the sizes give it and every size must lie in its range, or the run fails with one sentence
// naming the input or size, and the model stays usable. The kernels work on buffers laid out at
// the bucket's largest sizes: inputs are copied into such buffers and outputs out of them (small
// beside the model's work). Runs of one bucket are serialized, as the C API's are (one workspace
// per bucket).
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "executor/executor.h"
#include "graph/size_ranges.h"

namespace ttune::executor {

class RangeCompiledModel {
 public:
  // `buckets`: the model for each bucket (cli::loadRangeBuckets), together covering the ranges;
  // `bucket_schedules` (optional): the schedules of each bucket's kernels, else
  // options.schedules for all. Throws Error when a range is the extent of no input axis (its size
  // could not be read).
  static std::unique_ptr<RangeCompiledModel> compile(std::vector<graph::RangeModel> buckets, ModelOptions options,
                                                     const std::vector<ScheduleProvider>& bucket_schedules = {});

  // Inputs in graph input order; returns the outputs at the run's sizes.
  std::vector<runtime::NDArray> run(const std::vector<runtime::NDArray>& inputs);
  // The sizes (in range order) that inputs of these shapes give; throws Error when the shapes do
  // not fit the model or a size is out of its range.
  std::vector<int64_t> sizesOf(const std::vector<te::Shape>& input_shapes) const;
  te::Shape inputShape(size_t i, const std::vector<int64_t>& sizes) const;
  te::Shape outputShape(size_t o, const std::vector<int64_t>& sizes) const;

  const std::vector<graph::SizeRange>& ranges() const { return ranges_; }
  size_t numBuckets() const { return buckets_.size(); }
  const graph::RangeModel& bucketModel(size_t b) const { return buckets_[b]->model; }
  const CompiledModel& bucketCompiled(size_t b) const { return buckets_[b]->compiled; }
  // The bucket that runs these sizes.
  size_t bucketOf(const std::vector<int64_t>& sizes) const;
  // All buckets' kernels, plans and weights, for `ttune export` (shared weights and kernels once).
  ModelArtifacts artifacts() const;

 private:
  struct Bucket {
    Bucket(graph::RangeModel m, CompiledModel c) : model(std::move(m)), compiled(std::move(c)) {}
    graph::RangeModel model;
    CompiledModel compiled;
    std::mutex mu;                                      // guards the staging buffers and the workspace
    std::vector<runtime::NDArray> in_stage, out_stage;  // at the bucket's largest sizes
  };
  RangeCompiledModel() = default;

  std::vector<graph::SizeRange> ranges_;  // the whole ranges
  std::vector<std::unique_ptr<Bucket>> buckets_;
  runtime::RangePlan shapes_;  // sizes, dimension formulas and bucket ranges (no plans: each bucket runs its own)
  std::vector<runtime::TensorSpec> input_specs_;
};

// The artifacts of a model for ranges of sizes compiled ahead of time without loading its kernels
// (`options.target` may be another machine), as RangeCompiledModel::artifacts() gives them.
ModelArtifacts compileRangeArtifacts(std::vector<graph::RangeModel> buckets, ModelOptions options,
                                     const std::vector<ScheduleProvider>& bucket_schedules = {});

}  // namespace ttune::executor
