// Indexing, generation and argument-reduction operators (and reduce_prod) against plain loop
// references written from the ONNX definitions.
#include "ops/indexing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/reduce.h"
#include "test_util.h"

namespace ttune::ops {
namespace {

using namespace ttune::ops::testing;
using te::placeholder;

std::vector<double> values(const Buffer& b) {
  std::vector<double> v;
  for (int64_t i = 0; i < b.size(); ++i) v.push_back(b.get(i));
  return v;
}

// Element `idx` of a row-major shape with idx[axis] replaced by a.
std::vector<int64_t> with(std::vector<int64_t> idx, size_t axis, int64_t a) {
  idx[axis] = a;
  return idx;
}

TEST(ArgReduce, MatchesReferenceWithTiesKeepdimsAndLastIndex) {
  Rng rng(1);
  Shape s = {3, 4, 5};
  // Few distinct values, so that ties are common.
  Buffer xb = Buffer::zeros(s);
  for (int64_t i = 0; i < xb.size(); ++i) xb.set(i, static_cast<double>(rng.uniformInt(0, 3)));
  for (bool is_max : {true, false})
    for (int64_t axis : {0, 1, -1})
      for (bool keep : {true, false})
        for (bool last : {false, true}) {
          SCOPED_TRACE(cat(is_max ? "argmax" : "argmin", " axis ", axis, " keepdims ", keep, " last ", last));
          te::Tensor x = placeholder("x", s);
          te::Tensor y = is_max ? argmax(x, axis, keep, last) : argmin(x, axis, keep, last);
          EXPECT_EQ(y.dtype(), DType::Int64);
          size_t ax = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
          Shape os = s;
          os[ax] = 1;
          std::vector<double> want;
          forEachIndex(os, [&](const std::vector<int64_t>& o) {
            int64_t best = 0;
            for (int64_t a = 1; a < s[ax]; ++a) {
              double v = xb.at(with(o, ax, a)), b = xb.at(with(o, ax, best));
              bool better = is_max ? v > b : v < b;
              if (better || (last && v == b)) best = a;
            }
            want.push_back(static_cast<double>(best));
          });
          if (!keep) os.erase(os.begin() + static_cast<std::ptrdiff_t>(ax));
          EXPECT_TRUE(allClose(run1({x}, {xb}, y), os, want, 0, 0));
        }
}

TEST(CumSum, MatchesReferenceInEveryMode) {
  Rng rng(2);
  Shape s = {3, 6};
  Buffer xb = randomBuffer(s, rng);
  for (int64_t axis : {0, 1})
    for (bool excl : {false, true})
      for (bool rev : {false, true}) {
        SCOPED_TRACE(cat("axis ", axis, " exclusive ", excl, " reverse ", rev));
        te::Tensor x = placeholder("x", s);
        std::vector<double> want;
        forEachIndex(s, [&](const std::vector<int64_t>& p) {
          double acc = 0;
          for (int64_t j = 0; j < s[axis]; ++j) {
            bool in = rev ? (excl ? j > p[axis] : j >= p[axis]) : (excl ? j < p[axis] : j <= p[axis]);
            if (in) acc += xb.at(with(p, axis, j));
          }
          want.push_back(acc);
        });
        EXPECT_TRUE(allClose(run1({x}, {xb}, cumsum(x, axis, excl, rev)), s, want));
      }
  // Integers stay integers.
  te::Tensor xi = placeholder("xi", {4}, DType::Int32);
  Buffer ib = intBuffer({4}, {1, 2, 3, 4}, DType::Int32);
  te::Tensor yi = cumsum(xi, 0);
  EXPECT_EQ(yi.dtype(), DType::Int32);
  EXPECT_TRUE(allClose(run1({xi}, {ib}, yi), {4}, {1, 3, 6, 10}, 0, 0));
}

// A long axis (beyond 1024) is summed in blocks of about sqrt(n), the last one partial.
TEST(CumSum, LongAxisInBlocksMatchesInEveryMode) {
  Rng rng(3);
  Shape s = {2, 1100};
  Buffer xb = randomBuffer(s, rng);
  for (bool excl : {false, true})
    for (bool rev : {false, true}) {
      SCOPED_TRACE(cat("exclusive ", excl, " reverse ", rev));
      te::Tensor x = placeholder("x", s);
      std::vector<double> want;
      forEachIndex(s, [&](const std::vector<int64_t>& p) {
        double acc = 0;
        for (int64_t j = 0; j < s[1]; ++j)
          if (rev ? (excl ? j > p[1] : j >= p[1]) : (excl ? j < p[1] : j <= p[1])) acc += xb.at({p[0], j});
        want.push_back(acc);
      });
      EXPECT_TRUE(allClose(run1({x}, {xb}, cumsum(x, 1, excl, rev)), s, want, 1e-3, 1e-3));
    }
}

TEST(Hardmax, OneAtTheFirstMaximum) {
  te::Tensor x = placeholder("x", {2, 3});
  Buffer xb = Buffer::zeros({2, 3});
  for (int64_t i = 0; i < 6; ++i) xb.set(i, std::vector<double>{1, 3, 3, -1, -2, -3}[static_cast<size_t>(i)]);
  EXPECT_TRUE(allClose(run1({x}, {xb}, hardmax(x, 1)), {2, 3}, {0, 1, 0, 1, 0, 0}, 0, 0));
  EXPECT_TRUE(allClose(run1({x}, {xb}, hardmax(x, 0)), {2, 3}, {1, 1, 1, 0, 0, 0}, 0, 0));
}

TEST(Lrn, MatchesReference) {
  Rng rng(3);
  Shape s = {2, 5, 3, 2};
  Buffer xb = randomBuffer(s, rng);
  for (int64_t size : {1, 2, 3, 4}) {
    SCOPED_TRACE(cat("size ", size));
    double alpha = 2e-2, beta = 0.6, bias = 1.5;
    te::Tensor x = placeholder("x", s);
    std::vector<double> want;
    forEachIndex(s, [&](const std::vector<int64_t>& p) {
      double sq = 0;
      for (int64_t c = p[1] - (size - 1) / 2; c <= p[1] + size / 2; ++c)
        if (c >= 0 && c < s[1]) sq += xb.at(with(p, 1, c)) * xb.at(with(p, 1, c));
      want.push_back(xb.at(p) / std::pow(bias + alpha / static_cast<double>(size) * sq, beta));
    });
    EXPECT_TRUE(allClose(run1({x}, {xb}, lrn(x, size, alpha, beta, bias)), s, want));
  }
}

TEST(GatherElements, MatchesReferenceWithNegativeIndices) {
  Rng rng(4);
  Shape ds = {3, 4}, is = {2, 4};
  Buffer db = randomBuffer(ds, rng);
  for (int64_t axis : {0, 1}) {
    int64_t dim = ds[axis];
    std::vector<int64_t> idx;
    for (int i = 0; i < 8; ++i) idx.push_back(rng.uniformInt(-dim, dim - 1));
    Buffer ib = intBuffer(is, idx, DType::Int64);
    te::Tensor d = placeholder("d", ds), in = placeholder("i", is, DType::Int64);
    std::vector<double> want;
    forEachIndex(is, [&](const std::vector<int64_t>& p) {
      int64_t k = idx[static_cast<size_t>(offsetOf(is, p))];
      want.push_back(db.at(with(p, axis, k < 0 ? k + dim : k)));
    });
    EXPECT_TRUE(allClose(run({d, in}, {db, ib}, {gather_elements(d, in, axis)})[0], is, want, 0, 0));
  }
}

TEST(GatherNd, MatchesReferenceWithBatchDims) {
  Rng rng(5);
  Shape ds = {2, 3, 4};
  Buffer db = randomBuffer(ds, rng);
  {  // indices [2, 2] into the first two axes: output [2, 4]
    std::vector<int64_t> idx = {1, 2, 0, -1};
    te::Tensor d = placeholder("d", ds), in = placeholder("i", {2, 2}, DType::Int64);
    std::vector<double> want;
    for (int r = 0; r < 2; ++r) {
      int64_t a = idx[2 * r], b = idx[2 * r + 1] < 0 ? idx[2 * r + 1] + 3 : idx[2 * r + 1];
      for (int64_t k = 0; k < 4; ++k) want.push_back(db.at({a, b, k}));
    }
    EXPECT_TRUE(
        allClose(run({d, in}, {db, intBuffer({2, 2}, idx, DType::Int64)}, {gather_nd(d, in)})[0], {2, 4}, want, 0, 0));
  }
  {  // batch_dims 1, indices [2, 3, 1]: output [2, 3, 4] picks data[b, idx[b, j], :]
    std::vector<int64_t> idx = {2, 0, 1, 1, 1, 0};
    te::Tensor d = placeholder("d", ds), in = placeholder("i", {2, 3, 1}, DType::Int32);
    std::vector<double> want;
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t k = 0; k < 4; ++k) want.push_back(db.at({b, idx[static_cast<size_t>(b * 3 + j)], k}));
    EXPECT_TRUE(allClose(run({d, in}, {db, intBuffer({2, 3, 1}, idx, DType::Int32)}, {gather_nd(d, in, 1)})[0],
                         {2, 3, 4}, want, 0, 0));
  }
}

TEST(ScatterElements, MatchesReferenceForEveryReduction) {
  Rng rng(6);
  Shape ds = {4, 3}, is = {3, 2};
  Buffer db = randomBuffer(ds, rng), ub = randomBuffer(is, rng);
  for (int64_t axis : {0, 1})
    for (ScatterReduction red : {ScatterReduction::None, ScatterReduction::Add, ScatterReduction::Mul}) {
      SCOPED_TRACE(cat("axis ", axis, " reduction ", static_cast<int>(red)));
      int64_t dim = ds[axis];
      std::vector<int64_t> idx;  // duplicates likely
      for (int i = 0; i < 6; ++i) idx.push_back(rng.uniformInt(-dim, dim - 1));
      std::vector<double> want = values(db);
      forEachIndex(is, [&](const std::vector<int64_t>& u) {
        int64_t k = idx[static_cast<size_t>(offsetOf(is, u))];
        size_t o = static_cast<size_t>(offsetOf(ds, with(u, axis, k < 0 ? k + dim : k)));
        double v = ub.at(u);
        want[o] = red == ScatterReduction::None ? v : red == ScatterReduction::Add ? want[o] + v : want[o] * v;
      });
      te::Tensor d = placeholder("d", ds), in = placeholder("i", is, DType::Int64), up = placeholder("u", is);
      EXPECT_TRUE(allClose(
          run({d, in, up}, {db, intBuffer(is, idx, DType::Int64), ub}, {scatter_elements(d, in, up, axis, red)})[0], ds,
          want));
    }
}

// Indices of extent 1 on axes other than the scatter axis broadcast along the updates (the form
// the importer gives torchvision's expanded row indices): the same result as their expansion.
TEST(ScatterElements, BroadcastIndicesMatchTheirExpansion) {
  Rng rng(9);
  Shape ds = {5, 4, 3}, us = {3, 4, 2}, is = {3, 1, 1};
  Buffer db = randomBuffer(ds, rng), ub = randomBuffer(us, rng);
  std::vector<int64_t> idx = {4, -5, 4};  // a duplicate row, and -5 is row 0
  std::vector<int64_t> full;
  forEachIndex(us, [&](const std::vector<int64_t>& u) { full.push_back(idx[static_cast<size_t>(u[0])]); });
  for (ScatterReduction red : {ScatterReduction::None, ScatterReduction::Add, ScatterReduction::Mul}) {
    SCOPED_TRACE(cat("reduction ", static_cast<int>(red)));
    te::Tensor d = placeholder("d", ds), up = placeholder("u", us);
    te::Tensor small = placeholder("i", is, DType::Int64), expanded = placeholder("i", us, DType::Int64);
    Buffer got =
        run({d, small, up}, {db, intBuffer(is, idx, DType::Int64), ub}, {scatter_elements(d, small, up, 0, red)})[0];
    Buffer want = run({d, expanded, up}, {db, intBuffer(us, full, DType::Int64), ub},
                      {scatter_elements(d, expanded, up, 0, red)})[0];
    EXPECT_TRUE(allClose(got, ds, values(want)));
  }
  // Extent 1 on the scatter axis itself is no broadcast: indices and updates must agree there.
  te::Tensor d = placeholder("d", ds), up = placeholder("u", us), one = placeholder("i", {1, 4, 2}, DType::Int64);
  EXPECT_TRUE(throwsError([&] { scatter_elements(d, one, up, 0); }, {"differ from indices"}));
}

TEST(ScatterNd, MatchesReferenceForEveryReduction) {
  Rng rng(7);
  Shape ds = {4, 3, 2};
  Buffer db = randomBuffer(ds, rng);
  for (ScatterReduction red : {ScatterReduction::None, ScatterReduction::Add, ScatterReduction::Mul}) {
    SCOPED_TRACE(cat("reduction ", static_cast<int>(red)));
    {  // indices [3, 1] replace rows: updates [3, 3, 2]
      std::vector<int64_t> idx = {2, -1, 2};
      Buffer ub = randomBuffer({3, 3, 2}, rng);
      std::vector<double> want = values(db);
      for (int64_t u = 0; u < 3; ++u) {
        int64_t row = idx[static_cast<size_t>(u)] < 0 ? idx[static_cast<size_t>(u)] + 4 : idx[static_cast<size_t>(u)];
        for (int64_t j = 0; j < 6; ++j) {
          double& w = want[static_cast<size_t>(row * 6 + j)];
          double v = ub.get(u * 6 + j);
          w = red == ScatterReduction::None ? v : red == ScatterReduction::Add ? w + v : w * v;
        }
      }
      te::Tensor d = placeholder("d", ds), in = placeholder("i", {3, 1}, DType::Int64),
                 up = placeholder("u", {3, 3, 2});
      EXPECT_TRUE(allClose(
          run({d, in, up}, {db, intBuffer({3, 1}, idx, DType::Int64), ub}, {scatter_nd(d, in, up, red)})[0], ds, want));
    }
    {  // one full index tuple: indices [3], updates a scalar
      te::Tensor d = placeholder("d", ds), in = placeholder("i", {3}, DType::Int64), up = placeholder("u", {});
      Buffer ub = Buffer::zeros({});
      ub.set(0, 5);
      std::vector<double> want = values(db);
      double& w = want[static_cast<size_t>(offsetOf(ds, {1, 2, 0}))];
      w = red == ScatterReduction::None ? 5 : red == ScatterReduction::Add ? w + 5 : w * 5;
      EXPECT_TRUE(
          allClose(run({d, in, up}, {db, intBuffer({3}, {1, 2, 0}, DType::Int64), ub}, {scatter_nd(d, in, up, red)})[0],
                   ds, want));
    }
  }
}

TEST(Trilu, KeepsTheTriangle) {
  Rng rng(8);
  Shape s = {2, 3, 5};
  Buffer xb = randomBuffer(s, rng);
  for (bool upper : {true, false})
    for (int64_t k : {-4, -1, 0, 2, 7}) {
      te::Tensor x = placeholder("x", s);
      std::vector<double> want;
      forEachIndex(s, [&](const std::vector<int64_t>& p) {
        int64_t d = p[2] - p[1];
        want.push_back((upper ? d >= k : d <= k) ? xb.at(p) : 0.0);
      });
      EXPECT_TRUE(allClose(run1({x}, {xb}, trilu(x, k, upper)), s, want, 0, 0)) << upper << " " << k;
    }
}

TEST(OneHot, WrapsNegativeIndicesAndLeavesOutOfRangeOff) {
  std::vector<int64_t> idx = {0, 3, -1, 5, -5, 2};
  int64_t depth = 4;
  for (int64_t axis : {-1, 0, 1}) {
    te::Tensor in = placeholder("i", {2, 3}, DType::Int64), vals = placeholder("v", {2});
    Buffer vb = Buffer::zeros({2});
    vb.set(0, -2);
    vb.set(1, 7);
    size_t ax = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
    Shape os = {2, 3};
    os.insert(os.begin() + static_cast<std::ptrdiff_t>(ax), depth);
    std::vector<double> want;
    forEachIndex(os, [&](const std::vector<int64_t>& p) {
      std::vector<int64_t> ip = p;
      ip.erase(ip.begin() + static_cast<std::ptrdiff_t>(ax));
      int64_t i = idx[static_cast<size_t>(offsetOf({2, 3}, ip))];
      if (i < 0) i += depth;
      want.push_back(i == p[ax] ? 7 : -2);
    });
    EXPECT_TRUE(
        allClose(run({in, vals}, {intBuffer({2, 3}, idx, DType::Int64), vb}, {one_hot(in, vals, depth, axis)})[0], os,
                 want, 0, 0))
        << axis;
  }
}

TEST(TopK, IndicesMatchAStableSort) {
  Rng rng(9);
  Shape s = {3, 7};
  Buffer xb = Buffer::zeros(s);
  for (int64_t i = 0; i < xb.size(); ++i) xb.set(i, static_cast<double>(rng.uniformInt(0, 4)));  // ties
  for (bool largest : {true, false})
    for (int64_t axis : {0, 1})
      for (int64_t k : {int64_t{1}, s[axis]}) {
        SCOPED_TRACE(cat("largest ", largest, " axis ", axis, " k ", k));
        te::Tensor x = placeholder("x", s);
        Shape os = s;
        os[axis] = k;
        std::vector<double> want;
        forEachIndex(os, [&](const std::vector<int64_t>& p) {
          std::vector<int64_t> order(static_cast<size_t>(s[axis]));
          std::iota(order.begin(), order.end(), 0);
          std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            double va = xb.at(with(p, axis, a)), vb = xb.at(with(p, axis, b));
            return largest ? va > vb : va < vb;
          });
          want.push_back(static_cast<double>(order[static_cast<size_t>(p[axis])]));
        });
        te::Tensor y = topk_indices(x, k, axis, largest);
        EXPECT_EQ(y.dtype(), DType::Int64);
        EXPECT_TRUE(allClose(run1({x}, {xb}, y), os, want, 0, 0));
      }
}

TEST(ReverseSequence, ReversesThePrefixOfEachBatch) {
  Rng rng(10);
  Shape s = {4, 3, 2};  // time, batch, feature
  Buffer xb = randomBuffer(s, rng);
  std::vector<int64_t> lens = {4, 1, 2};
  te::Tensor x = placeholder("x", s), l = placeholder("l", {3}, DType::Int64);
  std::vector<double> want;
  forEachIndex(s, [&](const std::vector<int64_t>& p) {
    int64_t len = lens[static_cast<size_t>(p[1])];
    want.push_back(p[0] < len ? xb.at(with(p, 0, len - 1 - p[0])) : xb.at(p));
  });
  EXPECT_TRUE(allClose(run({x, l}, {xb, intBuffer({3}, lens, DType::Int64)}, {reverse_sequence(x, l, 1, 0)})[0], s,
                       want, 0, 0));
}

TEST(MaxUnpool, PlacesValuesAtTheirFlatPositions) {
  Shape xs = {1, 2, 2, 2}, os = {1, 2, 4, 4};
  Buffer xb = Buffer::zeros(xs);
  for (int64_t i = 0; i < 8; ++i) xb.set(i, static_cast<double>(i + 1));
  std::vector<int64_t> idx = {5, 7, 13, 15, 16, 19, 25, 31};
  te::Tensor x = placeholder("x", xs), in = placeholder("i", xs, DType::Int64);
  std::vector<double> want(32, 0.0);
  for (size_t i = 0; i < idx.size(); ++i) want[static_cast<size_t>(idx[i])] = static_cast<double>(i + 1);
  EXPECT_TRUE(
      allClose(run({x, in}, {xb, intBuffer(xs, idx, DType::Int64)}, {max_unpool(x, in, os)})[0], os, want, 0, 0));
}

TEST(ReduceProd, MatchesReference) {
  Rng rng(11);
  Shape s = {2, 3, 4};
  Buffer xb = randomBuffer(s, rng, 0.5, 1.5);
  te::Tensor x = placeholder("x", s);
  std::vector<double> want(8, 1.0);
  forEachIndex(s, [&](const std::vector<int64_t>& p) { want[static_cast<size_t>(p[0] * 4 + p[2])] *= xb.at(p); });
  EXPECT_TRUE(allClose(run1({x}, {xb}, reduce_prod(x, {1}, false)), {2, 4}, want));
}

TEST(Indexing, RejectsBadArguments) {
  te::Tensor x = placeholder("x", {3, 4});
  te::Tensor fi = placeholder("fi", {3, 4});
  EXPECT_OP_ERROR(gather_elements(x, fi, 0), "gather_elements", "int32 or int64");
  EXPECT_OP_ERROR(topk_indices(x, 5, 1), "topk", "k = 5");
  EXPECT_OP_ERROR(argmax(x, 2), "argmax", "axis 2");
  te::Tensor i = placeholder("i", {2, 3}, DType::Int64);
  EXPECT_OP_ERROR(gather_nd(x, i), "gather_nd", "do not fit");
  EXPECT_OP_ERROR(lrn(x, 0), "lrn", "size");
}

}  // namespace
}  // namespace ttune::ops
