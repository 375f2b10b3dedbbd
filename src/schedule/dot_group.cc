#include "schedule/dot_group.h"

#include "te/expr_functor.h"

namespace ttune::schedule {

int64_t dotGroup(const te::ComputeOp& c, const Target& t) {
  const te::Reduce* red = c.reduce();
  if (!red || c.reduceAxes().empty()) return 1;
  bool bytes = false, halves = false;
  te::visitAll(red->source, [&](const te::Expr& e) {
    if (const te::TensorRead* read = e.as<te::TensorRead>()) {
      bytes = bytes || te::is8BitInt(read->tensor.dtype());
      halves = halves || read->tensor.dtype() == te::DType::BFloat16;
    }
  });
  int64_t group = 1;
  if (bytes && red->source.dtype() == te::DType::Int32) group = t.int8_group;
  if (halves && red->source.dtype() == te::DType::Float32) group = t.bf16_group;
  return group > 1 && c.reduceAxes().back().extent % group == 0 ? group : 1;
}

bool endsInDotGroup(const Stage& st) {
  if (st.iters.empty()) return false;
  const Iterator& last = st.iters.back();
  return last.kind == te::IterKind::Reduce && last.annotation == IterAnnotation::Unroll && last.extent &&
         (*last.extent == 2 || *last.extent == 4);
}

}  // namespace ttune::schedule
