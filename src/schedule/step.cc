#include "schedule/step.h"

#include "support/overload.h"
#include "support/strings.h"

namespace ttune::schedule {

const char* annotationName(IterAnnotation a) {
  switch (a) {
    case IterAnnotation::None: return "none";
    case IterAnnotation::Unroll: return "unroll";
    case IterAnnotation::Vectorize: return "vectorize";
    case IterAnnotation::Parallel: return "parallel";
  }
  return "?";
}

const std::string& stepStage(const Step& s) {
  return std::visit([](const auto& st) -> const std::string& { return st.stage; }, s);
}

bool changesDag(const Step& s) {
  return std::holds_alternative<CacheReadStep>(s) || std::holds_alternative<CacheWriteStep>(s) ||
         std::holds_alternative<RfactorStep>(s) || std::holds_alternative<LayoutRewriteStep>(s);
}

namespace {
std::string names(const std::vector<std::string>& v) {
  return "[" + join(v, ", ", [](const std::string& s) { return s; }) + "]";
}
template <class T>
std::string ints(const std::vector<T>& v) {
  return "[" + join(v, ", ", [](const T& x) {
           if constexpr (std::is_same_v<T, std::optional<int64_t>>) return x ? std::to_string(*x) : std::string("?");
           else return std::to_string(x);
         }) + "]";
}
}  // namespace

std::string stepToString(const Step& s) {
  return std::visit(
      Overload{
          [](const SplitStep& st) {
            return "split(" + st.stage + ", " + st.iter + ", " + ints(st.lengths) +
                   (st.inner_to_outer ? "" : ", nparts") + ")";
          },
          [](const FollowSplitStep& st) {
            return "follow_split(" + st.stage + ", " + st.iter + ", step " + std::to_string(st.src_step) +
                   ", " + std::to_string(st.n_split) + ")";
          },
          [](const FollowFusedSplitStep& st) {
            return "follow_fused_split(" + st.stage + ", " + st.iter + ", steps " + ints(st.src_steps) +
                   ", level " + std::to_string(st.level) + (st.factor_or_nparts ? ", factor" : ", nparts") + ")";
          },
          [](const FuseStep& st) { return "fuse(" + st.stage + ", " + names(st.iters) + ")"; },
          [](const ReorderStep& st) { return "reorder(" + st.stage + ", " + names(st.order) + ")"; },
          [](const AnnotationStep& st) {
            return std::string(annotationName(st.annotation)) + "(" + st.stage + ", " + st.iter + ")";
          },
          [](const AutoUnrollStep& st) {
            return "auto_unroll(" + st.stage + ", " + std::to_string(st.max_step) + ")";
          },
          [](const ComputeAtStep& st) {
            return "compute_at(" + st.stage + ", " + st.target_stage + ", " + st.target_iter + ")";
          },
          [](const ComputeInlineStep& st) { return "compute_inline(" + st.stage + ")"; },
          [](const ComputeRootStep& st) { return "compute_root(" + st.stage + ")"; },
          [](const CacheReadStep& st) {
            return "cache_read(" + st.stage + ", " + st.scope + ", " + names(st.readers) + ")";
          },
          [](const CacheWriteStep& st) { return "cache_write(" + st.stage + ", " + st.scope + ")"; },
          [](const RfactorStep& st) {
            return "rfactor(" + st.stage + ", " + st.iter + ", " + std::to_string(st.factor_axis) + ")";
          },
          [](const LayoutRewriteStep& st) {
            return "layout_rewrite(" + st.stage + ", " + st.placeholder + ")";
          },
      },
      s);
}

}  // namespace ttune::schedule
