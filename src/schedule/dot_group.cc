#include "schedule/dot_group.h"

#include "te/expr_functor.h"

namespace ttune::schedule {

int64_t int8DotGroup(const te::ComputeOp& c, const Target& t) {
  const te::Reduce* red = c.reduce();
  if (!red || red->source.dtype() != te::DType::Int32 || t.int8_group <= 1 || c.reduceAxes().empty()) return 1;
  bool bytes = false;
  te::visitAll(red->source, [&](const te::Expr& e) {
    if (const te::TensorRead* read = e.as<te::TensorRead>()) bytes = bytes || te::is8BitInt(read->tensor.dtype());
  });
  const int64_t extent = c.reduceAxes().back().extent;
  return bytes && extent % t.int8_group == 0 ? t.int8_group : 1;
}

bool endsInDotGroup(const Stage& st) {
  if (st.iters.empty()) return false;
  const Iterator& last = st.iters.back();
  return last.kind == te::IterKind::Reduce && last.annotation == IterAnnotation::Unroll && last.extent &&
         (*last.extent == 2 || *last.extent == 4);
}

}  // namespace ttune::schedule
