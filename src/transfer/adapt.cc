#include "transfer/adapt.h"

#include <cmath>

#include "autotune/sampler.h"

namespace ttune::transfer {

using namespace schedule;

namespace {

// Log distance between two length vectors, the innermost weighted double.
double distance(const std::vector<std::optional<int64_t>>& a, const std::vector<int64_t>& b) {
  double d = 0;
  for (size_t k = 0; k < b.size(); ++k) {
    double w = k + 1 == b.size() ? 2.0 : 1.0;
    d += w * std::fabs(std::log(static_cast<double>(*a[k])) - std::log(static_cast<double>(b[k])));
  }
  return d;
}

}  // namespace

Expected<std::vector<Step>> adaptSplits(const std::vector<Step>& steps, const std::shared_ptr<const te::ComputeDAG>& dag) {
  std::vector<Step> out = steps;
  State s(dag);
  for (size_t i = 0; i < out.size(); ++i) {
    if (SplitStep* sp = std::get_if<SplitStep>(&out[i]); sp && sp->inner_to_outer) {
      const Stage* st = s.stageIndex(sp->stage) >= 0 ? &s.stage(sp->stage) : nullptr;
      const Iterator* it = st ? st->findIter(sp->iter) : nullptr;
      bool set = true;
      for (const auto& l : sp->lengths) set = set && l.has_value();
      if (it && it->extent && set) {
        int64_t e = *it->extent;
        int64_t prod = 1;
        for (const auto& l : sp->lengths) prod *= *l;
        sp->extent = e;
        if (e % prod != 0) {
          const auto& options = autotune::exactFactorizations(e, static_cast<int>(sp->lengths.size()), 64);
          const std::vector<int64_t>* best = nullptr;
          double best_d = 0;
          for (const auto& f : options) {
            double d = distance(sp->lengths, f);
            if (!best || d < best_d) {
              best = &f;
              best_d = d;
            }
          }
          if (best) sp->lengths.assign(best->begin(), best->end());
        }
      }
    }
    Status st = s.apply(out[i]);
    if (!st.ok()) return Unexpected("step " + std::to_string(i) + " " + stepToString(out[i]) + ": " + st.error());
  }
  if (s.concrete()) TT_TRY_STATUS(s.inferBounds());
  return out;
}

}  // namespace ttune::transfer
