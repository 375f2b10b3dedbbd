// Shared helpers of the frontend tests: evaluating a te expression with the reference evaluator,
// listing a graph's operators, finding nodes, an import's error sentence, and checking a graph's
// outputs through the reference evaluator and compiled.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "executor/executor.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/graph.h"
#include "graph/reference.h"
#include "runtime/ndarray.h"
#include "support/error.h"
#include "te/compute_dag.h"
#include "te/evaluator.h"

namespace ttune::frontend::testing {

inline runtime::NDArray evalTe(const std::vector<te::Tensor>& ins, const te::Tensor& out,
                               const std::vector<runtime::NDArray>& arrays) {
  te::ComputeDAG dag(ins, {out});
  runtime::NDArray r = runtime::NDArray::empty(out.shape(), out.dtype());
  std::vector<void*> args;
  for (const runtime::NDArray& a : arrays) args.push_back(a.data());
  args.push_back(r.data());
  te::evaluate(dag, args);
  return r;
}

inline te::Tensor ph(const std::string& name, const te::Shape& s, te::DType t = te::DType::Float32) {
  return te::placeholder(name, s, t);
}

inline std::vector<std::string> opNames(const graph::Graph& g) {
  std::vector<std::string> v;
  for (const graph::Node& n : g.nodes()) v.push_back(graph::opName(n.attrs));
  return v;
}

inline int countOp(const graph::Graph& g, const std::string& op) {
  int n = 0;
  for (const graph::Node& node : g.nodes()) n += graph::opName(node.attrs) == op ? 1 : 0;
  return n;
}

inline const graph::Node* findNode(const graph::Graph& g, const std::string& name) {
  for (const graph::Node& n : g.nodes())
    if (n.name == name) return &n;
  return nullptr;
}

inline void expectClose(const runtime::NDArray& got, const runtime::NDArray& want, double atol = 1e-5,
                        double rtol = 1e-4) {
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.dtype(), want.dtype());
  runtime::Comparison c = runtime::compare(got, want, atol, rtol);
  EXPECT_TRUE(c.ok()) << c.mismatches << " mismatches, max abs err " << c.max_abs_err << ", max rel err "
                      << c.max_rel_err;
}

// The one-line error importing `m` raises (a test failure when it imports).
inline std::string importError(const onnx::ModelProto& m, const OnnxOptions& opt = {}) {
  try {
    importOnnxModel(m, opt);
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    return msg;
  }
  ADD_FAILURE() << "the import succeeded";
  return "";
}

inline runtime::NDArray floatArray(const te::Shape& s, const std::vector<float>& v) {
  runtime::NDArray a(s, te::DType::Float32);
  for (size_t i = 0; i < v.size(); ++i) a.as<float>()[i] = v[i];
  return a;
}

// Both the reference evaluator and the compiled model give `want`.
inline void expectOutputs(const graph::Graph& g, const std::vector<runtime::NDArray>& inputs,
                          const std::vector<runtime::NDArray>& want) {
  std::vector<runtime::NDArray> ref = graph::evaluateGraph(g, inputs);
  ASSERT_EQ(ref.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("reference, output " + std::to_string(i));
    expectClose(ref[i], want[i]);
  }
  executor::CompiledModel m = executor::CompiledModel::compile(g);
  std::vector<runtime::NDArray> got = m.run(inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("compiled, output " + std::to_string(i));
    expectClose(got[i], want[i]);
  }
}

}  // namespace ttune::frontend::testing
