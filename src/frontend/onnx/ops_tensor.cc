// Tensor-producing and tensor-selecting ONNX operators: Constant, ConstantOfShape, Range, Shape,
// Size (always constants: shapes are static), Cast / CastLike, Identity and inference-mode
// Dropout (elided), Gather and Pad.
#include <cmath>
#include <cstring>

#include "frontend/onnx/onnx_importer.h"
#include "frontend/onnx/op_table.h"
#include "te/dtype_io.h"

namespace ttune::frontend::detail {

namespace {

using te::DType;

void importConstant(Ctx& c) {
  if (c.proto().attribute_size() != 1) c.fail("must have exactly one value attribute");
  const onnx::AttributeProto& a = c.proto().attribute(0);
  const std::string& k = a.name();
  runtime::NDArray v;
  if (k == "value") {
    try {
      v = tensorFromProto(a.t());
    } catch (const Error& e) {
      c.fail("the value ", e.what());
    }
  } else if (k == "value_float") {
    v = runtime::NDArray({}, DType::Float32);
    v.as<float>()[0] = a.f();
  } else if (k == "value_floats") {
    if (a.floats_size() == 0) c.fail("value_floats is empty, and empty tensors are not supported");
    v = runtime::NDArray({a.floats_size()}, DType::Float32);
    for (int i = 0; i < a.floats_size(); ++i) v.as<float>()[i] = a.floats(i);
  } else if (k == "value_int") {
    v = runtime::NDArray({}, DType::Int64);
    v.as<int64_t>()[0] = a.i();
  } else if (k == "value_ints") {
    if (a.ints_size() == 0) c.fail("value_ints is empty, and empty tensors are not supported");
    v = int64Tensor(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
  } else {
    c.fail("attribute ", k, " is not supported (string and sparse constants cannot be represented)");
  }
  c.setOutput(0, c.addConstant(std::move(v), {}));
}

void importConstantOfShape(Ctx& c) {
  c.checkAttrs({"value"});
  std::vector<int64_t> shape = c.ints(0, "shape");
  for (int64_t d : shape)
    if (d < 0) c.fail("the shape ", listStr(shape), " has a negative entry");
  DType dt = DType::Float32;
  double fill = 0;
  int64_t ifill = 0;
  if (const onnx::TensorProto* t = c.attrTensor("value")) {
    runtime::NDArray v;
    try {
      v = tensorFromProto(*t);
    } catch (const Error& e) {
      c.fail("the value ", e.what());
    }
    if (v.numElements() != 1) c.fail("the value must have one element");
    dt = v.dtype();
    fill = te::loadDouble(v.data(), dt, 0);
    if (te::isInt(dt)) ifill = te::loadInt(v.data(), dt, 0);
  }
  c.checkSize(shape);
  runtime::NDArray out = runtime::NDArray::empty(shape, dt);
  // Integers exactly (64-bit values need not survive a double), floats as they round.
  for (int64_t i = 0; i < out.numElements(); ++i)
    if (te::isInt(dt))
      te::storeInt(out.data(), dt, i, ifill);
    else
      te::storeDouble(out.data(), dt, i, fill);
  c.setOutput(0, c.addConstant(std::move(out), {}));
}

void importRange(Ctx& c) {
  c.checkAttrs({});
  DType dt = c.dtype(0);
  if (c.dtype(1) != dt || c.dtype(2) != dt) c.fail("start, limit and delta must have the same dtype");
  int64_t n = 0;
  runtime::NDArray out;
  if (dt == DType::Float32) {
    float start = static_cast<float>(c.scalar(0, "start")), limit = static_cast<float>(c.scalar(1, "limit"));
    float delta = static_cast<float>(c.scalar(2, "delta"));
    if (delta == 0) c.fail("delta is zero");
    n = std::max<int64_t>(static_cast<int64_t>(std::ceil((limit - start) / delta)), 0);
    c.checkSize({n});
    out = runtime::NDArray::empty({n}, dt);
    for (int64_t i = 0; i < n; ++i) out.as<float>()[i] = start + static_cast<float>(i) * delta;
  } else if (te::isInt(dt)) {
    std::vector<int64_t> s = c.ints(0, "start"), l = c.ints(1, "limit"), d = c.ints(2, "delta");
    if (s.size() != 1 || l.size() != 1 || d.size() != 1) c.fail("start, limit and delta must be scalars");
    if (d[0] == 0) c.fail("delta is zero");
    int64_t span = l[0] - s[0];
    n = span / d[0] + (span % d[0] != 0 && (span > 0) == (d[0] > 0) ? 1 : 0);
    n = std::max<int64_t>(n, 0);
    c.checkSize({n});
    out = runtime::NDArray::empty({n}, dt);
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = s[0] + i * d[0];
      if (dt == DType::Int64)
        out.as<int64_t>()[i] = v;
      else
        out.as<int32_t>()[i] = static_cast<int32_t>(v);
    }
  } else {
    c.fail("the dtype ", te::dtypeName(dt), " is not supported");
  }
  c.setOutput(0, c.addConstant(std::move(out), {}));
}

void importShape(Ctx& c) {
  c.checkAttrs({"start", "end"});
  te::Shape s = c.shape(0);
  int64_t r = static_cast<int64_t>(s.size());
  int64_t start = c.attrInt("start", 0), end = c.attrInt("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  end = std::max(end, start);  // an empty shape: an empty constant, as ConstantOfShape and Range give
  c.setOutput(0, c.addConstant(int64Tensor(std::vector<int64_t>(s.begin() + start, s.begin() + end)), {}));
}

void importSize(Ctx& c) {
  c.checkAttrs({});
  runtime::NDArray a({}, DType::Int64);
  a.as<int64_t>()[0] = te::shapeElements(c.shape(0));
  c.setOutput(0, c.addConstant(std::move(a), {}));
}

// ONNX's reference implementation (onnx 1.12, whose node tests ttune runs) casts to BFLOAT16 by
// keeping the upper half of the float32 bits: truncation toward zero, where te's cast rounds to
// nearest even. The value is truncated in float32 first, which the cast then represents exactly.
int castTo(Ctx& c, int v, DType to) {
  if (to == DType::BFloat16 && c.val(v).dtype != DType::BFloat16) {
    if (c.val(v).dtype != DType::Float32) v = c.cast(v, DType::Float32, "float32");
    v = c.unary(graph::UnaryKind::TruncBf16, v, "truncate");
  }
  return c.cast(v, to, {});
}

void importCast(Ctx& c) {
  c.checkAttrs({"to", "saturate"});
  if (!c.hasAttr("to")) c.fail("the attribute to is required");
  DType to = DType::Float32;
  try {
    to = dtypeFromOnnx(static_cast<int>(c.attrInt("to", 0)), "the target type");
  } catch (const Error& e) {
    c.fail(e.what());
  }
  c.setOutput(0, castTo(c, c.in(0), to));
}

void importCastLike(Ctx& c) {
  c.checkAttrs({"saturate"});
  c.setOutput(0, castTo(c, c.in(0), c.dtype(1)));
}

void importIdentity(Ctx& c) {
  c.checkAttrs({});
  c.setOutput(0, c.in(0));
}

void importDropout(Ctx& c) {
  c.checkAttrs({"ratio", "seed"});
  // Training mode drops nothing when the ratio is 0 (torchvision's swin_t exports its attention
  // dropout, p = 0, in training mode): that is the identity too.
  double ratio = c.present(1) ? c.scalar(1, "ratio") : c.attrFloat("ratio", 0.5);
  if (c.has(2) && c.scalar(2, "training_mode") != 0 && ratio != 0)
    c.fail("training mode with a ratio of ", ratio, " is not supported (inference only)");
  int x = c.in(0);
  c.setOutput(0, x);
  if (c.outputUsed(1)) {  // the inference mask keeps everything
    c.checkSize(c.shape(0));
    runtime::NDArray mask(c.shape(0), DType::Bool);
    mask.fill(1);
    c.setOutput(1, c.addConstant(std::move(mask), "mask"));
  }
}

void importGather(Ctx& c) {
  c.checkAttrs({"axis"});
  if (!te::isInt(c.dtype(1))) c.fail("the indices must be int32 or int64");
  int64_t axis = normAxis(c, c.attrInt("axis", 0), c.rank(0));
  if (c.isConst(1)) {  // ONNX rejects out-of-range indices; graph's gather would wrap them
    int64_t dim = c.shape(0)[axis];
    for (int64_t i : c.ints(1, "indices"))
      if (i < -dim || i >= dim) c.fail("index ", i, " is out of range for axis ", axis, " of extent ", dim);
  }
  c.setOutput(0, c.emit(graph::GatherAttrs{axis}, {c.in(0), c.in(1)}));
}

void importPad(Ctx& c) {
  c.checkAttrs({"mode"});
  std::string mode = c.attrString("mode", "constant");
  ops::PadMode pm;
  if (mode == "constant")
    pm = ops::PadMode::Constant;
  else if (mode == "edge")
    pm = ops::PadMode::Edge;
  else if (mode == "reflect")
    pm = ops::PadMode::Reflect;
  else
    c.fail("mode ", mode, " is not supported");
  size_t r = c.rank(0);
  std::vector<int64_t> pads = c.ints(1, "pads");
  if (pads.size() != 2 * r) c.fail("has ", pads.size(), " pads for a tensor of rank ", r, " (needs ", 2 * r, ")");
  double value = c.present(2) ? c.scalar(2, "constant_value") : 0.0;
  // Negative pads crop: a slice first, then the non-negative padding.
  std::vector<int64_t> before(r), after(r), starts, ends, axes;
  bool crop = false, pad = false;
  for (size_t d = 0; d < r; ++d) {
    int64_t b = pads[d], a = pads[d + r], n = c.shape(0)[d];
    if (b < 0 || a < 0) {
      crop = true;
      starts.push_back(std::max<int64_t>(-b, 0));
      ends.push_back(n - std::max<int64_t>(-a, 0));
      axes.push_back(static_cast<int64_t>(d));
      if (ends.back() <= starts.back()) c.fail("the pads crop axis ", d, " to nothing");
    }
    before[d] = std::max<int64_t>(b, 0);
    after[d] = std::max<int64_t>(a, 0);
    pad = pad || before[d] > 0 || after[d] > 0;
  }
  int x = c.in(0);
  if (crop) x = c.emit(graph::SliceAttrs{starts, ends, axes, {}}, {x}, pad ? "crop" : "");
  if (pad) x = c.emit(graph::PadAttrs{before, after, value, pm}, {x});
  c.setOutput(0, x);
}

}  // namespace

void addTensorOps(OpTable& t) {
  t["Constant"] = importConstant;
  t["ConstantOfShape"] = importConstantOfShape;
  t["Range"] = importRange;
  t["Shape"] = importShape;
  t["Size"] = importSize;
  t["Cast"] = importCast;
  t["CastLike"] = importCastLike;
  t["Identity"] = importIdentity;
  t["Dropout"] = importDropout;
  t["Gather"] = importGather;
  t["Pad"] = importPad;
}

}  // namespace ttune::frontend::detail
