// ONNX Conv and ConvTranspose of one to three spatial dimensions, all lowered to conv2d
// (nn_common.h).
//
// ConvTranspose is the sum, over kernel taps k and inputs i, of x[i] * w[k] into y[i*s + k*d - p].
// Split the (uncropped) output by phase r = position mod s: phase r receives exactly the taps
// k*d = r (mod s), and as a function of u = position div s it is an ordinary stride-1 correlation
// of x with those taps reversed. With the dilated kernel (zero taps between the real ones) every
// phase has ceil(((k-1)*d+1) / s) taps on the same input offsets, so all s_1*...*s_n phases are one
// convolution whose output channels are (group, phase, channel): its weight is a gather of w (zero
// where a phase has fewer taps), folded at import when w is constant. The phases are then
// interleaved (a reshape and a transpose) and the padding cropped. This does only the multiply-adds
// a transposed convolution needs (no zeros inserted into the input), and the work lands on conv2d,
// its defaults, sketches and transfer classes; a 2x2 stride-2 up-convolution becomes a 1x1
// convolution with four times the output channels.
#include <algorithm>
#include <cstdlib>

#include "frontend/onnx/int8_products.h"
#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

void requireFloat(const Ctx& c, int i) {
  if (!te::isComputeFloat(c.dtype(i)))
    c.fail(c.inputLabel(i), " has dtype ", te::dtypeName(c.dtype(i)),
           ", but only float32 and float64 are supported here");
}

void requireFloat32(const Ctx& c, int i) {
  if (c.dtype(i) != te::DType::Float32)
    c.fail(c.inputLabel(i), " has dtype ", te::dtypeName(c.dtype(i)), ", but only float32 is supported here");
}

namespace {

// Window sizes beyond any real tensor only overflow the output-size arithmetic.
constexpr int64_t kMaxWindow = int64_t(1) << 31;

std::vector<int64_t> listAttr(const Ctx& c, const char* name, int64_t def, size_t n, size_t spatial) {
  std::vector<int64_t> v = c.attrInts(name);
  if (v.empty()) v.assign(n, def);
  if (v.size() != n) c.fail("attribute ", name, " has ", v.size(), " values for ", spatial, " spatial dimensions");
  return v;
}

void checkRank(const Ctx& c, const char* what) {
  size_t r = c.rank(0);
  if (r < 3 || r > 5) c.fail("the input has rank ", r, ", but ", what, " needs rank 3, 4 or 5 (N, C, spatial...)");
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

WindowNd readWindowNd(const Ctx& c, const std::vector<int64_t>& kernel, const std::vector<int64_t>& in,
                      bool has_dilations) {
  size_t s = kernel.size();
  WindowNd w;
  w.strides = listAttr(c, "strides", 1, s, s);
  w.dilation = has_dilations ? listAttr(c, "dilations", 1, s, s) : std::vector<int64_t>(s, 1);
  w.pads = listAttr(c, "pads", 0, 2 * s, s);
  for (size_t d = 0; d < s; ++d) {
    if (w.strides[d] <= 0 || w.dilation[d] <= 0 || kernel[d] <= 0)
      c.fail("kernel, strides and dilations must be positive");
    if (w.pads[d] < 0 || w.pads[d + s] < 0) c.fail("negative pads ", listStr(w.pads), " are not supported");
    if (w.strides[d] > kMaxWindow || w.dilation[d] > kMaxWindow || kernel[d] > kMaxWindow || w.pads[d] > kMaxWindow ||
        w.pads[d + s] > kMaxWindow)
      c.fail("the window (kernel ", listStr(kernel), ", strides ", listStr(w.strides), ", dilations ",
             listStr(w.dilation), ", pads ", listStr(w.pads), ") has a value above 2^31");
  }
  std::string auto_pad = c.attrString("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t d = 0; d < s; ++d) {
      int64_t out = ceilDiv(in[d], w.strides[d]);
      int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[d] + (kernel[d] - 1) * w.dilation[d] + 1 - in[d]);
      int64_t small = total / 2;
      w.pads[d] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.pads[d + s] = total - w.pads[d];
    }
  } else if (auto_pad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (auto_pad != "NOTSET") {
    c.fail("auto_pad ", auto_pad, " is not supported");
  }
  return w;
}

int addBias(Ctx& c, int y, int bias, std::string_view tag) {
  te::Shape ys = c.val(y).shape;
  int64_t m = ys[1];
  if (c.val(bias).shape != te::Shape{m})
    c.fail("the bias has shape ", te::shapeToString(c.val(bias).shape), " for ", m, " output channels");
  te::Shape bs(ys.size(), 1);
  bs[1] = m;
  int b = c.reshape(bias, bs, std::string(tag) + "_" + std::to_string(ys.size()) + "d");
  return c.binary(graph::BinaryKind::Add, y, b, tag);
}

int emitConvNd(Ctx& c, int x, int w, const WindowNd& win, int64_t groups, std::string_view tag, int bias,
               int64_t pad_value) {
  te::Shape xs = c.val(x).shape, ws = c.val(w).shape;
  size_t s = xs.size() - 2;
  auto sub = [&](std::string_view t) { return tag.empty() ? std::string(t) : std::string(tag) + "_" + std::string(t); };
  // The bias is added to the 4-D conv2d output, where fusion folds it into the convolution.
  auto withBias = [&](int y) { return bias < 0 ? y : addBias(c, y, bias, sub("bias")); };
  if (s <= 2) {
    graph::Conv2dAttrs a;
    a.groups = groups;
    a.pad_value = pad_value;
    if (s == 2) {
      a.strides = {win.strides[0], win.strides[1]};
      a.dilation = {win.dilation[0], win.dilation[1]};
      a.pads = {win.pads[0], win.pads[1], win.pads[2], win.pads[3]};
      return withBias(c.emit(a, {x, w}, tag));
    }
    a.strides = {1, win.strides[0]};
    a.dilation = {1, win.dilation[0]};
    a.pads = {0, win.pads[0], 0, win.pads[1]};
    int x4 = c.reshape(x, {xs[0], xs[1], 1, xs[2]}, sub("input_2d"));
    int w4 = c.reshape(w, {ws[0], ws[1], 1, ws[2]}, sub("weight_2d"));
    int y = withBias(c.emit(a, {x4, w4}, tag));
    te::Shape ys = c.val(y).shape;
    return c.reshape(y, {ys[0], ys[1], ys[3]}, sub("output_1d"));
  }
  // 3-D: the kd depth taps become input channels, the output depths the batch.
  int64_t n = xs[0], ch = xs[1], depth = xs[2], h = xs[3], wd = xs[4];
  int64_t kd = ws[2], sd = win.strides[0], dd = win.dilation[0], pb = win.pads[0], pe = win.pads[3];
  int64_t od = (depth + pb + pe - ((kd - 1) * dd + 1)) / sd + 1;
  if (depth + pb + pe < (kd - 1) * dd + 1)
    c.fail("the kernel depth ", kd, " does not fit the padded input depth ", depth + pb + pe);
  int xp = x;
  if (pb > 0 || pe > 0)
    xp = c.emit(
        graph::PadAttrs{{0, 0, pb, 0, 0}, {0, 0, pe, 0, 0}, static_cast<double>(pad_value), ops::PadMode::Constant},
        {x}, sub("pad_depth"));
  // One gather of the kd taps of every output depth: [N, C, D', kd, H, W], then channels-major.
  runtime::NDArray taps({od, kd}, te::DType::Int64);
  for (int64_t o = 0; o < od; ++o)
    for (int64_t j = 0; j < kd; ++j) taps.as<int64_t>()[o * kd + j] = o * sd + j * dd;
  int stacked =
      c.emit(graph::GatherAttrs{2}, {xp, c.addConstant(std::move(taps), sub("depth_taps"))}, sub("depth_taps"));
  stacked = c.transpose(stacked, {0, 2, 1, 3, 4, 5}, sub("taps_as_channels"));
  int x4 = c.reshape(stacked, {n * od, ch * kd, h, wd}, sub("input_2d"));
  int w4 = c.reshape(w, {ws[0], ws[1] * kd, ws[3], ws[4]}, sub("weight_2d"));
  graph::Conv2dAttrs a;
  a.groups = groups;
  a.pad_value = pad_value;
  a.strides = {win.strides[1], win.strides[2]};
  a.dilation = {win.dilation[1], win.dilation[2]};
  a.pads = {win.pads[1], win.pads[2], win.pads[4], win.pads[5]};
  int y = withBias(c.emit(a, {x4, w4}, tag));
  te::Shape ys = c.val(y).shape;
  y = c.reshape(y, {n, od, ys[1], ys[2], ys[3]}, sub("output_5d"));
  return c.transpose(y, {0, 2, 1, 3, 4}, sub("output_ncdhw"));
}

namespace {

void importConv(Ctx& c) {
  c.checkAttrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  checkRank(c, "convolution");
  requireFloat(c, 0);
  te::Shape ws = c.shape(1), xs = c.shape(0);
  if (ws.size() != xs.size()) c.fail("the weight has rank ", ws.size(), " but the input has rank ", xs.size());
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  std::vector<int64_t> ks = c.attrInts("kernel_shape");
  if (!ks.empty() && ks != kernel)
    c.fail("kernel_shape ", listStr(ks), " does not match the weight shape ", te::shapeToString(ws));
  WindowNd w = readWindowNd(c, kernel, std::vector<int64_t>(xs.begin() + 2, xs.end()), true);
  int64_t groups = c.attrInt("group", 1);
  if (groups <= 0) c.fail("group ", groups, " must be positive");
  int bias = c.has(2) ? c.in(2, "bias") : -1;
  // Dequantized 8-bit operands (QDQ): the convolution runs on the integers (int8_products.h).
  const Dequantized* dx = c.dequantized(c.in(0));
  const Dequantized* dw = c.dequantized(c.in(1, "weight"));
  if (dx && dw) {
    const int64_t outputs = ws[0];
    std::optional<std::vector<int64_t>> ib = bias >= 0 ? integerBias(c, bias, *dx, *dw, outputs) : std::nullopt;
    Dequantized x = *dx, wq = *dw;  // copies: the map may grow below
    if (std::optional<IntegerProduct> p = integerConv(c, x, wq, w, groups, ib ? &*ib : nullptr)) {
      int y = scaledToFloat(c, *p, 1, 1.0);
      if (bias >= 0 && !ib) y = addBias(c, y, bias, "bias");
      c.setOutput(0, y);
      return;
    }
  }
  c.setOutput(0, emitConvNd(c, c.in(0), c.in(1, "weight"), w, groups, {}, bias));
}

void importConvTranspose(Ctx& c) {
  c.checkAttrs({"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"});
  checkRank(c, "transposed convolution");
  requireFloat(c, 0);
  requireFloat(c, 1);
  te::Shape xs = c.shape(0), ws = c.shape(1);
  size_t s = xs.size() - 2;
  if (ws.size() != xs.size()) c.fail("the weight has rank ", ws.size(), " but the input has rank ", xs.size());
  int64_t groups = c.attrInt("group", 1);
  if (groups <= 0 || xs[1] % groups != 0) c.fail("group ", groups, " does not divide the ", xs[1], " input channels");
  if (ws[0] != xs[1])
    c.fail("the weight ", te::shapeToString(ws), " has ", ws[0], " input channels, the input ", xs[1]);
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  std::vector<int64_t> ks = c.attrInts("kernel_shape");
  if (!ks.empty() && ks != kernel)
    c.fail("kernel_shape ", listStr(ks), " does not match the weight shape ", te::shapeToString(ws));
  std::vector<int64_t> strides = listAttr(c, "strides", 1, s, s), dil = listAttr(c, "dilations", 1, s, s);
  std::vector<int64_t> out_pad = listAttr(c, "output_padding", 0, s, s), pads = listAttr(c, "pads", 0, 2 * s, s);
  std::vector<int64_t> out_shape = c.attrInts("output_shape");
  if (out_shape.size() == s + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (!out_shape.empty() && out_shape.size() != s)
    c.fail("output_shape ", listStr(out_shape), " does not have one value per spatial dimension");
  std::string auto_pad = c.attrString("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    c.fail("auto_pad ", auto_pad, " is not supported");

  // Per axis: full (uncropped) length q, the crop [begin, begin + out), the phase convolution's
  // taps and pads.
  std::vector<int64_t> ke(s), q(s), begin(s), out(s), taps(s), lc(s);
  WindowNd win;
  win.strides.assign(s, 1);
  win.dilation.assign(s, 1);
  win.pads.assign(2 * s, 0);
  for (size_t d = 0; d < s; ++d) {
    if (strides[d] <= 0 || dil[d] <= 0 || kernel[d] <= 0 || out_pad[d] < 0)
      c.fail("kernel, strides and dilations must be positive and output_padding not negative");
    if (strides[d] > kMaxWindow || dil[d] > kMaxWindow || kernel[d] > kMaxWindow || out_pad[d] > kMaxWindow ||
        std::abs(pads[d]) > kMaxWindow || std::abs(pads[d + s]) > kMaxWindow)
      c.fail("the window (kernel ", listStr(kernel), ", strides ", listStr(strides), ", dilations ", listStr(dil),
             ") has a value above 2^31");
    ke[d] = (kernel[d] - 1) * dil[d] + 1;
    q[d] = strides[d] * (xs[d + 2] - 1) + ke[d] + out_pad[d];
    int64_t pb = pads[d], pe = pads[d + s];
    if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      int64_t want = !out_shape.empty() ? out_shape[d] : xs[d + 2] * strides[d];
      int64_t total = q[d] - want;
      // ONNX: SAME_UPPER puts the odd padding at the end, anything else at the beginning; a
      // negative total (an output_shape beyond the full length) rounds as ONNX's reference
      // does (floor), which extends the output at the end.
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      pb = auto_pad == "SAME_UPPER" ? half : total - half;
      pe = total - pb;
    } else if (auto_pad == "VALID") {
      pb = pe = 0;
    }
    begin[d] = pb;
    out[d] = q[d] - pb - pe;
    if (out[d] <= 0) c.fail("the output would have ", out[d], " positions along spatial axis ", d);
    taps[d] = ceilDiv(ke[d], strides[d]);
    int64_t u = ceilDiv(q[d], strides[d]);
    win.pads[d] = taps[d] - 1;
    win.pads[d + s] = std::max<int64_t>(0, u - xs[d + 2]);
    lc[d] = xs[d + 2] + win.pads[d + s];
  }

  // The phase convolution's weight [groups * phases * Mg, C/groups, taps...] as indices into w
  // flattened, with w's element count standing for a zero tap.
  int64_t cg = xs[1] / groups, mg = ws[1], phases = 1, kprod = 1, tprod = 1;
  for (size_t d = 0; d < s; ++d) phases *= strides[d], kprod *= kernel[d], tprod *= taps[d];
  int64_t wcount = te::shapeElements(ws);
  te::Shape pws{groups * phases * mg, cg};
  pws.insert(pws.end(), taps.begin(), taps.end());
  runtime::NDArray idx(pws, te::DType::Int64);
  c.checkSize(pws);
  int64_t* ip = idx.as<int64_t>();
  std::vector<int64_t> r(s), t(s);
  for (int64_t oc = 0; oc < pws[0]; ++oc) {
    int64_t grp = oc / (phases * mg), p = oc / mg % phases, mm = oc % mg;
    for (size_t d = s; d-- > 0;) r[d] = p % strides[d], p /= strides[d];
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t tf = 0; tf < tprod; ++tf) {
        int64_t rest = tf, kflat = 0;
        bool valid = true;
        for (size_t d = s; d-- > 0;) t[d] = rest % taps[d], rest /= taps[d];
        for (size_t d = 0; d < s; ++d) {
          int64_t e = r[d] + (taps[d] - 1 - t[d]) * strides[d];  // tap of the dilated kernel
          valid = valid && e < ke[d] && e % dil[d] == 0;
          kflat = kflat * kernel[d] + (valid ? e / dil[d] : 0);
        }
        *ip++ = valid ? ((grp * cg + ci) * mg + mm) * kprod + kflat : wcount;
      }
  }
  int wflat = c.reshape(c.in(1, "weight"), {wcount}, "weight_flat");
  int zero = c.reshape(c.scalarConstant(0.0, te::DType::Float32, "zero_tap"), {1}, "zero_tap_1d");
  int wz = c.emit(graph::ConcatAttrs{0}, {wflat, zero}, "weight_taps");
  int pw = c.emit(graph::GatherAttrs{0}, {wz, c.addConstant(std::move(idx), "phase_taps")}, "phase_weight");
  int y = emitConvNd(c, c.in(0), pw, win, groups, {});

  // Interleave the phases: [N, g, s_a.., Mg, lc..] -> [N, g, Mg, (lc_d, s_d)..] -> [N, M, lc_d*s_d..].
  int64_t n = xs[0], m = groups * mg;
  std::vector<size_t> strided;
  for (size_t d = 0; d < s; ++d)
    if (strides[d] > 1) strided.push_back(d);
  if (!strided.empty()) {
    te::Shape split{n, groups};
    for (size_t d : strided) split.push_back(strides[d]);
    split.push_back(mg);
    for (size_t d = 0; d < s; ++d) split.push_back(lc[d]);
    y = c.reshape(y, split, "phases");
    int64_t mg_axis = 2 + static_cast<int64_t>(strided.size()), lc0 = mg_axis + 1;
    std::vector<int64_t> perm{0, 1, mg_axis};
    te::Shape merged{n, m};
    size_t k = 0;
    for (size_t d = 0; d < s; ++d) {
      perm.push_back(lc0 + static_cast<int64_t>(d));
      if (k < strided.size() && strided[k] == d) perm.push_back(2 + static_cast<int64_t>(k++));
      merged.push_back(lc[d] * strides[d]);
    }
    y = c.transpose(y, perm, "interleave");
    y = c.reshape(y, merged, "interleaved");
  }

  // Crop to [begin, begin + out); negative pads (an output_shape beyond the full length) add zeros.
  std::vector<int64_t> st, en, axes, before(s + 2, 0), after(s + 2, 0);
  bool crop = false, pad = false;
  for (size_t d = 0; d < s; ++d) {
    int64_t full = lc[d] * strides[d], lo = std::max<int64_t>(0, begin[d]), hi = std::min(full, begin[d] + out[d]);
    if (lo != 0 || hi != full) crop = true;
    st.push_back(lo), en.push_back(hi), axes.push_back(static_cast<int64_t>(d + 2));
    before[d + 2] = std::max<int64_t>(0, -begin[d]);
    after[d + 2] = std::max<int64_t>(0, begin[d] + out[d] - full);
    pad = pad || before[d + 2] > 0 || after[d + 2] > 0;
  }
  if (crop) y = c.emit(graph::SliceAttrs{st, en, axes, std::vector<int64_t>(s, 1)}, {y}, "crop");
  if (pad) y = c.emit(graph::PadAttrs{before, after, 0.0, ops::PadMode::Constant}, {y}, "extend");
  if (c.has(2)) y = addBias(c, y, c.in(2, "bias"), "bias");
  c.setOutput(0, y);
}

}  // namespace

void addConvOps(OpTable& t) {
  t["Conv"] = importConv;
  t["ConvTranspose"] = importConvTranspose;
}

}  // namespace ttune::frontend::detail
