#include "transfer/adapt.h"

#include <cmath>

#include "autotune/sampler.h"
#include "schedule/names.h"

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

Expected<std::vector<Step>> adaptSplits(const std::vector<Step>& steps,
                                        const std::shared_ptr<const te::ComputeDAG>& dag) {
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

Expected<std::vector<Step>> adaptLanes(const std::vector<Step>& steps, const std::shared_ptr<const te::ComputeDAG>& dag,
                                       int from_lanes, int to_lanes, int registers) {
  std::vector<Step> out = steps;
  if (from_lanes != to_lanes && from_lanes > 0 && to_lanes > 0) {
    // Vectorized split parts and the split steps that made them (part n is the innermost of n lengths).
    for (const Step& st : steps) {
      const AnnotationStep* an = std::get_if<AnnotationStep>(&st);
      if (!an || an->annotation != IterAnnotation::Vectorize) continue;
      const std::optional<schedule::names::SplitPart> part = schedule::names::parseSplitPart(an->iter);
      if (!part) continue;
      for (Step& s2 : out) {
        SplitStep* sp = std::get_if<SplitStep>(&s2);
        if (!sp || sp->stage != an->stage || sp->iter != part->parent || sp->lengths.size() != part->index) continue;
        if (!sp->lengths.back()) continue;
        int64_t l = *sp->lengths.back();
        if (l < from_lanes && l < to_lanes) continue;  // shorter than a vector either way
        int64_t scaled = l * to_lanes / from_lanes;
        if (scaled < 1 || (l * to_lanes) % from_lanes != 0) continue;
        sp->lengths.back() = scaled;
        // Keep the product: the next level out gives or takes the factor when it can.
        if (sp->lengths.size() >= 2 && sp->lengths[sp->lengths.size() - 2]) {
          int64_t& next = *sp->lengths[sp->lengths.size() - 2];
          if (scaled < l)
            next *= l / scaled;
          else if (next % (scaled / l) == 0)
            next /= scaled / l;
        }
      }
    }
  }
  auto state = State::replay(dag, out);
  if (!state.ok()) return Unexpected(state.error());
  // Layout rewrites are re-derived from the final tiling; fit the registers without them.
  std::vector<Step> search = autotune::withoutLayoutRewrites(out);
  auto plain = State::replay(dag, search);
  if (!plain.ok()) return Unexpected(plain.error());
  auto fit = autotune::fitRegisters(*plain, to_lanes, registers);
  if (!fit)
    return Unexpected("its register tile cannot be made to fit " + std::to_string(registers) + " vector registers");
  std::vector<Step> fitted = fit->steps();
  for (const Step& st : out)
    if (std::holds_alternative<LayoutRewriteStep>(st)) fitted.push_back(st);
  auto final_state = State::replay(dag, fitted);
  if (!final_state.ok()) return Unexpected(final_state.error());
  return fitted;
}

}  // namespace ttune::transfer
