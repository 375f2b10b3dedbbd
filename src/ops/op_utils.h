// Helpers shared by the operator definitions: argument checks that throw ttune::Error naming the
// operator, axis normalization, numpy broadcasting of shapes and of read indices, and formatting
// of attribute lists for error messages. Attribute arrays for 2-D windows are fixed-size:
// Hw = {height, width}, Pad4 = {top, left, bottom, right}.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "te/tensor.h"

namespace ttune::ops {

using te::Shape;
using Hw = std::array<int64_t, 2>;
using Pad4 = std::array<int64_t, 4>;

// "[0, 2, 1]".
std::string listToString(const std::vector<int64_t>& v);
template <size_t N>
std::string listToString(const std::array<int64_t, N>& v) {
  return listToString(std::vector<int64_t>(v.begin(), v.end()));
}

// Maps axis in [-rank, rank) to [0, rank); throws "op: axis 3 is out of range for a tensor of rank 3".
int64_t normalizeAxis(std::string_view op, int64_t axis, size_t rank);

// Throws unless t has the given rank / dtype; `role` names the argument ("input", "weight", ...).
void checkRank(std::string_view op, const te::Tensor& t, size_t rank, std::string_view role);
void checkMinRank(std::string_view op, const te::Tensor& t, size_t rank, std::string_view role);
void checkDType(std::string_view op, const te::Tensor& t, te::DType dtype, std::string_view role);
void checkDefined(std::string_view op, const te::Tensor& t, std::string_view role);

// Numpy broadcasting of two shapes, or nullopt when they are incompatible.
std::optional<Shape> tryBroadcast(const Shape& a, const Shape& b);
// Numpy broadcasting of two shapes (aligned on the right, extent 1 stretches). Throws
// "op: shapes [2, 3] and [4] do not broadcast".
Shape broadcastShapes(std::string_view op, const Shape& a, const Shape& b);

// Indices reading `t` at output point `out` of a broadcast whose output rank is out.size(): t's
// dimensions align with the trailing output dimensions; a dimension of extent 1 that the output
// stretches is read at 0.
std::vector<te::Expr> broadcastIndices(const te::Tensor& t, const std::vector<te::Var>& out, const Shape& out_shape);
// Same for a tensor (or leading part of one) of shape `in`.
std::vector<te::Expr> broadcastIndices(const Shape& in, const std::vector<te::Var>& out, const Shape& out_shape);

// prefix + decimal i, e.g. "r0".
std::string indexedName(std::string_view prefix, size_t i);
// prefix0, prefix1, ... (used for reduction and batch axes).
std::vector<std::string> axisNames(std::string_view prefix, size_t n);

}  // namespace ttune::ops
