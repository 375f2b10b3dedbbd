// Test helpers for the model zoo: an independent, obviously-correct implementation of the graph
// operators the zoo uses (plain loops over runtime::NDArray, no te/ops code), a graph interpreter
// built on it, and a graph runner that evaluates every node with the te reference evaluator.
// Blocks are checked by wiring the primitives by hand (the architecture as published) against the
// te evaluation of the built graph; the interpreter is cross-checked against te on tiny graphs.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "runtime/ndarray.h"

namespace ttune::models::testing {

using runtime::NDArray;

// ---- primitives (float32) -----------------------------------------------------------------------
NDArray conv2d(const NDArray& x, const NDArray& w, int64_t stride, int64_t pad, int64_t groups = 1);
NDArray conv2d(const NDArray& x, const NDArray& w, std::array<int64_t, 2> strides, std::array<int64_t, 4> pads,
               int64_t groups);
NDArray batchNorm(const NDArray& x, const NDArray& gamma, const NDArray& beta, const NDArray& mean, const NDArray& var,
                  double eps);
NDArray maxPool(const NDArray& x, int64_t k, int64_t stride, int64_t pad, bool ceil_mode);
NDArray avgPool(const NDArray& x, int64_t k, int64_t stride);  // no padding
NDArray globalAvgPool(const NDArray& x);
NDArray dense(const NDArray& x, const NDArray& w);  // x [M, K], w [N, K]
// a [B, M, K] (or [B, K, M]), b [B, K, N] (or [B, N, K]); also plain 2-D.
NDArray matmul(const NDArray& a, const NDArray& b, bool transpose_a, bool transpose_b);
NDArray unary(const NDArray& x, const std::function<double(double)>& fn);
// Numpy-broadcasting binary operation.
NDArray binary(const NDArray& a, const NDArray& b, const std::function<double(double, double)>& fn);
NDArray add(const NDArray& a, const NDArray& b);
NDArray mul(const NDArray& a, const NDArray& b);
NDArray layerNorm(const NDArray& x, const NDArray& gamma, const NDArray& beta, double eps);  // last axis
NDArray softmaxLastAxis(const NDArray& x);
NDArray reshape(const NDArray& x, const te::Shape& shape);
NDArray transpose(const NDArray& x, const std::vector<int64_t>& perm);
NDArray slice(const NDArray& x, int64_t axis, int64_t start, int64_t end);
NDArray pad(const NDArray& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after, double value);
NDArray concat(const std::vector<NDArray>& xs, int64_t axis);
NDArray gather(const NDArray& table, const NDArray& ids);  // axis 0, int64 ids
NDArray reduceMean(const NDArray& x, const std::vector<int64_t>& axes, bool keepdims);

double relu(double x);
double silu(double x);
double sigmoid(double x);
double gelu(double x);

// ---- graphs -------------------------------------------------------------------------------------
// The constant named `name` (asserts it exists).
const NDArray& constantOf(const graph::Graph& g, const std::string& name);
// Evaluates the graph on its inputs with the primitives above; returns the outputs. `observe`
// (optional) sees every node's result as it is computed.
using NodeObserver = std::function<void(int node, const NDArray& result)>;
std::vector<NDArray> interpret(const graph::Graph& g, const std::vector<NDArray>& inputs,
                               const NodeObserver& observe = nullptr);
// Evaluates every node with te::evaluate (the operators' reference evaluator); returns the outputs.
std::vector<NDArray> evaluateWithTe(const graph::Graph& g, const std::vector<NDArray>& inputs);

// max |a - b| / (atol + rtol * |b|) <= 1 elementwise, with a readable failure message.
::testing::AssertionResult near(const NDArray& actual, const NDArray& expected, double rtol = 1e-4, double atol = 1e-4);

}  // namespace ttune::models::testing
