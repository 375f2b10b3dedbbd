#include "ops/nn.h"

#include "ops/transform.h"
#include "support/error.h"

namespace ttune::ops {

using te::DType;
using te::Expr;
using te::IterVar;
using te::Var;

namespace {

void checkWindowAttrs(std::string_view op, const Hw& strides, const Pad4& padding, const Hw& dilation) {
  TT_CHECK_ARG(strides[0] > 0 && strides[1] > 0, op, ": strides must be positive, got ", listToString(strides));
  TT_CHECK_ARG(dilation[0] > 0 && dilation[1] > 0, op, ": dilations must be positive, got ", listToString(dilation));
  for (int64_t p : padding) TT_CHECK_ARG(p >= 0, op, ": padding must be non-negative, got ", listToString(padding));
}

// The element types of a product's operands:
//   Float  float32 (or float64: the expressions promote), summed as they are;
//   Int8   8-bit integers of either signedness, widened to int32 and summed in int32 (an int8
//          kernel: exact, with int32's wrap-around as the only overflow, far beyond any real
//          reduction: 65793 terms of the largest products);
//   Bf16   bfloat16, widened to float32 (exactly) and summed in float32 (a bf16 kernel).
enum class Operands { Float, Int8, Bf16 };

// Throws naming the operator unless both operands are of one kind.
Operands operandKind(std::string_view op, const Tensor& a, const Tensor& b, std::string_view role_a,
                     std::string_view role_b) {
  bool a8 = te::is8BitInt(a.dtype()), b8 = te::is8BitInt(b.dtype());
  if (a8 || b8) {
    TT_CHECK_ARG(a8 && b8, op, ": the ", role_a, " has dtype ", te::dtypeName(a.dtype()), " and the ", role_b, " ",
                 te::dtypeName(b.dtype()), ", but an integer product needs both int8 or uint8");
    return Operands::Int8;
  }
  bool ah = a.dtype() == DType::BFloat16, bh = b.dtype() == DType::BFloat16;
  if (ah || bh) {
    TT_CHECK_ARG(ah && bh, op, ": the ", role_a, " has dtype ", te::dtypeName(a.dtype()), " and the ", role_b, " ",
                 te::dtypeName(b.dtype()), ", but a bfloat16 product needs both bfloat16");
    return Operands::Bf16;
  }
  checkDType(op, a, DType::Float32, role_a);
  checkDType(op, b, DType::Float32, role_b);
  return Operands::Float;
}

// One term of a product's sum, its operands widened as `kind` says.
Expr term(const Expr& a, const Expr& b, Operands kind) {
  switch (kind) {
    case Operands::Float:
      return a * b;
    case Operands::Int8:
      return te::cast(DType::Int32, a) * te::cast(DType::Int32, b);
    case Operands::Bf16:
      return te::cast(DType::Float32, a) * te::cast(DType::Float32, b);
  }
  return a * b;
}

int64_t windowOut(std::string_view op, const char* dim, int64_t in, int64_t pb, int64_t pa, int64_t k, int64_t s,
                  int64_t d) {
  int64_t out = convOutputSize(in, pb, pa, k, s, d);
  TT_CHECK_ARG(out > 0, op, ": the kernel ", dim, " ", k, " (dilation ", d, ") spans ", d * (k - 1) + 1,
               " but the padded input ", dim, " is only ", in + pb + pa);
  return out;
}

// Shared by the four public convolution functions; `op` names the caller in error messages.
Tensor conv2dImpl(std::string_view op, bool nhwc, const Tensor& data, const Tensor& weight, Hw st, Pad4 pad4, Hw dil,
                  int64_t groups, int64_t pad_value) {
  checkRank(op, data, 4, "input");
  checkRank(op, weight, 4, "weight");
  const Operands kind = operandKind(op, data, weight, "input", "weight");
  TT_CHECK_ARG(pad_value == 0 || (kind == Operands::Int8 && pad_value >= te::intTypeMin(data.dtype()) &&
                                  pad_value <= te::intTypeMax(data.dtype())),
               op, ": the padding value ", pad_value, " is not a value of the ", te::dtypeName(data.dtype()), " input");
  checkWindowAttrs(op, st, pad4, dil);
  TT_CHECK_ARG(groups >= 1, op, ": groups must be positive, got ", groups);
  const Shape& ds = data.shape();
  const Shape& ws = weight.shape();
  int64_t N = ds[0], C = nhwc ? ds[3] : ds[1], H = nhwc ? ds[1] : ds[2], W = nhwc ? ds[2] : ds[3];
  int64_t K = nhwc ? ws[3] : ws[0], Cg = nhwc ? ws[2] : ws[1], R = nhwc ? ws[0] : ws[2], S = nhwc ? ws[1] : ws[3];
  TT_CHECK_ARG(C % groups == 0, op, ": ", C, " input channels are not divisible by groups=", groups);
  TT_CHECK_ARG(C == Cg * groups, op, ": input has ", C, " channels but the weight expects ", Cg * groups,
               " (groups=", groups, ")");
  TT_CHECK_ARG(K % groups == 0, op, ": ", K, " output channels are not divisible by groups=", groups);
  int64_t OH = windowOut(op, "height", H, pad4[0], pad4[2], R, st[0], dil[0]);
  int64_t OW = windowOut(op, "width", W, pad4[1], pad4[3], S, st[1], dil[1]);

  Tensor in = data;
  if (pad4[0] || pad4[1] || pad4[2] || pad4[3]) {
    double v = static_cast<double>(pad_value);
    in = nhwc ? pad(data, {0, pad4[0], pad4[1], 0}, {0, pad4[2], pad4[3], 0}, v)
              : pad(data, {0, 0, pad4[0], pad4[1]}, {0, 0, pad4[2], pad4[3]}, v);
  }
  IterVar ry = te::reduceAxis(R, "ry"), rx = te::reduceAxis(S, "rx");
  auto row = [&](const Var& yy) { return Expr(yy) * st[0] + Expr(ry.var) * dil[0]; };
  auto col = [&](const Var& xx) { return Expr(xx) * st[1] + Expr(rx.var) * dil[1]; };

  if (Cg == 1) {
    // One input channel per group: output channel ff reads input channel ff / m.
    int64_t m = K / C;
    std::string name = nhwc ? "depthwise_conv2d_nhwc" : "depthwise_conv2d_nchw";
    if (nhwc) {
      return te::compute(
          name, {N, OH, OW, K},
          [&](const std::vector<Var>& v) {
            const Var &nn = v[0], &yy = v[1], &xx = v[2], &ff = v[3];
            return te::sum(term(in(nn, row(yy), col(xx), Expr(ff) / m), weight(ry.var, rx.var, 0, ff), kind), {ry, rx});
          },
          te::OpTag::Convolution, {"nn", "yy", "xx", "ff"});
    }
    return te::compute(
        name, {N, K, OH, OW},
        [&](const std::vector<Var>& v) {
          const Var &nn = v[0], &ff = v[1], &yy = v[2], &xx = v[3];
          return te::sum(term(in(nn, Expr(ff) / m, row(yy), col(xx)), weight(ff, 0, ry.var, rx.var), kind), {ry, rx});
        },
        te::OpTag::Convolution, {"nn", "ff", "yy", "xx"});
  }

  IterVar rc = te::reduceAxis(Cg, "rc");
  int64_t Kg = K / groups;
  auto channel = [&](const Var& ff) { return groups == 1 ? Expr(rc.var) : (Expr(ff) / Kg) * Cg + rc.var; };
  if (nhwc) {
    return te::compute("conv2d_nhwc", {N, OH, OW, K},
                       [&](const std::vector<Var>& v) {
                         const Var &nn = v[0], &yy = v[1], &xx = v[2], &ff = v[3];
                         return te::sum(
                             term(in(nn, row(yy), col(xx), channel(ff)), weight(ry.var, rx.var, rc.var, ff), kind),
                             {ry, rx, rc});
                       },
                       te::OpTag::Convolution, {"nn", "yy", "xx", "ff"});
  }
  return te::compute("conv2d_nchw", {N, K, OH, OW},
                     [&](const std::vector<Var>& v) {
                       const Var &nn = v[0], &ff = v[1], &yy = v[2], &xx = v[3];
                       return te::sum(
                           term(in(nn, channel(ff), row(yy), col(xx)), weight(ff, rc.var, ry.var, rx.var), kind),
                           {rc, ry, rx});
                     },
                     te::OpTag::Convolution, {"nn", "ff", "yy", "xx"});
}

Tensor depthwiseImpl(std::string_view op, bool nhwc, const Tensor& data, const Tensor& weight, Hw st, Pad4 pad4, Hw dil,
                     int64_t pad_value) {
  checkRank(op, data, 4, "input");
  checkRank(op, weight, 4, "weight");
  int64_t C = nhwc ? data.shape()[3] : data.shape()[1];
  int64_t K = nhwc ? weight.shape()[3] : weight.shape()[0];
  int64_t Cw = nhwc ? weight.shape()[2] : weight.shape()[1];
  TT_CHECK_ARG(Cw == 1, op, ": the weight ", te::shapeToString(weight.shape()),
               " must have one input channel per group, not ", Cw);
  TT_CHECK_ARG(K % C == 0, op, ": the weight has ", K, " output channels, not a multiple of the ", C,
               " input channels");
  return conv2dImpl(op, nhwc, data, weight, st, pad4, dil, C, pad_value);
}

}  // namespace

int64_t convOutputSize(int64_t in, int64_t pad_before, int64_t pad_after, int64_t kernel, int64_t stride,
                       int64_t dilation) {
  int64_t span = in + pad_before + pad_after - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  return span / stride + 1;
}

Tensor conv2d_nchw(const Tensor& data, const Tensor& weight, Hw strides, Pad4 padding, Hw dilation, int64_t groups,
                   int64_t pad_value) {
  return conv2dImpl("conv2d_nchw", false, data, weight, strides, padding, dilation, groups, pad_value);
}

Tensor conv2d_nhwc(const Tensor& data, const Tensor& weight, Hw strides, Pad4 padding, Hw dilation, int64_t groups,
                   int64_t pad_value) {
  return conv2dImpl("conv2d_nhwc", true, data, weight, strides, padding, dilation, groups, pad_value);
}

Tensor depthwise_conv2d_nchw(const Tensor& data, const Tensor& weight, Hw strides, Pad4 padding, Hw dilation,
                             int64_t pad_value) {
  return depthwiseImpl("depthwise_conv2d_nchw", false, data, weight, strides, padding, dilation, pad_value);
}

Tensor depthwise_conv2d_nhwc(const Tensor& data, const Tensor& weight, Hw strides, Pad4 padding, Hw dilation,
                             int64_t pad_value) {
  return depthwiseImpl("depthwise_conv2d_nhwc", true, data, weight, strides, padding, dilation, pad_value);
}

Tensor dense(const Tensor& x, const Tensor& w) {
  checkRank("dense", x, 2, "input");
  checkRank("dense", w, 2, "weight");
  const Operands kind = operandKind("dense", x, w, "input", "weight");
  int64_t M = x.shape()[0], K = x.shape()[1], N = w.shape()[0];
  TT_CHECK_ARG(w.shape()[1] == K, "dense: the input ", te::shapeToString(x.shape()), " has ", K,
               " features but the weight ", te::shapeToString(w.shape()), " (laid out [N, K]) expects ", w.shape()[1]);
  IterVar k = te::reduceAxis(K, "k");
  return te::compute(
      "dense", {M, N},
      [&](const std::vector<Var>& v) { return te::sum(term(x(v[0], k.var), w(v[1], k.var), kind), {k}); },
      te::OpTag::Dense, {"i", "j"});
}

Tensor matmul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  checkRank("matmul", a, 2, "first operand");
  checkRank("matmul", b, 2, "second operand");
  const Operands kind = operandKind("matmul", a, b, "first operand", "second operand");
  const Shape &as = a.shape(), &bs = b.shape();
  int64_t M = ta ? as[1] : as[0], Ka = ta ? as[0] : as[1];
  int64_t Kb = tb ? bs[1] : bs[0], N = tb ? bs[0] : bs[1];
  TT_CHECK_ARG(Ka == Kb, "matmul: the inner dimensions differ: ", te::shapeToString(as), ta ? " (transposed)" : "",
               " has K=", Ka, " but ", te::shapeToString(bs), tb ? " (transposed)" : "", " has K=", Kb);
  IterVar k = te::reduceAxis(Ka, "k");
  return te::compute("matmul", {M, N},
                     [&](const std::vector<Var>& v) {
                       Expr x = ta ? a(k.var, v[0]) : a(v[0], k.var);
                       Expr y = tb ? b(v[1], k.var) : b(k.var, v[1]);
                       return te::sum(term(x, y, kind), {k});
                     },
                     te::OpTag::Matmul, {"i", "j"});
}

Tensor batch_matmul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  checkMinRank("batch_matmul", a, 2, "first operand");
  checkMinRank("batch_matmul", b, 2, "second operand");
  const Operands kind = operandKind("batch_matmul", a, b, "first operand", "second operand");
  const Shape &as = a.shape(), &bs = b.shape();
  size_t ra = as.size(), rb = bs.size();
  Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  std::optional<Shape> batch = tryBroadcast(a_batch, b_batch);
  TT_CHECK_ARG(batch.has_value(), "batch_matmul: the batch dimensions of ", te::shapeToString(as), " and ",
               te::shapeToString(bs), " do not broadcast");
  int64_t M = ta ? as[ra - 1] : as[ra - 2], Ka = ta ? as[ra - 2] : as[ra - 1];
  int64_t Kb = tb ? bs[rb - 1] : bs[rb - 2], N = tb ? bs[rb - 2] : bs[rb - 1];
  TT_CHECK_ARG(Ka == Kb, "batch_matmul: the inner dimensions differ: ", te::shapeToString(as),
               ta ? " (transposed)" : "", " has K=", Ka, " but ", te::shapeToString(bs), tb ? " (transposed)" : "",
               " has K=", Kb);
  size_t nb = batch->size();
  Shape out = *batch;
  out.push_back(M);
  out.push_back(N);
  std::vector<std::string> names = axisNames("b", nb);
  names.push_back("i");
  names.push_back("j");
  IterVar k = te::reduceAxis(Ka, "k");
  return te::compute(
      "batch_matmul", out,
      [&](const std::vector<Var>& v) {
        std::vector<Var> bv(v.begin(), v.begin() + nb);
        std::vector<Expr> ai = broadcastIndices(a_batch, bv, *batch);
        std::vector<Expr> bi = broadcastIndices(b_batch, bv, *batch);
        const Var &i = v[nb], &j = v[nb + 1];
        ai.push_back(ta ? k.var : i);
        ai.push_back(ta ? i : k.var);
        bi.push_back(tb ? j : k.var);
        bi.push_back(tb ? k.var : j);
        return te::sum(term(a(ai), b(bi), kind), {k});
      },
      te::OpTag::BatchMatmul, names);
}

}  // namespace ttune::ops
