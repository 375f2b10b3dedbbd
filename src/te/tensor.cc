#include "te/tensor.h"

#include <unordered_set>

#include "support/assert.h"
#include "support/error.h"
#include "te/expr_functor.h"

namespace ttune::te {

const std::vector<IterVar>& ComputeOp::reduceAxes() const {
  static const std::vector<IterVar> kNone;
  const Reduce* r = reduce();
  return r ? r->axes : kNone;
}

int64_t Operation::numElements() const { return shapeElements(shape_); }

std::vector<Tensor> Operation::inputs() const {
  std::vector<Tensor> out;
  if (!isCompute()) return out;
  std::unordered_set<const Operation*> seen;
  visitAll(compute().body, [&](const Expr& e) {
    if (const TensorRead* r = e.as<TensorRead>()) {
      if (seen.insert(r->tensor.get()).second) out.push_back(r->tensor);
    }
  });
  return out;
}

Tensor placeholder(std::string name, Shape shape, DType dtype, bool is_constant) {
  for (int64_t d : shape)
    TT_CHECK_ARG(d > 0, "placeholder ", name, " has a non-positive dimension in shape ", shapeToString(shape));
  return Tensor(
      std::make_shared<Operation>(std::move(name), std::move(shape), dtype, OpTag::Other, PlaceholderOp{is_constant}));
}

IterVar reduceAxis(int64_t extent, std::string name) {
  TT_ASSERT(extent > 0, "reduce axis " + name + " with a non-positive extent");
  return IterVar{Var(std::move(name)), extent, IterKind::Reduce, Expr()};
}

Tensor computeWithAxes(std::string name, std::vector<IterVar> axes, Expr body, OpTag tag) {
  Shape shape;
  std::unordered_set<std::string> names;
  for (const IterVar& iv : axes) {
    TT_ASSERT(iv.kind == IterKind::Spatial, "compute axis " + iv.name() + " must be spatial");
    TT_ASSERT(iv.extent > 0, "compute " + name + " has a non-positive extent on axis " + iv.name());
    TT_ASSERT(names.insert(iv.name()).second, "compute " + name + " repeats axis name " + iv.name());
    shape.push_back(iv.extent);
  }
  if (const Reduce* r = body.as<Reduce>()) {
    for (const IterVar& iv : r->axes)
      TT_ASSERT(names.insert(iv.name()).second, "compute " + name + " repeats axis name " + iv.name());
  }
  // Reductions must be the whole body: lowering places their init and update around the loops.
  visitAll(body, [&](const Expr& e) {
    if (e.as<Reduce>() && !e.same(body)) TT_UNREACHABLE("compute " + name + " nests a reduction inside its body");
  });
  DType dtype = body.dtype();
  return Tensor(std::make_shared<Operation>(std::move(name), std::move(shape), dtype, tag,
                                            ComputeOp{std::move(axes), std::move(body)}));
}

Tensor compute(std::string name, Shape shape, const std::function<Expr(const std::vector<Var>&)>& fn, OpTag tag,
               std::vector<std::string> axis_names) {
  static const char* kDefault[] = {"i", "j", "k", "l", "m", "n", "o", "p"};
  std::vector<IterVar> axes;
  std::vector<Var> vars;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string an = d < axis_names.size() ? axis_names[d]
                     : d < 8               ? std::string(kDefault[d])
                                           : "ax" + std::to_string(d);
    Var v(an);
    vars.push_back(v);
    axes.push_back(IterVar{v, shape[d], IterKind::Spatial, Expr()});
  }
  Expr body = fn(vars);
  return computeWithAxes(std::move(name), std::move(axes), std::move(body), tag);
}

}  // namespace ttune::te
