#include "schedule/default_schedule.h"

#include "schedule/state.h"

namespace ttune::schedule {

namespace {

// Fuses the given leading loops (when more than one) and returns the name of the parallel loop.
std::string fuseOuter(std::vector<Step>& steps, const std::string& stage, const std::vector<std::string>& outer) {
  if (outer.empty()) return "";
  if (outer.size() == 1) return outer[0];
  steps.push_back(FuseStep{stage, outer});
  std::string n;
  for (const std::string& o : outer) n += o + "@";
  return n;
}

// Outer loops to fuse for parallelism: a prefix of `axes` whose product reaches min_parallel.
std::vector<std::string> parallelPrefix(const std::vector<std::pair<std::string, int64_t>>& axes, int64_t min_parallel) {
  std::vector<std::string> out;
  int64_t par = 1;
  for (const auto& [name, ext] : axes) {
    if (par >= min_parallel) break;
    out.push_back(name);
    par *= ext;
  }
  return out;
}

// A reduction with a register tile: the stage is computed into a local tile of (rows x vector)
// outputs, whose loops run inside the reduction loops, and copied out.
void tiledReduction(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& name, const DefaultScheduleOptions& opt) {
  const std::string L = name + ".local";
  steps.push_back(CacheWriteStep{name, "local"});
  size_t n = c.axes.size();
  const te::IterVar& last = c.axes[n - 1];
  int64_t lanes = std::min<int64_t>(opt.vector_lanes, last.extent);
  bool has_row = n >= 2 && c.axes[n - 2].extent > 1;
  int64_t rows = has_row ? std::min<int64_t>(4, c.axes[n - 2].extent) : 1;
  std::vector<std::string> outer, tile, reduce;
  for (size_t d = 0; d + (has_row ? 2 : 1) < n; ++d) outer.push_back(c.axes[d].name());
  int split_step = static_cast<int>(steps.size());
  if (has_row) {
    const std::string& r = c.axes[n - 2].name();
    steps.push_back(SplitStep{L, r, c.axes[n - 2].extent, {rows}, true});
    outer.push_back(r + ".0");
    tile.push_back(r + ".1");
  }
  steps.push_back(SplitStep{L, last.name(), last.extent, {lanes}, true});
  outer.push_back(last.name() + ".0");
  tile.push_back(last.name() + ".1");
  for (const te::IterVar& iv : c.reduceAxes()) reduce.push_back(iv.name());
  std::vector<std::string> order = outer;
  order.insert(order.end(), reduce.begin(), reduce.end());
  order.insert(order.end(), tile.begin(), tile.end());
  steps.push_back(ReorderStep{L, order});
  // The copy-out stage is tiled the same way; the local tile is computed at its tile loop.
  std::vector<std::pair<std::string, int64_t>> par_axes;
  for (size_t d = 0; d + (has_row ? 2 : 1) < n; ++d) par_axes.push_back({c.axes[d].name(), c.axes[d].extent});
  std::vector<std::string> couter;
  for (size_t d = 0; d + (has_row ? 2 : 1) < n; ++d) couter.push_back(c.axes[d].name());
  if (has_row) {
    const std::string& r = c.axes[n - 2].name();
    steps.push_back(FollowSplitStep{name, r, split_step, 1});
    couter.push_back(r + ".0");
    par_axes.push_back({r + ".0", (c.axes[n - 2].extent + rows - 1) / rows});
  }
  steps.push_back(FollowSplitStep{name, last.name(), split_step + (has_row ? 1 : 0), 1});
  couter.push_back(last.name() + ".0");
  par_axes.push_back({last.name() + ".0", (last.extent + lanes - 1) / lanes});
  std::vector<std::string> corder = couter;
  if (has_row) corder.push_back(c.axes[n - 2].name() + ".1");
  corder.push_back(last.name() + ".1");
  steps.push_back(ReorderStep{name, corder});
  steps.push_back(ComputeAtStep{L, name, couter.back()});
  std::string par = fuseOuter(steps, name, parallelPrefix(par_axes, opt.min_parallel));
  if (!par.empty()) steps.push_back(AnnotationStep{name, par, IterAnnotation::Parallel});
  if (has_row) steps.push_back(AnnotationStep{L, c.axes[n - 2].name() + ".1", IterAnnotation::Unroll});
  steps.push_back(AnnotationStep{L, last.name() + ".1", IterAnnotation::Vectorize});
  steps.push_back(AnnotationStep{name, last.name() + ".1", IterAnnotation::Vectorize});
}

// Elementwise / injective stage, or a reduction too small to tile: parallel outer loops and a
// vectorized innermost loop.
void simpleStage(std::vector<Step>& steps, const te::ComputeOp& c, const std::string& name, const DefaultScheduleOptions& opt) {
  const te::IterVar& last = c.axes.back();
  std::vector<std::pair<std::string, int64_t>> outer;
  for (size_t d = 0; d + 1 < c.axes.size(); ++d) outer.push_back({c.axes[d].name(), c.axes[d].extent});
  std::string vec;
  std::vector<std::string> order;
  if (last.extent > opt.vector_lanes) {
    steps.push_back(SplitStep{name, last.name(), last.extent, {opt.vector_lanes}, true});
    outer.push_back({last.name() + ".0", (last.extent + opt.vector_lanes - 1) / opt.vector_lanes});
    vec = last.name() + ".1";
  } else if (last.extent > 1) {
    vec = last.name();
  } else {
    outer.push_back({last.name(), 1});
  }
  for (const auto& o : outer) order.push_back(o.first);
  for (const te::IterVar& iv : c.reduceAxes()) order.push_back(iv.name());
  if (!vec.empty()) order.push_back(vec);
  if (!c.reduceAxes().empty() || vec != last.name()) steps.push_back(ReorderStep{name, order});
  std::string par = fuseOuter(steps, name, parallelPrefix(outer, opt.min_parallel));
  if (!par.empty()) steps.push_back(AnnotationStep{name, par, IterAnnotation::Parallel});
  if (!vec.empty()) steps.push_back(AnnotationStep{name, vec, IterAnnotation::Vectorize});
}

}  // namespace

std::vector<Step> defaultSchedule(const te::ComputeDAG& dag, const DefaultScheduleOptions& opt) {
  std::vector<Step> steps;
  std::vector<bool> inlined(dag.numOps(), false);
  // Inline elementwise/injective stages feeding one consumer, except padding feeding a reduction:
  // padding stays a stage of its own so the reduction's inner loop reads without conditions.
  for (int i = 0; i < dag.numOps(); ++i) {
    const te::Operation& op = dag.op(i);
    if (!op.isCompute() || dag.isOutput(i) || op.compute().reduce()) continue;
    if (dag.consumers(i).size() != 1) continue;
    const te::Operation& consumer = dag.op(dag.consumers(i)[0]);
    if (op.tag() == "pad" || op.name() == "pad") {
      if (consumer.isCompute() && consumer.compute().reduce()) continue;
    }
    steps.push_back(ComputeInlineStep{op.name()});
    inlined[i] = true;
  }
  for (int i = 0; i < dag.numOps(); ++i) {
    const te::Operation& op = dag.op(i);
    if (!op.isCompute() || inlined[i] || op.compute().axes.empty()) continue;
    const te::ComputeOp& c = op.compute();
    int64_t reduce_len = 1;
    for (const te::IterVar& iv : c.reduceAxes()) reduce_len *= iv.extent;
    if (c.reduce() && reduce_len >= 16 && c.axes.back().extent >= 4) tiledReduction(steps, c, op.name(), opt);
    else simpleStage(steps, c, op.name(), opt);
  }
  return steps;
}

}  // namespace ttune::schedule
