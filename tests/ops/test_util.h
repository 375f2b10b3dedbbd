// Helpers for the operator tests: host buffers of any dtype, seeded random inputs, evaluation of
// operator outputs with the te reference evaluator, n-d index helpers for the independent loop
// references, tolerance comparison, and a check that a call throws ttune::Error with given text.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "support/error.h"
#include "support/rng.h"
#include "te/tensor.h"

namespace ttune::ops::testing {

using te::DType;
using te::Shape;

// One tensor's data on the host; only the vector matching dtype is used.
struct Buffer {
  Shape shape;
  DType dtype = DType::Float32;
  std::vector<float> f;
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  std::vector<uint8_t> b;  // the bytes of every other type

  static Buffer zeros(const Shape& shape, DType dtype = DType::Float32);
  int64_t size() const { return te::shapeElements(shape); }
  void* data();
  double get(int64_t flat) const;  // any dtype, as double
  void set(int64_t flat, double v);
  // Value at a multi-index (row-major).
  double at(const std::vector<int64_t>& idx) const;
};

Buffer randomBuffer(const Shape& shape, Rng& rng, double lo = -1.0, double hi = 1.0, DType dtype = DType::Float32);
Buffer intBuffer(const Shape& shape, const std::vector<int64_t>& values, DType dtype);

// Builds ComputeDAG(inputs, outputs), evaluates it on `data` (one buffer per input, same order) and
// returns one buffer per output.
std::vector<Buffer> run(const std::vector<te::Tensor>& inputs, std::vector<Buffer> data,
                        const std::vector<te::Tensor>& outputs);
Buffer run1(const std::vector<te::Tensor>& inputs, std::vector<Buffer> data, const te::Tensor& output);

// Row-major helpers.
int64_t offsetOf(const Shape& shape, const std::vector<int64_t>& idx);
void forEachIndex(const Shape& shape, const std::function<void(const std::vector<int64_t>&)>& fn);

// |got - want| <= atol + rtol * |want| for every element, and equal shapes.
::testing::AssertionResult allClose(const Buffer& got, const Shape& want_shape, const std::vector<double>& want,
                                    double rtol = 1e-4, double atol = 1e-5);

// fn throws ttune::Error whose message contains every one of `parts`.
::testing::AssertionResult throwsError(const std::function<void()>& fn, std::initializer_list<std::string> parts);

// The names of an op's spatial axes and of its reduction axes.
std::vector<std::string> axisNamesOf(const te::Tensor& t);
std::vector<std::string> reduceAxisNamesOf(const te::Tensor& t);
// Op names of the DAG built from inputs and outputs, producers first (placeholders included).
std::vector<std::string> opNames(const std::vector<te::Tensor>& inputs, const std::vector<te::Tensor>& outputs);

}  // namespace ttune::ops::testing

#define EXPECT_OP_ERROR(stmt, ...) EXPECT_TRUE(::ttune::ops::testing::throwsError([&] { (void)(stmt); }, {__VA_ARGS__}))
