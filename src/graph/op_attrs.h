// Graph operators: a closed set of operator kinds, each a plain attribute struct in the OpAttrs
// variant. Every operation on operators (building its tensor expression, naming it, deciding its
// fusion role, printing, hashing its attributes) is one std::visit over OpAttrs.
//
// Operators take their data inputs as graph values; everything that shapes the computation
// (strides, axes, target shapes) is an attribute, resolved by the importer. Each operator has
// exactly one output.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ops/indexing.h"
#include "ops/sample.h"
#include "ops/transform.h"
#include "te/tensor.h"

namespace ttune::graph {

using Hw = std::array<int64_t, 2>;
using Pad4 = std::array<int64_t, 4>;  // top, left, bottom, right

enum class Layout : uint8_t { NCHW, NHWC };

struct Conv2dAttrs {
  Hw strides{1, 1};
  Pad4 pads{0, 0, 0, 0};
  Hw dilation{1, 1};
  int64_t groups = 1;
  Layout layout = Layout::NCHW;
  // The value padded taps read: 0, or an 8-bit input's zero point (ops/nn.h).
  int64_t pad_value = 0;
};
// y = x[M,K] * w[N,K]^T
struct DenseAttrs {};
// 2-D or batched (leading dims broadcast) matrix product of two activations or an activation and
// a constant.
struct MatMulAttrs {
  bool transpose_a = false, transpose_b = false;
};
enum class PoolKind : uint8_t { Max, Avg };
struct Pool2dAttrs {
  PoolKind kind = PoolKind::Max;
  Hw kernel{1, 1};
  Hw strides{1, 1};
  Pad4 pads{0, 0, 0, 0};
  Hw dilation{1, 1};
  bool ceil_mode = false;
  bool count_include_pad = false;
  Layout layout = Layout::NCHW;
};
struct GlobalPool2dAttrs {
  PoolKind kind = PoolKind::Avg;
  Layout layout = Layout::NCHW;
};
enum class UnaryKind : uint8_t {
  Relu,
  LeakyRelu,
  Clip,
  Sigmoid,
  Tanh,
  Exp,
  Log,
  Sqrt,
  Erf,
  Gelu,
  Silu,
  HardSwish,
  HardSigmoid,
  Neg,
  Abs,
  Identity,
  Reciprocal,
  Floor,
  Ceil,
  Not,
  Round,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  TruncBf16
};
struct UnaryAttrs {
  UnaryKind kind = UnaryKind::Relu;
  double alpha = 0, beta = 0;  // LeakyRelu: alpha; Clip: [alpha, beta]; HardSigmoid: alpha x + beta
};
// Mod: integer floor modulo (the result has the divisor's sign); FMod: C fmod (the dividend's
// sign), integer or float. A zero integer divisor yields the dividend's residue modulo 1 (0 for
// Mod, the dividend's truncated remainder by 1 for FMod) rather than trapping.
enum class BinaryKind : uint8_t { Add, Sub, Mul, Div, Pow, Max, Min, Greater, Less, Equal, And, Or, Mod, FMod };
struct BinaryAttrs {
  BinaryKind kind = BinaryKind::Add;
};
// where(cond, a, b) with broadcasting
struct WhereAttrs {};
struct SoftmaxAttrs {
  int64_t axis = -1;
};
// Inputs: x, gamma, beta; normalizes the dims from `axis` on.
struct LayerNormAttrs {
  int64_t axis = -1;
  double epsilon = 1e-5;
};
enum class ReduceKind : uint8_t { Sum, Mean, Max, Min, Prod };
struct ReduceAttrs {
  ReduceKind kind = ReduceKind::Sum;
  std::vector<int64_t> axes;  // empty: all
  bool keepdims = true;
};
// Inputs: x, gamma, beta, mean, var (channel axis 1).
struct BatchNormAttrs {
  double epsilon = 1e-5;
};
struct PadAttrs {
  std::vector<int64_t> before, after;
  double value = 0;
  ops::PadMode mode = ops::PadMode::Constant;
};
struct ConcatAttrs {
  int64_t axis = 0;
};
struct ReshapeAttrs {
  te::Shape shape;  // the final shape
  // A view between kernels (graph/flatten.h): never fused into its producer's kernel, so the
  // executor aliases it and the kernels on both sides keep their own loop structure.
  bool view = false;
};
struct TransposeAttrs {
  std::vector<int64_t> perm;
};
struct SliceAttrs {
  std::vector<int64_t> starts, ends, axes, steps;
};
// Inputs: data, indices.
struct GatherAttrs {
  int64_t axis = 0;
};
struct CastAttrs {
  te::DType to = te::DType::Float32;
};
struct ExpandAttrs {
  te::Shape shape;
};

// Winograd F(m x m, 3 x 3) transforms of a stride-1 3x3 NHWC convolution (ops/winograd.h; the
// winograd pass, graph/winograd.h, inserts them): the input transform of the padded input, and
// the output transform of the batched matrix product with the transformed filter.
struct WinogradInputAttrs {
  int64_t m = 4;
  Pad4 pads{0, 0, 0, 0};
};
struct WinogradOutputAttrs {
  int64_t m = 4;
  int64_t n = 1, out_h = 1, out_w = 1;
};

// The element-wise part of a recurrent time step (ops/recurrent.h). Inputs: LSTM (z, c[, p]),
// GRU (x, hr, h).
enum class RecurrentCell : uint8_t { Lstm, Gru };
struct RecurrentCellAttrs {
  RecurrentCell cell = RecurrentCell::Lstm;
  double clip = 0;  // 0: none
};

// ---- Indexing, generation and argument reductions (ops/indexing.h) ----------------------------
// Index of the max (min) along `axis`, int64; the first one unless select_last.
struct ArgReduceAttrs {
  bool max = true;
  int64_t axis = 0;
  bool keepdims = true;
  bool select_last = false;
};
struct CumSumAttrs {
  int64_t axis = 0;
  bool exclusive = false, reverse = false;
};
struct HardmaxAttrs {
  int64_t axis = -1;
};
// Local response normalization across channels (axis 1).
struct LrnAttrs {
  int64_t size = 1;
  double alpha = 1e-4, beta = 0.75, bias = 1.0;
};
// Inputs: data, indices.
struct GatherElementsAttrs {
  int64_t axis = 0;
};
// Inputs: data, indices.
struct GatherNdAttrs {
  int64_t batch_dims = 0;
};
// Inputs: data, indices, updates.
struct ScatterElementsAttrs {
  int64_t axis = 0;
  ops::ScatterReduction reduction = ops::ScatterReduction::None;
};
// Inputs: data, indices, updates.
struct ScatterNdAttrs {
  ops::ScatterReduction reduction = ops::ScatterReduction::None;
};
// Keeps the upper (lower) triangle of the last two dims from diagonal k on; zeros elsewhere.
struct TriluAttrs {
  int64_t k = 0;
  bool upper = true;
};
// Inputs: indices, values ([off, on]).
struct OneHotAttrs {
  int64_t axis = -1;
  int64_t depth = 1;
};
// The int64 indices of the k largest (smallest) elements along `axis`, sorted (ties: lower index
// first); TopK's values are a gather_elements with them.
struct TopKAttrs {
  int64_t axis = -1;
  int64_t k = 1;
  bool largest = true;
};
// Inputs: data, sequence_lens.
struct ReverseSequenceAttrs {
  int64_t batch_axis = 1, time_axis = 0;
};
// Inputs: x, indices (flat positions in the output).
struct MaxUnpoolAttrs {
  te::Shape output_shape;
};
// ---- Sampling at data-dependent positions (ops/sample.h) --------------------------------------
// Inputs: x, grid.
struct GridSampleAttrs {
  ops::GridSampleMode mode = ops::GridSampleMode::Bilinear;
  ops::GridPadding padding = ops::GridPadding::Zeros;
  bool align_corners = false;
};
// Inputs: x, rois, batch_indices.
struct RoiAlignAttrs {
  ops::RoiAlignParams params;
};
// MaxPool's second output (NCHW): the flat input position of each window's first maximum.
struct MaxPoolIndicesAttrs {
  Pool2dAttrs pool;
  bool column_major = false;  // ONNX storage_order 1: positions count along H first
};

using OpAttrs = std::variant<Conv2dAttrs, DenseAttrs, MatMulAttrs, Pool2dAttrs, GlobalPool2dAttrs, UnaryAttrs,
                             BinaryAttrs, WhereAttrs, SoftmaxAttrs, LayerNormAttrs, ReduceAttrs, BatchNormAttrs,
                             PadAttrs, ConcatAttrs, ReshapeAttrs, TransposeAttrs, SliceAttrs, GatherAttrs, CastAttrs,
                             ExpandAttrs, WinogradInputAttrs, WinogradOutputAttrs, ArgReduceAttrs, CumSumAttrs,
                             HardmaxAttrs, LrnAttrs, GatherElementsAttrs, GatherNdAttrs, ScatterElementsAttrs,
                             ScatterNdAttrs, TriluAttrs, OneHotAttrs, TopKAttrs, ReverseSequenceAttrs, MaxUnpoolAttrs,
                             RecurrentCellAttrs, GridSampleAttrs, RoiAlignAttrs, MaxPoolIndicesAttrs>;

// How an operator takes part in fusion.
enum class FusionRole : uint8_t {
  Anchor,     // compute-heavy with data reuse (conv, dense, matmul): absorbs what follows
  Reduction,  // pooling, softmax, normalizations, reductions: a kernel of their own
  Elementwise,
  Injective,  // data movement: reshape, transpose, slice, concat, gather, pad, expand
};

// Short lower-case name for classes and listings: "conv2d", "add", "relu", "max_pool2d", ...
std::string opName(const OpAttrs& attrs);
FusionRole fusionRole(const OpAttrs& attrs);
// Attributes as text, e.g. "strides=2,2 pads=1,1,1,1 groups=1".
std::string attrsToString(const OpAttrs& attrs);
// Builds the operator's tensor expression on `inputs` (throws Error on bad shapes/attributes).
te::Tensor buildOp(const OpAttrs& attrs, const std::vector<te::Tensor>& inputs);
// Number of data inputs the operator takes (-1: variadic, e.g. concat).
int numInputs(const OpAttrs& attrs);

}  // namespace ttune::graph
