#include "schedule/default_schedule.h"

#include "schedule/state.h"

namespace ttune::schedule {

std::vector<Step> defaultSchedule(const te::ComputeDAG& dag, const DefaultScheduleOptions& opt) {
  std::vector<Step> steps;
  std::vector<bool> inlined(dag.numOps(), false);
  // Inline elementwise/injective stages that feed exactly one consumer.
  for (int i = 0; i < dag.numOps(); ++i) {
    const te::Operation& op = dag.op(i);
    if (!op.isCompute() || dag.isOutput(i) || op.compute().reduce()) continue;
    if (dag.consumers(i).size() != 1) continue;
    steps.push_back(ComputeInlineStep{op.name()});
    inlined[i] = true;
  }
  for (int i = 0; i < dag.numOps(); ++i) {
    const te::Operation& op = dag.op(i);
    if (!op.isCompute() || inlined[i]) continue;
    const te::ComputeOp& c = op.compute();
    std::vector<std::string> spatial, reduce;
    for (const te::IterVar& iv : c.axes) spatial.push_back(iv.name());
    for (const te::IterVar& iv : c.reduceAxes()) reduce.push_back(iv.name());
    if (spatial.empty()) continue;

    // Vectorize the innermost spatial axis when it is long enough.
    std::string vec;
    const te::IterVar& last = c.axes.back();
    std::vector<std::string> outer(spatial.begin(), spatial.end() - 1);
    std::string last_outer;
    if (last.extent >= opt.vector_lanes) {
      steps.push_back(SplitStep{op.name(), last.name(), last.extent, {opt.vector_lanes}, true});
      last_outer = last.name() + ".0";
      vec = last.name() + ".1";
    } else if (last.extent > 1) {
      vec = last.name();
    } else {
      outer.push_back(last.name());
    }
    // Fuse outer spatial loops until there is enough parallelism.
    std::vector<std::string> fused;
    int64_t par = 1;
    for (size_t k = 0; k < outer.size() && par < opt.min_parallel; ++k) {
      fused.push_back(outer[k]);
      par *= c.axes[k].extent;
    }
    std::vector<std::string> order = outer;
    if (!last_outer.empty()) order.push_back(last_outer);
    order.insert(order.end(), reduce.begin(), reduce.end());
    if (!vec.empty()) order.push_back(vec);
    if (!reduce.empty() || !last_outer.empty()) steps.push_back(ReorderStep{op.name(), order});
    if (fused.empty() && !last_outer.empty() && par < opt.min_parallel) fused.push_back(last_outer);
    if (fused.size() > 1) steps.push_back(FuseStep{op.name(), fused});
    std::string par_name;
    for (const std::string& f : fused) par_name += f + (fused.size() > 1 ? "@" : "");
    if (!par_name.empty()) steps.push_back(AnnotationStep{op.name(), par_name, IterAnnotation::Parallel});
    if (!vec.empty()) steps.push_back(AnnotationStep{op.name(), vec, IterAnnotation::Vectorize});
  }
  return steps;
}

}  // namespace ttune::schedule
