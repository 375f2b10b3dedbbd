#include "common/random_schedule.h"

namespace ttune::testing {

using namespace schedule;

namespace {

std::optional<Step> randomStep(const State& s, Rng& rng) {
  std::vector<int> cand;
  for (size_t i = 0; i < s.stages().size(); ++i) {
    const Stage& st = s.stages()[i];
    if (!st.is_placeholder && st.location != ComputeLocation::Inlined) cand.push_back(static_cast<int>(i));
  }
  if (cand.empty()) return std::nullopt;
  int si = rng.choice(cand);
  const Stage& st = s.stages()[si];
  const std::string& name = st.op;
  auto randomIter = [&]() -> const Iterator& { return st.iters[rng.index(st.iters.size())]; };
  if (st.iters.empty()) return std::nullopt;
  int kind = static_cast<int>(rng.uniformInt(0, 99));
  if (kind < 28) {
    const Iterator& it = randomIter();
    int n = static_cast<int>(rng.uniformInt(1, 3));
    std::vector<std::optional<int64_t>> lengths;
    static const int64_t small[] = {1, 2, 3, 4, 5, 7, 8, 16};
    for (int k = 0; k < n; ++k) {
      if (rng.bernoulli(0.75))
        lengths.push_back(small[rng.index(8)]);
      else
        lengths.push_back(rng.uniformInt(1, std::max<int64_t>(2, it.extent.value_or(8) + 3)));
    }
    return SplitStep{name, it.name, it.extent, lengths, rng.bernoulli(0.9)};
  }
  if (kind < 38) {
    std::vector<std::string> order;
    for (const Iterator& it : st.iters) order.push_back(it.name);
    rng.shuffle(order);
    return ReorderStep{name, order};
  }
  if (kind < 46) {
    if (st.iters.size() < 2) return std::nullopt;
    size_t b = rng.index(st.iters.size() - 1);
    size_t len = std::min<size_t>(st.iters.size() - b, static_cast<size_t>(rng.uniformInt(2, 3)));
    std::vector<std::string> its;
    for (size_t k = b; k < b + len; ++k) its.push_back(st.iters[k].name);
    return FuseStep{name, its};
  }
  if (kind < 66) {
    static const IterAnnotation anns[] = {IterAnnotation::Unroll, IterAnnotation::Vectorize, IterAnnotation::Parallel};
    return AnnotationStep{name, randomIter().name, anns[rng.index(3)]};
  }
  if (kind < 71) {
    static const int64_t steps[] = {0, 16, 64, 512};
    return AutoUnrollStep{name, steps[rng.index(4)]};
  }
  if (kind < 80) {
    std::vector<int> cons = s.effectiveConsumers(si);
    if (cons.size() != 1) return std::nullopt;
    const Stage& c = s.stages()[cons[0]];
    if (c.iters.empty()) return std::nullopt;
    return ComputeAtStep{name, c.op, c.iters[rng.index(c.iters.size())].name};
  }
  if (kind < 86) return ComputeInlineStep{name};
  if (kind < 88) return ComputeRootStep{name};
  if (kind < 92) return CacheWriteStep{name, "local"};
  if (kind < 95) {
    std::vector<std::string> red;
    for (const Iterator& it : st.iters)
      if (it.kind == te::IterKind::Reduce) red.push_back(it.name);
    if (red.empty()) return std::nullopt;
    int nsp = 0;
    for (const RootAxis& a : st.root) nsp += a.kind == te::IterKind::Spatial;
    return RfactorStep{name, rng.choice(red), static_cast<int>(rng.uniformInt(0, nsp))};
  }
  // Layout rewrite of a constant weight this stage reads.
  const te::ComputeDAG& dag = s.dag();
  for (int p : dag.producers(si)) {
    const te::Operation& op = dag.op(p);
    if (op.isPlaceholder() && op.placeholder().is_constant) return LayoutRewriteStep{name, op.name()};
  }
  return std::nullopt;
}

}  // namespace

State randomSchedule(const std::shared_ptr<const te::ComputeDAG>& dag, uint64_t seed, int max_attempts) {
  Rng rng(seed);
  for (int retry = 0;; ++retry) {
    State s(dag);
    int n = static_cast<int>(rng.uniformInt(3, max_attempts));
    for (int a = 0; a < n; ++a) {
      auto step = randomStep(s, rng);
      if (step) (void)s.apply(*step);
    }
    if (s.inferBounds().ok() || retry > 20) return s;
  }
}

}  // namespace ttune::testing
