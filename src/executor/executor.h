// The graph executor: compiles a model's kernels and runs them in order.
//
// compile() partitions the (optimized) graph into kernels, picks a schedule for each distinct
// workload (from the ScheduleProvider: a records file or the schedule bank; otherwise, or when
// the provided steps do not apply, the default schedule), compiles the distinct kernels in
// parallel, packs constant weights into the layouts the schedules chose (once, at load), and
// plans memory: intermediate buffers are reused once their last reader has run. Kernels that only
// reshape alias their input. All of that is a runtime::Plan (runtime/plan.h) that run() executes
// on the bound inputs and outputs; `ttune export` ships the same plan, kernels and packed weights
// (ModelArtifacts), so an exported model computes exactly what run() computes.
//
// runChecked() additionally checks every distinct kernel, on its real inputs, against the
// reference evaluator at a sample of output elements (lazy evaluation keeps this affordable for
// whole models).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "codegen/target.h"
#include "graph/fusion.h"
#include "measure/builder.h"
#include "runtime/ndarray.h"
#include "runtime/plan.h"
#include "runtime/range_plan.h"
#include "schedule/default_schedule.h"
#include "schedule/record.h"
#include "schedule/step.h"

namespace ttune::executor {

// Steps for a kernel, or nullopt for the default schedule.
using ScheduleProvider = std::function<std::optional<std::vector<schedule::Step>>(const graph::Kernel&)>;

// Compiled kernels shared by the models compiled with it (keyed by workload, steps and target;
// thread-safe): configurations of one model that differ in a few kernels -- untuned, tuned,
// checkpoints of a tuning run, in-model refinement variants -- compile each kernel once.
class KernelCache;
std::shared_ptr<KernelCache> makeKernelCache();

// The key and the entry symbol under which models compile a kernel's schedule for a target. Code
// built elsewhere from exactly those steps under that entry (measure::MeasureInput::entry) can be
// added to a cache (addBuilt), so that the models compiled with it load it instead of compiling
// the kernel again: a transfer hands the code it measured to its whole-model check. False when
// the code does not load here (another architecture's, a shared object).
std::string kernelCacheKey(const std::string& workload_key, const std::vector<schedule::Step>& steps,
                           const schedule::Target& target);
std::string kernelEntry(const std::string& cache_key);
bool addBuilt(KernelCache& cache, const std::string& cache_key, const measure::BuildResult& built);

struct ModelOptions {
  ScheduleProvider schedules;
  int compile_threads = 0;                          // 0: one per core
  schedule::Target target = codegen::hostTarget();  // must be runnable here (compile() checks)
  std::shared_ptr<KernelCache> cache;               // optional
  // The default schedules of kernels the provider does not schedule (schedule/default_schedule.h).
  schedule::Baseline baseline = schedule::Baseline::Strong;
  // A model compiled for ranges of sizes (graph/size_ranges.h): the kernels to compile instead of
  // partition(graph), and the size parameters in the order runs pass them (plan sizes).
  std::vector<graph::Kernel> kernels;
  std::vector<std::string> size_names;
};

struct KernelStats {
  std::string workload_key, class_name, class_id;
  std::string schedule_source;  // "provided", "default", or why the provided one was not used
  int occurrences = 0;
  double flops = 0;  // one occurrence
  double compile_s = 0;
  std::vector<te::OpTag> op_tags;  // of the kernel's compute ops, producers first
  bool cached = false;             // taken from the model's KernelCache, not compiled for this model
};

// How runChecked compares kernels with the reference evaluator. A kernel whose outputs each have
// at most whole_up_to_elements elements and which costs at most whole_up_to_flops is computed
// whole by the evaluator and compared at every point; any other at samples_per_output random
// points per output (the evaluator is an interpreter: whole checks of big kernels take minutes).
struct CheckOptions {
  int samples_per_output = 64;
  int64_t whole_up_to_elements = 64;
  double whole_up_to_flops = 0;  // 0: no limit
  uint64_t seed = 1;
  double atol = 1e-3, rtol = 1e-3;
};

struct CheckReport {
  int kernels_checked = 0;
  int64_t points = 0;
  int kernels_checked_whole = 0;  // of kernels_checked, compared at every output point
  double max_abs_err = 0, max_rel_err = 0;
  int64_t mismatches = 0;
  std::string worst_kernel;  // class of the kernel with the largest error
  bool ok() const { return mismatches == 0; }
};

// A compiled model as data: what running it needs besides loading its kernels' machine code.
struct ModelArtifacts {
  schedule::Target target;
  std::vector<codegen::ObjectCode> kernels;  // distinct kernels in plan numbering; distinct entry symbols
  runtime::Plan plan;
  std::vector<runtime::NDArray> weights;  // plan numbering: constants and packed weights
  std::vector<KernelStats> stats;         // per distinct kernel
  // A model compiled for ranges of sizes: every bucket's plan (plan then holds no calls: the
  // inputs and outputs at the largest sizes, the weights, kernels and workspace of all buckets).
  runtime::RangePlan ranges;
};

class CompiledModel {
 public:
  static CompiledModel compile(const graph::Graph& graph, const ModelOptions& options = {});

  // Inputs in graph input order; returns the outputs in graph output order.
  std::vector<runtime::NDArray> run(const std::vector<runtime::NDArray>& inputs);
  // run() on the caller's buffers (one per input and output, shapes and dtypes as plan() says;
  // outputs must not overlap inputs or each other). A model compiled for ranges of sizes takes
  // the sizes of the run (ModelOptions::size_names order) and buffers laid out at its largest
  // sizes (executor/range_model.h does that for its callers).
  void runInto(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
               const std::vector<int64_t>& sizes = {});
  // run() that also sets seconds[k] to the time spent in distinct kernel k (all its instances;
  // k indexes kernels()).
  // total_s (optional) receives the whole run's wall time, binding and output copies included.
  // A model for ranges of sizes takes the run's sizes and inputs laid out at its largest sizes.
  std::vector<runtime::NDArray> runProfiled(const std::vector<runtime::NDArray>& inputs, std::vector<double>& seconds,
                                            double* total_s = nullptr, const std::vector<int64_t>& sizes = {});
  std::vector<runtime::NDArray> runChecked(const std::vector<runtime::NDArray>& inputs, CheckReport* report,
                                           const CheckOptions& options = {});

  const std::vector<KernelStats>& kernels() const;  // distinct workloads, in first-use order
  const std::vector<graph::Kernel>& instances() const;
  double compileSeconds() const;
  int64_t workspaceBytes() const;  // intermediate buffers after reuse
  double flops() const;            // whole model
  const graph::Graph& graph() const;
  const runtime::Plan& plan() const;
  // The kernels' object code, the plan and the weights, for `ttune export`.
  ModelArtifacts artifacts() const;

  CompiledModel(CompiledModel&&) noexcept;
  CompiledModel& operator=(CompiledModel&&) noexcept;
  ~CompiledModel();

 private:
  CompiledModel();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend ModelArtifacts compileArtifacts(const graph::Graph& graph, const ModelOptions& options);
};

// Compiles a model ahead of time without loading its kernels, so `options.target` may be a
// machine other than this one (options.cache is not used).
ModelArtifacts compileArtifacts(const graph::Graph& graph, const ModelOptions& options = {});

// A provider that serves, per workload key, the fastest successful record.
ScheduleProvider recordsProvider(const std::vector<schedule::Record>& records);

// Seeded random inputs for a graph: floats in [-1, 1); integer inputs (token ids) in [0, hi).
std::vector<runtime::NDArray> randomInputs(const graph::Graph& g, uint64_t seed, int64_t int_hi = 100);

}  // namespace ttune::executor
