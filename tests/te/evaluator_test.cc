#include <gtest/gtest.h>

#include <cmath>

#include "te/evaluator.h"

namespace ttune::te {
namespace {

TEST(Evaluator, MatmulMatchesLoops) {
  const int M = 5, N = 7, K = 3;
  Tensor a = placeholder("A", {M, K});
  Tensor b = placeholder("B", {K, N});
  IterVar r = reduceAxis(K, "k");
  Tensor c = compute("C", {M, N}, [&](const std::vector<Var>& v) { return sum(a(v[0], r.var) * b(r.var, v[1]), {r}); });
  ComputeDAG dag({a, b}, {c});
  std::vector<float> A(M * K), B(K * N), C(M * N);
  for (int i = 0; i < M * K; ++i) A[i] = 0.5f * i - 1;
  for (int i = 0; i < K * N; ++i) B[i] = 0.25f * (i % 5) + 0.1f;
  evaluate(dag, {A.data(), B.data(), C.data()});
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0;
      for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
      EXPECT_FLOAT_EQ(C[i * N + j], s);
    }
}

TEST(Evaluator, ReductionWithConditionAndIntermediates) {
  Tensor a = placeholder("A", {6});
  Tensor sq = compute("SQ", {6}, [&](const std::vector<Var>& v) { return a(v) * a(v); });
  IterVar r = reduceAxis(6, "r");
  Tensor s = compute("S", {1}, [&](const std::vector<Var>&) { return sum(sq(r.var), {r}, r.var % 2 == 0); });
  IterVar r2 = reduceAxis(6, "r2");
  Tensor mx = compute("M", {1}, [&](const std::vector<Var>&) { return maxReduce(a(r2.var), {r2}); });
  ComputeDAG dag({a}, {s, mx});
  std::vector<float> A = {1, -2, 3, 4, -5, 0.5f}, S(1), MX(1);
  evaluate(dag, {A.data(), S.data(), MX.data()});
  EXPECT_FLOAT_EQ(S[0], 1 + 9 + 25);
  EXPECT_FLOAT_EQ(MX[0], 4);
}

TEST(Evaluator, IntegerGather) {
  Tensor table = placeholder("W", {4, 3});
  Tensor ids = placeholder("ids", {2}, DType::Int64);
  Tensor g = compute("G", {2, 3}, [&](const std::vector<Var>& v) { return table(ids(v[0]), v[1]); });
  ComputeDAG dag({table, ids}, {g});
  std::vector<float> W(12);
  for (int i = 0; i < 12; ++i) W[i] = static_cast<float>(i);
  std::vector<int64_t> I = {3, 1};
  std::vector<float> G(6);
  evaluate(dag, {W.data(), I.data(), G.data()});
  EXPECT_EQ(G, (std::vector<float>{9, 10, 11, 3, 4, 5}));
}

}  // namespace
}  // namespace ttune::te

namespace ttune::te {
namespace {

TEST(Evaluator, PointsMatchFullEvaluation) {
  // pad -> matmul-like reduction -> elementwise: intermediates are computed on demand.
  Tensor a = placeholder("A", {5, 7});
  Tensor p = compute("P", {5, 9}, [&](const std::vector<Var>& v) {
    return select(v[1] >= 1 && v[1] < 8, a(v[0], max(Expr(v[1]) - 1, Expr(0))), floatImm(0.0));
  });
  IterVar k = reduceAxis(9, "k");
  Tensor s = compute("S", {5, 3}, [&](const std::vector<Var>& v) {
    return sum(p(v[0], k.var) * cast(DType::Float32, v[1] + k.var), {k});
  });
  Tensor r = compute("R", {5, 3}, [&](const std::vector<Var>& v) { return tanh(s(v)); });
  ComputeDAG dag({a}, {r});
  std::vector<float> A(35), R(15);
  for (int i = 0; i < 35; ++i) A[i] = 0.1f * (i % 11) - 0.4f;
  evaluate(dag, {A.data(), R.data()});
  std::vector<std::vector<int64_t>> pts = {{0, 0}, {4, 2}, {2, 1}, {2, 1}};
  auto vals = evaluateAt(dag, {A.data(), nullptr}, 0, pts);
  for (size_t i = 0; i < pts.size(); ++i) EXPECT_FLOAT_EQ(static_cast<float>(vals[i]), R[pts[i][0] * 3 + pts[i][1]]);
}

}  // namespace
}  // namespace ttune::te
