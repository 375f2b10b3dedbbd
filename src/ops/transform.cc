#include "ops/transform.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace ttune::ops {

using te::Expr;
using te::Var;

namespace {

Expr fillValue(double value, te::DType dtype) {
  if (te::isFloat(dtype)) return te::floatImm(value, dtype);
  if (dtype == te::DType::Bool) return te::boolImm(value != 0.0);
  return te::intImm(static_cast<int64_t>(value), dtype);
}

Tensor reshapeImpl(std::string_view op, const std::string& name, const Tensor& x, const Shape& shape) {
  checkDefined(op, x, "input");
  for (int64_t d : shape)
    TT_CHECK_ARG(d > 0, op, ": the target shape ", te::shapeToString(shape), " has a non-positive dimension");
  int64_t in_elems = x.op().numElements(), out_elems = te::shapeElements(shape);
  TT_CHECK_ARG(in_elems == out_elems, op, ": cannot reshape ", te::shapeToString(x.shape()), " (", in_elems,
               " elements) to ", te::shapeToString(shape), " (", out_elems, " elements)");
  const Shape in = x.shape();
  return te::compute(
      name, shape,
      [&](const std::vector<Var>& v) -> Expr {
        if (in == shape) return x(v);
        // Row-major linear position of the output point, then its coordinates in the input.
        Expr linear = 0;
        int64_t stride = 1;
        for (size_t d = shape.size(); d-- > 0;) {
          linear = Expr(v[d]) * stride + linear;
          stride *= shape[d];
        }
        std::vector<Expr> idx(in.size());
        stride = 1;
        for (size_t d = in.size(); d-- > 0;) {
          if (in[d] == 1) {
            idx[d] = 0;
            continue;
          }
          Expr e = stride == 1 ? linear : linear / stride;
          idx[d] = d == 0 ? e : e % in[d];
          stride *= in[d];
        }
        return x(idx);
      },
      te::OpTag::Injective);
}

}  // namespace

Tensor pad(const Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after, double value,
           PadMode mode) {
  checkDefined("pad", x, "input");
  const Shape& in = x.shape();
  size_t rank = in.size();
  TT_CHECK_ARG(before.size() == rank && after.size() == rank, "pad: got ", before.size(), " leading and ", after.size(),
               " trailing pads for a tensor of rank ", rank);
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d) {
    TT_CHECK_ARG(before[d] >= 0 && after[d] >= 0, "pad: pads must be non-negative, got ", listToString(before),
                 " before and ", listToString(after), " after");
    if (mode == PadMode::Reflect)
      TT_CHECK_ARG(before[d] < in[d] && after[d] < in[d], "pad: reflect pads on axis ", d,
                   " must be smaller than its extent ", in[d], ", got ", before[d], " and ", after[d]);
    out[d] = in[d] + before[d] + after[d];
  }
  TT_CHECK_ARG(mode != PadMode::Constant || te::isFloat(x.dtype()) || std::isfinite(value), "pad: the fill value ",
               value, " cannot be stored in a ", te::dtypeName(x.dtype()), " tensor");
  const char* name = mode == PadMode::Constant ? "pad" : mode == PadMode::Edge ? "pad_edge" : "pad_reflect";
  Expr fill = fillValue(value, x.dtype());
  return te::compute(
      name, out,
      [&](const std::vector<Var>& v) -> Expr {
        std::vector<Expr> idx;
        Expr inside;
        auto require = [&](const Expr& c) { inside = inside.defined() ? (inside && c) : c; };
        for (size_t d = 0; d < rank; ++d) {
          int64_t b = before[d], a = after[d], n = in[d];
          if (b == 0 && a == 0) {
            idx.push_back(v[d]);
            continue;
          }
          Expr i = Expr(v[d]) - b;
          switch (mode) {
            case PadMode::Constant:
              if (b > 0) require(Expr(v[d]) >= b);
              if (a > 0) require(Expr(v[d]) < b + n);
              break;
            case PadMode::Edge:
              if (b > 0) i = te::max(i, 0);
              if (a > 0) i = te::min(i, n - 1);
              break;
            case PadMode::Reflect:
              // Mirror at -1/2 and n-1/2: |i| on the left, (n-1) - |(n-1) - i| on the right.
              if (b > 0) i = te::abs(i);
              if (a > 0) i = Expr(n - 1) - te::abs(Expr(n - 1) - i);
              break;
          }
          idx.push_back(i);
        }
        Expr read = x(idx);
        return inside.defined() ? te::select(inside, read, fill) : read;
      },
      mode == PadMode::Constant ? te::OpTag::Pad : te::OpTag::Injective);
}

Tensor concat(const std::vector<Tensor>& xs, int64_t axis) {
  TT_CHECK_ARG(!xs.empty(), "concat: needs at least one input tensor");
  for (size_t i = 0; i < xs.size(); ++i) checkDefined("concat", xs[i], indexedName("input ", i));
  const Tensor& first = xs[0];
  TT_CHECK_ARG(first.ndim() > 0, "concat: cannot concatenate rank-0 tensors");
  int64_t ax = normalizeAxis("concat", axis, first.ndim());
  std::vector<int64_t> offsets = {0};
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& t = xs[i];
    TT_CHECK_ARG(t.ndim() == first.ndim(), "concat: input ", i, " has rank ", t.ndim(), " but input 0 has rank ",
                 first.ndim());
    TT_CHECK_ARG(t.dtype() == first.dtype(), "concat: input ", i, " has dtype ", te::dtypeName(t.dtype()),
                 " but input 0 has dtype ", te::dtypeName(first.dtype()));
    for (size_t d = 0; d < t.ndim(); ++d)
      TT_CHECK_ARG(static_cast<int64_t>(d) == ax || t.shape()[d] == first.shape()[d], "concat: input ", i,
                   " has shape ", te::shapeToString(t.shape()), " which differs from input 0's ",
                   te::shapeToString(first.shape()), " outside axis ", ax);
    offsets.push_back(offsets.back() + t.shape()[ax]);
  }
  Shape out = first.shape();
  out[ax] = offsets.back();
  return te::compute(
      "T_concat", out,
      [&](const std::vector<Var>& v) -> Expr {
        Expr result;
        for (size_t i = xs.size(); i-- > 0;) {
          std::vector<Expr> idx(v.begin(), v.end());
          idx[ax] = Expr(v[ax]) - offsets[i];
          Expr read = xs[i](idx);
          // Input i owns [offsets[i], offsets[i+1]); the conditions of earlier inputs are tested first.
          result = result.defined() ? te::select(Expr(v[ax]) < offsets[i + 1], read, result) : read;
        }
        return result;
      },
      te::OpTag::Injective);
}

Tensor reshape(const Tensor& x, const Shape& shape) { return reshapeImpl("reshape", "T_reshape", x, shape); }

Tensor flatten(const Tensor& x, int64_t axis) {
  checkDefined("flatten", x, "input");
  int64_t rank = static_cast<int64_t>(x.ndim());
  TT_CHECK_ARG(axis >= -rank && axis <= rank, "flatten: axis ", axis, " is out of range for a tensor of rank ", rank);
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= x.shape()[d];
  return reshapeImpl("flatten", "T_flatten", x, {outer, inner});
}

Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm_in) {
  checkDefined("transpose", x, "input");
  size_t rank = x.ndim();
  std::vector<int64_t> perm = perm_in;
  if (perm.empty())
    for (size_t d = rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  std::vector<bool> seen(rank, false);
  bool ok = perm.size() == rank;
  for (int64_t p : perm) {
    if (!ok) break;
    ok = p >= 0 && p < static_cast<int64_t>(rank) && !seen[p];
    if (ok) seen[p] = true;
  }
  TT_CHECK_ARG(ok, "transpose: perm ", listToString(perm), " is not a permutation of ", rank, " axes");
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d) out[d] = x.shape()[perm[d]];
  return te::compute(
      "T_transpose", out,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> idx(rank);
        for (size_t d = 0; d < rank; ++d) idx[perm[d]] = v[d];
        return x(idx);
      },
      te::OpTag::Injective);
}

SliceBox sliceBox(const Shape& in, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                  const std::vector<int64_t>& axes_in, const std::vector<int64_t>& steps_in) {
  size_t n = starts.size();
  TT_CHECK_ARG(ends.size() == n, "slice: got ", n, " starts but ", ends.size(), " ends");
  TT_CHECK_ARG(axes_in.empty() || axes_in.size() == n, "slice: got ", n, " starts but ", axes_in.size(), " axes");
  TT_CHECK_ARG(steps_in.empty() || steps_in.size() == n, "slice: got ", n, " starts but ", steps_in.size(), " steps");
  TT_CHECK_ARG(n <= in.size(), "slice: got ", n, " starts for a tensor of rank ", in.size());
  // Per input axis: first index, step and count of the result.
  std::vector<int64_t> first(in.size(), 0), step(in.size(), 1);
  Shape out = in;
  std::vector<bool> seen(in.size(), false);
  for (size_t i = 0; i < n; ++i) {
    int64_t ax = axes_in.empty() ? static_cast<int64_t>(i) : normalizeAxis("slice", axes_in[i], in.size());
    TT_CHECK_ARG(!seen[ax], "slice: axis ", ax, " is listed twice in axes ", listToString(axes_in));
    seen[ax] = true;
    int64_t st = steps_in.empty() ? 1 : steps_in[i];
    TT_CHECK_ARG(st != 0, "slice: the step on axis ", ax, " is zero");
    int64_t dim = in[ax], b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    // A step longer than the axis selects at most one element; capping it avoids overflow.
    int64_t mag = st > 0 ? std::min(st, dim) : (st < -dim ? dim : -st);
    int64_t count;
    if (st > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count = e > b ? (e - b + mag - 1) / mag : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count = b > e ? (b - e + mag - 1) / mag : 0;
    }
    TT_CHECK_ARG(count > 0, "slice: the result is empty on axis ", ax, " (start ", starts[i], ", end ", ends[i],
                 ", step ", st, ", extent ", dim, ")");
    first[ax] = b;
    step[ax] = count == 1 ? 1 : (st > 0 ? mag : -mag);
    out[ax] = count;
  }
  return {first, step, out};
}

std::optional<int64_t> contiguousSliceOffset(const Shape& in, const SliceBox& box) {
  // Row-major: a block is one run when every axis before the first one it selects more than one
  // index of selects a single index, that axis steps by one, and every axis after it is whole.
  size_t p = 0;
  while (p + 1 < in.size() && box.out[p] == 1) ++p;
  if (!in.empty() && box.out[p] > 1 && box.step[p] != 1) return std::nullopt;
  for (size_t k = p + 1; k < in.size(); ++k)
    if (box.out[k] != in[k] || box.first[k] != 0 || box.step[k] != 1) return std::nullopt;
  int64_t offset = 0;
  for (size_t k = 0; k < in.size(); ++k) offset = offset * in[k] + box.first[k];
  return offset;
}

Tensor slice(const Tensor& x, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
             const std::vector<int64_t>& axes_in, const std::vector<int64_t>& steps_in) {
  checkDefined("slice", x, "input");
  const Shape& in = x.shape();
  auto [first, step, out] = sliceBox(in, starts, ends, axes_in, steps_in);
  return te::compute(
      "T_slice", out,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> idx;
        for (size_t d = 0; d < in.size(); ++d) idx.push_back(Expr(v[d]) * step[d] + first[d]);
        return x(idx);
      },
      te::OpTag::Injective);
}

Tensor gather(const Tensor& data, const Tensor& indices, int64_t axis) {
  checkDefined("gather", data, "data");
  checkDefined("gather", indices, "indices");
  TT_CHECK_ARG(data.ndim() > 0, "gather: the data must have rank at least 1");
  TT_CHECK_ARG(te::isInt(indices.dtype()), "gather: indices must be int32 or int64, got ",
               te::dtypeName(indices.dtype()));
  size_t ax = static_cast<size_t>(normalizeAxis("gather", axis, data.ndim()));
  const Shape& ds = data.shape();
  const Shape& is = indices.shape();
  Shape out(ds.begin(), ds.begin() + ax);
  out.insert(out.end(), is.begin(), is.end());
  out.insert(out.end(), ds.begin() + ax + 1, ds.end());
  int64_t dim = ds[ax];
  return te::compute(
      "T_gather", out,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> ii(v.begin() + ax, v.begin() + ax + is.size());
        // Floor modulo maps [-dim, 0) to [0, dim) like ONNX's i + dim, and keeps any index in bounds.
        Expr i = indices(ii) % dim;
        std::vector<Expr> idx(v.begin(), v.begin() + ax);
        idx.push_back(i);
        idx.insert(idx.end(), v.begin() + ax + is.size(), v.end());
        return data(idx);
      },
      te::OpTag::Injective);
}

Tensor expand(const Tensor& x, const Shape& shape) {
  checkDefined("expand", x, "input");
  for (int64_t d : shape)
    TT_CHECK_ARG(d > 0, "expand: the target shape ", te::shapeToString(shape), " has a non-positive dimension");
  Shape out = broadcastShapes("expand", x.shape(), shape);
  return te::compute(
      "T_expand", out, [&](const std::vector<Var>& v) { return x(broadcastIndices(x, v, out)); }, te::OpTag::Broadcast);
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  checkDefined("broadcast_to", x, "input");
  bool ok = shape.size() >= x.ndim();
  for (size_t d = 0; ok && d < x.ndim(); ++d) {
    int64_t s = x.shape()[d], t = shape[d + shape.size() - x.ndim()];
    ok = s == t || s == 1;
  }
  for (int64_t d : shape) ok = ok && d > 0;
  TT_CHECK_ARG(ok, "broadcast_to: cannot broadcast ", te::shapeToString(x.shape()), " to ", te::shapeToString(shape));
  return te::compute(
      "T_broadcast_to", shape, [&](const std::vector<Var>& v) { return x(broadcastIndices(x, v, shape)); },
      te::OpTag::Broadcast);
}

Tensor cast(const Tensor& x, te::DType dtype) {
  checkDefined("cast", x, "input");
  return te::compute(
      "T_cast", x.shape(), [&](const std::vector<Var>& v) { return te::cast(dtype, x(v)); }, te::OpTag::Elementwise);
}

}  // namespace ttune::ops
