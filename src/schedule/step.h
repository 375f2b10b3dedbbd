// Transform steps: the schedule language. A schedule (State) is a DAG plus a list of Steps.
//
// Steps are plain structs in a closed std::variant. Stages are named by op name and iterators by
// name, never by position, so a schedule replayed on another kernel of the same class either
// applies to the same loops or is rejected with a reason (docs/architecture.md).
//
// Iterator naming is deterministic: splitting `i` into n+1 parts gives `i.0` (outermost) ..
// `i.n`; fusing `a`, `b` gives `a@b@`; cache stages are `<op>.local`/`<op>.<scope>`; rfactor adds
// `<op>.rf`. schedule/names.h is the one place that spells and parses these names.
//
// How to add a step: (1) define its struct here, add it to Step and give it StepTraits (its name
// and whether it changes the DAG); (2) implement its replay in state_apply.cc (applyStep's
// visitor); (3) its printing in step.cc (stepToString); (4) its JSON fields in record.cc
// (writeFields / readFields) — the compiler flags any missing arm; (5) test its semantics, its
// failure reasons and its record round-trip.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
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

using Step = std::variant<SplitStep, FollowSplitStep, FollowFusedSplitStep, FuseStep, ReorderStep, AnnotationStep,
                          AutoUnrollStep, ComputeAtStep, ComputeInlineStep, ComputeRootStep, CacheReadStep,
                          CacheWriteStep, RfactorStep, LayoutRewriteStep>;

// Per-kind traits, one specialization of StepTraits per Step alternative: `name` is the kind's
// name, written to and read from records (the bank format: never rename one) and printed by
// stepToString; `changes_dag` marks steps that add stages or tensors. kStepKinds instantiates every
// specialization, so a kind without one does not compile instead of falling through a default.
struct StepKind {
  const char* name;
  bool changes_dag;
};
template <class T>
struct StepTraits;
template <>
struct StepTraits<SplitStep> {
  static constexpr StepKind kind{"split", false};
};
template <>
struct StepTraits<FollowSplitStep> {
  static constexpr StepKind kind{"follow_split", false};
};
template <>
struct StepTraits<FollowFusedSplitStep> {
  static constexpr StepKind kind{"follow_fused_split", false};
};
template <>
struct StepTraits<FuseStep> {
  static constexpr StepKind kind{"fuse", false};
};
template <>
struct StepTraits<ReorderStep> {
  static constexpr StepKind kind{"reorder", false};
};
template <>
struct StepTraits<AnnotationStep> {
  static constexpr StepKind kind{"annotate", false};
};
template <>
struct StepTraits<AutoUnrollStep> {
  static constexpr StepKind kind{"auto_unroll", false};
};
template <>
struct StepTraits<ComputeAtStep> {
  static constexpr StepKind kind{"compute_at", false};
};
template <>
struct StepTraits<ComputeInlineStep> {
  static constexpr StepKind kind{"compute_inline", false};
};
template <>
struct StepTraits<ComputeRootStep> {
  static constexpr StepKind kind{"compute_root", false};
};
template <>
struct StepTraits<CacheReadStep> {
  static constexpr StepKind kind{"cache_read", true};
};
template <>
struct StepTraits<CacheWriteStep> {
  static constexpr StepKind kind{"cache_write", true};
};
template <>
struct StepTraits<RfactorStep> {
  static constexpr StepKind kind{"rfactor", true};
};
template <>
struct StepTraits<LayoutRewriteStep> {
  static constexpr StepKind kind{"layout_rewrite", true};
};

// The traits as a table indexed by Step::index(), built from the variant's alternatives in order.
namespace detail {
template <size_t... I>
constexpr std::array<StepKind, sizeof...(I)> stepKindTable(std::index_sequence<I...>) {
  return {StepTraits<std::variant_alternative_t<I, Step>>::kind...};
}
}  // namespace detail
inline constexpr std::array<StepKind, std::variant_size_v<Step>> kStepKinds =
    detail::stepKindTable(std::make_index_sequence<std::variant_size_v<Step>>{});
static_assert(kStepKinds.size() == std::variant_size_v<Step>, "every Step alternative needs StepTraits");

// The stage a step acts on.
const std::string& stepStage(const Step& s);
// The kind's name, as in records (StepTraits::name).
const char* stepKindName(const Step& s);
// True for steps that change the DAG (add stages or tensors).
bool changesDag(const Step& s);
// One line, e.g. `split(C, i, [4, 8])`.
std::string stepToString(const Step& s);

}  // namespace ttune::schedule
