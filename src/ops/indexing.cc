#include "ops/indexing.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "ops/transform.h"
#include "support/assert.h"
#include "support/error.h"

namespace ttune::ops {

using te::DType;
using te::Expr;
using te::IterVar;
using te::ReduceKind;
using te::Var;

namespace {

std::vector<Expr> exprs(const std::vector<Var>& v) { return std::vector<Expr>(v.begin(), v.end()); }

// v with `e` at position `axis` (inserted, or replacing what is there).
std::vector<Expr> inserted(std::vector<Expr> v, size_t axis, const Expr& e) {
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(axis), e);
  return v;
}
std::vector<Expr> replaced(std::vector<Expr> v, size_t axis, const Expr& e) {
  v[axis] = e;
  return v;
}
std::vector<Expr> erased(std::vector<Expr> v, size_t axis) {
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(axis));
  return v;
}

// An index read from a tensor as an in-bounds int64 position on an axis of extent `dim`: floor
// modulo maps [-dim, 0) to [0, dim) like ONNX's i + dim and wraps anything else into range.
Expr wrapIndex(const Expr& i, int64_t dim) { return te::cast(DType::Int64, i) % dim; }

Expr clampIndex(const Expr& i, int64_t dim) { return te::min(te::max(i, Expr(int64_t{0})), Expr(dim - 1)); }

Expr constantOf(double v, DType dtype) {
  if (te::isFloat(dtype)) return te::floatImm(v, dtype);
  if (dtype == DType::Bool) return te::boolImm(v != 0);
  return te::intImm(static_cast<int64_t>(v), dtype);
}

Expr allOf(const std::vector<Expr>& conds) {
  Expr c;
  for (const Expr& e : conds) c = c.defined() ? (c && e) : e;
  return c;
}

// Row-major position of `idx` in `shape`, and back.
Expr linearIndex(const std::vector<Expr>& idx, const Shape& shape) {
  Expr lin = int64_t{0};
  for (size_t d = 0; d < shape.size(); ++d) lin = lin * shape[d] + idx[d];
  return lin;
}
std::vector<Expr> unravel(const Expr& lin, const Shape& shape) {
  std::vector<Expr> idx(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = (lin / stride) % shape[d];
    stride *= shape[d];
  }
  return idx;
}

void checkIndices(std::string_view op, const Tensor& t) {
  checkDefined(op, t, "indices");
  TT_CHECK_ARG(te::isInt(t.dtype()), op, ": indices must be int32 or int64, got ", te::dtypeName(t.dtype()));
}

Tensor argReduce(const std::string& name, bool is_max, const Tensor& x, int64_t axis, bool keepdims, bool last) {
  checkDefined(name, x, "input");
  TT_CHECK_ARG(x.ndim() > 0, name, ": the input must have rank at least 1");
  TT_CHECK_ARG(x.dtype() != DType::Bool, name, ": bool inputs are not supported");
  size_t ax = static_cast<size_t>(normalizeAxis(name, axis, x.ndim()));
  const Shape& in = x.shape();
  Shape reduced = in;
  reduced.erase(reduced.begin() + static_cast<std::ptrdiff_t>(ax));
  IterVar r = te::reduceAxis(in[ax], "r0");
  Tensor extreme = te::compute(
      name + "_value", reduced,
      [&](const std::vector<Var>& v) {
        return te::reduce(is_max ? ReduceKind::Max : ReduceKind::Min, x(inserted(exprs(v), ax, r.var)), {r});
      },
      te::OpTag::Reduction);
  Shape out = in;
  if (keepdims)
    out[ax] = 1;
  else
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(ax));
  IterVar p = te::reduceAxis(in[ax], "r0");
  return te::compute(
      name, out,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> base = keepdims ? erased(exprs(v), ax) : exprs(v);
        Expr holds = x(inserted(base, ax, p.var)) == extreme(base);
        return te::reduce(last ? ReduceKind::Max : ReduceKind::Min, Expr(p.var), {p}, holds);
      },
      te::OpTag::Reduction);
}

}  // namespace

Tensor argmax(const Tensor& x, int64_t axis, bool keepdims, bool select_last) {
  return argReduce("argmax", true, x, axis, keepdims, select_last);
}

Tensor argmin(const Tensor& x, int64_t axis, bool keepdims, bool select_last) {
  return argReduce("argmin", false, x, axis, keepdims, select_last);
}

// Longest axis a cumulative sum adds up directly (every output over its whole prefix).
constexpr int64_t kDirectCumsumAxis = 1024;

Tensor cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse) {
  checkDefined("cumsum", x, "input");
  TT_CHECK_ARG(x.ndim() > 0, "cumsum: the input must have rank at least 1");
  TT_CHECK_ARG(x.dtype() != DType::Bool, "cumsum: bool inputs are not supported");
  size_t ax = static_cast<size_t>(normalizeAxis("cumsum", axis, x.ndim()));
  const int64_t n = x.shape()[ax];
  // Each output sums up to n inputs: n^2 per row. A long axis goes in blocks of about sqrt(n):
  // each block's sum, each block's sum of the blocks before it (after it, reversed), and each
  // output's partial sum within its block: about 3 sqrt(n) per output.
  if (n > kDirectCumsumAxis) {
    const int64_t bw = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
    const int64_t nb = (n + bw - 1) / bw;
    Shape bs = x.shape();
    bs[ax] = nb;
    IterVar t = te::reduceAxis(bw, "t");
    Tensor block = te::compute(
        "cumsum_block", bs,
        [&](const std::vector<Var>& v) {
          Expr pos = Expr(v[ax]) * bw + t.var;
          return te::sum(x(replaced(exprs(v), ax, clampIndex(pos, n))), {t}, pos < n);
        },
        te::OpTag::Reduction);
    IterVar q = te::reduceAxis(nb, "q");
    Tensor before = te::compute(
        "cumsum_blocks", bs,
        [&](const std::vector<Var>& v) {
          Expr b = v[ax], o = q.var;
          return te::sum(block(replaced(exprs(v), ax, o)), {q}, reverse ? o > b : o < b);
        },
        te::OpTag::Reduction);
    IterVar w = te::reduceAxis(bw, "w");
    Tensor within = te::compute(
        "cumsum_within", x.shape(),
        [&](const std::vector<Var>& v) {
          Expr i = v[ax], j = (Expr(v[ax]) / bw) * bw + w.var;
          Expr cond = reverse ? (exclusive ? j > i : j >= i) : (exclusive ? j < i : j <= i);
          return te::sum(x(replaced(exprs(v), ax, clampIndex(j, n))), {w}, cond && j < n);
        },
        te::OpTag::Reduction);
    return te::compute(
        "cumsum", x.shape(),
        [&](const std::vector<Var>& v) { return within(v) + before(replaced(exprs(v), ax, Expr(v[ax]) / bw)); },
        te::OpTag::Injective);
  }
  IterVar r = te::reduceAxis(n, "r0");
  return te::compute(
      "cumsum", x.shape(),
      [&](const std::vector<Var>& v) {
        Expr i = v[ax], j = r.var;
        Expr cond = reverse ? (exclusive ? j > i : j >= i) : (exclusive ? j < i : j <= i);
        return te::sum(x(replaced(exprs(v), ax, j)), {r}, cond);
      },
      te::OpTag::Reduction);
}

Tensor hardmax(const Tensor& x, int64_t axis) {
  Tensor am = argmax(x, axis, /*keepdims=*/false);
  size_t ax = static_cast<size_t>(normalizeAxis("hardmax", axis, x.ndim()));
  return te::compute(
      "hardmax", x.shape(),
      [&](const std::vector<Var>& v) {
        return te::select(Expr(v[ax]) == am(erased(exprs(v), ax)), constantOf(1, x.dtype()), constantOf(0, x.dtype()));
      },
      te::OpTag::Injective);
}

Tensor lrn(const Tensor& x, int64_t size, double alpha, double beta, double bias) {
  checkDType("lrn", x, DType::Float32, "input");
  checkMinRank("lrn", x, 2, "input");
  TT_CHECK_ARG(size >= 1, "lrn: size must be positive, got ", size);
  int64_t c = x.shape()[1], lo = (size - 1) / 2;
  IterVar r = te::reduceAxis(size, "r0");
  Tensor sq = te::compute(
      "lrn_sqsum", x.shape(),
      [&](const std::vector<Var>& v) {
        Expr ch = Expr(v[1]) - lo + r.var;
        Expr xv = x(replaced(exprs(v), 1, clampIndex(ch, c)));
        return te::sum(xv * xv, {r}, ch >= int64_t{0} && ch < c);
      },
      te::OpTag::Reduction);
  return te::compute(
      "lrn", x.shape(),
      [&](const std::vector<Var>& v) {
        Expr base = te::floatImm(bias) + te::floatImm(alpha / static_cast<double>(size)) * sq(v);
        return x(v) / te::pow(base, te::floatImm(beta));
      },
      te::OpTag::Elementwise);
}

Tensor gather_elements(const Tensor& data, const Tensor& indices, int64_t axis) {
  checkDefined("gather_elements", data, "data");
  checkIndices("gather_elements", indices);
  TT_CHECK_ARG(data.ndim() > 0 && indices.ndim() == data.ndim(), "gather_elements: indices of shape ",
               te::shapeToString(indices.shape()), " do not have the rank of data of shape ",
               te::shapeToString(data.shape()));
  size_t ax = static_cast<size_t>(normalizeAxis("gather_elements", axis, data.ndim()));
  const Shape &ds = data.shape(), &is = indices.shape();
  for (size_t d = 0; d < ds.size(); ++d)
    TT_CHECK_ARG(d == ax || is[d] <= ds[d], "gather_elements: indices of shape ", te::shapeToString(is),
                 " exceed data of shape ", te::shapeToString(ds), " on axis ", d);
  return te::compute(
      "gather_elements", is,
      [&](const std::vector<Var>& v) { return data(replaced(exprs(v), ax, wrapIndex(indices(v), ds[ax]))); },
      te::OpTag::Injective);
}

Tensor gather_nd(const Tensor& data, const Tensor& indices, int64_t batch_dims) {
  checkDefined("gather_nd", data, "data");
  checkIndices("gather_nd", indices);
  const Shape &ds = data.shape(), &is = indices.shape();
  size_t q = is.size(), r = ds.size();
  TT_CHECK_ARG(q >= 1 && r >= 1, "gather_nd: data and indices must have rank at least 1");
  TT_CHECK_ARG(batch_dims >= 0 && static_cast<size_t>(batch_dims) < std::min(q, r), "gather_nd: batch_dims ",
               batch_dims, " must be below the ranks of data and indices");
  size_t b = static_cast<size_t>(batch_dims);
  int64_t m = is[q - 1];
  TT_CHECK_ARG(m >= 1 && b + static_cast<size_t>(m) <= r, "gather_nd: index tuples of length ", m,
               " do not fit data of rank ", r, " after ", b, " batch dimensions");
  for (size_t d = 0; d < b; ++d)
    TT_CHECK_ARG(is[d] == ds[d], "gather_nd: batch dimension ", d, " differs between data ", te::shapeToString(ds),
                 " and indices ", te::shapeToString(is));
  Shape out(is.begin(), is.end() - 1);
  out.insert(out.end(), ds.begin() + static_cast<std::ptrdiff_t>(b + m), ds.end());
  return te::compute(
      "gather_nd", out,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> lead(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(q - 1));
        std::vector<Expr> idx(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(b));
        for (int64_t k = 0; k < m; ++k) idx.push_back(wrapIndex(indices(inserted(lead, q - 1, Expr(k))), ds[b + k]));
        idx.insert(idx.end(), v.begin() + static_cast<std::ptrdiff_t>(q - 1), v.end());
        return data(idx);
      },
      te::OpTag::Injective);
}

namespace {

// out = data combined with the reduction of the matching updates: `writer` (None) is the last
// matching source position, `combined` (Add/Mul) the sum / product of the matching updates.
// `found` has data's shape, or (a writer) extent 1 from axis `whole_from` on: the positions from
// there on share their source, so found is read at 0 on those axes.
Tensor finishScatter(const std::string& name, const Tensor& data, ScatterReduction reduction, const Tensor& found,
                     size_t whole_from, const std::function<Expr(const std::vector<Var>&, const Expr&)>& update_at) {
  return te::compute(
      name, data.shape(),
      [&](const std::vector<Var>& v) -> Expr {
        std::vector<Expr> fv = exprs(v);
        for (size_t d = whole_from; d < fv.size(); ++d) fv[d] = Expr(int64_t{0});
        Expr f = found(fv);
        switch (reduction) {
          case ScatterReduction::None:
            return te::select(f >= int64_t{0}, update_at(v, te::max(f, Expr(int64_t{0}))), data(v));
          case ScatterReduction::Add:
            return data(v) + f;
          case ScatterReduction::Mul:
            return data(v) * f;
        }
        TT_UNREACHABLE("scatter reduction");
      },
      te::OpTag::Injective);
}

void checkScatterDType(std::string_view op, const Tensor& data, const Tensor& updates, ScatterReduction reduction) {
  checkDefined(op, data, "data");
  checkDefined(op, updates, "updates");
  TT_CHECK_ARG(updates.dtype() == data.dtype(), op, ": updates have dtype ", te::dtypeName(updates.dtype()),
               " but data ", te::dtypeName(data.dtype()));
  TT_CHECK_ARG(reduction == ScatterReduction::None || data.dtype() != DType::Bool, op,
               ": add / mul reductions do not take bool tensors");
}

}  // namespace

Tensor scatter_elements(const Tensor& data, const Tensor& indices, const Tensor& updates, int64_t axis,
                        ScatterReduction reduction) {
  checkScatterDType("scatter_elements", data, updates, reduction);
  checkIndices("scatter_elements", indices);
  const Shape &ds = data.shape(), &is = indices.shape(), &us = updates.shape();
  TT_CHECK_ARG(ds.size() > 0 && is.size() == ds.size(), "scatter_elements: indices of shape ", te::shapeToString(is),
               " do not have the rank of data of shape ", te::shapeToString(ds));
  size_t ax = static_cast<size_t>(normalizeAxis("scatter_elements", axis, ds.size()));
  // Indices of extent 1 on an axis other than `axis` broadcast along the updates' extent there.
  std::vector<bool> bcast(ds.size(), false);
  bool shapes_ok = us.size() == is.size();
  for (size_t d = 0; shapes_ok && d < ds.size(); ++d) {
    bcast[d] = d != ax && is[d] == 1 && us[d] > 1;
    shapes_ok = is[d] == us[d] || bcast[d];
  }
  TT_CHECK_ARG(shapes_ok, "scatter_elements: updates of shape ", te::shapeToString(us),
               " differ from indices of shape ", te::shapeToString(is));
  for (size_t d = 0; d < ds.size(); ++d)
    TT_CHECK_ARG(d == ax || us[d] <= ds[d], "scatter_elements: indices of shape ", te::shapeToString(us),
                 " exceed data of shape ", te::shapeToString(ds), " on axis ", d);
  // Without a reduction, the source row of out[p] depends only on p's coordinates where the
  // indices vary: the search for it (quadratic in the axis) runs over that smaller shape -- the
  // row scatter of torchvision's multi-scale RoIAlign, result[idx] = rows, searched 150 x 150
  // times instead of 150 x 150 x 256 x 49.
  const bool collapse = reduction == ScatterReduction::None;
  Shape fs = ds;
  for (size_t d = 0; d < ds.size(); ++d)
    if (collapse && bcast[d]) fs[d] = 1;
  // The indices' and the updates' element of source row r for output position v (positions
  // outside the updates' extent on another axis have no source).
  auto indexAt = [&](const std::vector<Expr>& v, const Expr& r) {
    std::vector<Expr> u;
    for (size_t d = 0; d < ds.size(); ++d)
      u.push_back(d == ax ? r : bcast[d] ? Expr(int64_t{0}) : is[d] < ds[d] ? clampIndex(v[d], is[d]) : v[d]);
    return u;
  };
  auto updateAt = [&](const std::vector<Expr>& v, const Expr& r) {
    std::vector<Expr> u;
    for (size_t d = 0; d < ds.size(); ++d) u.push_back(d == ax ? r : us[d] < ds[d] ? clampIndex(v[d], us[d]) : v[d]);
    return u;
  };
  auto inExtent = [&](const std::vector<Expr>& v, bool searched) {
    std::vector<Expr> conds;
    for (size_t d = 0; d < ds.size(); ++d)
      if (d != ax && us[d] < ds[d] && (searched ? fs[d] != 1 || ds[d] == 1 : fs[d] == 1 && ds[d] > 1))
        conds.push_back(v[d] < us[d]);
    return conds;
  };
  IterVar r = te::reduceAxis(is[ax], "r0");
  ReduceKind kind = reduction == ScatterReduction::None  ? ReduceKind::Max
                    : reduction == ScatterReduction::Add ? ReduceKind::Sum
                                                         : ReduceKind::Prod;
  Tensor found = te::compute(
      "scatter_elements_" + std::string(reduction == ScatterReduction::None ? "writer" : "updates"), fs,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> ve = exprs(v);
        std::vector<Expr> conds = inExtent(ve, true);
        conds.push_back(wrapIndex(indices(indexAt(ve, r.var)), ds[ax]) == Expr(v[ax]));
        Expr value = reduction == ScatterReduction::None ? Expr(r.var) : updates(updateAt(ve, r.var));
        return te::reduce(kind, value, {r}, allOf(conds));
      },
      te::OpTag::Reduction);
  return te::compute(
      "scatter_elements", ds,
      [&](const std::vector<Var>& v) -> Expr {
        std::vector<Expr> ve = exprs(v), fv = ve;
        for (size_t d = 0; d < ds.size(); ++d)
          if (fs[d] == 1 && ds[d] > 1) fv[d] = Expr(int64_t{0});
        Expr f = found(fv);
        switch (reduction) {
          case ScatterReduction::None: {
            std::vector<Expr> conds = inExtent(ve, false);
            conds.push_back(f >= int64_t{0});
            return te::select(allOf(conds), updates(updateAt(ve, te::max(f, Expr(int64_t{0})))), data(v));
          }
          case ScatterReduction::Add:
            return data(v) + f;
          case ScatterReduction::Mul:
            return data(v) * f;
        }
        TT_UNREACHABLE("scatter reduction");
      },
      te::OpTag::Injective);
}

Tensor scatter_nd(const Tensor& data, const Tensor& indices_in, const Tensor& updates_in, ScatterReduction reduction) {
  checkScatterDType("scatter_nd", data, updates_in, reduction);
  checkIndices("scatter_nd", indices_in);
  const Shape& ds = data.shape();
  TT_CHECK_ARG(ds.size() > 0 && indices_in.ndim() > 0, "scatter_nd: data and indices must have rank at least 1");
  // A single index tuple [m] is the batch [1, m] (so that there is an axis to search).
  Tensor indices = indices_in, updates = updates_in;
  if (indices.ndim() == 1) {
    indices = reshape(indices, {1, indices.shape()[0]});
    Shape us = updates.shape();
    us.insert(us.begin(), 1);
    updates = reshape(updates, us);
  }
  const Shape& is = indices.shape();
  size_t q = is.size();
  int64_t m = is[q - 1];
  TT_CHECK_ARG(m >= 1 && static_cast<size_t>(m) <= ds.size(), "scatter_nd: index tuples of length ", m,
               " do not fit data of rank ", ds.size());
  Shape batch(is.begin(), is.end() - 1);
  Shape expected = batch;
  expected.insert(expected.end(), ds.begin() + m, ds.end());
  TT_CHECK_ARG(updates.shape() == expected, "scatter_nd: updates of shape ", te::shapeToString(updates_in.shape()),
               " do not match indices of shape ", te::shapeToString(indices_in.shape()), " and data of shape ",
               te::shapeToString(ds));
  std::vector<IterVar> raxes;
  for (size_t d = 0; d < batch.size(); ++d) raxes.push_back(te::reduceAxis(batch[d], indexedName("r", d)));
  auto updateAt = [&](const std::vector<Expr>& u, const std::vector<Var>& v) {
    std::vector<Expr> idx = u;
    idx.insert(idx.end(), v.begin() + m, v.end());
    return updates(idx);
  };
  ReduceKind kind = reduction == ScatterReduction::None  ? ReduceKind::Max
                    : reduction == ScatterReduction::Add ? ReduceKind::Sum
                                                         : ReduceKind::Prod;
  // Without a reduction the source of out[p] depends only on p's first m coordinates (the index
  // tuple): the search (over every tuple) runs once per slice, not once per element.
  const size_t whole_from = reduction == ScatterReduction::None ? static_cast<size_t>(m) : ds.size();
  Shape fs = ds;
  for (size_t d = whole_from; d < fs.size(); ++d) fs[d] = 1;
  Tensor found = te::compute(
      "scatter_nd_" + std::string(reduction == ScatterReduction::None ? "writer" : "updates"), fs,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> u;
        for (const IterVar& iv : raxes) u.push_back(iv.var);
        std::vector<Expr> conds;
        for (int64_t k = 0; k < m; ++k)
          conds.push_back(wrapIndex(indices(inserted(u, u.size(), Expr(k))), ds[k]) == Expr(v[k]));
        Expr value = reduction == ScatterReduction::None ? linearIndex(u, batch) : updateAt(u, v);
        return te::reduce(kind, value, raxes, allOf(conds));
      },
      te::OpTag::Reduction);
  return finishScatter("scatter_nd", data, reduction, found, whole_from,
                       [&](const std::vector<Var>& v, const Expr& w) { return updateAt(unravel(w, batch), v); });
}

Tensor trilu(const Tensor& x, int64_t k, bool upper) {
  checkDefined("trilu", x, "input");
  checkMinRank("trilu", x, 2, "input");
  size_t n = x.ndim();
  return te::compute(
      upper ? "triu" : "tril", x.shape(),
      [&](const std::vector<Var>& v) {
        Expr diff = Expr(v[n - 1]) - Expr(v[n - 2]);
        return te::select(upper ? diff >= k : diff <= k, x(v), constantOf(0, x.dtype()));
      },
      te::OpTag::Injective);
}

Tensor one_hot(const Tensor& indices, const Tensor& values, int64_t depth, int64_t axis) {
  checkDefined("one_hot", indices, "indices");
  checkDefined("one_hot", values, "values");
  TT_CHECK_ARG(values.ndim() == 1 && values.shape()[0] == 2, "one_hot: values must have shape [2], got ",
               te::shapeToString(values.shape()));
  TT_CHECK_ARG(depth >= 1, "one_hot: depth must be positive, got ", depth);
  TT_CHECK_ARG(indices.dtype() != DType::Bool, "one_hot: bool indices are not supported");
  size_t ax = static_cast<size_t>(normalizeAxis("one_hot", axis, indices.ndim() + 1));
  Shape out = indices.shape();
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(ax), depth);
  return te::compute(
      "one_hot", out,
      [&](const std::vector<Var>& v) {
        Expr i = te::cast(DType::Int64, indices(erased(exprs(v), ax)));  // float indices truncate
        Expr d = v[ax];
        return te::select(i == d || i + depth == d, values(1), values(0));
      },
      te::OpTag::Injective);
}

Tensor topk_indices(const Tensor& x, int64_t k, int64_t axis, bool largest) {
  checkDefined("topk", x, "input");
  TT_CHECK_ARG(x.ndim() > 0, "topk: the input must have rank at least 1");
  TT_CHECK_ARG(x.dtype() != DType::Bool, "topk: bool inputs are not supported");
  size_t ax = static_cast<size_t>(normalizeAxis("topk", axis, x.ndim()));
  int64_t n = x.shape()[ax];
  TT_CHECK_ARG(k >= 1 && k <= n, "topk: k = ", k, " is outside [1, ", n, "] for axis ", ax);
  // rank[p] = how many elements come before p in the order (better value, or equal and earlier).
  IterVar r = te::reduceAxis(n, "r0");
  Tensor rank = te::compute(
      "topk_rank", x.shape(),
      [&](const std::vector<Var>& v) {
        Expr other = x(replaced(exprs(v), ax, r.var)), self = x(v);
        Expr before = (largest ? other > self : other < self) || (other == self && Expr(r.var) < Expr(v[ax]));
        return te::sum(te::select(before, Expr(int64_t{1}), Expr(int64_t{0})), {r});
      },
      te::OpTag::Reduction);
  Shape out = x.shape();
  out[ax] = k;
  IterVar p = te::reduceAxis(n, "r0");
  return te::compute(
      "topk", out,
      [&](const std::vector<Var>& v) {
        return te::minReduce(Expr(p.var), {p}, rank(replaced(exprs(v), ax, p.var)) == Expr(v[ax]));
      },
      te::OpTag::Reduction);
}

Tensor reverse_sequence(const Tensor& x, const Tensor& lens, int64_t batch_axis, int64_t time_axis) {
  checkDefined("reverse_sequence", x, "input");
  checkIndices("reverse_sequence", lens);
  checkMinRank("reverse_sequence", x, 2, "input");
  size_t ba = static_cast<size_t>(normalizeAxis("reverse_sequence", batch_axis, x.ndim()));
  size_t ta = static_cast<size_t>(normalizeAxis("reverse_sequence", time_axis, x.ndim()));
  TT_CHECK_ARG(ba != ta, "reverse_sequence: batch_axis and time_axis are both ", ba);
  TT_CHECK_ARG(lens.ndim() == 1 && lens.shape()[0] == x.shape()[ba], "reverse_sequence: sequence lengths of shape ",
               te::shapeToString(lens.shape()), " do not match the batch of ", x.shape()[ba]);
  int64_t steps = x.shape()[ta];
  return te::compute(
      "reverse_sequence", x.shape(),
      [&](const std::vector<Var>& v) {
        Expr len = te::cast(DType::Int64, lens(v[ba]));
        Expr t = v[ta];
        Expr src = clampIndex(len - int64_t{1} - t, steps);
        return te::select(t < len, x(replaced(exprs(v), ta, src)), x(v));
      },
      te::OpTag::Injective);
}

Tensor max_unpool(const Tensor& x, const Tensor& indices, const Shape& output_shape) {
  checkDefined("max_unpool", x, "input");
  checkIndices("max_unpool", indices);
  TT_CHECK_ARG(indices.shape() == x.shape(), "max_unpool: indices of shape ", te::shapeToString(indices.shape()),
               " differ from the input of shape ", te::shapeToString(x.shape()));
  for (int64_t d : output_shape)
    TT_CHECK_ARG(d > 0, "max_unpool: the output shape ", te::shapeToString(output_shape), " has a non-positive entry");
  const Shape& xs = x.shape();
  std::vector<IterVar> raxes;
  for (size_t d = 0; d < xs.size(); ++d) raxes.push_back(te::reduceAxis(xs[d], indexedName("r", d)));
  Tensor writer = te::compute(
      "max_unpool_writer", output_shape,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> u;
        for (const IterVar& iv : raxes) u.push_back(iv.var);
        Expr match = te::cast(DType::Int64, indices(u)) == linearIndex(exprs(v), output_shape);
        return te::maxReduce(linearIndex(u, xs), raxes, match);
      },
      te::OpTag::Reduction);
  return te::compute(
      "max_unpool", output_shape,
      [&](const std::vector<Var>& v) {
        Expr w = writer(v);
        return te::select(w >= int64_t{0}, x(unravel(te::max(w, Expr(int64_t{0})), xs)), constantOf(0, x.dtype()));
      },
      te::OpTag::Injective);
}

}  // namespace ttune::ops
