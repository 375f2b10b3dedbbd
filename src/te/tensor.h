// Operations: the nodes of a tensor program. A placeholder is an input (activations, or constant
// weights known at compile time); a compute op defines every element of its output by an
// expression over its axes: out[axes] = body, where body may be a Reduce over reduction axes.
//
// Operations are immutable and shared. Axis names are unique within an op (schedules refer to
// axes by name); op names are made unique within a ComputeDAG by its constructor.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "te/expr.h"

namespace ttune::te {

using Shape = std::vector<int64_t>;

struct PlaceholderOp {
  // Constant weights may be re-laid-out ahead of time by a schedule (layout rewrite).
  bool is_constant = false;
};

struct ComputeOp {
  std::vector<IterVar> axes;  // spatial axes, one per output dimension
  Expr body;                  // a Reduce, or a plain expression
  const Reduce* reduce() const { return body.as<Reduce>(); }
  // The reduction axes of the body (empty when the body is not a Reduce).
  const std::vector<IterVar>& reduceAxes() const;
};

// What kind of operator an op computes, set by the operator that builds it (ops/). Schedules
// and reports that treat some operators specially (a Winograd transform, padding) test this,
// never the op's name, which kernels may rename ("pad.1") and steps derive from ("conv.local").
enum class OpTag : uint8_t {
  Other,        // no special treatment (e.g. ops built by tests)
  Elementwise,  // out[i] = f(in[i]) over inputs of the output's shape
  Broadcast,    // element-wise over inputs broadcast to the output's shape
  Injective,    // each output reads inputs at computed indices (layout changes, gathers)
  Pad,          // constant padding: reads inside the input, a fill value outside
  Reduction,    // a reduction that is none of the kinds below
  Pool,
  Softmax,
  LayerNorm,
  Convolution,
  Dense,
  Matmul,
  BatchMatmul,
  WinogradInput,    // a Winograd input transform (B^T d B per tile)
  WinogradOutput,   // a Winograd output transform (A^T m A per tile)
  Constant,         // a scalar constant folded into a kernel
  CacheCopy,        // a copy made by cache_read
  LayoutTransform,  // a weight packed by a layout rewrite
};

class Operation {
 public:
  using Kind = std::variant<PlaceholderOp, ComputeOp>;

  Operation(std::string name, Shape shape, DType dtype, OpTag tag, Kind kind)
      : name_(std::move(name)), shape_(std::move(shape)), dtype_(dtype), tag_(tag), kind_(std::move(kind)) {}

  const std::string& name() const { return name_; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  OpTag tag() const { return tag_; }
  const Kind& kind() const { return kind_; }
  bool isPlaceholder() const { return std::holds_alternative<PlaceholderOp>(kind_); }
  bool isCompute() const { return std::holds_alternative<ComputeOp>(kind_); }
  const ComputeOp& compute() const { return std::get<ComputeOp>(kind_); }
  const PlaceholderOp& placeholder() const { return std::get<PlaceholderOp>(kind_); }
  int64_t numElements() const;
  // Distinct tensors read by the body, in order of first appearance.
  std::vector<Tensor> inputs() const;

 private:
  std::string name_;
  Shape shape_;
  DType dtype_;
  OpTag tag_;
  Kind kind_;
};

Tensor placeholder(std::string name, Shape shape, DType dtype = DType::Float32, bool is_constant = false);

// Defines out[i0..in] = fn(i0..in). axis_names default to i, j, k, l, m, ...; the body may be a
// Reduce built with sum/maxReduce/minReduce over IterVars made by reduceAxis().
Tensor compute(std::string name, Shape shape, const std::function<Expr(const std::vector<Var>&)>& fn,
               OpTag tag = OpTag::Other, std::vector<std::string> axis_names = {});

// Same, but with explicit axes already created (used when rebuilding ops).
Tensor computeWithAxes(std::string name, std::vector<IterVar> axes, Expr body, OpTag tag = OpTag::Other);

IterVar reduceAxis(int64_t extent, std::string name);

// Throws Error when the count does not fit in 64 bits (shapes read from files can be anything).
int64_t shapeElements(const Shape& shape);
std::string shapeToString(const Shape& shape);

}  // namespace ttune::te
