// Data-movement ONNX operators whose shape arguments become graph attributes: Reshape, Flatten,
// Squeeze, Unsqueeze (all graph reshapes), Transpose, Concat, Slice, Split (one slice per
// output), Expand, Tile (concats), DepthToSpace / SpaceToDepth (reshape-transpose-reshape).
#include <algorithm>

#include "frontend/onnx/op_table.h"
#include "ops/op_utils.h"

namespace ttune::frontend::detail {

namespace {

void importReshape(Ctx& c) {
  c.checkAttrs({"allowzero"});
  bool allowzero = c.attrInt("allowzero", 0) != 0;
  std::vector<int64_t> spec = c.ints(1, "shape");
  te::Shape in = c.shape(0);
  te::Shape out(spec.size());
  int infer = -1;
  int64_t known = 1;
  for (size_t d = 0; d < spec.size(); ++d) {
    int64_t s = spec[d];
    if (s == 0 && !allowzero) {
      if (d >= in.size()) c.fail("shape entry ", d, " is 0 (copy), but the input has rank ", in.size());
      s = in[d];
    }
    if (s == -1) {
      if (infer >= 0) c.fail("the shape ", listStr(spec), " has more than one -1");
      infer = static_cast<int>(d);
      continue;
    }
    // 0 stays 0 for an input without elements (copied from it, or allowzero): an empty result.
    if (s < 0 || (s == 0 && te::shapeElements(in) != 0))
      c.fail("the shape ", listStr(spec), " has the entry ", s, ", and empty tensors are not supported");
    out[d] = s;
    if (__builtin_mul_overflow(known, s, &known)) c.fail("the shape ", listStr(spec), " has too many elements");
  }
  int64_t total = te::shapeElements(in);
  if (infer >= 0) {
    if (known == 0) c.fail("the shape ", listStr(spec), " has a -1 next to a 0, which leaves the -1 undetermined");
    if (total % known != 0)
      c.fail("cannot reshape ", te::shapeToString(in), " to ", listStr(spec), " (the element counts do not divide)");
    out[infer] = total / known;
  }
  if (te::shapeElements(out) != total)
    c.fail("cannot reshape ", te::shapeToString(in), " (", total, " elements) to ", te::shapeToString(out));
  c.setOutput(0, c.reshape(c.in(0), out, {}));
}

void importFlatten(Ctx& c) {
  c.checkAttrs({"axis"});
  te::Shape in = c.shape(0);
  int64_t r = static_cast<int64_t>(in.size());
  int64_t axis = c.attrInt("axis", 1);
  if (axis < -r || axis > r) c.fail("axis ", axis, " is out of range for a tensor of rank ", r);
  if (axis < 0) axis += r;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < r; ++d) (d < axis ? outer : inner) *= in[d];
  c.setOutput(0, c.reshape(c.in(0), {outer, inner}, {}));
}

// Squeeze / Unsqueeze axes: the attribute before opset 13, the optional second input since.
std::vector<int64_t> axesArg(const Ctx& c) {
  if (c.opset() >= 13) return c.present(1) ? c.ints(1, "axes") : std::vector<int64_t>{};
  return c.attrInts("axes");
}

void importSqueeze(Ctx& c) {
  c.checkAttrs({"axes"});
  te::Shape in = c.shape(0);
  bool given = c.opset() >= 13 ? c.present(1) : c.hasAttr("axes");
  std::vector<bool> drop(in.size(), false);
  if (given) {
    for (int64_t a : axesArg(c)) {
      int64_t ax = normAxis(c, a, in.size());
      if (in[ax] != 1) c.fail("cannot squeeze axis ", a, " of extent ", in[ax]);
      drop[ax] = true;
    }
  } else {
    for (size_t d = 0; d < in.size(); ++d) drop[d] = in[d] == 1;
  }
  te::Shape out;
  for (size_t d = 0; d < in.size(); ++d)
    if (!drop[d]) out.push_back(in[d]);
  c.setOutput(0, c.reshape(c.in(0), out, {}));
}

void importUnsqueeze(Ctx& c) {
  c.checkAttrs({"axes"});
  te::Shape in = c.shape(0);
  std::vector<int64_t> axes = axesArg(c);
  if (axes.empty()) c.fail("axes are required");
  size_t r = in.size() + axes.size();
  std::vector<bool> is_new(r, false);
  for (int64_t a : axes) {
    int64_t ax = normAxis(c, a, r);
    if (is_new[ax]) c.fail("axis ", a, " is listed twice");
    is_new[ax] = true;
  }
  te::Shape out;
  size_t k = 0;
  for (size_t d = 0; d < r; ++d) out.push_back(is_new[d] ? 1 : in[k++]);
  c.setOutput(0, c.reshape(c.in(0), out, {}));
}

void importTranspose(Ctx& c) {
  c.checkAttrs({"perm"});
  std::vector<int64_t> perm = c.attrInts("perm");
  if (perm.empty())
    for (size_t d = c.rank(0); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  c.setOutput(0, c.transpose(c.in(0), perm, {}));
}

void importConcat(Ctx& c) {
  c.checkAttrs({"axis"});
  if (!c.hasAttr("axis")) c.fail("the axis attribute is required");
  // An empty input adds nothing only when it is empty along the axis (an empty shape prefix); one
  // empty along another axis ([0, 1] next to [0, 4] on axis 1: no box selected) still sets the
  // result's extent there, and the result is empty (Ctx::emit).
  std::vector<int> ins;
  for (int i = 0; i < c.numInputs(); ++i) {
    if (!c.has(i)) continue;
    if (c.isEmpty(i)) {
      const te::Shape& s = c.shape(i);
      int64_t axis = c.attrInt("axis", 0);
      int64_t r = static_cast<int64_t>(s.size());
      if (axis < -r || axis >= r || s[static_cast<size_t>(axis < 0 ? axis + r : axis)] == 0) continue;
    }
    ins.push_back(c.in(i));
  }
  if (ins.empty()) {
    if (c.numInputs() > 0 && c.isEmpty(0)) {  // everything empty: the (empty) first input
      c.setOutput(0, c.in(0));
      return;
    }
    c.fail("needs at least one input");
  }
  if (ins.size() == 1) {
    c.setOutput(0, ins[0]);
    return;
  }
  c.setOutput(0, c.emit(graph::ConcatAttrs{c.attrInt("axis", 0)}, ins));
}

void importSlice(Ctx& c) {
  c.checkAttrs({});
  std::vector<int64_t> starts = c.ints(1, "starts"), ends = c.ints(2, "ends");
  std::vector<int64_t> axes = c.has(3) ? c.ints(3, "axes") : std::vector<int64_t>{};
  std::vector<int64_t> steps = c.has(4) ? c.ints(4, "steps") : std::vector<int64_t>{};
  if (ends.size() != starts.size() || (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size()))
    c.fail("starts, ends, axes and steps have different lengths");
  for (int64_t& a : axes) a = normAxis(c, a, c.rank(0));
  if (c.isConst(0)) {  // shape arithmetic may slice a constant to nothing (e.g. the dims before axis 0)
    te::Shape out = c.shape(0);
    for (size_t i = 0; i < starts.size(); ++i) {
      int64_t ax = axes.empty() ? static_cast<int64_t>(i) : axes[i];
      if (ax >= static_cast<int64_t>(out.size())) c.fail("starts has more entries than the input has axes");
      int64_t step = steps.empty() ? 1 : steps[i], dim = out[ax];
      if (step == 0) c.fail("the step on axis ", ax, " is zero");
      if (dim == 0) continue;
      int64_t b = starts[i] < 0 ? starts[i] + dim : starts[i], e = ends[i] < 0 ? ends[i] + dim : ends[i];
      bool empty = step > 0 ? std::clamp<int64_t>(e, 0, dim) <= std::clamp<int64_t>(b, 0, dim)
                            : std::clamp<int64_t>(b, 0, dim - 1) <= std::clamp<int64_t>(e, -1, dim - 1);
      if (empty) out[ax] = 0;
    }
    if (te::shapeElements(out) == 0) {
      c.setOutput(0, c.addConstant(runtime::NDArray(out, c.dtype(0)), {}));
      return;
    }
  }
  c.setOutput(0, c.emit(graph::SliceAttrs{starts, ends, axes, steps}, {c.in(0)}));
}

void importSplit(Ctx& c) {
  c.checkAttrs({"axis", "split"});
  te::Shape in = c.shape(0);
  int64_t axis = normAxis(c, c.attrInt("axis", 0), in.size());
  std::vector<int64_t> sizes =
      c.opset() >= 13 ? (c.present(1) ? c.ints(1, "split") : std::vector<int64_t>{}) : c.attrInts("split");
  int n = c.numOutputs();
  if (sizes.empty()) {
    if (n <= 0 || in[axis] % n != 0)
      c.fail("cannot split extent ", in[axis], " of axis ", axis, " into ", n, " equal parts");
    sizes.assign(static_cast<size_t>(n), in[axis] / n);
  }
  if (static_cast<int>(sizes.size()) != n) c.fail("has ", n, " outputs but ", sizes.size(), " split sizes");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s <= 0) c.fail("split sizes ", listStr(sizes), " include an empty part, and empty tensors are not supported");
    total += s;
  }
  if (total != in[axis])
    c.fail("split sizes ", listStr(sizes), " do not add up to the extent ", in[axis], " of axis ", axis);
  int64_t off = 0;
  for (int i = 0; i < n; ++i) {
    if (c.outputUsed(i)) {
      int v = sizes[i] == in[axis] ? c.in(0)
                                   : c.emit(graph::SliceAttrs{{off}, {off + sizes[i]}, {axis}, {1}}, {c.in(0)},
                                            "part" + std::to_string(i));
      c.setOutput(i, v);
    }
    off += sizes[i];
  }
}

void importExpand(Ctx& c) {
  c.checkAttrs({});
  std::vector<int64_t> shape = c.ints(1, "shape");
  for (int64_t d : shape)
    if (d < 0) c.fail("the shape ", listStr(shape), " has a negative entry");
  if (std::count(shape.begin(), shape.end(), 0) > 0) {  // an empty result (e.g. no box at some level)
    std::optional<te::Shape> out = ops::tryBroadcast(c.shape(0), shape);
    if (!out) c.fail("cannot expand ", te::shapeToString(c.shape(0)), " to ", listStr(shape));
    c.setOutput(0, c.addConstant(runtime::NDArray::empty(*out, c.dtype(0)), {}));
    return;
  }
  int y = c.emit(graph::ExpandAttrs{shape}, {c.in(0)});
  if (c.val(y).shape == c.shape(0) && !c.isConst(0)) y = c.in(0);  // expanding to the same shape is a no-op
  c.setOutput(0, y);
}

void importTile(Ctx& c) {
  c.checkAttrs({});
  std::vector<int64_t> reps = c.ints(1, "repeats");
  if (reps.size() != c.rank(0)) c.fail("has ", reps.size(), " repeats for a tensor of rank ", c.rank(0));
  int y = c.in(0);
  for (size_t d = 0; d < reps.size(); ++d) {
    if (reps[d] <= 0) c.fail("repeat ", reps[d], " on axis ", d, " would make an empty tensor, which is not supported");
    if (reps[d] == 1) continue;
    std::vector<int> copies(static_cast<size_t>(reps[d]), y);
    y = c.emit(graph::ConcatAttrs{static_cast<int64_t>(d)}, copies, "axis" + std::to_string(d));
  }
  c.setOutput(0, y);
}

void importDepthToSpace(Ctx& c) {
  c.checkAttrs({"blocksize", "mode"});
  if (c.rank(0) != 4) c.fail("the input must have rank 4");
  int64_t b = c.attrInt("blocksize", 0);
  std::string mode = c.attrString("mode", "DCR");
  te::Shape s = c.shape(0);
  int64_t n = s[0], ch = s[1], h = s[2], w = s[3];
  if (b <= 0 || ch % (b * b) != 0) c.fail("blocksize ", b, " does not divide the ", ch, " channels into blocks");
  int64_t oc = ch / (b * b);
  int x = c.in(0), t;
  if (mode == "DCR") {
    x = c.reshape(x, {n, b, b, oc, h, w}, "split");
    t = c.transpose(x, {0, 3, 4, 1, 5, 2}, "transpose");
  } else if (mode == "CRD") {
    x = c.reshape(x, {n, oc, b, b, h, w}, "split");
    t = c.transpose(x, {0, 1, 4, 2, 5, 3}, "transpose");
  } else {
    c.fail("mode ", mode, " is not supported");
  }
  c.setOutput(0, c.reshape(t, {n, oc, h * b, w * b}, {}));
}

void importSpaceToDepth(Ctx& c) {
  c.checkAttrs({"blocksize"});
  if (c.rank(0) != 4) c.fail("the input must have rank 4");
  int64_t b = c.attrInt("blocksize", 0);
  te::Shape s = c.shape(0);
  int64_t n = s[0], ch = s[1], h = s[2], w = s[3];
  if (b <= 0 || h % b != 0 || w % b != 0) c.fail("blocksize ", b, " does not divide the spatial extents");
  int x = c.reshape(c.in(0), {n, ch, h / b, b, w / b, b}, "split");
  int t = c.transpose(x, {0, 3, 5, 1, 2, 4}, "transpose");
  c.setOutput(0, c.reshape(t, {n, ch * b * b, h / b, w / b}, {}));
}

}  // namespace

void addShapeOps(OpTable& t) {
  t["Reshape"] = importReshape;
  t["Flatten"] = importFlatten;
  t["Squeeze"] = importSqueeze;
  t["Unsqueeze"] = importUnsqueeze;
  t["Transpose"] = importTranspose;
  t["Concat"] = importConcat;
  t["Slice"] = importSlice;
  t["Split"] = importSplit;
  t["Expand"] = importExpand;
  t["Tile"] = importTile;
  t["DepthToSpace"] = importDepthToSpace;
  t["SpaceToDepth"] = importSpaceToDepth;
}

}  // namespace ttune::frontend::detail
