// ComputeDAG (te/compute_dag.h): topological order and edges, FLOPs, the structural and exact
// hashes behind kernel classes and workload keys, op renaming, input checks, and the precision
// tags that make int8 and bfloat16 reductions classes of their own.
#include <gtest/gtest.h>

#include "support/error.h"
#include "te/compute_dag.h"

namespace ttune::te {
namespace {

ComputeDAG matmulRelu(int64_t m, int64_t n, int64_t k, bool relu6) {
  Tensor a = placeholder("A", {m, k});
  Tensor b = placeholder("B", {k, n});
  IterVar r = reduceAxis(k, "k");
  Tensor c = compute("C", {m, n}, [&](const std::vector<Var>& v) { return sum(a(v[0], r.var) * b(r.var, v[1]), {r}); });
  Tensor d = compute("D", {m, n}, [&](const std::vector<Var>& v) {
    Expr x = max(c(v), floatImm(0.0));
    return relu6 ? min(x, floatImm(6.0)) : x;
  });
  return ComputeDAG({a, b}, {d});
}

TEST(ComputeDAG, TopologicalOrderAndEdges) {
  ComputeDAG dag = matmulRelu(4, 5, 6, false);
  ASSERT_EQ(dag.numOps(), 4);
  EXPECT_EQ(dag.op(0).name(), "A");
  EXPECT_EQ(dag.op(1).name(), "B");
  EXPECT_EQ(dag.op(2).name(), "C");
  EXPECT_EQ(dag.op(3).name(), "D");
  EXPECT_EQ(dag.consumers(2), std::vector<int>{3});
  EXPECT_EQ(dag.producers(2), (std::vector<int>{0, 1}));
  EXPECT_TRUE(dag.isOutput(3));
  EXPECT_EQ(dag.argIndex(3), 2);
  EXPECT_EQ(dag.argIndex(2), -1);
}

TEST(ComputeDAG, FlopsCountMultiplyAdd) {
  ComputeDAG dag = matmulRelu(4, 5, 6, false);
  // matmul: 4*5*6*(mul + add) ; relu: 4*5 max
  EXPECT_DOUBLE_EQ(dag.flops(), 4 * 5 * 6 * 2 + 4 * 5);
}

TEST(ComputeDAG, StructuralHashIgnoresShapes) {
  ComputeDAG a = matmulRelu(4, 5, 6, false);
  ComputeDAG b = matmulRelu(17, 3, 129, false);
  EXPECT_EQ(a.structuralHash(), b.structuralHash());
  EXPECT_NE(a.exactHash(), b.exactHash());
  EXPECT_NE(a.workloadKey(), b.workloadKey());
  ComputeDAG c = matmulRelu(4, 5, 6, true);
  EXPECT_NE(a.structuralHash(), c.structuralHash());
  // Same shapes and structure built twice: identical keys.
  EXPECT_EQ(a.workloadKey(), matmulRelu(4, 5, 6, false).workloadKey());
}

TEST(ComputeDAG, WorkloadKeysStayTheOnesTheBankFilesRecordsUnder) {
  // Banks (the shipped one included) find records by this key: a change to the hash that moves
  // the key of an unchanged kernel makes every stored record unreachable.
  EXPECT_EQ(matmulRelu(4, 5, 6, false).workloadKey(), "c552d790243ac64e-668136408bba03bd");
}

TEST(ComputeDAG, RenamesClashingOps) {
  Tensor a = placeholder("A", {4});
  Tensor x = compute("T", {4}, [&](const std::vector<Var>& v) { return a(v) + floatImm(1.0); });
  Tensor y = compute("T", {4}, [&](const std::vector<Var>& v) { return x(v) * floatImm(2.0); });
  ComputeDAG dag({a}, {y});
  EXPECT_EQ(dag.op(1).name(), "T");
  EXPECT_EQ(dag.op(2).name(), "T.1");
  EXPECT_EQ(dag.outputs()[0].name(), "T.1");
}

TEST(ComputeDAG, MissingInputIsAnError) {
  Tensor a = placeholder("A", {4});
  Tensor b = placeholder("B", {4});
  Tensor c = compute("C", {4}, [&](const std::vector<Var>& v) { return a(v) + b(v); });
  EXPECT_THROW(ComputeDAG({a}, {c}), Error);
}

// A dot product of a and b (each read as the given type), accumulated in `acc`.
ComputeDAG dot(DType ta, DType tb, DType acc, bool same_tensor = false) {
  Tensor a = placeholder("A", {8}, ta);
  Tensor b = same_tensor ? a : placeholder("B", {8}, tb);
  IterVar r = reduceAxis(8, "k");
  Tensor c =
      compute("C", {1}, [&](const std::vector<Var>&) { return sum(cast(acc, a(r.var)) * cast(acc, b(r.var)), {r}); });
  return same_tensor ? ComputeDAG({a}, {c}) : ComputeDAG({a, b}, {c});
}

TEST(ComputeDAG, PrecisionTagsNameTheOperandTypesOfReductions) {
  auto tag = [](const ComputeDAG& d) { return precisionTag(d.outputs()[0].op()); };
  EXPECT_EQ(tag(dot(DType::Float32, DType::Float32, DType::Float32)), "");
  EXPECT_EQ(tag(dot(DType::UInt8, DType::Int8, DType::Int32)), "u8s8");
  EXPECT_EQ(tag(dot(DType::Int8, DType::UInt8, DType::Int32)), "s8u8");     // in order of first read
  EXPECT_EQ(tag(dot(DType::Int8, DType::Int8, DType::Int32, true)), "s8");  // one tensor read twice
  EXPECT_EQ(tag(dot(DType::BFloat16, DType::BFloat16, DType::Float32)), "bf16");
  EXPECT_EQ(tag(dot(DType::Float64, DType::Float64, DType::Float64)), "float64");
  EXPECT_EQ(tag(matmulRelu(4, 5, 6, false)), "");  // the output is the relu: no reduction
  EXPECT_EQ(computePrecision(dot(DType::UInt8, DType::Int8, DType::Int32)), "int8");
  EXPECT_EQ(computePrecision(dot(DType::Int8, DType::Int8, DType::Int32, true)), "int8");
  EXPECT_EQ(computePrecision(dot(DType::BFloat16, DType::BFloat16, DType::Float32)), "bf16");
  EXPECT_EQ(computePrecision(dot(DType::Float64, DType::Float64, DType::Float64)), "fp32");
  EXPECT_EQ(computePrecision(matmulRelu(4, 5, 6, false)), "fp32");
}

}  // namespace
}  // namespace ttune::te
