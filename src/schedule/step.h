// Transform steps: the schedule language. A schedule (State) is a DAG plus a list of Steps.
//
// Steps are plain structs in a closed std::variant. Stages are named by op name and iterators by
// name, never by position, so a schedule replayed on another kernel of the same class either
// applies to the same loops or is rejected with a reason (docs/architecture.md).
//
// Iterator naming is deterministic: splitting `i` into n+1 parts gives `i.0` (outermost) ..
// `i.n`; fusing `a`, `b` gives `a@b@`; cache stages are `<op>.local`/`<op>.<scope>`; rfactor adds
// `<op>.rf`.
//
// How to add a step: (1) define its struct here and add it to Step; (2) implement its replay in
// state_apply.cc (applyStep's visitor); (3) its printing in step.cc (stepToString); (4) its JSON
// fields in record.cc (stepToJson / stepFromJson) — the compiler flags any missing visitor arm;
// (5) test its semantics, its failure reasons and its record round-trip.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ttune::schedule {

enum class IterAnnotation : uint8_t { None, Unroll, Vectorize, Parallel };
const char* annotationName(IterAnnotation a);

// Split `iter` into lengths.size()+1 iterators. inner_to_outer: lengths are the factors of the
// inner parts (innermost last) and the outermost part gets ceil(extent / prod); otherwise lengths
// are the outer part counts (nparts), outermost first, and the innermost part takes the rest.
// A length that does not divide is legal: loops get ceil-div trip counts and guards.
// `extent` records the extent seen when the step was created (used by tile-size search only).
// An unset length (nullopt) exists only in sketches and must be filled before lowering.
struct SplitStep {
  std::string stage, iter;
  std::optional<int64_t> extent;
  std::vector<std::optional<int64_t>> lengths;
  bool inner_to_outer = true;
};

// Split `iter` like the earlier split step `src_step`: the first n_split-1 lengths are copied and
// the last is the product of the remaining ones (tiles an elementwise consumer like its producer).
struct FollowSplitStep {
  std::string stage, iter;
  int src_step = 0;
  int n_split = 0;
};

// One split whose length is the product over src_steps of lengths[level].
struct FollowFusedSplitStep {
  std::string stage, iter;
  std::vector<int> src_steps;
  int level = 0;
  bool factor_or_nparts = true;
};

// Fuse consecutive iterators into one (names joined as a@b@).
struct FuseStep {
  std::string stage;
  std::vector<std::string> iters;
};

// A full permutation of the stage's current iterators.
struct ReorderStep {
  std::string stage;
  std::vector<std::string> order;
};

struct AnnotationStep {
  std::string stage, iter;
  IterAnnotation annotation = IterAnnotation::None;
};

// Unroll every loop of the stage whose total inner step count is at most max_step.
struct AutoUnrollStep {
  std::string stage;
  int64_t max_step = 0;
};

struct ComputeAtStep {
  std::string stage, target_stage, target_iter;
};
struct ComputeInlineStep {
  std::string stage;
};
struct ComputeRootStep {
  std::string stage;
};

// Adds stage `<stage>.<scope>`, a copy of `stage` that `readers` read instead of it.
struct CacheReadStep {
  std::string stage, scope;
  std::vector<std::string> readers;
};

// Adds stage `<stage>.<scope>` that computes `stage`; `stage` becomes a copy of it. Must precede
// every other step on `stage`.
struct CacheWriteStep {
  std::string stage, scope;
};

// Factors reduction iterator `iter` (a part of a split reduction) out into a new stage
// `<stage>.rf` where it is a spatial axis at position factor_axis; `stage` then reduces over it.
struct RfactorStep {
  std::string stage, iter;
  int factor_axis = 0;
};

// Re-lays out the constant weight `placeholder` read by `stage` in the order of the stage's
// loops (done ahead of time, at weight load), so the tiled loops read it contiguously.
struct LayoutRewriteStep {
  std::string stage, placeholder;
};

using Step = std::variant<SplitStep, FollowSplitStep, FollowFusedSplitStep, FuseStep, ReorderStep,
                          AnnotationStep, AutoUnrollStep, ComputeAtStep, ComputeInlineStep,
                          ComputeRootStep, CacheReadStep, CacheWriteStep, RfactorStep,
                          LayoutRewriteStep>;

// The stage a step acts on.
const std::string& stepStage(const Step& s);
// True for steps that change the DAG (add stages or tensors).
bool changesDag(const Step& s);
// One line, e.g. `split(C, i, [4, 8])`.
std::string stepToString(const Step& s);

}  // namespace ttune::schedule
