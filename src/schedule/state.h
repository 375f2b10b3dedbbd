// State: a ComputeDAG plus the history of transform steps applied to it; this is what a schedule
// (an auto-schedule, a record, a transferred schedule) is. The stages, their loop iterators and
// their compute locations are derived by replaying the steps, validating every reference.
//
// Invariants after a successful replay:
//  - stages() is aligned with dag().ops() (one stage per op, same order, same names);
//  - every stage's iterators are its leaf loops in loop order; the root axes map to the leaves
//    through its split/fuse relations (exact when factors divide, ceil-div + guards otherwise);
//  - every attach point (stage, iterator) exists and its stage is the attached stage's consumer;
//  - iterator extents are known for concrete states once inferBounds() ran (replay runs it).
// Values are cheap to copy; the DAG is shared and immutable.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "schedule/dag_rewrite_fwd.h"
#include "schedule/step.h"
#include "support/expected.h"
#include "te/compute_dag.h"

namespace ttune::schedule {

struct Iterator {
  std::string name;
  std::optional<int64_t> extent;  // unknown while a split length is unset or bounds not inferred
  te::IterKind kind = te::IterKind::Spatial;
  IterAnnotation annotation = IterAnnotation::None;
};

struct SplitRelation {
  std::string parent;
  std::vector<std::string> children;            // outermost first
  std::vector<std::optional<int64_t>> factors;  // factors[k] is the factor splitting children[k+1] off
};
struct FuseRelation {
  std::vector<std::string> parents;  // outermost first
  std::string child;
};
using Relation = std::variant<SplitRelation, FuseRelation>;

struct RootAxis {
  std::string name;
  int64_t full_extent = 0;  // the op's extent
  te::IterKind kind = te::IterKind::Spatial;
};

enum class ComputeLocation : uint8_t { Root, Inlined, At };

struct Stage {
  std::string op;  // op name in the current DAG
  bool is_placeholder = false;
  std::vector<RootAxis> root;       // op axes then reduce axes
  std::vector<int64_t> region;      // inferred extent of each root axis (full extent at root)
  std::vector<Relation> relations;  // split/fuse history of this stage
  std::vector<Iterator> iters;      // leaf loops, outermost first
  ComputeLocation location = ComputeLocation::Root;
  std::string attach_stage, attach_iter;  // when location == At
  int64_t auto_unroll_max_step = 0;

  int iterIndex(const std::string& name) const;  // -1 if absent
  const Iterator* findIter(const std::string& name) const;
  bool isReduction() const;
};

class State {
 public:
  State() = default;
  explicit State(std::shared_ptr<const te::ComputeDAG> dag);

  // Replays `steps` on a fresh state of `dag`; the first invalid step ends replay with a reason
  // naming the step.
  static Expected<State> replay(std::shared_ptr<const te::ComputeDAG> dag, const std::vector<Step>& steps);

  // Applies one step (validating it) and records it. On failure the state is unchanged.
  Status apply(const Step& step);
  // Recomputes the regions of attached stages and all iterator extents; fails for schedules that
  // cannot be lowered (nested parallel loops, unset split lengths). Cheap when nothing changed
  // since the last successful call.
  Status inferBounds();
  bool boundsInferred() const { return bounds_inferred_; }

  const te::ComputeDAG& dag() const { return *dag_; }
  const std::shared_ptr<const te::ComputeDAG>& dagPtr() const { return dag_; }
  // The DAG the first step applied to (before cache/rfactor/layout steps).
  const std::shared_ptr<const te::ComputeDAG>& originalDag() const { return original_dag_; }
  const std::vector<Stage>& stages() const { return stages_; }
  const std::vector<Step>& steps() const { return steps_; }
  // Constant weights re-laid-out by layout-rewrite steps: the kernel takes `packed` in place of
  // `original` (see packingDag in dag_rewrite.h to produce it).
  const std::vector<WeightLayout>& weightLayouts() const { return layouts_; }
  int stageIndex(const std::string& op) const;  // -1 if absent
  const Stage& stage(const std::string& op) const;
  // Stages attached at (stage, iter), in stage order.
  std::vector<int> attachedAt(const std::string& stage, const std::string& iter) const;
  // Consumers of a stage seen through inlined stages (stage indices).
  std::vector<int> effectiveConsumers(int stage) const;
  // True when every split length is set.
  bool concrete() const;

  // Readable loop nest, e.g.
  //   parallel i.0@j.0@ (0,32)
  //     for k (0,512)
  //       vectorize j.1 (0,16)
  //         C = ...
  std::string toString() const;

 private:
  friend class StepApplier;
  void resetStages();
  std::shared_ptr<const te::ComputeDAG> dag_, original_dag_;
  std::vector<Stage> stages_;
  std::vector<Step> steps_;
  std::vector<WeightLayout> layouts_;
  bool bounds_inferred_ = false;
};

// Builds the initial stage for op `index` of `dag` (root, unsplit).
Stage makeStage(const te::ComputeDAG& dag, int index);
// Recomputes a stage's leaf extents from its region and relations.
void computeLeafExtents(Stage& stage);

}  // namespace ttune::schedule
