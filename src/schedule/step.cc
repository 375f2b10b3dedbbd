#include "schedule/step.h"

#include "support/strings.h"

namespace ttune::schedule {

const char* annotationName(IterAnnotation a) {
  switch (a) {
    case IterAnnotation::None:
      return "none";
    case IterAnnotation::Unroll:
      return "unroll";
    case IterAnnotation::Vectorize:
      return "vectorize";
    case IterAnnotation::Parallel:
      return "parallel";
  }
  return "?";
}

const std::string& stepStage(const Step& s) {
  return std::visit([](const auto& st) -> const std::string& { return st.stage; }, s);
}

const char* stepKindName(const Step& s) {
  return std::visit([](const auto& st) { return StepTraits<std::decay_t<decltype(st)>>::kind.name; }, s);
}

bool changesDag(const Step& s) {
  return std::visit([](const auto& st) { return StepTraits<std::decay_t<decltype(st)>>::kind.changes_dag; }, s);
}

namespace {
std::string names(const std::vector<std::string>& v) {
  return "[" + join(v, ", ", [](const std::string& s) { return s; }) + "]";
}
template <class T>
std::string ints(const std::vector<T>& v) {
  return "[" +
         join(v, ", ",
              [](const T& x) {
                if constexpr (std::is_same_v<T, std::optional<int64_t>>)
                  return x ? std::to_string(*x) : std::string("?");
                else
                  return std::to_string(x);
              }) +
         "]";
}
}  // namespace

namespace {
// The printed arguments after the stage, each led by ", ".
std::string args(const SplitStep& st) {
  return ", " + st.iter + ", " + ints(st.lengths) + (st.inner_to_outer ? "" : ", nparts");
}
std::string args(const FollowSplitStep& st) {
  return ", " + st.iter + ", step " + std::to_string(st.src_step) + ", " + std::to_string(st.n_split);
}
std::string args(const FollowFusedSplitStep& st) {
  return ", " + st.iter + ", steps " + ints(st.src_steps) + ", level " + std::to_string(st.level) +
         (st.factor_or_nparts ? ", factor" : ", nparts");
}
std::string args(const FuseStep& st) { return ", " + names(st.iters); }
std::string args(const ReorderStep& st) { return ", " + names(st.order); }
std::string args(const AnnotationStep& st) { return ", " + st.iter; }
std::string args(const AutoUnrollStep& st) { return ", " + std::to_string(st.max_step); }
std::string args(const ComputeAtStep& st) { return ", " + st.target_stage + ", " + st.target_iter; }
std::string args(const ComputeInlineStep&) { return ""; }
std::string args(const ComputeRootStep&) { return ""; }
std::string args(const CacheReadStep& st) { return ", " + st.scope + ", " + names(st.readers); }
std::string args(const CacheWriteStep& st) { return ", " + st.scope; }
std::string args(const RfactorStep& st) { return ", " + st.iter + ", " + std::to_string(st.factor_axis); }
std::string args(const LayoutRewriteStep& st) { return ", " + st.placeholder; }

// An annotation prints as what it does, e.g. `parallel(C, i)`, rather than `annotate(...)`.
template <class T>
std::string printedName(const T&) {
  return StepTraits<T>::kind.name;
}
std::string printedName(const AnnotationStep& st) { return annotationName(st.annotation); }
}  // namespace

std::string stepToString(const Step& s) {
  return std::visit([](const auto& st) { return printedName(st) + "(" + st.stage + args(st) + ")"; }, s);
}

}  // namespace ttune::schedule
