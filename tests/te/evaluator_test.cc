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
