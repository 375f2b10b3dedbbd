#include "ops/op_utils.h"

#include <algorithm>

#include "support/error.h"

namespace ttune::ops {

std::string listToString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

int64_t normalizeAxis(std::string_view op, int64_t axis, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  TT_CHECK_ARG(axis >= -r && axis < r, op, ": axis ", axis, " is out of range for a tensor of rank ", r);
  return axis < 0 ? axis + r : axis;
}

void checkDefined(std::string_view op, const te::Tensor& t, std::string_view role) {
  TT_CHECK_ARG(t.defined(), op, ": the ", role, " tensor is missing");
}

void checkRank(std::string_view op, const te::Tensor& t, size_t rank, std::string_view role) {
  checkDefined(op, t, role);
  TT_CHECK_ARG(t.ndim() == rank, op, ": the ", role, " must have rank ", rank, " but has shape ",
               te::shapeToString(t.shape()));
}

void checkMinRank(std::string_view op, const te::Tensor& t, size_t rank, std::string_view role) {
  checkDefined(op, t, role);
  TT_CHECK_ARG(t.ndim() >= rank, op, ": the ", role, " must have rank at least ", rank, " but has shape ",
               te::shapeToString(t.shape()));
}

void checkDType(std::string_view op, const te::Tensor& t, te::DType dtype, std::string_view role) {
  checkDefined(op, t, role);
  // A float32 requirement is one of a float compute type: the expressions promote their float32
  // constants to float64 operands.
  bool ok = t.dtype() == dtype || (dtype == te::DType::Float32 && te::isComputeFloat(t.dtype()));
  TT_CHECK_ARG(ok, op, ": the ", role, " has dtype ", te::dtypeName(t.dtype()), " but ",
               dtype == te::DType::Float32 ? "float32 or float64" : te::dtypeName(dtype), " is required");
}

std::optional<Shape> tryBroadcast(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d) {
    // Shapes align on the right; missing leading dimensions count as 1.
    int64_t da = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
    int64_t db = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[d] = da == 1 ? db : da;
  }
  return out;
}

Shape broadcastShapes(std::string_view op, const Shape& a, const Shape& b) {
  std::optional<Shape> out = tryBroadcast(a, b);
  TT_CHECK_ARG(out.has_value(), op, ": shapes ", te::shapeToString(a), " and ", te::shapeToString(b),
               " do not broadcast");
  return *out;
}

std::vector<te::Expr> broadcastIndices(const te::Tensor& t, const std::vector<te::Var>& out, const Shape& out_shape) {
  return broadcastIndices(t.shape(), out, out_shape);
}

std::vector<te::Expr> broadcastIndices(const Shape& s, const std::vector<te::Var>& out, const Shape& out_shape) {
  size_t offset = out.size() - s.size();
  std::vector<te::Expr> idx;
  idx.reserve(s.size());
  for (size_t d = 0; d < s.size(); ++d) {
    bool stretched = s[d] == 1 && out_shape[d + offset] != 1;
    idx.push_back(stretched ? te::Expr(0) : te::Expr(out[d + offset]));
  }
  return idx;
}

std::string indexedName(std::string_view prefix, size_t i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

std::vector<std::string> axisNames(std::string_view prefix, size_t n) {
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) names.push_back(indexedName(prefix, i));
  return names;
}

}  // namespace ttune::ops
