// The registered operators of the registry (see registry.h), one function per operator family;
// the indexing family is in registry_ops_indexing.cc.
#include <cmath>

#include "ops/ops.h"
#include "ops/registry.h"
#include "ops/registry_ops_internal.h"
#include "ops/winograd.h"
#include "support/error.h"

namespace ttune::ops {

std::vector<OpEntry> registeredOps();

namespace {
te::Tensor makeInput(const Params& p, const std::string& name, const te::Shape& shape, te::DType dtype, bool constant) {
  for (int64_t d : shape)
    TT_CHECK_ARG(d > 0, p.opName(), ": the parameters give ", name, " the shape ", te::shapeToString(shape),
                 "; every dimension must be positive");
  return te::placeholder(name, shape, dtype, constant);
}
}  // namespace

namespace registry_detail {

ParamSpec I(std::string name, int64_t def, std::string help) {
  return {std::move(name), ParamValue(def), std::move(help)};
}
ParamSpec F(std::string name, double def, std::string help) {
  return {std::move(name), ParamValue(def), std::move(help)};
}
ParamSpec S(std::string name, std::string def, std::string help) {
  return {std::move(name), ParamValue(std::move(def)), std::move(help)};
}

te::Tensor activation(const Params& p, const std::string& name, const te::Shape& shape, te::DType dtype) {
  return makeInput(p, name, shape, dtype, false);
}
te::Tensor constant(const Params& p, const std::string& name, const te::Shape& shape, te::DType dtype) {
  return makeInput(p, name, shape, dtype, true);
}

}  // namespace registry_detail

namespace {

using te::DType;
using namespace registry_detail;

// "2" -> {2, 2}; "2,1" -> {2, 1}.
Hw hwParam(const Params& p, const std::string& name) {
  std::vector<int64_t> v = p.ints(name);
  TT_CHECK_ARG(v.size() == 1 || v.size() == 2, p.opName(), ": parameter '", name,
               "' takes one integer or two (height,width), got '", p.str(name), "'");
  return v.size() == 1 ? Hw{v[0], v[0]} : Hw{v[0], v[1]};
}

// "1" -> all sides; "1,2" -> {top/bottom, left/right}; "t,l,b,r".
Pad4 padParam(const Params& p, const std::string& name) {
  std::vector<int64_t> v = p.ints(name);
  TT_CHECK_ARG(v.size() == 1 || v.size() == 2 || v.size() == 4, p.opName(), ": parameter '", name,
               "' takes 1, 2 (height,width) or 4 (top,left,bottom,right) integers, got '", p.str(name), "'");
  if (v.size() == 1) return {v[0], v[0], v[0], v[0]};
  if (v.size() == 2) return {v[0], v[1], v[0], v[1]};
  return {v[0], v[1], v[2], v[3]};
}

// A 4-D activation shape: `shape` when given, else N x C x H x W.
Shape nchwShape(const Params& p) {
  if (!p.str("shape").empty()) return p.shape("shape");
  return {p.integer("N"), p.integer("C"), p.integer("H"), p.integer("W")};
}

std::vector<ParamSpec> nchwSpecs(int64_t n, int64_t c, int64_t h, int64_t w) {
  return {I("N", n, "batch size"), I("C", c, "channels"), I("H", h, "height"), I("W", w, "width"),
          S("shape", "", "input shape like 1x64x56x56 (overrides N, C, H, W)")};
}

std::vector<ParamSpec> convSpecs(int64_t c, int64_t hw) {
  return {I("N", 1, "batch size"),
          I("C", c, "input channels"),
          I("H", hw, "input height"),
          I("W", hw, "input width"),
          I("R", 3, "kernel height"),
          I("S", 3, "kernel width"),
          S("stride", "1", "stride: h or h,w"),
          S("pad", "0", "zero padding: p, h,w or top,left,bottom,right"),
          S("dilation", "1", "dilation: d or h,w"),
          S("layout", "NCHW", "NCHW (weights OIHW) or NHWC (weights HWIO)")};
}

bool nhwcLayout(const Params& p) {
  const std::string& l = p.str("layout");
  TT_CHECK_ARG(l == "NCHW" || l == "NHWC", p.opName(), ": parameter 'layout' must be NCHW or NHWC, got '", l, "'");
  return l == "NHWC";
}

Shape dataShape(const Params& p, bool nhwc) {
  int64_t N = p.integer("N"), C = p.integer("C"), H = p.integer("H"), W = p.integer("W");
  return nhwc ? Shape{N, H, W, C} : Shape{N, C, H, W};
}

// A pooling input: `shape` as given (in the layout's order), else N, C, H, W in the layout's order.
Shape poolShape(const Params& p, bool nhwc) {
  if (!p.str("shape").empty()) return p.shape("shape");
  return dataShape(p, nhwc);
}

// The operand types of a product: "fp32", or an int8 kernel's "u8s8" (QDQ's unsigned
// activations times signed weights), "s8s8", "u8u8" or "s8u8".
ParamSpec precisionSpec() {
  return S("precision", "fp32", "operand types: fp32, or int8 as u8s8, s8s8, u8u8, s8u8 (int32 result)");
}
std::pair<DType, DType> operandTypes(const Params& p) {
  const std::string& v = p.str("precision");
  if (v == "fp32") return {DType::Float32, DType::Float32};
  auto byte = [](char c) { return c == 'u' ? DType::UInt8 : DType::Int8; };
  TT_CHECK_ARG(
      v.size() == 4 && (v[0] == 'u' || v[0] == 's') && v[1] == '8' && (v[2] == 'u' || v[2] == 's') && v[3] == '8',
      p.opName(), ": parameter 'precision' must be fp32, u8s8, s8s8, u8u8 or s8u8, got '", v, "'");
  return {byte(v[0]), byte(v[2])};
}

OpInstance convInstance(const Params& p, bool bias_relu) {
  bool nhwc = nhwcLayout(p);
  int64_t C = p.integer("C"), K = p.integer("K"), R = p.integer("R"), S = p.integer("S"), g = p.integer("groups");
  TT_CHECK_ARG(g > 0 && C % g == 0, p.opName(), ": C=", C, " must be a positive multiple of groups=", g);
  auto [dt, wt] = operandTypes(p);
  te::Tensor data = activation(p, "data", dataShape(p, nhwc), dt);
  te::Tensor weight = constant(p, "weight", nhwc ? Shape{R, S, C / g, K} : Shape{K, C / g, R, S}, wt);
  te::Tensor out = nhwc
                       ? conv2d_nhwc(data, weight, hwParam(p, "stride"), padParam(p, "pad"), hwParam(p, "dilation"), g)
                       : conv2d_nchw(data, weight, hwParam(p, "stride"), padParam(p, "pad"), hwParam(p, "dilation"), g);
  if (!bias_relu) return {{data, weight}, {out}};
  te::Tensor bias = constant(p, "bias", nhwc ? Shape{K} : Shape{K, 1, 1}, out.dtype());
  if (out.dtype() == DType::Float32) return {{data, weight, bias}, {relu(add(out, bias))}};
  // int8: the quantized layer's epilogue -- int32 bias, per-channel scale, round half to even,
  // relu and saturation as one clip to uint8 (what a QDQ convolution with relu computes).
  te::Tensor scale = constant(p, "scale", nhwc ? Shape{K} : Shape{K, 1, 1});
  te::Tensor y = mul(cast(add(out, bias), DType::Float32), scale);
  y = unaryOp("round", y, [](const te::Expr& e) { return te::round(e); });
  return {{data, weight, bias, scale}, {cast(clip(y, 0, 255), DType::UInt8)}};
}

OpEntry unaryEntry(std::string name, std::string summary, std::vector<ParamSpec> extra,
                   std::function<te::Tensor(const te::Tensor&, const Params&)> fn) {
  std::vector<ParamSpec> specs = nchwSpecs(1, 64, 56, 56);
  specs.insert(specs.end(), extra.begin(), extra.end());
  return {name,
          summary,
          specs,
          [fn](const Params& p) -> OpInstance {
            te::Tensor x = activation(p, "x", nchwShape(p));
            return {{x}, {fn(x, p)}};
          },
          {"C=3", "H=5", "W=7"}};
}

OpEntry binaryEntry(std::string name, std::string summary, te::Tensor (*fn)(const te::Tensor&, const te::Tensor&)) {
  return {name,
          summary,
          {S("a_shape", "1x64x56x56", "shape of the first operand"),
           S("b_shape", "1x64x56x56", "shape of the second operand (numpy broadcasting)")},
          [fn](const Params& p) -> OpInstance {
            te::Tensor a = activation(p, "A", p.shape("a_shape"));
            te::Tensor b = activation(p, "B", p.shape("b_shape"));
            return {{a, b}, {fn(a, b)}};
          },
          {"a_shape=2x3x5", "b_shape=3x1"}};
}

OpEntry reduceEntry(std::string name, te::Tensor (*fn)(const te::Tensor&, const std::vector<int64_t>&, bool)) {
  return {name,
          name.substr(7) + " over axes",
          {S("shape", "1x64x56x56", "input shape"), S("axes", "2,3", "reduced axes (empty: all)"),
           I("keepdims", 1, "keep reduced axes with extent 1")},
          [fn](const Params& p) -> OpInstance {
            te::Tensor x = activation(p, "x", p.shape("shape"));
            return {{x}, {fn(x, p.ints("axes"), p.flag("keepdims"))}};
          },
          {"shape=2x3x5x4"}};
}

PadMode padMode(const Params& p) {
  const std::string& m = p.str("mode");
  if (m == "constant") return PadMode::Constant;
  if (m == "edge") return PadMode::Edge;
  if (m == "reflect") return PadMode::Reflect;
  fail(p.opName(), ": parameter 'mode' must be constant, edge or reflect, got '", m, "'");
}

DType dtypeParam(const Params& p, const std::string& name) {
  std::optional<DType> t = te::parseDType(p.str(name));
  TT_CHECK_ARG(t.has_value(), p.opName(), ": parameter '", name, "' must be float32, int32, int64 or bool, got '",
               p.str(name), "'");
  return *t;
}

// Convolution, dense, matmul.
void addConvolutionOps(std::vector<OpEntry>& ops) {
  {
    std::vector<ParamSpec> specs = convSpecs(64, 56);
    specs.insert(specs.begin() + 4, I("K", 64, "output channels"));
    specs.push_back(I("groups", 1, "channel groups"));
    specs.push_back(precisionSpec());
    std::vector<std::string> example = {"C=4", "H=9", "W=7", "K=6", "stride=2", "pad=1"};
    ops.push_back({"conv2d", "2-D convolution (grouped when groups > 1)", specs,
                   [](const Params& p) { return convInstance(p, false); }, example});
    ops.push_back({"conv2d_bias_relu", "conv2d + per-channel bias + relu (a fused kernel; int8: requantized to uint8)",
                   specs, [](const Params& p) { return convInstance(p, true); }, example});
  }
  {
    std::vector<ParamSpec> specs = convSpecs(32, 112);
    specs.insert(specs.begin() + 4, I("multiplier", 1, "output channels per input channel"));
    for (ParamSpec& s : specs)
      if (s.name == "pad") s.default_value = std::string("1");
    specs.push_back(precisionSpec());
    ops.push_back({"depthwise_conv2d",
                   "depthwise 2-D convolution (groups = C)",
                   specs,
                   [](const Params& p) -> OpInstance {
                     bool nhwc = nhwcLayout(p);
                     int64_t C = p.integer("C"), m = p.integer("multiplier"), R = p.integer("R"), S = p.integer("S");
                     auto [dt, wt] = operandTypes(p);
                     te::Tensor data = activation(p, "data", dataShape(p, nhwc), dt);
                     te::Tensor w = constant(p, "weight", nhwc ? Shape{R, S, 1, C * m} : Shape{C * m, 1, R, S}, wt);
                     Hw st = hwParam(p, "stride"), dil = hwParam(p, "dilation");
                     Pad4 pd = padParam(p, "pad");
                     te::Tensor out = nhwc ? depthwise_conv2d_nhwc(data, w, st, pd, dil)
                                           : depthwise_conv2d_nchw(data, w, st, pd, dil);
                     return {{data, w}, {out}};
                   },
                   {"C=4", "H=8", "W=7", "multiplier=2", "stride=2"}});
  }
  {
    // The three Winograd kernels of a stride-1 3x3 NHWC convolution (ops/winograd.h); the filter
    // is given already transformed ([a, a, C, K], a = m + 2), as the winograd pass stores it.
    std::vector<ParamSpec> specs = {I("N", 1, "batch"),
                                    I("H", 56, "input height"),
                                    I("W", 56, "input width"),
                                    I("C", 64, "input channels"),
                                    I("K", 64, "output channels"),
                                    I("m", 4, "output tile (2 or 4)"),
                                    S("pad", "1", "padding: one value, height,width, or top,left,bottom,right")};
    ops.push_back(
        {"winograd_input",
         "Winograd input transform B^T d B of every tile (NHWC input)",
         specs,
         [](const Params& p) -> OpInstance {
           te::Tensor data = activation(p, "data", {p.integer("N"), p.integer("H"), p.integer("W"), p.integer("C")});
           return {{data}, {winograd_input(data, p.integer("m"), padParam(p, "pad"))}};
         },
         {"H=7", "W=9", "C=5", "m=4"}});
    ops.push_back({"winograd_conv2d",
                   "3x3 stride-1 convolution as the Winograd matrix product and output transform, with bias "
                   "and relu (the kernel after winograd_input)",
                   specs,
                   [](const Params& p) -> OpInstance {
                     int64_t N = p.integer("N"), H = p.integer("H"), W = p.integer("W"), K = p.integer("K"),
                             m = p.integer("m");
                     TT_CHECK_ARG(m == 2 || m == 4, "winograd_conv2d: m must be 2 or 4, not ", m);
                     Pad4 pd = padParam(p, "pad");
                     int64_t OH = H + pd[0] + pd[2] - 2, OW = W + pd[1] + pd[3] - 2;
                     TT_CHECK_ARG(OH > 0 && OW > 0, "winograd_conv2d: a 3x3 window does not fit the padded input");
                     int64_t a = m + 2, P = N * ((OH + m - 1) / m) * ((OW + m - 1) / m);
                     te::Tensor tiles = activation(p, "tiles", {a, a, P, p.integer("C")});
                     te::Tensor u = constant(p, "weight", {a, a, p.integer("C"), K});
                     te::Tensor b = constant(p, "bias", {K});
                     return {{tiles, u, b}, {relu(add(winograd_output(batch_matmul(tiles, u), m, N, OH, OW), b))}};
                   },
                   {"H=7", "W=9", "C=5", "K=6", "m=4"}});
  }
  std::vector<ParamSpec> mnk = {I("M", 128, "rows"), I("N", 768, "columns"), I("K", 768, "reduction length")};
  std::vector<ParamSpec> mnkp = mnk;
  mnkp.push_back(precisionSpec());
  ops.push_back({"dense",
                 "x[M,K] * w[N,K]^T",
                 mnkp,
                 [](const Params& p) -> OpInstance {
                   auto [xt, wt] = operandTypes(p);
                   te::Tensor x = activation(p, "x", {p.integer("M"), p.integer("K")}, xt);
                   te::Tensor w = constant(p, "weight", {p.integer("N"), p.integer("K")}, wt);
                   return {{x, w}, {dense(x, w)}};
                 },
                 {"M=5", "N=7", "K=9"}});
  ops.push_back({"dense_gelu",
                 "dense + bias + gelu (a fused kernel)",
                 mnk,
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", {p.integer("M"), p.integer("K")});
                   te::Tensor w = constant(p, "weight", {p.integer("N"), p.integer("K")});
                   te::Tensor b = constant(p, "bias", {p.integer("N")});
                   return {{x, w, b}, {gelu(add(dense(x, w), b))}};
                 },
                 {"M=5", "N=7", "K=9"}});
  {
    std::vector<ParamSpec> specs = mnkp;
    specs.push_back(I("transpose_a", 0, "A is stored [K, M]"));
    specs.push_back(I("transpose_b", 0, "B is stored [N, K]"));
    ops.push_back({"matmul",
                   "A[M,K] * B[K,N] (both activations)",
                   specs,
                   [](const Params& p) -> OpInstance {
                     int64_t M = p.integer("M"), N = p.integer("N"), K = p.integer("K");
                     bool ta = p.flag("transpose_a"), tb = p.flag("transpose_b");
                     auto [at, bt] = operandTypes(p);
                     te::Tensor a = activation(p, "A", ta ? Shape{K, M} : Shape{M, K}, at);
                     te::Tensor b = activation(p, "B", tb ? Shape{N, K} : Shape{K, N}, bt);
                     return {{a, b}, {matmul(a, b, ta, tb)}};
                   },
                   {"M=5", "N=7", "K=9", "transpose_b=1"}});
    specs = {I("B", 12, "batch"),
             I("M", 128, "rows"),
             I("N", 128, "columns"),
             I("K", 64, "reduction length"),
             I("transpose_a", 0, "A is stored [B, K, M]"),
             I("transpose_b", 0, "B is stored [B, N, K]"),
             precisionSpec()};
    ops.push_back({"batch_matmul",
                   "A[B,M,K] * B[B,K,N]",
                   specs,
                   [](const Params& p) -> OpInstance {
                     int64_t B = p.integer("B"), M = p.integer("M"), N = p.integer("N"), K = p.integer("K");
                     bool ta = p.flag("transpose_a"), tb = p.flag("transpose_b");
                     auto [at, bt] = operandTypes(p);
                     te::Tensor a = activation(p, "A", ta ? Shape{B, K, M} : Shape{B, M, K}, at);
                     te::Tensor b = activation(p, "B", tb ? Shape{B, N, K} : Shape{B, K, N}, bt);
                     return {{a, b}, {batch_matmul(a, b, ta, tb)}};
                   },
                   {"B=3", "M=5", "N=4", "K=6"}});
  }
}

// Max, average and global pooling.
void addPoolingOps(std::vector<OpEntry>& ops) {
  {
    std::vector<ParamSpec> specs = nchwSpecs(1, 64, 112, 112);
    specs.push_back(S("kernel", "3", "window: k or h,w"));
    specs.push_back(S("stride", "2", "stride: s or h,w"));
    specs.push_back(S("pad", "1", "padding: p, h,w or top,left,bottom,right"));
    specs.push_back(I("ceil_mode", 0, "round the output size up (ONNX/PyTorch rule)"));
    ParamSpec layout = S("layout", "NCHW", "NCHW or NHWC");
    specs.push_back(layout);
    std::vector<ParamSpec> max_specs = specs;
    max_specs.push_back(S("dilation", "1", "dilation: d or h,w"));
    ops.push_back({"max_pool2d",
                   "2-D max pooling",
                   max_specs,
                   [](const Params& p) -> OpInstance {
                     bool nhwc = nhwcLayout(p);
                     te::Tensor x = activation(p, "x", poolShape(p, nhwc));
                     return {{x},
                             {max_pool2d(x, hwParam(p, "kernel"), hwParam(p, "stride"), padParam(p, "pad"),
                                         hwParam(p, "dilation"), p.flag("ceil_mode"), nhwc)}};
                   },
                   {"C=3", "H=9", "W=8", "ceil_mode=1"}});
    std::vector<ParamSpec> avg_specs = specs;
    avg_specs.push_back(I("count_include_pad", 0, "divide by the window size including explicit padding"));
    ops.push_back({"avg_pool2d",
                   "2-D average pooling",
                   avg_specs,
                   [](const Params& p) -> OpInstance {
                     bool nhwc = nhwcLayout(p);
                     te::Tensor x = activation(p, "x", poolShape(p, nhwc));
                     return {{x},
                             {avg_pool2d(x, hwParam(p, "kernel"), hwParam(p, "stride"), padParam(p, "pad"),
                                         p.flag("ceil_mode"), p.flag("count_include_pad"), nhwc)}};
                   },
                   {"C=3", "H=9", "W=8", "ceil_mode=1"}});
    ops.push_back({"global_avg_pool2d",
                   "mean over H and W (NCHW -> N x C x 1 x 1, NHWC -> N x 1 x 1 x C)",
                   [&] {
                     std::vector<ParamSpec> g = nchwSpecs(1, 2048, 7, 7);
                     g.push_back(layout);
                     return g;
                   }(),
                   [](const Params& p) -> OpInstance {
                     bool nhwc = nhwcLayout(p);
                     te::Tensor x = activation(p, "x", poolShape(p, nhwc));
                     return {{x}, {global_avg_pool2d(x, nhwc)}};
                   },
                   {"C=5", "H=3", "W=4"}});
  }
}

// Unary and binary elementwise operators.
void addElementwiseOps(std::vector<OpEntry>& ops) {
  auto simple = [&](const std::string& name, const std::string& summary, te::Tensor (*fn)(const te::Tensor&)) {
    ops.push_back(unaryEntry(name, summary, {}, [fn](const te::Tensor& x, const Params&) { return fn(x); }));
  };
  simple("relu", "max(x, 0)", relu);
  simple("relu6", "clip(x, 0, 6)", relu6);
  simple("sigmoid", "1 / (1 + exp(-x))", sigmoid);
  simple("tanh", "tanh(x)", tanh);
  simple("exp", "exp(x)", exp);
  simple("log", "log(x)", log);
  simple("sqrt", "sqrt(x)", sqrt);
  simple("erf", "erf(x)", erf);
  simple("gelu", "0.5 x (1 + erf(x / sqrt(2)))", gelu);
  simple("silu", "x sigmoid(x)", silu);
  simple("hardswish", "x clip(x + 3, 0, 6) / 6", hardswish);
  simple("neg", "-x", neg);
  simple("abs", "|x|", abs);
  ops.push_back(unaryEntry("clip", "min(max(x, min), max)",
                           {F("min", 0.0, "lower bound"), F("max", 6.0, "upper bound")},
                           [](const te::Tensor& x, const Params& p) { return clip(x, p.real("min"), p.real("max")); }));
  ops.push_back(unaryEntry("leaky_relu", "x if x >= 0 else alpha x", {F("alpha", 0.01, "negative slope")},
                           [](const te::Tensor& x, const Params& p) { return leaky_relu(x, p.real("alpha")); }));
  ops.push_back(
      unaryEntry("hardsigmoid", "clip(alpha x + beta, 0, 1)", {F("alpha", 0.2, "slope"), F("beta", 0.5, "offset")},
                 [](const te::Tensor& x, const Params& p) { return hardsigmoid(x, p.real("alpha"), p.real("beta")); }));
  ops.push_back(unaryEntry(
      "scale_shift", "x * scale + shift", {F("scale", 2.0, "factor"), F("shift", 1.0, "offset")},
      [](const te::Tensor& x, const Params& p) { return scale_shift(x, p.real("scale"), p.real("shift")); }));
  ops.push_back(binaryEntry("add", "a + b (broadcasting)", add));
  ops.push_back(binaryEntry("sub", "a - b (broadcasting)", sub));
  ops.push_back(binaryEntry("mul", "a * b (broadcasting)", mul));
  ops.push_back(binaryEntry("div", "a / b (broadcasting)", div));
  ops.push_back(binaryEntry("maximum", "max(a, b) (broadcasting)", maximum));
  ops.push_back(binaryEntry("minimum", "min(a, b) (broadcasting)", minimum));
  ops.push_back(binaryEntry("pow", "a ^ b (broadcasting)", pow));
  ops.push_back({"where",
                 "cond ? a : b (broadcasting; cond is bool)",
                 {S("cond_shape", "1x1x56x56", "shape of the bool condition"), S("a_shape", "1x64x56x56", "shape of a"),
                  S("b_shape", "1x64x1x1", "shape of b")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor c = activation(p, "cond", p.shape("cond_shape"), DType::Bool);
                   te::Tensor a = activation(p, "A", p.shape("a_shape"));
                   te::Tensor b = activation(p, "B", p.shape("b_shape"));
                   return {{c, a, b}, {where(c, a, b)}};
                 },
                 {"cond_shape=1x5", "a_shape=3x5", "b_shape=3x1"}});
}

// Reductions and normalizations.
void addReductionOps(std::vector<OpEntry>& ops) {
  ops.push_back({"softmax",
                 "softmax along an axis",
                 {S("shape", "1x12x128x128", "input shape"), I("axis", -1, "softmax axis")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   return {{x}, {softmax(x, p.integer("axis"))}};
                 },
                 {"shape=2x3x7"}});
  ops.push_back({"layer_norm",
                 "layer normalization over the trailing dimensions from axis",
                 {S("shape", "1x128x768", "input shape"), I("axis", -1, "first normalized axis"),
                  F("epsilon", 1e-5, "added to the variance")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   int64_t ax = normalizeAxis(p.opName(), p.integer("axis"), x.ndim());
                   Shape inner(x.shape().begin() + ax, x.shape().end());
                   te::Tensor gamma = constant(p, "gamma", inner), beta = constant(p, "beta", inner);
                   return {{x, gamma, beta}, {layer_norm(x, gamma, beta, ax, p.real("epsilon"))}};
                 },
                 {"shape=3x4x10"}});
  ops.push_back(reduceEntry("reduce_sum", reduce_sum));
  ops.push_back(reduceEntry("reduce_mean", reduce_mean));
  ops.push_back(reduceEntry("reduce_max", reduce_max));
  ops.push_back(reduceEntry("reduce_min", reduce_min));
  {
    std::vector<ParamSpec> specs = nchwSpecs(1, 64, 56, 56);
    specs.push_back(F("epsilon", 1e-5, "added to the variance"));
    ops.push_back({"batch_norm",
                   "inference batch normalization on channel axis 1",
                   specs,
                   [](const Params& p) -> OpInstance {
                     te::Tensor x = activation(p, "x", nchwShape(p));
                     Shape c = {x.shape()[1]};
                     te::Tensor g = constant(p, "gamma", c), b = constant(p, "beta", c);
                     te::Tensor m = constant(p, "mean", c), v = constant(p, "var", c);
                     return {{x, g, b, m, v}, {batch_norm_inference(x, g, b, m, v, p.real("epsilon"))}};
                   },
                   {"C=3", "H=5", "W=4"}});
  }
  ops.push_back({"lrn",
                 "local response normalization across channels",
                 {S("shape", "1x96x55x55", "input shape (NCHW)"), I("size", 5, "window of channels"),
                  F("alpha", 1e-4, "scale"), F("beta", 0.75, "exponent"), F("bias", 1.0, "offset")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   return {{x}, {lrn(x, p.integer("size"), p.real("alpha"), p.real("beta"), p.real("bias"))}};
                 },
                 {"shape=1x7x3x20", "size=3"}});
}

// Injective operators: padding, layout and shape changes, gathers, casts.
void addInjectiveOps(std::vector<OpEntry>& ops) {
  ops.push_back({"pad",
                 "pad every axis (ONNX Pad)",
                 {S("shape", "1x64x56x56", "input shape"),
                  S("pads", "0,0,1,1,0,0,1,1", "ONNX order: all leading pads, then all trailing pads"),
                  F("value", 0.0, "fill value (constant mode)"), S("mode", "constant", "constant, edge or reflect")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   std::vector<int64_t> pads = p.ints("pads");
                   TT_CHECK_ARG(pads.size() == 2 * x.ndim(), p.opName(), ": parameter 'pads' needs ", 2 * x.ndim(),
                                " integers for a tensor of rank ", x.ndim(), ", got ", pads.size());
                   std::vector<int64_t> before(pads.begin(), pads.begin() + x.ndim()),
                       after(pads.begin() + x.ndim(), pads.end());
                   return {{x}, {pad(x, before, after, p.real("value"), padMode(p))}};
                 },
                 {"shape=2x3x4x5", "mode=reflect"}});
  ops.push_back({"concat",
                 "concatenate along an axis",
                 {S("shapes", "1x64x28x28,1x32x28x28", "comma-separated input shapes"), I("axis", 1, "axis")},
                 [](const Params& p) -> OpInstance {
                   std::vector<te::Tensor> xs;
                   std::vector<Shape> shapes = p.shapes("shapes");
                   for (size_t i = 0; i < shapes.size(); ++i)
                     xs.push_back(activation(p, indexedName("x", i), shapes[i]));
                   return {xs, {concat(xs, p.integer("axis"))}};
                 },
                 {"shapes=2x3x4,2x5x4,2x1x4"}});
  ops.push_back({"reshape",
                 "row-major reshape",
                 {S("shape", "1x64x7x7", "input shape"), S("new_shape", "1x3136", "output shape")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   return {{x}, {reshape(x, p.shape("new_shape"))}};
                 },
                 {"shape=2x3x4", "new_shape=4x6"}});
  ops.push_back({"flatten",
                 "ONNX Flatten to 2-D",
                 {S("shape", "1x64x7x7", "input shape"), I("axis", 1, "split axis")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   return {{x}, {flatten(x, p.integer("axis"))}};
                 },
                 {"shape=2x3x4"}});
  ops.push_back(
      {"transpose",
       "permute axes",
       {S("shape", "1x128x12x64", "input shape"), S("perm", "0,2,1,3", "output axis d is input axis perm[d]")},
       [](const Params& p) -> OpInstance {
         te::Tensor x = activation(p, "x", p.shape("shape"));
         return {{x}, {transpose(x, p.ints("perm"))}};
       },
       {"shape=2x3x4x5"}});
  ops.push_back({"slice",
                 "ONNX Slice",
                 {S("shape", "1x64x56x56", "input shape"), S("starts", "1,1", "start per axis"),
                  S("ends", "-1,-1", "end per axis (exclusive)"), S("axes", "2,3", "sliced axes (empty: 0..n-1)"),
                  S("steps", "", "steps (empty: 1)")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   return {{x}, {slice(x, p.ints("starts"), p.ints("ends"), p.ints("axes"), p.ints("steps"))}};
                 },
                 {"shape=2x3x9x8", "starts=1,-1", "ends=-1,0", "steps=2,-1"}});
  ops.push_back(
      {"gather",
       "ONNX Gather (e.g. an embedding lookup)",
       {S("data_shape", "30522x768", "shape of the table"), S("indices_shape", "1x128", "shape of the indices"),
        I("axis", 0, "gathered axis"), S("index_dtype", "int64", "int64 or int32")},
       [](const Params& p) -> OpInstance {
         DType it = dtypeParam(p, "index_dtype");
         TT_CHECK_ARG(te::isInt(it), p.opName(), ": parameter 'index_dtype' must be int32 or int64");
         te::Tensor ids = activation(p, "indices", p.shape("indices_shape"), it);
         te::Tensor table = constant(p, "data", p.shape("data_shape"));
         return {{ids, table}, {gather(table, ids, p.integer("axis"))}};
       },
       {"data_shape=11x6", "indices_shape=2x3"}});
  ops.push_back({"expand",
                 "ONNX Expand (bidirectional broadcast)",
                 {S("shape", "1x64x1x1", "input shape"), S("to", "1x64x56x56", "target shape")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   return {{x}, {expand(x, p.shape("to"))}};
                 },
                 {"shape=3x1", "to=2x3x4"}});
  ops.push_back({"cast",
                 "convert the element type",
                 {S("shape", "1x64x56x56", "input shape"), S("dtype", "int32", "float32, int32, int64 or bool")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   return {{x}, {cast(x, dtypeParam(p, "dtype"))}};
                 },
                 {"shape=3x4"}});
}

}  // namespace

std::vector<OpEntry> registeredOps() {
  std::vector<OpEntry> ops;
  addConvolutionOps(ops);
  addPoolingOps(ops);
  addElementwiseOps(ops);
  addReductionOps(ops);
  addInjectiveOps(ops);
  registry_detail::addIndexingOps(ops);
  return ops;
}

}  // namespace ttune::ops
