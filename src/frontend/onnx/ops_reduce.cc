// ONNX reductions: ReduceSum / Mean / Max / Min / Prod map to graph reductions; ReduceSumSquare, ReduceL1,
// ReduceL2, ReduceLogSum and ReduceLogSumExp are composed from them. Axes come from the attribute,
// or (ReduceSum since opset 13) from the optional constant second input.
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using graph::ReduceKind;
using graph::UnaryKind;

enum class Composite { None, SumSquare, L1, L2, LogSum, LogSumExp };

struct ReduceArgs {
  std::vector<int64_t> axes;  // normalized, never empty
  bool keepdims = true;
  bool noop = false;  // ReduceSum with noop_with_empty_axes and no axes: identity
};

ReduceArgs readReduce(const Ctx& c) {
  bool axes_input = c.opType() == "ReduceSum" && c.opset() >= 13;
  if (axes_input)
    c.checkAttrs({"keepdims", "noop_with_empty_axes"});
  else
    c.checkAttrs({"axes", "keepdims"});
  // Integers: ReduceSum/Max/Min/Prod (exact; shape arithmetic after NonZero or TopK needs them).
  static const std::set<std::string> integer_ops{"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"};
  if (!te::isComputeFloat(c.dtype(0)) && !(te::isInt(c.dtype(0)) && integer_ops.count(c.opType())))
    c.fail("the input has dtype ", te::dtypeName(c.dtype(0)),
           ", but this reduction takes float32 or float64 (ReduceSum/Max/Min/Prod also integers)");
  ReduceArgs r;
  std::vector<int64_t> axes =
      axes_input ? (c.present(1) ? c.ints(1, "axes") : std::vector<int64_t>{}) : c.attrInts("axes");
  r.keepdims = c.attrInt("keepdims", 1) != 0;
  size_t rank = c.rank(0);
  if (axes.empty()) {
    r.noop = axes_input && c.attrInt("noop_with_empty_axes", 0) != 0;
    for (size_t d = 0; d < rank; ++d) r.axes.push_back(static_cast<int64_t>(d));
  } else {
    std::vector<bool> seen(rank, false);
    for (int64_t a : axes) {
      int64_t ax = normAxis(c, a, rank);
      if (seen[ax]) c.fail("axis ", a, " is listed twice");
      seen[ax] = true;
    }
    for (size_t d = 0; d < rank; ++d)
      if (seen[d]) r.axes.push_back(static_cast<int64_t>(d));
  }
  if (rank == 0) c.fail("cannot reduce a scalar");
  return r;
}

void reduce(Ctx& c, ReduceKind kind, Composite comp) {
  ReduceArgs r = readReduce(c);
  int x = c.in(0);
  if (r.noop) {
    c.setOutput(0, x);
    return;
  }
  auto red = [&](ReduceKind k, int v, bool keep, std::string_view tag) {
    return c.emit(graph::ReduceAttrs{k, r.axes, keep}, {v}, tag);
  };
  int y = -1;
  switch (comp) {
    case Composite::None:
      y = red(kind, x, r.keepdims, {});
      break;
    case Composite::SumSquare:
      y = red(ReduceKind::Sum, c.binary(BinaryKind::Mul, x, x, "square"), r.keepdims, {});
      break;
    case Composite::L1:
      y = red(ReduceKind::Sum, c.unary(UnaryKind::Abs, x, "abs"), r.keepdims, {});
      break;
    case Composite::L2: {
      int s = red(ReduceKind::Sum, c.binary(BinaryKind::Mul, x, x, "square"), r.keepdims, "sum");
      y = c.unary(UnaryKind::Sqrt, s, {});
      break;
    }
    case Composite::LogSum:
      y = c.unary(UnaryKind::Log, red(ReduceKind::Sum, x, r.keepdims, "sum"), {});
      break;
    case Composite::LogSumExp: {  // max + log(sum(exp(x - max))), which does not overflow
      int m = red(ReduceKind::Max, x, true, "max");
      int d = c.binary(BinaryKind::Sub, x, m, "shifted");
      int s = red(ReduceKind::Sum, c.unary(UnaryKind::Exp, d, "exp"), true, "sum");
      int l = c.unary(UnaryKind::Log, s, "log");
      int k = c.binary(BinaryKind::Add, l, m, r.keepdims ? "" : "keepdims");
      if (!r.keepdims) {
        te::Shape out;
        te::Shape xs = c.shape(0);
        for (size_t dd = 0, a = 0; dd < xs.size(); ++dd) {
          if (a < r.axes.size() && r.axes[a] == static_cast<int64_t>(dd))
            ++a;
          else
            out.push_back(xs[dd]);
        }
        k = c.reshape(k, out, {});
      }
      y = k;
      break;
    }
  }
  c.setOutput(0, y);
}

template <ReduceKind K>
void simple(Ctx& c) {
  reduce(c, K, Composite::None);
}
template <Composite C>
void composite(Ctx& c) {
  reduce(c, ReduceKind::Sum, C);
}

}  // namespace

void addReduceOps(OpTable& t) {
  t["ReduceSum"] = simple<ReduceKind::Sum>;
  t["ReduceMean"] = simple<ReduceKind::Mean>;
  t["ReduceMax"] = simple<ReduceKind::Max>;
  t["ReduceMin"] = simple<ReduceKind::Min>;
  t["ReduceProd"] = simple<ReduceKind::Prod>;
  t["ReduceSumSquare"] = composite<Composite::SumSquare>;
  t["ReduceL1"] = composite<Composite::L1>;
  t["ReduceL2"] = composite<Composite::L2>;
  t["ReduceLogSum"] = composite<Composite::LogSum>;
  t["ReduceLogSumExp"] = composite<Composite::LogSumExp>;
}

}  // namespace ttune::frontend::detail
