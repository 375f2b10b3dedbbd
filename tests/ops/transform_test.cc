// Injective operators (pad, concat, reshape, flatten, transpose, slice, gather, expand, cast)
// against loop references, with the ONNX corner cases spelled out.
#include "ops/transform.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace ttune::ops {
namespace {

using namespace ttune::ops::testing;
using te::placeholder;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// ---- pad --------------------------------------------------------------------------------------

int64_t sourceCoord(int64_t i, int64_t n, PadMode mode) {
  // i is a coordinate relative to the input start; returns -1 for constant fill.
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::Constant:
      return -1;
    case PadMode::Edge:
      return i < 0 ? 0 : n - 1;
    case PadMode::Reflect:
      return i < 0 ? -i : 2 * (n - 1) - i;
  }
  return -1;
}

TEST(Pad, AllModesMatchReference) {
  Rng rng(40);
  struct Case {
    Shape shape;
    std::vector<int64_t> before, after;
  };
  std::vector<Case> cases = {
      {{5}, {2}, {1}},
      {{2, 3, 4}, {0, 1, 2}, {1, 0, 3}},
      {{1, 3, 5, 7}, {0, 0, 1, 2}, {0, 0, 2, 1}},
      {{3, 3}, {0, 0}, {0, 0}},
  };
  for (PadMode mode : {PadMode::Constant, PadMode::Edge, PadMode::Reflect})
    for (const Case& c : cases) {
      SCOPED_TRACE(te::shapeToString(c.shape) + " " + listToString(c.before) + " " + listToString(c.after) +
                   cat(" mode ", static_cast<int>(mode)));
      te::Tensor x = placeholder("x", c.shape);
      te::Tensor y = pad(x, c.before, c.after, -7.5, mode);
      Shape out;
      for (size_t d = 0; d < c.shape.size(); ++d) out.push_back(c.shape[d] + c.before[d] + c.after[d]);
      Buffer xb = randomBuffer(c.shape, rng);
      std::vector<double> want;
      forEachIndex(out, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> src;
        bool fill = false;
        for (size_t d = 0; d < i.size(); ++d) {
          int64_t s = sourceCoord(i[d] - c.before[d], c.shape[d], mode);
          fill |= s < 0;
          src.push_back(s);
        }
        want.push_back(fill ? -7.5 : xb.at(src));
      });
      EXPECT_TRUE(allClose(run1({x}, {xb}, y), out, want, 0, 0));
      EXPECT_EQ(y.op().tag(), mode == PadMode::Constant ? te::OpTag::Pad : te::OpTag::Injective);
    }
}

TEST(Pad, IntegerTensorsAndErrors) {
  te::Tensor x = placeholder("x", {3}, te::DType::Int64);
  te::Tensor y = pad(x, {1}, {2}, 9);
  EXPECT_EQ(y.name(), "pad");
  Buffer out = run1({x}, {intBuffer({3}, {4, 5, 6}, te::DType::Int64)}, y);
  EXPECT_EQ(out.i64, (std::vector<int64_t>{9, 4, 5, 6, 9, 9}));
  te::Tensor f = placeholder("f", {2, 3});
  EXPECT_OP_ERROR(pad(f, {1}, {1, 1}), "pad", "rank 2");
  EXPECT_OP_ERROR(pad(f, {0, -1}, {0, 0}), "pad", "non-negative");
  EXPECT_OP_ERROR(pad(f, {0, 3}, {0, 0}, 0, PadMode::Reflect), "pad", "reflect", "smaller than its extent 3");
  EXPECT_OP_ERROR(pad(x, {1}, {0}, -INFINITY), "pad", "fill value -inf", "int64");
}

// ---- concat / reshape / flatten / transpose ------------------------------------------------------

TEST(Concat, MatchesReference) {
  Rng rng(41);
  struct Case {
    std::vector<Shape> shapes;
    int64_t axis;
  };
  for (const Case& c : std::vector<Case>{
           {{{2, 3}, {2, 5}}, 1}, {{{1, 4}, {3, 4}, {2, 4}}, 0}, {{{2, 3, 1}, {2, 3, 4}, {2, 3, 2}}, -1}, {{{7}}, 0}}) {
    SCOPED_TRACE(cat("axis ", c.axis));
    std::vector<te::Tensor> xs;
    std::vector<Buffer> data;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      xs.push_back(placeholder(cat("x", i), c.shapes[i]));
      data.push_back(randomBuffer(c.shapes[i], rng));
    }
    te::Tensor y = concat(xs, c.axis);
    EXPECT_EQ(y.name(), "T_concat");
    size_t ax = static_cast<size_t>(c.axis < 0 ? c.axis + static_cast<int64_t>(c.shapes[0].size()) : c.axis);
    Shape out = c.shapes[0];
    out[ax] = 0;
    for (const Shape& s : c.shapes) out[ax] += s[ax];
    std::vector<double> want;
    forEachIndex(out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> j = i;
      size_t t = 0;
      while (j[ax] >= c.shapes[t][ax]) j[ax] -= c.shapes[t++][ax];
      want.push_back(data[t].at(j));
    });
    EXPECT_TRUE(allClose(run1(xs, data, y), out, want, 0, 0));
  }
  te::Tensor a = placeholder("a", {2, 3}), b = placeholder("b", {3, 3});
  EXPECT_OP_ERROR(concat({a, b}, 1), "concat", "input 1 has shape [3, 3]", "outside axis 1");
  EXPECT_OP_ERROR(concat({a, placeholder("c", {2, 3, 1})}, 0), "concat", "rank 3");
  EXPECT_OP_ERROR(concat({a, placeholder("d", {2, 3}, te::DType::Int32)}, 0), "concat", "int32");
  EXPECT_OP_ERROR(concat({a}, 2), "concat", "axis 2 is out of range");
  EXPECT_OP_ERROR(concat({}, 0), "concat", "at least one");
}

TEST(Reshape, PreservesRowMajorOrder) {
  Rng rng(42);
  struct Case {
    Shape from, to;
  };
  for (const Case& c : std::vector<Case>{{{2, 3, 4}, {4, 6}},
                                         {{6, 5}, {3, 1, 10}},
                                         {{1, 7, 1}, {7}},
                                         {{2, 3, 5}, {5, 3, 2}},
                                         {{4, 3}, {4, 3}},
                                         {{1}, {}}}) {
    SCOPED_TRACE(te::shapeToString(c.from) + " -> " + te::shapeToString(c.to));
    te::Tensor x = placeholder("x", c.from);
    te::Tensor y = reshape(x, c.to);
    EXPECT_EQ(y.name(), "T_reshape");
    Buffer xb = randomBuffer(c.from, rng);
    std::vector<double> want(xb.f.begin(), xb.f.end());
    EXPECT_TRUE(allClose(run1({x}, {xb}, y), c.to, want, 0, 0));
  }
  te::Tensor x = placeholder("x", {2, 3});
  EXPECT_OP_ERROR(reshape(x, {4, 2}), "reshape", "cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)");
  EXPECT_OP_ERROR(reshape(x, {-1, 6}), "reshape", "non-positive");
}

TEST(Flatten, OnnxAxes) {
  Rng rng(43);
  te::Tensor x = placeholder("x", {2, 3, 4});
  Buffer xb = randomBuffer({2, 3, 4}, rng);
  std::vector<double> want(xb.f.begin(), xb.f.end());
  struct Case {
    int64_t axis;
    Shape out;
  };
  for (const Case& c : std::vector<Case>{{0, {1, 24}}, {1, {2, 12}}, {2, {6, 4}}, {3, {24, 1}}, {-1, {6, 4}}}) {
    te::Tensor y = flatten(x, c.axis);
    EXPECT_EQ(y.name(), "T_flatten");
    EXPECT_TRUE(allClose(run1({x}, {xb}, y), c.out, want, 0, 0)) << "axis " << c.axis;
  }
  EXPECT_OP_ERROR(flatten(x, 4), "flatten", "axis 4 is out of range");
}

TEST(Transpose, MatchesReference) {
  Rng rng(44);
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
  };
  for (const Case& c : std::vector<Case>{
           {{2, 3}, {1, 0}}, {{2, 3, 5}, {}}, {{1, 3, 2, 5}, {0, 2, 1, 3}}, {{2, 3, 5}, {1, 2, 0}}, {{4}, {0}}}) {
    SCOPED_TRACE(te::shapeToString(c.shape) + " " + listToString(c.perm));
    std::vector<int64_t> perm = c.perm;
    if (perm.empty())
      for (size_t d = c.shape.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
    te::Tensor x = placeholder("x", c.shape);
    te::Tensor y = transpose(x, c.perm);
    EXPECT_EQ(y.name(), "T_transpose");
    Shape out;
    for (int64_t p : perm) out.push_back(c.shape[p]);
    Buffer xb = randomBuffer(c.shape, rng);
    std::vector<double> want;
    forEachIndex(out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> src(i.size());
      for (size_t d = 0; d < i.size(); ++d) src[perm[d]] = i[d];
      want.push_back(xb.at(src));
    });
    EXPECT_TRUE(allClose(run1({x}, {xb}, y), out, want, 0, 0));
  }
  te::Tensor x = placeholder("x", {2, 3, 4});
  EXPECT_OP_ERROR(transpose(x, {0, 2}), "transpose: perm [0, 2] is not a permutation of 3 axes");
  EXPECT_OP_ERROR(transpose(x, {0, 1, 1}), "transpose", "not a permutation");
  EXPECT_OP_ERROR(transpose(x, {0, 1, 3}), "transpose", "not a permutation");
}

// ---- slice --------------------------------------------------------------------------------------

// The indices ONNX Slice selects on one axis, by walking from the clamped start.
std::vector<int64_t> sliceIndices(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  std::vector<int64_t> out;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    for (int64_t i = start; i < end; i += step) out.push_back(i);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    for (int64_t i = start; i > end; i += step) out.push_back(i);
  }
  return out;
}

TEST(Slice, OnnxSemantics) {
  Rng rng(45);
  struct Case {
    Shape shape;
    std::vector<int64_t> starts, ends, axes, steps;
  };
  std::vector<Case> cases = {
      {{5, 7, 4}, {1}, {4}, {}, {}},                         // axes default to 0..n-1
      {{5, 7, 4}, {-3, 0}, {kMax, -2}, {1, 2}, {}},          // negative start, "to the end", negative end
      {{5, 7, 4}, {-1}, {kMin}, {1}, {-2}},                  // backwards with step 2 through index 0
      {{5, 7, 4}, {10}, {-100}, {0}, {-1}},                  // both ends clamp: full reverse
      {{5, 7, 4}, {2, 1}, {1000, 3}, {-1, 0}, {1, 1}},       // negative axis, clamped end
      {{2, 4}, {1, 0}, {2, 3}, {0, 1}, {1, 2}},              // ONNX docs example 1 -> [[5, 7]]
      {{2, 4}, {0, 3}, {-1, 0}, {0, 1}, {1, -1}},            // negative step on one axis -> [[4, 3, 2]]
      {{3, 11}, {-20, 9}, {20, 2}, {0, 1}, {3, -3}},         // big steps both ways
      {{5, 7, 4}, {3, 0}, {0, kMax}, {2, 1}, {kMin, kMax}},  // extreme steps pick one element
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(te::shapeToString(c.shape) + " starts " + listToString(c.starts) + " ends " + listToString(c.ends) +
                 " axes " + listToString(c.axes) + " steps " + listToString(c.steps));
    std::vector<std::vector<int64_t>> picks;
    for (int64_t d : c.shape) {
      std::vector<int64_t> all;
      for (int64_t i = 0; i < d; ++i) all.push_back(i);
      picks.push_back(all);
    }
    for (size_t i = 0; i < c.starts.size(); ++i) {
      int64_t ax = c.axes.empty() ? static_cast<int64_t>(i) : c.axes[i];
      if (ax < 0) ax += static_cast<int64_t>(c.shape.size());
      picks[ax] = sliceIndices(c.shape[ax], c.starts[i], c.ends[i], c.steps.empty() ? 1 : c.steps[i]);
    }
    Shape out;
    for (const auto& p : picks) out.push_back(static_cast<int64_t>(p.size()));
    te::Tensor x = placeholder("x", c.shape);
    te::Tensor y = slice(x, c.starts, c.ends, c.axes, c.steps);
    EXPECT_EQ(y.name(), "T_slice");
    Buffer xb = Buffer::zeros(c.shape);
    for (int64_t i = 0; i < xb.size(); ++i) xb.f[i] = static_cast<float>(i + 1);
    std::vector<double> want;
    forEachIndex(out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> src;
      for (size_t d = 0; d < i.size(); ++d) src.push_back(picks[d][i[d]]);
      want.push_back(xb.at(src));
    });
    EXPECT_TRUE(allClose(run1({x}, {xb}, y), out, want, 0, 0));
  }
  // Two of the cases above by value.
  te::Tensor x = placeholder("x", {2, 4});
  Buffer xb = Buffer::zeros({2, 4});
  xb.f = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_TRUE(allClose(run1({x}, {xb}, slice(x, {1, 0}, {2, 3}, {0, 1}, {1, 2})), {1, 2}, {5, 7}));
  EXPECT_TRUE(allClose(run1({x}, {xb}, slice(x, {0, 3}, {-1, 0}, {0, 1}, {1, -1})), {1, 3}, {4, 3, 2}));
  (void)rng;
}

TEST(Slice, RejectsBadArguments) {
  te::Tensor x = placeholder("x", {5, 7});
  EXPECT_OP_ERROR(slice(x, {3}, {3}), "slice", "empty on axis 0");
  EXPECT_OP_ERROR(slice(x, {0}, {5}, {}, {0}), "slice", "step on axis 0 is zero");
  EXPECT_OP_ERROR(slice(x, {0, 1}, {5}), "slice", "2 starts but 1 ends");
  EXPECT_OP_ERROR(slice(x, {0, 0}, {1, 1}, {1, -1}), "slice", "axis 1 is listed twice");
  EXPECT_OP_ERROR(slice(x, {0}, {1}, {2}), "slice", "axis 2 is out of range");
  EXPECT_OP_ERROR(slice(x, {1}, {4}, {0}, {-1}), "slice", "empty");
}

// ---- gather -------------------------------------------------------------------------------------

TEST(Gather, OnnxSemanticsWithNegativeIndices) {
  Rng rng(46);
  struct Case {
    Shape data;
    Shape ind_shape;
    std::vector<int64_t> indices;
    int64_t axis;
    te::DType dtype;
  };
  std::vector<Case> cases = {
      {{5, 4}, {2, 3}, {0, 4, -1, 2, -5, 1}, 0, te::DType::Int64},
      {{3, 7}, {3}, {6, -7, 3}, 1, te::DType::Int32},
      {{3, 4, 5}, {}, {-2}, -1, te::DType::Int64},
      {{3, 4, 5}, {2, 2}, {3, 0, -1, 1}, 1, te::DType::Int32},
      {{6}, {4}, {5, 5, 0, -6}, 0, te::DType::Int64},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(te::shapeToString(c.data) + " indices " + listToString(c.indices) + cat(" axis ", c.axis));
    size_t ax = static_cast<size_t>(c.axis < 0 ? c.axis + static_cast<int64_t>(c.data.size()) : c.axis);
    te::Tensor d = placeholder("data", c.data);
    te::Tensor ind = placeholder("indices", c.ind_shape, c.dtype);
    te::Tensor y = gather(d, ind, c.axis);
    EXPECT_EQ(y.name(), "T_gather");
    Shape out(c.data.begin(), c.data.begin() + static_cast<std::ptrdiff_t>(ax));
    out.insert(out.end(), c.ind_shape.begin(), c.ind_shape.end());
    out.insert(out.end(), c.data.begin() + static_cast<std::ptrdiff_t>(ax) + 1, c.data.end());
    Buffer db = randomBuffer(c.data, rng), ib = intBuffer(c.ind_shape, c.indices, c.dtype);
    std::vector<double> want;
    size_t q = c.ind_shape.size();
    forEachIndex(out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> ii(i.begin() + static_cast<std::ptrdiff_t>(ax),
                              i.begin() + static_cast<std::ptrdiff_t>(ax + q));
      int64_t k = static_cast<int64_t>(ib.at(ii));
      if (k < 0) k += c.data[ax];
      std::vector<int64_t> src(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(ax));
      src.push_back(k);
      src.insert(src.end(), i.begin() + static_cast<std::ptrdiff_t>(ax + q), i.end());
      want.push_back(db.at(src));
    });
    EXPECT_TRUE(allClose(run1({d, ind}, {db, ib}, y), out, want, 0, 0));
  }
  te::Tensor d = placeholder("data", {3, 4});
  EXPECT_OP_ERROR(gather(d, placeholder("f", {2}), 0), "gather", "int32 or int64", "float32");
  EXPECT_OP_ERROR(gather(d, placeholder("i", {2}, te::DType::Int64), 2), "gather", "axis 2 is out of range");
}

TEST(Gather, OutOfRangeIndicesStayInBounds) {
  // ONNX leaves them undefined; the op wraps them so that evaluation never reads outside data.
  te::Tensor d = placeholder("data", {4});
  te::Tensor ind = placeholder("indices", {3}, te::DType::Int64);
  Buffer db = Buffer::zeros({4});
  db.f = {10, 11, 12, 13};
  Buffer out = run1({d, ind}, {db, intBuffer({3}, {4, -9, 1000}, te::DType::Int64)}, gather(d, ind));
  EXPECT_EQ(out.size(), 3);
}

// ---- expand / broadcast_to / cast -----------------------------------------------------------------

TEST(Expand, BidirectionalBroadcast) {
  Rng rng(47);
  struct Case {
    Shape in, target, out;
  };
  for (const Case& c : std::vector<Case>{{{3, 1}, {2, 1, 4}, {2, 3, 4}},
                                         {{1}, {2, 3}, {2, 3}},
                                         {{2, 3}, {3}, {2, 3}},
                                         {{3, 1}, {1, 5}, {3, 5}},
                                         {{}, {2, 2}, {2, 2}}}) {
    SCOPED_TRACE(te::shapeToString(c.in) + " -> " + te::shapeToString(c.target));
    te::Tensor x = placeholder("x", c.in);
    te::Tensor y = expand(x, c.target);
    EXPECT_EQ(y.name(), "T_expand");
    Buffer xb = randomBuffer(c.in, rng);
    std::vector<double> want;
    forEachIndex(c.out, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> src;
      for (size_t d = 0; d < c.in.size(); ++d) src.push_back(c.in[d] == 1 ? 0 : i[d + c.out.size() - c.in.size()]);
      want.push_back(xb.at(src));
    });
    EXPECT_TRUE(allClose(run1({x}, {xb}, y), c.out, want, 0, 0));
    if (c.out == c.target) {
      te::Tensor z = broadcast_to(x, c.target);
      EXPECT_EQ(z.name(), "T_broadcast_to");
      EXPECT_TRUE(allClose(run1({x}, {xb}, z), c.out, want, 0, 0));
    }
  }
  te::Tensor x = placeholder("x", {3, 4});
  EXPECT_OP_ERROR(expand(x, {2, 4, 4}), "expand", "do not broadcast");
  EXPECT_OP_ERROR(broadcast_to(x, {4}), "broadcast_to: cannot broadcast [3, 4] to [4]");
  EXPECT_OP_ERROR(broadcast_to(placeholder("y", {3, 1}), {1, 5}), "broadcast_to", "cannot broadcast");
}

TEST(Cast, TruncatesTowardZeroOnSeveralShapes) {
  Rng rng(48);
  for (const Shape& s : std::vector<Shape>{{7}, {2, 3, 5}, {1, 3, 1, 4}}) {
    te::Tensor x = placeholder("x", s);
    Buffer xb = randomBuffer(s, rng, -50, 50);
    std::vector<Buffer> out =
        run({x}, {xb}, {cast(x, te::DType::Int64), cast(cast(x, te::DType::Int32), te::DType::Float32)});
    std::vector<double> want;
    for (int64_t i = 0; i < xb.size(); ++i) want.push_back(std::trunc(xb.get(i)));
    EXPECT_TRUE(allClose(out[0], s, want, 0, 0));
    EXPECT_TRUE(allClose(out[1], s, want, 0, 0));
  }
}

TEST(Cast, ConvertsBetweenDTypes) {
  te::Tensor x = placeholder("x", {6});
  Buffer xb = Buffer::zeros({6});
  xb.f = {-1.7f, -0.2f, 0.0f, 0.5f, 2.9f, 100.0f};
  std::vector<Buffer> out =
      run({x}, {xb}, {cast(x, te::DType::Int32), cast(x, te::DType::Int64), cast(x, te::DType::Bool)});
  EXPECT_EQ(out[0].i32, (std::vector<int32_t>{-1, 0, 0, 0, 2, 100}));
  EXPECT_EQ(out[1].i64, (std::vector<int64_t>{-1, 0, 0, 0, 2, 100}));
  EXPECT_EQ(out[2].b, (std::vector<uint8_t>{1, 1, 0, 1, 1, 1}));
  te::Tensor i = placeholder("i", {2, 2}, te::DType::Int64);
  te::Tensor f = cast(i, te::DType::Float32);
  EXPECT_EQ(f.name(), "T_cast");
  EXPECT_TRUE(allClose(run1({i}, {intBuffer({2, 2}, {-3, 0, 7, 123456}, te::DType::Int64)}, f), {2, 2},
                       {-3, 0, 7, 123456}, 0, 0));
  te::Tensor b = placeholder("b", {3}, te::DType::Bool);
  Buffer bb = Buffer::zeros({3}, te::DType::Bool);
  bb.b = {1, 0, 1};
  EXPECT_TRUE(allClose(run1({b}, {bb}, cast(b, te::DType::Float32)), {3}, {1, 0, 1}, 0, 0));
}

}  // namespace
}  // namespace ttune::ops
