#include "graph/op_attrs.h"

#include "ops/ops.h"
#include "ops/winograd.h"
#include "support/assert.h"
#include "support/error.h"
#include "support/overload.h"
#include "support/strings.h"

namespace ttune::graph {

namespace {

const char* unaryName(UnaryKind k) {
  switch (k) {
    case UnaryKind::Relu:
      return "relu";
    case UnaryKind::LeakyRelu:
      return "leaky_relu";
    case UnaryKind::Clip:
      return "clip";
    case UnaryKind::Sigmoid:
      return "sigmoid";
    case UnaryKind::Tanh:
      return "tanh";
    case UnaryKind::Exp:
      return "exp";
    case UnaryKind::Log:
      return "log";
    case UnaryKind::Sqrt:
      return "sqrt";
    case UnaryKind::Erf:
      return "erf";
    case UnaryKind::Gelu:
      return "gelu";
    case UnaryKind::Silu:
      return "silu";
    case UnaryKind::HardSwish:
      return "hardswish";
    case UnaryKind::HardSigmoid:
      return "hardsigmoid";
    case UnaryKind::Neg:
      return "neg";
    case UnaryKind::Abs:
      return "abs";
    case UnaryKind::Identity:
      return "identity";
    case UnaryKind::Reciprocal:
      return "reciprocal";
    case UnaryKind::Floor:
      return "floor";
    case UnaryKind::Ceil:
      return "ceil";
    case UnaryKind::Not:
      return "not";
    case UnaryKind::Round:
      return "round";
    case UnaryKind::Sin:
      return "sin";
    case UnaryKind::Cos:
      return "cos";
    case UnaryKind::Tan:
      return "tan";
    case UnaryKind::Asin:
      return "asin";
    case UnaryKind::Acos:
      return "acos";
    case UnaryKind::Atan:
      return "atan";
    case UnaryKind::Sinh:
      return "sinh";
    case UnaryKind::Cosh:
      return "cosh";
    case UnaryKind::Asinh:
      return "asinh";
    case UnaryKind::Acosh:
      return "acosh";
    case UnaryKind::Atanh:
      return "atanh";
    case UnaryKind::TruncBf16:
      return "trunc_bf16";
  }
  return "?";
}

const char* binaryName(BinaryKind k) {
  switch (k) {
    case BinaryKind::Add:
      return "add";
    case BinaryKind::Sub:
      return "sub";
    case BinaryKind::Mul:
      return "mul";
    case BinaryKind::Div:
      return "div";
    case BinaryKind::Pow:
      return "pow";
    case BinaryKind::Max:
      return "maximum";
    case BinaryKind::Min:
      return "minimum";
    case BinaryKind::Greater:
      return "greater";
    case BinaryKind::Less:
      return "less";
    case BinaryKind::Equal:
      return "equal";
    case BinaryKind::And:
      return "and";
    case BinaryKind::Or:
      return "or";
    case BinaryKind::Mod:
      return "mod";
    case BinaryKind::FMod:
      return "fmod";
  }
  return "?";
}

const char* reduceName(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum:
      return "reduce_sum";
    case ReduceKind::Mean:
      return "reduce_mean";
    case ReduceKind::Max:
      return "reduce_max";
    case ReduceKind::Min:
      return "reduce_min";
    case ReduceKind::Prod:
      return "reduce_prod";
  }
  return "?";
}

std::string ints(const std::vector<int64_t>& v) {
  return join(v, ",", [](int64_t x) { return std::to_string(x); });
}
template <size_t N>
std::string ints(const std::array<int64_t, N>& v) {
  return ints(std::vector<int64_t>(v.begin(), v.end()));
}

te::UnOp mathOp(UnaryKind k) {
  switch (k) {
    case UnaryKind::Sin:
      return te::UnOp::Sin;
    case UnaryKind::Cos:
      return te::UnOp::Cos;
    case UnaryKind::Tan:
      return te::UnOp::Tan;
    case UnaryKind::Asin:
      return te::UnOp::Asin;
    case UnaryKind::Acos:
      return te::UnOp::Acos;
    case UnaryKind::Atan:
      return te::UnOp::Atan;
    case UnaryKind::Sinh:
      return te::UnOp::Sinh;
    case UnaryKind::Cosh:
      return te::UnOp::Cosh;
    case UnaryKind::Asinh:
      return te::UnOp::Asinh;
    case UnaryKind::Acosh:
      return te::UnOp::Acosh;
    case UnaryKind::Atanh:
      return te::UnOp::Atanh;
    case UnaryKind::TruncBf16:
      return te::UnOp::TruncBf16;
    default:
      break;
  }
  TT_UNREACHABLE("not a math unary");
}

// Integer floor modulo (Mod) or C fmod (FMod, integer or float) of two tensors. A zero integer
// divisor is replaced by 1 so that generated code cannot trap (ONNX leaves it undefined). Float
// fmod is a - trunc(a / b) * b, exact while trunc(a / b) * b is (|a / b| well below 2^24).
te::Tensor modOp(bool fmod, const te::Tensor& l, const te::Tensor& r) {
  TT_CHECK_ARG(l.dtype() == r.dtype(), "mod: operands have dtypes ", te::dtypeName(l.dtype()), " and ",
               te::dtypeName(r.dtype()));
  TT_CHECK_ARG(l.dtype() != te::DType::Bool, "mod: bool operands are not supported");
  if (te::isFloat(l.dtype())) {
    TT_CHECK_ARG(fmod, "mod: float operands need fmod");
    return ops::binaryOp("fmod", l, r, [](const te::Expr& a, const te::Expr& b) {
      te::Expr q = a / b;
      te::Expr t = te::select(q < te::floatImm(0.0), te::ceil(q), te::floor(q));
      return a - t * b;
    });
  }
  return ops::binaryOp(fmod ? "fmod" : "mod", l, r, [fmod](const te::Expr& a, const te::Expr& b) {
    te::Expr zero = te::intImm(0, a.dtype());
    te::Expr d = te::select(b == zero, te::intImm(1, a.dtype()), b);
    te::Expr m = a % d;  // floor modulo: the divisor's sign
    if (!fmod) return m;
    // C fmod has the dividend's sign: step back by one divisor where the signs differ.
    return te::select(m != zero && ((m < zero) != (a < zero)), m - d, m);
  });
}

const te::Tensor& in(const std::vector<te::Tensor>& v, size_t i, const char* op) {
  TT_CHECK_ARG(i < v.size() && v[i].defined(), op, ": missing input ", i);
  return v[i];
}

}  // namespace

std::string opName(const OpAttrs& attrs) {
  return std::visit(Overload{
                        [](const Conv2dAttrs& a) -> std::string {
                          std::string base = a.groups == 1 ? "conv2d" : "group_conv2d";
                          return base + (a.layout == Layout::NCHW ? "_nchw" : "_nhwc");
                        },
                        [](const DenseAttrs&) -> std::string { return "dense"; },
                        [](const MatMulAttrs&) -> std::string { return "matmul"; },
                        [](const Pool2dAttrs& a) -> std::string {
                          return std::string(a.kind == PoolKind::Max ? "max_pool2d" : "avg_pool2d") +
                                 (a.layout == Layout::NHWC ? "_nhwc" : "");
                        },
                        [](const GlobalPool2dAttrs& a) -> std::string {
                          return std::string(a.kind == PoolKind::Max ? "global_max_pool2d" : "global_avg_pool2d") +
                                 (a.layout == Layout::NHWC ? "_nhwc" : "");
                        },
                        [](const UnaryAttrs& a) -> std::string { return unaryName(a.kind); },
                        [](const BinaryAttrs& a) -> std::string { return binaryName(a.kind); },
                        [](const WhereAttrs&) -> std::string { return "where"; },
                        [](const SoftmaxAttrs&) -> std::string { return "softmax"; },
                        [](const LayerNormAttrs&) -> std::string { return "layer_norm"; },
                        [](const ReduceAttrs& a) -> std::string { return reduceName(a.kind); },
                        [](const BatchNormAttrs&) -> std::string { return "batch_norm"; },
                        [](const PadAttrs&) -> std::string { return "pad"; },
                        [](const ConcatAttrs&) -> std::string { return "concat"; },
                        [](const ReshapeAttrs&) -> std::string { return "reshape"; },
                        [](const TransposeAttrs&) -> std::string { return "transpose"; },
                        [](const SliceAttrs&) -> std::string { return "slice"; },
                        [](const GatherAttrs&) -> std::string { return "gather"; },
                        [](const CastAttrs&) -> std::string { return "cast"; },
                        [](const ExpandAttrs&) -> std::string { return "expand"; },
                        [](const WinogradInputAttrs&) -> std::string { return "winograd_input"; },
                        [](const WinogradOutputAttrs&) -> std::string { return "winograd_output"; },
                        [](const RecurrentCellAttrs& a) -> std::string {
                          return a.cell == RecurrentCell::Lstm ? "lstm_cell" : "gru_cell";
                        },
                        [](const ArgReduceAttrs& a) -> std::string { return a.max ? "argmax" : "argmin"; },
                        [](const CumSumAttrs&) -> std::string { return "cumsum"; },
                        [](const HardmaxAttrs&) -> std::string { return "hardmax"; },
                        [](const LrnAttrs&) -> std::string { return "lrn"; },
                        [](const GatherElementsAttrs&) -> std::string { return "gather_elements"; },
                        [](const GatherNdAttrs&) -> std::string { return "gather_nd"; },
                        [](const ScatterElementsAttrs&) -> std::string { return "scatter_elements"; },
                        [](const ScatterNdAttrs&) -> std::string { return "scatter_nd"; },
                        [](const TriluAttrs& a) -> std::string { return a.upper ? "triu" : "tril"; },
                        [](const OneHotAttrs&) -> std::string { return "one_hot"; },
                        [](const TopKAttrs&) -> std::string { return "topk"; },
                        [](const ReverseSequenceAttrs&) -> std::string { return "reverse_sequence"; },
                        [](const MaxUnpoolAttrs&) -> std::string { return "max_unpool"; },
                        [](const GridSampleAttrs&) -> std::string { return "grid_sample"; },
                        [](const RoiAlignAttrs&) -> std::string { return "roi_align"; },
                        [](const MaxPoolIndicesAttrs&) -> std::string { return "max_pool2d_indices"; },
                    },
                    attrs);
}

FusionRole fusionRole(const OpAttrs& attrs) {
  return std::visit(Overload{
                        [](const Conv2dAttrs&) { return FusionRole::Anchor; },
                        [](const DenseAttrs&) { return FusionRole::Anchor; },
                        [](const MatMulAttrs&) { return FusionRole::Anchor; },
                        [](const Pool2dAttrs&) { return FusionRole::Reduction; },
                        [](const GlobalPool2dAttrs&) { return FusionRole::Reduction; },
                        [](const UnaryAttrs&) { return FusionRole::Elementwise; },
                        [](const BinaryAttrs&) { return FusionRole::Elementwise; },
                        [](const WhereAttrs&) { return FusionRole::Elementwise; },
                        [](const SoftmaxAttrs&) { return FusionRole::Reduction; },
                        [](const LayerNormAttrs&) { return FusionRole::Reduction; },
                        [](const ReduceAttrs&) { return FusionRole::Reduction; },
                        [](const BatchNormAttrs&) { return FusionRole::Elementwise; },
                        [](const PadAttrs&) { return FusionRole::Injective; },
                        [](const ConcatAttrs&) { return FusionRole::Injective; },
                        [](const ReshapeAttrs&) { return FusionRole::Injective; },
                        [](const TransposeAttrs&) { return FusionRole::Injective; },
                        [](const SliceAttrs&) { return FusionRole::Injective; },
                        [](const GatherAttrs&) { return FusionRole::Injective; },
                        [](const CastAttrs&) { return FusionRole::Elementwise; },
                        [](const ExpandAttrs&) { return FusionRole::Injective; },
                        // A kernel of its own: fused into the previous anchor it would replace
                        // that kernel's output (often read elsewhere too) by the transformed tiles.
                        [](const WinogradInputAttrs&) { return FusionRole::Reduction; },
                        // Follows its matrix product in the same kernel, with the epilogue.
                        [](const WinogradOutputAttrs&) { return FusionRole::Injective; },
                        // The step's recurrent product absorbs it.
                        [](const RecurrentCellAttrs&) { return FusionRole::Elementwise; },
                        // Reductions (argument reductions, running sums, the searches of
                        // scatters and top-k) are kernels of their own; pure index arithmetic
                        // and gathers are injective.
                        [](const ArgReduceAttrs&) { return FusionRole::Reduction; },
                        [](const CumSumAttrs&) { return FusionRole::Reduction; },
                        [](const HardmaxAttrs&) { return FusionRole::Reduction; },
                        [](const LrnAttrs&) { return FusionRole::Reduction; },
                        [](const GatherElementsAttrs&) { return FusionRole::Injective; },
                        [](const GatherNdAttrs&) { return FusionRole::Injective; },
                        [](const ScatterElementsAttrs&) { return FusionRole::Reduction; },
                        [](const ScatterNdAttrs&) { return FusionRole::Reduction; },
                        [](const TriluAttrs&) { return FusionRole::Injective; },
                        [](const OneHotAttrs&) { return FusionRole::Injective; },
                        [](const TopKAttrs&) { return FusionRole::Reduction; },
                        [](const ReverseSequenceAttrs&) { return FusionRole::Injective; },
                        [](const MaxUnpoolAttrs&) { return FusionRole::Reduction; },
                        [](const GridSampleAttrs&) { return FusionRole::Reduction; },
                        [](const RoiAlignAttrs&) { return FusionRole::Reduction; },
                        [](const MaxPoolIndicesAttrs&) { return FusionRole::Reduction; },
                    },
                    attrs);
}

int numInputs(const OpAttrs& attrs) {
  return std::visit(Overload{
                        [](const Conv2dAttrs&) { return -2; },  // data, weight [, bias]
                        [](const DenseAttrs&) { return 2; },           [](const MatMulAttrs&) { return 2; },
                        [](const UnaryAttrs&) { return 1; },           [](const BinaryAttrs&) { return 2; },
                        [](const WhereAttrs&) { return 3; },           [](const LayerNormAttrs&) { return 3; },
                        [](const BatchNormAttrs&) { return 5; },       [](const ConcatAttrs&) { return -1; },
                        [](const GatherAttrs&) { return 2; },          [](const RecurrentCellAttrs&) { return -1; },
                        [](const GatherElementsAttrs&) { return 2; },  [](const GatherNdAttrs&) { return 2; },
                        [](const ScatterElementsAttrs&) { return 3; }, [](const ScatterNdAttrs&) { return 3; },
                        [](const OneHotAttrs&) { return 2; },          [](const ReverseSequenceAttrs&) { return 2; },
                        [](const MaxUnpoolAttrs&) { return 2; },       [](const GridSampleAttrs&) { return 2; },
                        [](const RoiAlignAttrs&) { return 3; },        [](const auto&) { return 1; },
                    },
                    attrs);
}

std::string attrsToString(const OpAttrs& attrs) {
  return std::visit(
      Overload{
          [](const Conv2dAttrs& a) {
            return "strides=" + ints(a.strides) + " pads=" + ints(a.pads) + " dilation=" + ints(a.dilation) +
                   " groups=" + std::to_string(a.groups) +
                   (a.pad_value ? " pad_value=" + std::to_string(a.pad_value) : "");
          },
          [](const MatMulAttrs& a) {
            return std::string("transpose_a=") + (a.transpose_a ? "1" : "0") +
                   " transpose_b=" + (a.transpose_b ? "1" : "0");
          },
          [](const Pool2dAttrs& a) {
            return "kernel=" + ints(a.kernel) + " strides=" + ints(a.strides) + " pads=" + ints(a.pads) +
                   " dilation=" + ints(a.dilation) + " ceil_mode=" + (a.ceil_mode ? "1" : "0") +
                   " count_include_pad=" + (a.count_include_pad ? "1" : "0");
          },
          [](const UnaryAttrs& a) {
            if (a.kind == UnaryKind::Clip) return "min=" + formatDouble(a.alpha) + " max=" + formatDouble(a.beta);
            if (a.kind == UnaryKind::LeakyRelu) return "alpha=" + formatDouble(a.alpha);
            if (a.kind == UnaryKind::HardSigmoid)
              return "alpha=" + formatDouble(a.alpha) + " beta=" + formatDouble(a.beta);
            return std::string();
          },
          [](const SoftmaxAttrs& a) { return "axis=" + std::to_string(a.axis); },
          [](const LayerNormAttrs& a) {
            return "axis=" + std::to_string(a.axis) + " epsilon=" + formatDouble(a.epsilon);
          },
          [](const ReduceAttrs& a) { return "axes=" + ints(a.axes) + " keepdims=" + (a.keepdims ? "1" : "0"); },
          [](const BatchNormAttrs& a) { return "epsilon=" + formatDouble(a.epsilon); },
          [](const PadAttrs& a) {
            return "before=" + ints(a.before) + " after=" + ints(a.after) + " value=" + formatDouble(a.value) +
                   " mode=" + std::to_string(static_cast<int>(a.mode));
          },
          [](const ConcatAttrs& a) { return "axis=" + std::to_string(a.axis); },
          [](const ReshapeAttrs& a) { return "shape=" + ints(a.shape); },
          [](const TransposeAttrs& a) { return "perm=" + ints(a.perm); },
          [](const SliceAttrs& a) {
            return "starts=" + ints(a.starts) + " ends=" + ints(a.ends) + " axes=" + ints(a.axes) +
                   " steps=" + ints(a.steps);
          },
          [](const GatherAttrs& a) { return "axis=" + std::to_string(a.axis); },
          [](const CastAttrs& a) { return std::string("to=") + te::dtypeName(a.to); },
          [](const ExpandAttrs& a) { return "shape=" + ints(a.shape); },
          [](const WinogradInputAttrs& a) { return "m=" + std::to_string(a.m) + " pads=" + ints(a.pads); },
          [](const WinogradOutputAttrs& a) {
            return "m=" + std::to_string(a.m) + " n=" + std::to_string(a.n) + " out_h=" + std::to_string(a.out_h) +
                   " out_w=" + std::to_string(a.out_w);
          },
          [](const RecurrentCellAttrs& a) { return "clip=" + formatDouble(a.clip); },
          [](const ArgReduceAttrs& a) {
            return "axis=" + std::to_string(a.axis) + " keepdims=" + (a.keepdims ? "1" : "0") +
                   " select_last_index=" + (a.select_last ? "1" : "0");
          },
          [](const CumSumAttrs& a) {
            return "axis=" + std::to_string(a.axis) + " exclusive=" + (a.exclusive ? "1" : "0") +
                   " reverse=" + (a.reverse ? "1" : "0");
          },
          [](const HardmaxAttrs& a) { return "axis=" + std::to_string(a.axis); },
          [](const LrnAttrs& a) {
            return "size=" + std::to_string(a.size) + " alpha=" + formatDouble(a.alpha) +
                   " beta=" + formatDouble(a.beta) + " bias=" + formatDouble(a.bias);
          },
          [](const GatherElementsAttrs& a) { return "axis=" + std::to_string(a.axis); },
          [](const GatherNdAttrs& a) { return "batch_dims=" + std::to_string(a.batch_dims); },
          [](const ScatterElementsAttrs& a) {
            return "axis=" + std::to_string(a.axis) + " reduction=" + std::to_string(static_cast<int>(a.reduction));
          },
          [](const ScatterNdAttrs& a) { return "reduction=" + std::to_string(static_cast<int>(a.reduction)); },
          [](const TriluAttrs& a) { return "k=" + std::to_string(a.k); },
          [](const OneHotAttrs& a) { return "axis=" + std::to_string(a.axis) + " depth=" + std::to_string(a.depth); },
          [](const TopKAttrs& a) {
            return "axis=" + std::to_string(a.axis) + " k=" + std::to_string(a.k) +
                   " largest=" + (a.largest ? "1" : "0");
          },
          [](const ReverseSequenceAttrs& a) {
            return "batch_axis=" + std::to_string(a.batch_axis) + " time_axis=" + std::to_string(a.time_axis);
          },
          [](const MaxUnpoolAttrs& a) { return "output_shape=" + ints(a.output_shape); },
          [](const GridSampleAttrs& a) {
            return "mode=" + std::to_string(static_cast<int>(a.mode)) +
                   " padding=" + std::to_string(static_cast<int>(a.padding)) +
                   " align_corners=" + (a.align_corners ? "1" : "0");
          },
          [](const RoiAlignAttrs& a) {
            const ops::RoiAlignParams& p = a.params;
            return "out=" + std::to_string(p.out_h) + "," + std::to_string(p.out_w) +
                   " sampling=" + std::to_string(p.sampling_h) + "," + std::to_string(p.sampling_w) +
                   " spatial_scale=" + formatDouble(p.spatial_scale) + " half_pixel=" + (p.half_pixel ? "1" : "0") +
                   " max=" + (p.max_mode ? "1" : "0");
          },
          [](const MaxPoolIndicesAttrs& a) {
            return "kernel=" + ints(a.pool.kernel) + " strides=" + ints(a.pool.strides) + " pads=" + ints(a.pool.pads) +
                   " dilation=" + ints(a.pool.dilation) + " ceil_mode=" + (a.pool.ceil_mode ? "1" : "0") +
                   " column_major=" + (a.column_major ? "1" : "0");
          },
          [](const auto&) { return std::string(); },
      },
      attrs);
}

namespace {

// A convolution (depthwise when each group is one channel), with its bias when given.
te::Tensor buildConv2d(const Conv2dAttrs& a, const std::vector<te::Tensor>& x) {
  const te::Tensor& data = in(x, 0, "conv2d");
  const te::Tensor& w = in(x, 1, "conv2d");
  bool nchw = a.layout == Layout::NCHW;
  int64_t c = nchw ? data.shape()[1] : data.shape().back();
  te::Tensor y;
  bool depthwise = a.groups > 1 && a.groups == c && (nchw ? w.shape()[1] : w.shape()[2]) == 1;
  if (depthwise)
    y = nchw ? ops::depthwise_conv2d_nchw(data, w, a.strides, a.pads, a.dilation, a.pad_value)
             : ops::depthwise_conv2d_nhwc(data, w, a.strides, a.pads, a.dilation, a.pad_value);
  else
    y = nchw ? ops::conv2d_nchw(data, w, a.strides, a.pads, a.dilation, a.groups, a.pad_value)
             : ops::conv2d_nhwc(data, w, a.strides, a.pads, a.dilation, a.groups, a.pad_value);
  if (x.size() > 2 && x[2].defined()) {
    const te::Tensor& b = x[2];
    TT_CHECK_ARG(b.ndim() == 1 && b.shape()[0] == y.shape()[nchw ? 1 : 3], "conv2d: bias of shape ",
                 te::shapeToString(b.shape()), " does not match ", y.shape()[nchw ? 1 : 3], " output channels");
    te::Tensor bb = nchw ? ops::reshape(b, {1, b.shape()[0], 1, 1}) : b;
    y = ops::add(y, bb);
  }
  return y;
}

te::Tensor buildUnary(const UnaryAttrs& a, const std::vector<te::Tensor>& x) {
  const te::Tensor& v = in(x, 0, unaryName(a.kind));
  switch (a.kind) {
    case UnaryKind::Relu:
      return ops::relu(v);
    case UnaryKind::LeakyRelu:
      return ops::leaky_relu(v, a.alpha);
    case UnaryKind::Clip:
      return ops::clip(v, a.alpha, a.beta);
    case UnaryKind::Sigmoid:
      return ops::sigmoid(v);
    case UnaryKind::Tanh:
      return ops::tanh(v);
    case UnaryKind::Exp:
      return ops::exp(v);
    case UnaryKind::Log:
      return ops::log(v);
    case UnaryKind::Sqrt:
      return ops::sqrt(v);
    case UnaryKind::Erf:
      return ops::erf(v);
    case UnaryKind::Gelu:
      return ops::gelu(v);
    case UnaryKind::Silu:
      return ops::silu(v);
    case UnaryKind::HardSwish:
      return ops::hardswish(v);
    case UnaryKind::HardSigmoid:
      return ops::hardsigmoid(v, a.alpha, a.beta);
    case UnaryKind::Neg:
      return ops::neg(v);
    case UnaryKind::Abs:
      return ops::abs(v);
    case UnaryKind::Identity:
      return ops::unaryOp("identity", v, [](const te::Expr& e) { return e; });
    case UnaryKind::Reciprocal:
      return ops::unaryOp("reciprocal", v, [](const te::Expr& e) { return te::floatImm(1.0) / e; });
    case UnaryKind::Floor:
      return ops::unaryOp("floor", v, [](const te::Expr& e) { return te::floor(e); });
    case UnaryKind::Ceil:
      return ops::unaryOp("ceil", v, [](const te::Expr& e) { return te::ceil(e); });
    case UnaryKind::Not:
      return ops::unaryOp("not", v, [](const te::Expr& e) { return !e; });
    case UnaryKind::Round:
      return ops::unaryOp("round", v, [](const te::Expr& e) { return te::round(e); });
    case UnaryKind::Sin:
    case UnaryKind::Cos:
    case UnaryKind::Tan:
    case UnaryKind::Asin:
    case UnaryKind::Acos:
    case UnaryKind::Atan:
    case UnaryKind::Sinh:
    case UnaryKind::Cosh:
    case UnaryKind::Asinh:
    case UnaryKind::Acosh:
    case UnaryKind::Atanh:
    case UnaryKind::TruncBf16: {
      te::UnOp op = mathOp(a.kind);
      return ops::unaryOp(unaryName(a.kind), v, [op](const te::Expr& e) { return te::unary(op, e); });
    }
  }
  fail("unknown unary operator");
}

te::Tensor buildBinary(const BinaryAttrs& a, const std::vector<te::Tensor>& x) {
  const te::Tensor& l = in(x, 0, binaryName(a.kind));
  const te::Tensor& r = in(x, 1, binaryName(a.kind));
  switch (a.kind) {
    case BinaryKind::Add:
      return ops::add(l, r);
    case BinaryKind::Sub:
      return ops::sub(l, r);
    case BinaryKind::Mul:
      return ops::mul(l, r);
    case BinaryKind::Div:
      return ops::div(l, r);
    case BinaryKind::Pow:
      return ops::pow(l, r);
    case BinaryKind::Max:
      return ops::maximum(l, r);
    case BinaryKind::Min:
      return ops::minimum(l, r);
    case BinaryKind::Greater:
      return ops::greater(l, r);
    case BinaryKind::Less:
      return ops::less(l, r);
    case BinaryKind::Equal:
      return ops::equal(l, r);
    case BinaryKind::And:
      return ops::binaryOp("and", l, r, [](const te::Expr& p, const te::Expr& q) { return p && q; });
    case BinaryKind::Or:
      return ops::binaryOp("or", l, r, [](const te::Expr& p, const te::Expr& q) { return p || q; });
    case BinaryKind::Mod:
    case BinaryKind::FMod:
      return modOp(a.kind == BinaryKind::FMod, l, r);
  }
  fail("unknown binary operator");
}

te::Tensor buildReduce(const ReduceAttrs& a, const std::vector<te::Tensor>& x) {
  const te::Tensor& v = in(x, 0, reduceName(a.kind));
  switch (a.kind) {
    case ReduceKind::Sum:
      return ops::reduce_sum(v, a.axes, a.keepdims);
    case ReduceKind::Mean:
      return ops::reduce_mean(v, a.axes, a.keepdims);
    case ReduceKind::Max:
      return ops::reduce_max(v, a.axes, a.keepdims);
    case ReduceKind::Min:
      return ops::reduce_min(v, a.axes, a.keepdims);
    case ReduceKind::Prod:
      return ops::reduce_prod(v, a.axes, a.keepdims);
  }
  fail("unknown reduction");
}

}  // namespace

te::Tensor buildOp(const OpAttrs& attrs, const std::vector<te::Tensor>& x) {
  return std::visit(
      Overload{
          [&](const Conv2dAttrs& a) { return buildConv2d(a, x); },
          [&](const DenseAttrs&) { return ops::dense(in(x, 0, "dense"), in(x, 1, "dense")); },
          [&](const MatMulAttrs& a) {
            const te::Tensor& l = in(x, 0, "matmul");
            const te::Tensor& r = in(x, 1, "matmul");
            if (l.ndim() == 2 && r.ndim() == 2) return ops::matmul(l, r, a.transpose_a, a.transpose_b);
            return ops::batch_matmul(l, r, a.transpose_a, a.transpose_b);
          },
          [&](const Pool2dAttrs& a) {
            const te::Tensor& d = in(x, 0, "pool2d");
            bool nhwc = a.layout == Layout::NHWC;
            if (a.kind == PoolKind::Max)
              return ops::max_pool2d(d, a.kernel, a.strides, a.pads, a.dilation, a.ceil_mode, nhwc);
            TT_CHECK_ARG(a.dilation == (Hw{1, 1}), "avg_pool2d: dilation is not supported");
            return ops::avg_pool2d(d, a.kernel, a.strides, a.pads, a.ceil_mode, a.count_include_pad, nhwc);
          },
          [&](const GlobalPool2dAttrs& a) {
            const te::Tensor& d = in(x, 0, "global_pool2d");
            bool nhwc = a.layout == Layout::NHWC;
            return a.kind == PoolKind::Max ? ops::global_max_pool2d(d, nhwc) : ops::global_avg_pool2d(d, nhwc);
          },
          [&](const UnaryAttrs& a) { return buildUnary(a, x); },
          [&](const BinaryAttrs& a) { return buildBinary(a, x); },
          [&](const WhereAttrs&) { return ops::where(in(x, 0, "where"), in(x, 1, "where"), in(x, 2, "where")); },
          [&](const SoftmaxAttrs& a) { return ops::softmax(in(x, 0, "softmax"), a.axis); },
          [&](const LayerNormAttrs& a) {
            te::Tensor g = x.size() > 1 ? x[1] : te::Tensor();
            te::Tensor b = x.size() > 2 ? x[2] : te::Tensor();
            return ops::layer_norm(in(x, 0, "layer_norm"), g, b, a.axis, a.epsilon);
          },
          [&](const ReduceAttrs& a) { return buildReduce(a, x); },
          [&](const BatchNormAttrs& a) {
            return ops::batch_norm_inference(in(x, 0, "batch_norm"), in(x, 1, "batch_norm"), in(x, 2, "batch_norm"),
                                             in(x, 3, "batch_norm"), in(x, 4, "batch_norm"), a.epsilon);
          },
          [&](const PadAttrs& a) { return ops::pad(in(x, 0, "pad"), a.before, a.after, a.value, a.mode); },
          [&](const ConcatAttrs& a) {
            TT_CHECK_ARG(!x.empty(), "concat: no inputs");
            return ops::concat(x, a.axis);
          },
          [&](const ReshapeAttrs& a) { return ops::reshape(in(x, 0, "reshape"), a.shape); },
          [&](const TransposeAttrs& a) { return ops::transpose(in(x, 0, "transpose"), a.perm); },
          [&](const SliceAttrs& a) { return ops::slice(in(x, 0, "slice"), a.starts, a.ends, a.axes, a.steps); },
          [&](const GatherAttrs& a) { return ops::gather(in(x, 0, "gather"), in(x, 1, "gather"), a.axis); },
          [&](const CastAttrs& a) { return ops::cast(in(x, 0, "cast"), a.to); },
          [&](const ExpandAttrs& a) { return ops::expand(in(x, 0, "expand"), a.shape); },
          [&](const WinogradInputAttrs& a) { return ops::winograd_input(in(x, 0, "winograd_input"), a.m, a.pads); },
          [&](const WinogradOutputAttrs& a) {
            return ops::winograd_output(in(x, 0, "winograd_output"), a.m, a.n, a.out_h, a.out_w);
          },
          [&](const RecurrentCellAttrs& a) {
            if (a.cell == RecurrentCell::Lstm)
              return ops::lstm_cell(in(x, 0, "lstm_cell"), in(x, 1, "lstm_cell"), x.size() > 2 ? x[2] : te::Tensor(),
                                    a.clip);
            return ops::gru_cell(in(x, 0, "gru_cell"), in(x, 1, "gru_cell"), in(x, 2, "gru_cell"), a.clip);
          },
          [&](const ArgReduceAttrs& a) {
            const te::Tensor& v = in(x, 0, a.max ? "argmax" : "argmin");
            return a.max ? ops::argmax(v, a.axis, a.keepdims, a.select_last)
                         : ops::argmin(v, a.axis, a.keepdims, a.select_last);
          },
          [&](const CumSumAttrs& a) { return ops::cumsum(in(x, 0, "cumsum"), a.axis, a.exclusive, a.reverse); },
          [&](const HardmaxAttrs& a) { return ops::hardmax(in(x, 0, "hardmax"), a.axis); },
          [&](const LrnAttrs& a) { return ops::lrn(in(x, 0, "lrn"), a.size, a.alpha, a.beta, a.bias); },
          [&](const GatherElementsAttrs& a) {
            return ops::gather_elements(in(x, 0, "gather_elements"), in(x, 1, "gather_elements"), a.axis);
          },
          [&](const GatherNdAttrs& a) {
            return ops::gather_nd(in(x, 0, "gather_nd"), in(x, 1, "gather_nd"), a.batch_dims);
          },
          [&](const ScatterElementsAttrs& a) {
            return ops::scatter_elements(in(x, 0, "scatter_elements"), in(x, 1, "scatter_elements"),
                                         in(x, 2, "scatter_elements"), a.axis, a.reduction);
          },
          [&](const ScatterNdAttrs& a) {
            return ops::scatter_nd(in(x, 0, "scatter_nd"), in(x, 1, "scatter_nd"), in(x, 2, "scatter_nd"), a.reduction);
          },
          [&](const TriluAttrs& a) { return ops::trilu(in(x, 0, "trilu"), a.k, a.upper); },
          [&](const OneHotAttrs& a) { return ops::one_hot(in(x, 0, "one_hot"), in(x, 1, "one_hot"), a.depth, a.axis); },
          [&](const TopKAttrs& a) { return ops::topk_indices(in(x, 0, "topk"), a.k, a.axis, a.largest); },
          [&](const ReverseSequenceAttrs& a) {
            return ops::reverse_sequence(in(x, 0, "reverse_sequence"), in(x, 1, "reverse_sequence"), a.batch_axis,
                                         a.time_axis);
          },
          [&](const MaxUnpoolAttrs& a) {
            return ops::max_unpool(in(x, 0, "max_unpool"), in(x, 1, "max_unpool"), a.output_shape);
          },
          [&](const GridSampleAttrs& a) {
            return ops::grid_sample(in(x, 0, "grid_sample"), in(x, 1, "grid_sample"), a.mode, a.padding,
                                    a.align_corners);
          },
          [&](const RoiAlignAttrs& a) {
            return ops::roi_align(in(x, 0, "roi_align"), in(x, 1, "roi_align"), in(x, 2, "roi_align"), a.params);
          },
          [&](const MaxPoolIndicesAttrs& a) {
            TT_CHECK_ARG(a.pool.layout == Layout::NCHW, "max_pool2d_indices: only the NCHW layout is supported");
            return ops::max_pool2d_indices(in(x, 0, "max_pool2d_indices"), a.pool.kernel, a.pool.strides, a.pool.pads,
                                           a.pool.dilation, a.pool.ceil_mode, a.column_major);
          },
      },
      attrs);
}

}  // namespace ttune::graph
