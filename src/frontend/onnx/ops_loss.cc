// ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12-13), composed from graph
// ops: the picked log-probability is a GatherElements along the class axis, the class weights a
// Gather, ignore_index a mask (the ignored targets read class 0 and weigh 0); reductions none,
// sum and mean (weighted: the sum over the weights of the targets that count).
#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;

// loss = -input[n, target[n, ...], ...] * weight[target[n, ...]] with the node's reduction.
int nllLoss(Ctx& c, int input, int target, int weight, std::string_view tag) {
  te::Shape xs = c.val(input).shape, ts = c.val(target).shape;
  if (xs.size() < 2) c.fail("the input has rank ", xs.size(), ", but the loss needs [N, C, ...]");
  te::Shape want = xs;
  want.erase(want.begin() + 1);
  if (ts != want) c.fail("the target has shape ", te::shapeToString(ts), ", expected ", te::shapeToString(want));
  if (!te::isInt(c.val(target).dtype)) c.fail("the target must be int32 or int64");
  std::string reduction = c.attrString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    c.fail("reduction ", reduction, " is not valid");
  std::string t(tag);

  int valid = -1, safe = target;
  if (c.hasAttr("ignore_index")) {
    int ignore =
        c.scalarConstant(static_cast<double>(c.attrInt("ignore_index", 0)), c.val(target).dtype, t + "ignore_index");
    valid = c.logicalNot(c.binary(BinaryKind::Equal, target, ignore, t + "ignored"), t + "counts");
    int zero = c.scalarConstant(0, c.val(target).dtype, t + "class0");
    safe = c.emit(graph::WhereAttrs{}, {valid, target, zero}, t + "target");
  }
  te::Shape index_shape = ts;
  index_shape.insert(index_shape.begin() + 1, 1);
  int picked =
      c.emit(graph::GatherElementsAttrs{1}, {input, c.reshape(safe, index_shape, t + "class_index")}, t + "picked");
  picked = c.reshape(picked, ts, t + "picked_value");
  int w = -1;  // per element weight, -1: all ones
  if (weight >= 0) {
    if (c.val(weight).shape != te::Shape{xs[1]})
      c.fail("the weight has shape ", te::shapeToString(c.val(weight).shape), " for ", xs[1], " classes");
    w = c.emit(graph::GatherAttrs{0}, {weight, safe}, t + "class_weight");
  }
  if (valid >= 0) {
    int zero = c.scalarConstant(0.0, te::DType::Float32, t + "no_weight");
    int one = w >= 0 ? w : c.scalarConstant(1.0, te::DType::Float32, t + "unit_weight");
    w = c.emit(graph::WhereAttrs{}, {valid, one, zero}, t + "weight_if_counted");
  }
  int loss = c.unary(graph::UnaryKind::Neg, w >= 0 ? c.binary(BinaryKind::Mul, picked, w, t + "weighted") : picked,
                     t + "loss");
  if (reduction == "none") return loss;
  std::vector<int64_t> all;  // empty: every axis
  int total = c.emit(graph::ReduceAttrs{graph::ReduceKind::Sum, all, false}, {loss}, t + "sum");
  if (reduction == "sum") return total;
  if (w < 0) return c.emit(graph::ReduceAttrs{graph::ReduceKind::Mean, all, false}, {loss}, t + "mean");
  // w has the loss's shape unless it is the scalar 1 broadcast by where (no class weights).
  if (c.val(w).shape != ts) w = c.emit(graph::ExpandAttrs{ts}, {w}, t + "weights");
  int weights = c.emit(graph::ReduceAttrs{graph::ReduceKind::Sum, all, false}, {w}, t + "weight_sum");
  return c.binary(BinaryKind::Div, total, weights, t + "mean");
}

void importNll(Ctx& c) {
  c.checkAttrs({"ignore_index", "reduction"});
  requireFloat(c, 0);
  c.setOutput(0, nllLoss(c, c.in(0), c.in(1, "target"), c.present(2) ? c.in(2, "weight") : -1, ""));
}

void importSoftmaxCrossEntropy(Ctx& c) {
  c.checkAttrs({"ignore_index", "reduction"});
  requireFloat(c, 0);
  int log_prob = logSoftmax(c, c.in(0), 1, "log_prob");
  c.setOutput(0, nllLoss(c, log_prob, c.in(1, "labels"), c.present(2) ? c.in(2, "weights") : -1, "nll_"));
  if (c.outputUsed(1)) c.setOutput(1, log_prob);
}

}  // namespace

void addLossOps(OpTable& t) {
  t["NegativeLogLikelihoodLoss"] = importNll;
  t["SoftmaxCrossEntropyLoss"] = importSoftmaxCrossEntropy;
}

}  // namespace ttune::frontend::detail
