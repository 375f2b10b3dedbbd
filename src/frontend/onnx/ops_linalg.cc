// ONNX Det: the determinant of each square matrix in the last two axes, by Gaussian elimination
// with partial pivoting (the method LAPACK's getrf, and so numpy, ONNX's reference and ONNX
// Runtime, use) written out as graph nodes: for an M x M matrix, M steps, each picking the row
// with the largest magnitude in the leading column (ArgMax), moving it to the top (a where() that
// puts the old top row in its place, one sign flip when it moved) and subtracting multiples of
// it from the rows below, which leaves an (M-1) x (M-1) matrix. The determinant is the product
// of the M pivots and the sign flips. Shapes are static, so the unrolled steps are ordinary
// kernels the fusion pass merges; the graph grows with M (about a dozen nodes per step), which
// suits the small matrices models carry (geometry, normalizing flows), not M in the thousands.
// A zero pivot means the whole column is zero: the determinant is 0 and the step divides by 1
// instead, so no NaN reaches the product.
#include <string>

#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using te::DType;

int slice(Ctx& c, int v, int64_t axis, int64_t begin, int64_t end, const std::string& tag) {
  return c.emit(graph::SliceAttrs{{begin}, {end}, {axis}, {1}}, {v}, tag);
}

void importDet(Ctx& c) {
  c.checkAttrs({});
  requireFloat(c, 0);
  te::Shape s = c.shape(0);
  if (s.size() < 2) c.fail("the input has rank ", s.size(), ", but Det needs matrices in its last two axes");
  int64_t m = s[s.size() - 1];
  if (s[s.size() - 2] != m) c.fail("the matrices are ", s[s.size() - 2], " x ", m, ", but Det needs square ones");
  if (m < 1) c.fail("the matrices are empty");
  te::Shape batch(s.begin(), s.end() - 2);
  int64_t b = te::shapeElements(batch);
  DType dt = c.dtype(0);
  int a = c.reshape(c.in(0), {b, m, m}, "batched");
  int zero = c.scalarConstant(0, dt, "zero"), one = c.scalarConstant(1, dt, "one");
  int minus_one = c.scalarConstant(-1, dt, "minus_one");
  int first = c.scalarConstant(0, DType::Int64, "first_row");
  std::vector<int> factors;  // pivots and signs, each [b, 1, 1]
  for (int64_t k = 0; k < m; ++k) {
    int64_t n = m - k;  // `a` is [b, n, n]
    std::string t = "step" + std::to_string(k) + "_";
    int col = c.unary(graph::UnaryKind::Abs, slice(c, a, 2, 0, 1, t + "column"), t + "magnitude");
    int p = c.emit(graph::ArgReduceAttrs{true, 1, true, false}, {col}, t + "pivot_row");  // [b, 1, 1]
    int p_row = c.emit(graph::ExpandAttrs{{b, 1, n}}, {p}, t + "pivot_index");
    int row = c.emit(graph::GatherElementsAttrs{1}, {a, p_row}, t + "pivot_values");  // [b, 1, n]
    int pivot = slice(c, row, 2, 0, 1, t + "pivot");
    factors.push_back(pivot);
    if (n == 1) break;
    int moved = c.logicalNot(c.binary(BinaryKind::Equal, p, first, t + "in_place"), t + "moved");
    factors.push_back(c.emit(graph::WhereAttrs{}, {moved, minus_one, one}, t + "sign"));
    // Row p takes the old top row; rows 1.. are then the rows below the pivot, in some order
    // (the order of the remaining rows does not change the determinant of what is left).
    runtime::NDArray iota({1, n, 1}, DType::Int64);
    for (int64_t i = 0; i < n; ++i) iota.as<int64_t>()[i] = i;
    int is_p = c.binary(BinaryKind::Equal, p, c.addConstant(std::move(iota), t + "rows"), t + "is_pivot_row");
    int swapped = c.emit(graph::WhereAttrs{}, {is_p, slice(c, a, 1, 0, 1, t + "top_row"), a}, t + "swapped");
    int below = slice(c, swapped, 1, 1, n, t + "below");
    int safe = c.emit(graph::WhereAttrs{}, {c.binary(BinaryKind::Equal, pivot, zero, t + "singular"), one, pivot},
                      t + "divisor");
    int f = c.binary(BinaryKind::Div, slice(c, below, 2, 0, 1, t + "lead"), safe, t + "multiplier");
    int update = c.binary(BinaryKind::Mul, f, slice(c, row, 2, 1, n, t + "pivot_rest"), t + "update");
    a = c.binary(BinaryKind::Sub, slice(c, below, 2, 1, n, t + "rest"), update, t + "eliminated");
  }
  int all = factors.size() == 1 ? factors[0] : c.emit(graph::ConcatAttrs{2}, factors, "factors");
  int det = c.emit(graph::ReduceAttrs{graph::ReduceKind::Prod, {1, 2}, false}, {all}, "product");  // [b]
  c.setOutput(0, c.reshape(det, batch, {}));
}

}  // namespace

void addLinalgOps(OpTable& t) { t["Det"] = importDet; }

}  // namespace ttune::frontend::detail
