// A small valid plan (two inputs, two outputs, two weights, two calls through the workspace and one
// output copied from an input) and a field-by-field comparison of plans, shared by the plan tests
// and the model image tests (tests/deploy).
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "runtime/plan.h"

namespace ttune::runtime {

inline Plan samplePlan() {
  Plan p;
  p.inputs = {{"x", {1, 3, 8, 8}, ElemType::Float32}, {"ids", {4}, ElemType::Int64}};
  p.outputs = {{"y", {1, 10}, ElemType::Float32}, {"x_again", {1, 3, 8, 8}, ElemType::Float32}};
  p.weight_bytes = {1200, 40};
  p.workspace_bytes = 128;
  p.num_kernels = 2;
  p.args = {{BufferKind::Input, 0, 0},      {BufferKind::Weight, 0, 0}, {BufferKind::Workspace, 0, 64},
            {BufferKind::Workspace, 0, 64}, {BufferKind::Weight, 1, 0}, {BufferKind::Output, 0, 0}};
  p.calls = {{0, 0, 3}, {1, 3, 3}};
  p.copies = {{1, {BufferKind::Input, 0, 0}}};
  return p;
}

inline void expectSameSpecs(const std::vector<TensorSpec>& a, const std::vector<TensorSpec>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].shape, b[i].shape);
    EXPECT_EQ(a[i].dtype, b[i].dtype);
  }
}

inline void expectSamePlan(const Plan& a, const Plan& b) {
  expectSameSpecs(a.inputs, b.inputs);
  expectSameSpecs(a.outputs, b.outputs);
  EXPECT_EQ(a.weight_bytes, b.weight_bytes);
  EXPECT_EQ(a.workspace_bytes, b.workspace_bytes);
  EXPECT_EQ(a.num_kernels, b.num_kernels);
  EXPECT_EQ(a.args, b.args);
  ASSERT_EQ(a.calls.size(), b.calls.size());
  for (size_t i = 0; i < a.calls.size(); ++i) {
    EXPECT_EQ(a.calls[i].kernel, b.calls[i].kernel);
    EXPECT_EQ(a.calls[i].first_arg, b.calls[i].first_arg);
    EXPECT_EQ(a.calls[i].num_args, b.calls[i].num_args);
  }
  ASSERT_EQ(a.copies.size(), b.copies.size());
  for (size_t i = 0; i < a.copies.size(); ++i) {
    EXPECT_EQ(a.copies[i].output, b.copies[i].output);
    EXPECT_EQ(a.copies[i].source, b.copies[i].source);
  }
}

}  // namespace ttune::runtime
