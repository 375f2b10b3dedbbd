// Indexing, generation and argument-reduction ONNX operators (graph ops from ops/indexing.h):
// ArgMax / ArgMin, Hardmax, CumSum, LRN, InstanceNormalization and MeanVarianceNormalization
// (composed from reductions),
// GatherElements, GatherND, ScatterElements, ScatterND, Trilu, EyeLike (a constant: only the
// input's shape matters), OneHot, TopK (an indices node, and a gather_elements of the values when
// they are used: graph ops have one output), ReverseSequence and MaxUnpool. Everything that shapes
// the result (K, depth, the cumsum axis, output shapes) must be a constant.
#include <cmath>
#include <cstring>
#include <numeric>

#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/onnx_importer.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using te::DType;

void requireRank(const Ctx& c, int i, size_t min_rank) {
  if (c.rank(i) < min_rank) c.fail(c.inputLabel(i), " must have rank at least ", min_rank, ", got ", c.rank(i));
}

// A single integer from a constant input (K, depth, axis, k).
int64_t scalarInt(const Ctx& c, int i, std::string_view role) {
  double v = c.scalar(i, role);
  if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9007199254740992.0)
    c.fail(c.inputLabel(i, role), " must be an integer, got ", v);
  return static_cast<int64_t>(v);
}

ops::ScatterReduction readReduction(const Ctx& c) {
  std::string r = c.attrString("reduction", "none");
  if (r == "none") return ops::ScatterReduction::None;
  if (r == "add") return ops::ScatterReduction::Add;
  if (r == "mul") return ops::ScatterReduction::Mul;
  c.fail("reduction ", r, " is not supported");
}

void importArgReduce(Ctx& c, bool max) {
  c.checkAttrs({"axis", "keepdims", "select_last_index"});
  requireRank(c, 0, 1);
  if (c.dtype(0) == DType::Bool) c.fail(c.inputLabel(0), " is a bool tensor, which ", c.opType(), " does not take");
  int64_t axis = normAxis(c, c.attrInt("axis", 0), c.rank(0));
  graph::ArgReduceAttrs a{max, axis, c.attrInt("keepdims", 1) != 0, c.attrInt("select_last_index", 0) != 0};
  c.setOutput(0, c.emit(a, {c.in(0)}));
}
void importArgMax(Ctx& c) { importArgReduce(c, true); }
void importArgMin(Ctx& c) { importArgReduce(c, false); }

void importHardmax(Ctx& c) {
  c.checkAttrs({"axis"});
  requireRank(c, 0, 1);
  te::Shape xs = c.shape(0);
  bool coerce = c.opset() < 13;  // opsets 11/12: over the flattened dims from `axis` on
  int64_t axis = normAxis(c, c.attrInt("axis", coerce ? 1 : -1), xs.size());
  if (!coerce || axis == static_cast<int64_t>(xs.size()) - 1) {
    c.setOutput(0, c.emit(graph::HardmaxAttrs{axis}, {c.in(0)}));
    return;
  }
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < xs.size(); ++d) (static_cast<int64_t>(d) < axis ? outer : inner) *= xs[d];
  int x2 = c.reshape(c.in(0), {outer, inner}, "flatten");
  int y2 = c.emit(graph::HardmaxAttrs{1}, {x2}, "2d");
  c.setOutput(0, c.reshape(y2, xs, {}));
}

void importCumSum(Ctx& c) {
  c.checkAttrs({"exclusive", "reverse"});
  requireRank(c, 0, 1);
  if (c.dtype(0) == DType::Bool) c.fail(c.inputLabel(0), " is a bool tensor, which CumSum does not take");
  int64_t axis = normAxis(c, scalarInt(c, 1, "axis"), c.rank(0));
  graph::CumSumAttrs a{axis, c.attrInt("exclusive", 0) != 0, c.attrInt("reverse", 0) != 0};
  c.setOutput(0, c.emit(a, {c.in(0)}));
}

void importLrn(Ctx& c) {
  c.checkAttrs({"alpha", "beta", "bias", "size"});
  requireFloat(c, 0);
  requireRank(c, 0, 2);
  if (!c.hasAttr("size")) c.fail("the attribute size is required");
  int64_t size = c.attrInt("size", 1);
  if (size < 1) c.fail("size must be positive, got ", size);
  graph::LrnAttrs a{size, c.attrFloat("alpha", 1e-4), c.attrFloat("beta", 0.75), c.attrFloat("bias", 1.0)};
  c.setOutput(0, c.emit(a, {c.in(0)}));
}

// (x - mean) / sqrt(var + eps) * scale + bias over the spatial axes of each (n, c).
void importInstanceNorm(Ctx& c) {
  c.checkAttrs({"epsilon"});
  requireFloat(c, 0);
  requireRank(c, 0, 3);
  te::Shape xs = c.shape(0);
  int64_t ch = xs[1];
  for (int i = 1; i <= 2; ++i) {
    requireFloat(c, i);
    if (c.shape(i) != te::Shape{ch})
      c.fail(c.inputLabel(i), " has shape ", te::shapeToString(c.shape(i)), ", expected [", ch, "]");
  }
  std::vector<int64_t> axes;
  for (size_t d = 2; d < xs.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  te::Shape param(xs.size() - 1, 1);  // [C, 1, ..., 1]: broadcasts against [N, C, ...]
  param[0] = ch;
  int x = c.in(0);
  int mean = c.emit(graph::ReduceAttrs{graph::ReduceKind::Mean, axes, true}, {x}, "mean");
  int d = c.binary(BinaryKind::Sub, x, mean, "centered");
  int sq = c.binary(BinaryKind::Mul, d, d, "square");
  int var = c.emit(graph::ReduceAttrs{graph::ReduceKind::Mean, axes, true}, {sq}, "var");
  int ve = c.binary(BinaryKind::Add, var, c.scalarConstant(c.attrFloat("epsilon", 1e-5), DType::Float32, "epsilon"),
                    "var_eps");
  int sd = c.unary(graph::UnaryKind::Sqrt, ve, "std");
  int n = c.binary(BinaryKind::Div, d, sd, "normalized");
  int s = c.binary(BinaryKind::Mul, n, c.reshape(c.in(1, "scale"), param, "scale"), "scaled");
  c.setOutput(0, c.binary(BinaryKind::Add, s, c.reshape(c.in(2, "B"), param, "bias"), {}));
}

// MeanVarianceNormalization as ONNX's function body defines it: (x - E[x]) / (sqrt(E[x^2] -
// E[x]^2) + 1e-9) over `axes` (default [0, 2, 3]).
void importMeanVarianceNorm(Ctx& c) {
  c.checkAttrs({"axes"});
  requireFloat(c, 0);
  std::vector<int64_t> axes = c.hasAttr("axes") ? c.attrInts("axes") : std::vector<int64_t>{0, 2, 3};
  for (int64_t& a : axes) a = normAxis(c, a, c.rank(0), "axes");
  int x = c.in(0);
  DType t = c.dtype(0);
  int mean = c.emit(graph::ReduceAttrs{graph::ReduceKind::Mean, axes, true}, {x}, "mean");
  int mean_sq = c.binary(BinaryKind::Mul, mean, mean, "mean_squared");
  int sq = c.binary(BinaryKind::Mul, x, x, "square");
  int sq_mean = c.emit(graph::ReduceAttrs{graph::ReduceKind::Mean, axes, true}, {sq}, "square_mean");
  int sd = c.unary(graph::UnaryKind::Sqrt, c.binary(BinaryKind::Sub, sq_mean, mean_sq, "variance"), "std");
  int den = c.binary(BinaryKind::Add, sd, c.scalarConstant(1e-9, t, "epsilon"), "std_eps");
  c.setOutput(0, c.binary(BinaryKind::Div, c.binary(BinaryKind::Sub, x, mean, "centered"), den, {}));
}

void requireIndices(const Ctx& c, int i) {
  if (!te::isInt(c.dtype(i))) c.fail(c.inputLabel(i), " must be int32 or int64");
}

void importGatherElements(Ctx& c) {
  c.checkAttrs({"axis"});
  requireIndices(c, 1);
  requireRank(c, 0, 1);
  int64_t axis = normAxis(c, c.attrInt("axis", 0), c.rank(0));
  c.setOutput(0, c.emit(graph::GatherElementsAttrs{axis}, {c.in(0), c.in(1)}));
}

void importGatherND(Ctx& c) {
  c.checkAttrs({"batch_dims"});
  requireIndices(c, 1);
  c.setOutput(0, c.emit(graph::GatherNdAttrs{c.attrInt("batch_dims", 0)}, {c.in(0), c.in(1)}));
}

// No index (an empty selection at run time): the data unchanged.
bool nothingToScatter(Ctx& c) {
  if (te::shapeElements(c.shape(1)) != 0) return false;
  c.setOutput(0, c.in(0));
  return true;
}

// Indices that an Expand broadcast along axes other than `axis` (torchvision's row scatter,
// result[idx] = rows, exports idx.view(-1, 1, 1, 1).expand_as(rows)): the Expand's input, of the
// same rank, which ops::scatter_elements broadcasts itself -- its search for each output row's
// source then runs once per row instead of once per element.
int compactIndices(Ctx& c, int indices, int64_t axis) {
  const graph::Graph& g = c.graph();
  const graph::Value& v = g.value(indices);
  if (v.producer < 0) return indices;
  const graph::Node& n = g.node(v.producer);
  if (!std::holds_alternative<graph::ExpandAttrs>(n.attrs) || n.inputs.empty() || n.inputs[0] < 0) return indices;
  int src = n.inputs[0];
  te::Shape ss = g.value(src).shape;
  const te::Shape& full = v.shape;
  if (ss.size() > full.size()) return indices;
  ss.insert(ss.begin(), full.size() - ss.size(), 1);
  bool smaller = false;
  for (size_t d = 0; d < full.size(); ++d) {
    if (static_cast<int64_t>(d) == axis ? ss[d] != full[d] : ss[d] != full[d] && ss[d] != 1) return indices;
    smaller |= ss[d] != full[d];
  }
  if (!smaller) return indices;
  return ss == g.value(src).shape ? src : c.reshape(src, ss, "indices");
}

void importScatterElements(Ctx& c) {
  c.checkAttrs({"axis", "reduction"});
  requireIndices(c, 1);
  requireRank(c, 0, 1);
  int64_t axis = normAxis(c, c.attrInt("axis", 0), c.rank(0));
  if (nothingToScatter(c)) return;
  int updates = c.in(2, "updates");
  if (c.shape(1) != c.graph().value(updates).shape)
    c.fail("indices of shape ", te::shapeToString(c.shape(1)), " and updates of shape ",
           te::shapeToString(c.graph().value(updates).shape), " differ");
  int indices = compactIndices(c, c.in(1), axis);
  c.setOutput(0, c.emit(graph::ScatterElementsAttrs{axis, readReduction(c)}, {c.in(0), indices, updates}));
}

void importScatterND(Ctx& c) {
  c.checkAttrs({"reduction"});
  requireIndices(c, 1);
  if (nothingToScatter(c)) return;
  c.setOutput(0, c.emit(graph::ScatterNdAttrs{readReduction(c)}, {c.in(0), c.in(1), c.in(2, "updates")}));
}

void importTrilu(Ctx& c) {
  c.checkAttrs({"upper"});
  requireRank(c, 0, 2);
  int64_t k = c.present(1) ? scalarInt(c, 1, "k") : 0;
  c.setOutput(0, c.emit(graph::TriluAttrs{k, c.attrInt("upper", 1) != 0}, {c.in(0)}));
}

void importEyeLike(Ctx& c) {
  c.checkAttrs({"dtype", "k"});
  te::Shape s = c.shape(0);
  if (s.size() != 2) c.fail(c.inputLabel(0), " must have rank 2, got ", s.size());
  DType dt = c.dtype(0);
  if (c.hasAttr("dtype")) {
    try {
      dt = dtypeFromOnnx(static_cast<int>(c.attrInt("dtype", 1)), "the dtype");
    } catch (const Error& e) {
      c.fail(e.what());
    }
  }
  int64_t k = c.attrInt("k", 0);
  c.checkSize(s);
  runtime::NDArray out = runtime::NDArray::empty(s, dt);
  out.fill(0);
  runtime::NDArray one({}, dt);
  one.fill(1);
  size_t bytes = static_cast<size_t>(te::dtypeBytes(dt));
  for (int64_t i = 0; i < s[0]; ++i) {
    int64_t j = i + k;
    if (j >= 0 && j < s[1]) copyBytes(static_cast<char*>(out.data()) + (i * s[1] + j) * bytes, one.data(), bytes);
  }
  c.setOutput(0, c.addConstant(std::move(out), {}));
}

void importOneHot(Ctx& c) {
  c.checkAttrs({"axis"});
  int64_t depth = scalarInt(c, 1, "depth");
  if (depth < 1) c.fail("depth must be positive, got ", depth);
  if (c.shape(2) != te::Shape{2}) c.fail("the values must have shape [2], got ", te::shapeToString(c.shape(2)));
  int64_t r = static_cast<int64_t>(c.rank(0));
  int64_t axis = c.attrInt("axis", -1);
  if (axis < -r - 1 || axis > r) c.fail("axis ", axis, " is out of range for an output of rank ", r + 1);
  if (axis < 0) axis += r + 1;
  c.setOutput(0, c.emit(graph::OneHotAttrs{axis, depth}, {c.in(0), c.in(2, "values")}));
}

// TopK of a constant: per line along the axis, the k first of a stable sort (ties: the lower
// index first, as ONNX specifies), values as stored (exactly, in the input's dtype) and int64 indices.
void topKOnHost(Ctx& c, const runtime::NDArray& x, int64_t axis, int64_t k, bool largest) {
  te::Shape s = x.shape(), out_shape = s;
  out_shape[axis] = k;
  int64_t n = s[axis], outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s[d];
  for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= s[d];
  runtime::NDArray values = runtime::NDArray::empty(out_shape, x.dtype());
  runtime::NDArray indices = runtime::NDArray::empty(out_shape, DType::Int64);
  size_t bytes = static_cast<size_t>(te::dtypeBytes(x.dtype()));
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::vector<long double> key(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (o * n + j) * inner + i; };
      for (int64_t j = 0; j < n; ++j) key[j] = exactValue(x, at(j));
      std::iota(order.begin(), order.end(), 0);
      // Only the first k in order, ties broken by index (a total order, so the result is the
      // stable sort's): a detector level keeps 1000 of a million scores.
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
        if (key[a] != key[b]) return largest ? key[a] > key[b] : key[a] < key[b];
        return a < b;
      });
      for (int64_t j = 0; j < k; ++j) {
        int64_t dst = (o * k + j) * inner + i;
        std::memcpy(static_cast<char*>(values.data()) + dst * bytes,
                    static_cast<const char*>(x.data()) + at(order[j]) * bytes, bytes);
        indices.as<int64_t>()[dst] = order[j];
      }
    }
  c.setOutput(0, c.addConstant(std::move(values), "values"));
  if (c.numOutputs() > 1) c.setOutput(1, c.addConstant(std::move(indices), "indices"));
}

// Longest TopK axis computed as a kernel (one that compares every pair of elements): beyond it
// the input is sorted on the host in a staged run.
constexpr int64_t kMaxTopKKernelAxis = 4096;

void importTopK(Ctx& c) {
  c.checkAttrs({"axis", "largest", "sorted"});
  requireRank(c, 0, 1);
  if (c.dtype(0) == DType::Bool) c.fail(c.inputLabel(0), " is a bool tensor, which TopK does not take");
  int64_t k = scalarInt(c, 1, "K");
  int64_t axis = normAxis(c, c.attrInt("axis", -1), c.rank(0));
  int64_t n = c.shape(0)[axis];
  if (k < 0 || k > n) c.fail("K = ", k, " is outside [0, ", n, "] for axis ", axis);
  if (k == 0) {
    // Nothing selected (a detector level where no anchor passed the score threshold: K =
    // min(n, limit) with n = 0): empty values and indices, as ONNX Runtime returns them.
    te::Shape empty = c.shape(0);
    empty[static_cast<size_t>(axis)] = 0;
    c.setOutput(0, c.addConstant(runtime::NDArray(empty, c.dtype(0)), "values"));
    if (c.numOutputs() > 1) c.setOutput(1, c.addConstant(runtime::NDArray(empty, DType::Int64), "indices"));
    return;
  }
  bool largest = c.attrInt("largest", 1) != 0;
  // A staged run sorts run-time data on the host (a TopK kernel compares every pair); constants
  // (and so that host step) are sorted here in O(n log n). Beyond kMaxTopKKernelAxis elements the
  // pairs (n^2 per row: 2.5 billion for a 50k vocabulary) cost more than ending a stage, so even
  // a static import asks for the data as a constant, and `run` runs the model in stages.
  if ((c.staged() || n > kMaxTopKKernelAxis) && !c.isConst(0)) c.constant(0, "X");
  if (c.isConst(0)) return topKOnHost(c, c.constant(0, "X"), axis, k, largest);
  // sorted = 0 allows any order; the sorted one is as good.
  bool values = c.outputUsed(0) || !c.outputUsed(1);
  int idx = c.emit(graph::TopKAttrs{axis, k, largest}, {c.in(0)}, values ? "indices" : "");
  if (c.numOutputs() > 1) c.setOutput(1, idx);
  if (values) c.setOutput(0, c.emit(graph::GatherElementsAttrs{axis}, {c.in(0), idx}));
}

void importReverseSequence(Ctx& c) {
  c.checkAttrs({"batch_axis", "time_axis"});
  requireRank(c, 0, 2);
  requireIndices(c, 1);
  int64_t ba = normAxis(c, c.attrInt("batch_axis", 1), c.rank(0), "batch_axis");
  int64_t ta = normAxis(c, c.attrInt("time_axis", 0), c.rank(0), "time_axis");
  if (ba == ta) c.fail("batch_axis and time_axis are both ", ba);
  c.setOutput(0, c.emit(graph::ReverseSequenceAttrs{ba, ta}, {c.in(0), c.in(1, "sequence_lens")}));
}

// The indices address the shape inferred from the pooling attributes; a larger output_shape
// pads that result with zeros at the end of each axis (as ONNX Runtime and ONNX's own example).
void importMaxUnpool(Ctx& c) {
  c.checkAttrs({"kernel_shape", "pads", "strides"});
  requireRank(c, 0, 3);
  requireIndices(c, 1);
  te::Shape xs = c.shape(0);
  size_t sp = xs.size() - 2;
  std::vector<int64_t> kernel = c.attrInts("kernel_shape"), pads = c.attrInts("pads"), strides = c.attrInts("strides");
  if (kernel.size() != sp) c.fail("kernel_shape ", listStr(kernel), " does not have ", sp, " entries");
  if (pads.empty()) pads.assign(2 * sp, 0);
  if (strides.empty()) strides.assign(sp, 1);
  if (pads.size() != 2 * sp || strides.size() != sp) c.fail("pads or strides do not have ", sp, " spatial entries");
  te::Shape inferred = {xs[0], xs[1]};
  for (size_t d = 0; d < sp; ++d) inferred.push_back((xs[d + 2] - 1) * strides[d] + kernel[d] - pads[d] - pads[d + sp]);
  for (int64_t d : inferred)
    if (d <= 0) c.fail("the output shape ", listStr(inferred), " has a non-positive entry");
  te::Shape out = inferred;
  if (c.present(2)) {
    out = c.ints(2, "output_shape");
    bool ok = out.size() == xs.size();
    for (size_t d = 0; ok && d < out.size(); ++d) ok = d < 2 ? out[d] == inferred[d] : out[d] >= inferred[d];
    if (!ok)
      c.fail("the output_shape ", listStr(out), " is not the inferred shape ", listStr(inferred),
             " or larger on the spatial axes");
  }
  bool pad = out != inferred;
  int y = c.emit(graph::MaxUnpoolAttrs{inferred}, {c.in(0), c.in(1)}, pad ? "unpool" : "");
  if (pad) {
    std::vector<int64_t> before(out.size(), 0), after(out.size(), 0);
    for (size_t d = 0; d < out.size(); ++d) after[d] = out[d] - inferred[d];
    y = c.emit(graph::PadAttrs{before, after, 0.0, ops::PadMode::Constant}, {y});
  }
  c.setOutput(0, y);
}

}  // namespace

void addIndexingOps(OpTable& t) {
  t["ArgMax"] = importArgMax;
  t["ArgMin"] = importArgMin;
  t["Hardmax"] = importHardmax;
  t["CumSum"] = importCumSum;
  t["LRN"] = importLrn;
  t["InstanceNormalization"] = importInstanceNorm;
  t["MeanVarianceNormalization"] = importMeanVarianceNorm;
  t["GatherElements"] = importGatherElements;
  t["GatherND"] = importGatherND;
  t["ScatterElements"] = importScatterElements;
  t["ScatterND"] = importScatterND;
  t["Trilu"] = importTrilu;
  t["EyeLike"] = importEyeLike;
  t["OneHot"] = importOneHot;
  t["TopK"] = importTopK;
  t["ReverseSequence"] = importReverseSequence;
  t["MaxUnpool"] = importMaxUnpool;
}

}  // namespace ttune::frontend::detail
