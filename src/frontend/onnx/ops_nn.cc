// Compute-heavy and normalization ONNX operators: Conv (1-D via 2-D), Gemm, MatMul, pooling,
// BatchNormalization, LayerNormalization, Softmax and LogSoftmax.
//
// Lowering conventions: Conv is a conv2d node on (data, weight) plus a separate add of the bias
// reshaped to [1, C, 1, 1]; Gemm and MatMul with a constant 2-D weight become dense with the
// weight in [N, K] layout (alpha folded into it), the bias a separate add; a MatMul whose left
// side has rank >= 3 with only the row dimension not 1 is reshape, dense, reshape; anything else
// is a (batched) matmul.
#include <algorithm>

#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using graph::Hw;
using graph::Pad4;
using te::DType;

void requireFloat(const Ctx& c, int i) {
  if (c.dtype(i) != DType::Float32)
    c.fail(c.inputLabel(i), " has dtype ", te::dtypeName(c.dtype(i)), ", but only float32 is supported here");
}

// ---- windows (conv and pooling) ---------------------------------------------------------------

struct Window {
  Hw kernel{1, 1}, strides{1, 1}, dilation{1, 1};
  Pad4 pads{0, 0, 0, 0};
};

// Reads strides / dilations / pads / auto_pad for `spatial` (1 or 2) spatial dims of extents
// `in` and returns the 2-D window (a 1-D window is the width of a height-1 window).
Window readWindow(const Ctx& c, const std::vector<int64_t>& kernel, const std::vector<int64_t>& in,
                  bool has_dilations) {
  size_t s = kernel.size();
  auto list = [&](const char* name, int64_t def, size_t n) {
    std::vector<int64_t> v = c.attrInts(name);
    if (v.empty()) v.assign(n, def);
    if (v.size() != n) c.fail("attribute ", name, " has ", v.size(), " values for ", s, " spatial dimensions");
    return v;
  };
  std::vector<int64_t> strides = list("strides", 1, s);
  std::vector<int64_t> dil = has_dilations ? list("dilations", 1, s) : std::vector<int64_t>(s, 1);
  std::vector<int64_t> pads = list("pads", 0, 2 * s);
  for (size_t d = 0; d < s; ++d) {
    if (strides[d] <= 0 || dil[d] <= 0 || kernel[d] <= 0) c.fail("kernel, strides and dilations must be positive");
    if (pads[d] < 0 || pads[d + s] < 0) c.fail("negative pads ", listStr(pads), " are not supported");
    // Window sizes beyond any real tensor only overflow the output-size arithmetic.
    constexpr int64_t kMax = int64_t(1) << 31;
    if (strides[d] > kMax || dil[d] > kMax || kernel[d] > kMax || pads[d] > kMax || pads[d + s] > kMax)
      c.fail("the window (kernel ", listStr(kernel), ", strides ", listStr(strides), ", dilations ", listStr(dil), ", pads ",
             listStr(pads), ") has a value above 2^31");
  }
  std::string auto_pad = c.attrString("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t d = 0; d < s; ++d) {
      int64_t out = (in[d] + strides[d] - 1) / strides[d];
      int64_t total = std::max<int64_t>(0, (out - 1) * strides[d] + (kernel[d] - 1) * dil[d] + 1 - in[d]);
      int64_t small = total / 2;
      pads[d] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[d + s] = total - pads[d];
    }
  } else if (auto_pad == "VALID") {
    std::fill(pads.begin(), pads.end(), 0);
  } else if (auto_pad != "NOTSET") {
    c.fail("auto_pad ", auto_pad, " is not supported");
  }
  Window w;
  if (s == 2) {
    w.kernel = {kernel[0], kernel[1]};
    w.strides = {strides[0], strides[1]};
    w.dilation = {dil[0], dil[1]};
    w.pads = {pads[0], pads[1], pads[2], pads[3]};
  } else {
    w.kernel = {1, kernel[0]};
    w.strides = {1, strides[0]};
    w.dilation = {1, dil[0]};
    w.pads = {0, pads[0], 0, pads[1]};
  }
  return w;
}

// 1-D ops run as 2-D ops on [N, C, 1, L]; other ranks than 3 and 4 are rejected.
void checkSpatialRank(const Ctx& c, const char* what) {
  size_t r = c.rank(0);
  if (r == 5) c.fail("3-D ", what, " is not supported (only 1-D and 2-D)");
  if (r != 3 && r != 4) c.fail("the input has rank ", r, ", but ", what, " needs rank 3 or 4 (N, C, spatial...)");
}

te::Shape to4d(const te::Shape& s) { return s.size() == 4 ? s : te::Shape{s[0], s[1], 1, s[2]}; }

int back3d(Ctx& c, int y, bool one_d) {
  if (!one_d) return y;
  te::Shape s = c.val(y).shape;
  return c.reshape(y, {s[0], s[1], s[3]}, {});
}

// ---- Conv -------------------------------------------------------------------------------------

void importConv(Ctx& c) {
  c.checkAttrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  checkSpatialRank(c, "convolution");
  requireFloat(c, 0);
  bool one_d = c.rank(0) == 3;
  te::Shape ws = c.shape(1);
  if (ws.size() != c.rank(0)) c.fail("the weight has rank ", ws.size(), " but the input has rank ", c.rank(0));
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  std::vector<int64_t> ks = c.attrInts("kernel_shape");
  if (!ks.empty() && ks != kernel)
    c.fail("kernel_shape ", listStr(ks), " does not match the weight shape ", te::shapeToString(ws));
  te::Shape xs = c.shape(0);
  Window w = readWindow(c, kernel, std::vector<int64_t>(xs.begin() + 2, xs.end()), true);
  int64_t groups = c.attrInt("group", 1);
  if (groups <= 0) c.fail("group ", groups, " must be positive");

  int x = c.reshape(c.in(0), to4d(xs), "input_2d");
  int wt = c.reshape(c.in(1, "weight"), to4d(ws), "weight_2d");
  graph::Conv2dAttrs a{w.strides, w.pads, w.dilation, groups, graph::Layout::NCHW};
  bool bias = c.has(2);
  int y = c.emit(a, {x, wt}, {});
  if (bias) {
    int64_t m = ws[0];
    if (c.shape(2) != te::Shape{m}) c.fail("the bias has shape ", te::shapeToString(c.shape(2)), " for ", m, " output channels");
    int b = c.reshape(c.in(2), {1, m, 1, 1}, "bias_4d");
    y = c.binary(BinaryKind::Add, y, b, "bias");
  }
  c.setOutput(0, back3d(c, y, one_d));
}

// ---- Gemm / MatMul ----------------------------------------------------------------------------

bool isConstFloat2d(const Ctx& c, int v) {
  const graph::Value& x = c.val(v);
  return x.isConstant() && x.shape.size() == 2 && x.dtype == DType::Float32;
}

// Matrix product of two values of rank >= 2 (see the conventions above).
int matmul(Ctx& c, int a, int b, std::string_view tag) {
  te::Shape as = c.val(a).shape;
  te::Shape bs = c.val(b).shape;
  if (isConstFloat2d(c, b) && c.val(a).dtype == DType::Float32) {
    bool lead_ones = true;
    for (size_t d = 0; d + 2 < as.size(); ++d) lead_ones = lead_ones && as[d] == 1;
    if (lead_ones) {
      int64_t m = as[as.size() - 2], k = as.back(), n = bs[1];
      if (bs[0] != k) c.fail("cannot multiply ", te::shapeToString(as), " by ", te::shapeToString(bs));
      int w = c.transpose(b, {1, 0}, "weight");
      int a2 = c.reshape(a, {m, k}, "rows");
      bool reshaped = as.size() != 2;
      std::string dense_tag = !reshaped ? std::string(tag) : tag.empty() ? "dense" : std::string(tag) + "_dense";
      int y = c.emit(graph::DenseAttrs{}, {a2, w}, dense_tag);
      if (!reshaped) return y;
      te::Shape out = as;
      out.back() = n;
      return c.reshape(y, out, tag);
    }
  }
  return c.emit(graph::MatMulAttrs{}, {a, b}, tag);
}

void importMatMul(Ctx& c) {
  c.checkAttrs({});
  requireFloat(c, 0);
  requireFloat(c, 1);
  int a = c.in(0), b = c.in(1);
  size_t ra = c.rank(0), rb = c.rank(1);
  if (ra == 0 || rb == 0) c.fail("MatMul does not take scalars");
  if (ra >= 2 && rb >= 2) {
    c.setOutput(0, matmul(c, a, b, {}));
    return;
  }
  // 1-D operands: promote ([K] -> [1, K] on the left, [K, 1] on the right), then drop that dim.
  if (ra == 1) a = c.reshape(a, {1, c.shape(0)[0]}, "lhs_2d");
  if (rb == 1) b = c.reshape(b, {c.shape(1)[0], 1}, "rhs_2d");
  int y = matmul(c, a, b, "product");
  te::Shape out = c.val(y).shape;
  if (rb == 1) out.erase(out.end() - 1);
  if (ra == 1) out.erase(out.end() - 1 - (rb == 1 ? 0 : 1));
  c.setOutput(0, c.reshape(y, out, {}));
}

void importGemm(Ctx& c) {
  c.checkAttrs({"alpha", "beta", "transA", "transB"});
  requireFloat(c, 0);
  requireFloat(c, 1);
  if (c.rank(0) != 2 || c.rank(1) != 2) c.fail("A and B must be matrices");
  bool ta = c.attrInt("transA", 0) != 0, tb = c.attrInt("transB", 0) != 0;
  double alpha = c.attrFloat("alpha", 1.0), beta = c.attrFloat("beta", 1.0);
  int a = c.in(0), b = c.in(1);
  int64_t m = c.shape(0)[ta ? 1 : 0], n = c.shape(1)[tb ? 0 : 1];
  int y;
  if (isConstFloat2d(c, b)) {
    int w = tb ? b : c.transpose(b, {1, 0}, "weight");
    if (alpha != 1.0) w = c.binary(BinaryKind::Mul, w, c.scalarConstant(alpha, DType::Float32, "alpha"), "scaled_weight");
    if (ta) a = c.transpose(a, {1, 0}, "transpose_a");
    y = c.emit(graph::DenseAttrs{}, {a, w});
  } else {
    y = c.emit(graph::MatMulAttrs{ta, tb}, {a, b});
    if (alpha != 1.0) y = c.binary(BinaryKind::Mul, y, c.scalarConstant(alpha, DType::Float32, "alpha"), "scaled");
  }
  if (c.present(2) && beta != 0.0) {
    int bias = c.in(2, "C");
    if (beta != 1.0) bias = c.binary(BinaryKind::Mul, bias, c.scalarConstant(beta, DType::Float32, "beta"), "scaled_bias");
    y = c.binary(BinaryKind::Add, y, bias, "bias");
    if (c.val(y).shape != te::Shape{m, n})
      c.fail("C of shape ", te::shapeToString(c.shape(2)), " does not broadcast to the result [", m, ", ", n, "]");
  }
  c.setOutput(0, y);
}

// ---- pooling ----------------------------------------------------------------------------------

void importPool(Ctx& c, graph::PoolKind kind) {
  bool is_max = kind == graph::PoolKind::Max;
  if (is_max) c.checkAttrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  else c.checkAttrs({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  if (c.outputUsed(1)) c.fail("the Indices output is not supported");
  checkSpatialRank(c, "pooling");
  requireFloat(c, 0);
  bool one_d = c.rank(0) == 3;
  std::vector<int64_t> kernel = c.attrInts("kernel_shape");
  if (kernel.size() != c.rank(0) - 2) c.fail("kernel_shape ", listStr(kernel), " does not match the input rank");
  te::Shape xs = c.shape(0);
  Window w = readWindow(c, kernel, std::vector<int64_t>(xs.begin() + 2, xs.end()), is_max);
  graph::Pool2dAttrs a;
  a.kind = kind;
  a.kernel = w.kernel;
  a.strides = w.strides;
  a.pads = w.pads;
  a.dilation = w.dilation;
  a.ceil_mode = c.attrInt("ceil_mode", 0) != 0;
  a.count_include_pad = c.attrInt("count_include_pad", 0) != 0;
  int x = c.reshape(c.in(0), to4d(xs), "input_2d");
  c.setOutput(0, back3d(c, c.emit(a, {x}, one_d ? "pool_2d" : ""), one_d));
}

void importMaxPool(Ctx& c) { importPool(c, graph::PoolKind::Max); }
void importAveragePool(Ctx& c) { importPool(c, graph::PoolKind::Avg); }

void importGlobalPool(Ctx& c, graph::PoolKind kind) {
  c.checkAttrs({});
  requireFloat(c, 0);
  size_t r = c.rank(0);
  if (r < 3) c.fail("the input has rank ", r, ", but global pooling needs N, C and spatial dimensions");
  if (r == 4) {
    c.setOutput(0, c.emit(graph::GlobalPool2dAttrs{kind}, {c.in(0)}));
    return;
  }
  std::vector<int64_t> axes;
  for (size_t d = 2; d < r; ++d) axes.push_back(static_cast<int64_t>(d));
  graph::ReduceKind rk = kind == graph::PoolKind::Max ? graph::ReduceKind::Max : graph::ReduceKind::Mean;
  c.setOutput(0, c.emit(graph::ReduceAttrs{rk, axes, true}, {c.in(0)}));
}

void importGlobalAveragePool(Ctx& c) { importGlobalPool(c, graph::PoolKind::Avg); }
void importGlobalMaxPool(Ctx& c) { importGlobalPool(c, graph::PoolKind::Max); }

// ---- normalization ----------------------------------------------------------------------------

void importBatchNorm(Ctx& c) {
  c.checkAttrs({"epsilon", "momentum", "training_mode", "spatial"});
  if (c.attrInt("training_mode", 0) != 0) c.fail("training mode is not supported (inference only)");
  if (c.attrInt("spatial", 1) != 1) c.fail("spatial=0 is not supported");
  for (int k = 1; k < c.numOutputs(); ++k)
    if (c.outputUsed(k)) c.fail("output ", k, " (running statistics) exists only in training mode");
  requireFloat(c, 0);
  if (c.rank(0) < 2) c.fail("the input must have rank >= 2");
  int64_t ch = c.shape(0)[1];
  std::vector<int> ins{c.in(0)};
  const char* roles[] = {"scale", "B", "mean", "var"};
  for (int i = 1; i <= 4; ++i) {
    if (c.shape(i) != te::Shape{ch})
      c.fail("the ", roles[i - 1], " input has shape ", te::shapeToString(c.shape(i)), " for ", ch, " channels");
    ins.push_back(c.in(i, roles[i - 1]));
  }
  c.setOutput(0, c.emit(graph::BatchNormAttrs{c.attrFloat("epsilon", 1e-5)}, ins));
}

void importLayerNorm(Ctx& c) {
  c.checkAttrs({"axis", "epsilon", "stash_type"});
  requireFloat(c, 0);
  te::Shape xs = c.shape(0);
  int64_t axis = normAxis(c, c.attrInt("axis", -1), xs.size());
  double eps = c.attrFloat("epsilon", 1e-5);
  te::Shape norm(xs.begin() + axis, xs.end());
  auto param = [&](int i, const char* role) {
    if (!c.has(i)) return -1;
    int v = c.in(i, role);
    if (c.shape(i) == norm) return v;
    int e = c.emit(graph::ExpandAttrs{norm}, {v}, std::string(role) + "_expanded");
    if (c.val(e).shape != norm)
      c.fail("the ", role, " input of shape ", te::shapeToString(c.shape(i)), " does not broadcast to ",
             te::shapeToString(norm));
    return e;
  };
  int scale = param(1, "scale"), bias = param(2, "B");
  int x = c.in(0);
  c.setOutput(0, c.emit(graph::LayerNormAttrs{axis, eps}, {x, scale, bias}));
  if (c.outputUsed(1) || c.outputUsed(2)) {  // Mean and InvStdDev, with the reduced dims kept
    std::vector<int64_t> axes;
    for (size_t d = static_cast<size_t>(axis); d < xs.size(); ++d) axes.push_back(static_cast<int64_t>(d));
    int mean = c.emit(graph::ReduceAttrs{graph::ReduceKind::Mean, axes, true}, {x}, "mean");
    c.setOutput(1, mean);
    if (c.outputUsed(2)) {
      int d = c.binary(BinaryKind::Sub, x, mean, "centered");
      int sq = c.binary(BinaryKind::Mul, d, d, "squared");
      int var = c.emit(graph::ReduceAttrs{graph::ReduceKind::Mean, axes, true}, {sq}, "variance");
      int ve = c.binary(BinaryKind::Add, var, c.scalarConstant(eps, DType::Float32, "epsilon"), "variance_eps");
      int sd = c.unary(graph::UnaryKind::Sqrt, ve, "stddev");
      c.setOutput(2, c.unary(graph::UnaryKind::Reciprocal, sd, "inv_stddev"));
    }
  }
}

// ---- softmax ----------------------------------------------------------------------------------

// log(softmax(x)) along one axis, computed stably as (x - max) - log(sum(exp(x - max))).
int logSoftmax(Ctx& c, int x, int64_t axis, std::string_view tag) {
  std::string t(tag);
  int mx = c.emit(graph::ReduceAttrs{graph::ReduceKind::Max, {axis}, true}, {x}, t + "max");
  int d = c.binary(BinaryKind::Sub, x, mx, t + "shifted");
  int e = c.unary(graph::UnaryKind::Exp, d, t + "exp");
  int s = c.emit(graph::ReduceAttrs{graph::ReduceKind::Sum, {axis}, true}, {e}, t + "sum");
  int l = c.unary(graph::UnaryKind::Log, s, t + "log_sum");
  return c.binary(BinaryKind::Sub, d, l, tag);
}

void importSoftmaxLike(Ctx& c, bool log) {
  c.checkAttrs({"axis"});
  requireFloat(c, 0);
  te::Shape xs = c.shape(0);
  if (xs.empty()) c.fail("the input must have rank >= 1");
  bool coerce = c.opset() < 13;  // opsets 11/12: softmax over the flattened dims from `axis` on
  int64_t axis = normAxis(c, c.attrInt("axis", coerce ? 1 : -1), xs.size());
  int x = c.in(0);
  auto apply = [&](int v, int64_t ax, std::string_view tag) {
    return log ? logSoftmax(c, v, ax, tag) : c.emit(graph::SoftmaxAttrs{ax}, {v}, tag);
  };
  if (!coerce || axis == static_cast<int64_t>(xs.size()) - 1) {
    c.setOutput(0, apply(x, axis, {}));
    return;
  }
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < xs.size(); ++d) (static_cast<int64_t>(d) < axis ? outer : inner) *= xs[d];
  int x2 = c.reshape(x, {outer, inner}, "flatten");
  int y2 = apply(x2, 1, "2d");
  c.setOutput(0, c.reshape(y2, xs, {}));
}

void importSoftmax(Ctx& c) { importSoftmaxLike(c, false); }
void importLogSoftmax(Ctx& c) { importSoftmaxLike(c, true); }

}  // namespace

void addNnOps(OpTable& t) {
  t["Conv"] = importConv;
  t["MatMul"] = importMatMul;
  t["Gemm"] = importGemm;
  t["MaxPool"] = importMaxPool;
  t["AveragePool"] = importAveragePool;
  t["GlobalAveragePool"] = importGlobalAveragePool;
  t["GlobalMaxPool"] = importGlobalMaxPool;
  t["BatchNormalization"] = importBatchNorm;
  t["LayerNormalization"] = importLayerNorm;
  t["Softmax"] = importSoftmax;
  t["LogSoftmax"] = importLogSoftmax;
}

}  // namespace ttune::frontend::detail
