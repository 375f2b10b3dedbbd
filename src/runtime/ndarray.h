// NDArray: a dense, row-major, 64-byte aligned tensor owned by the runtime (kernel arguments,
// model weights and activations, test data). Copies share storage; clone() copies data.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "te/dtype.h"
#include "te/tensor.h"

namespace ttune::runtime {

class NDArray {
 public:
  NDArray() = default;
  NDArray(te::Shape shape, te::DType dtype);               // zero-filled
  static NDArray empty(te::Shape shape, te::DType dtype);  // uninitialized

  const te::Shape& shape() const { return shape_; }
  te::DType dtype() const { return dtype_; }
  int64_t numElements() const { return te::shapeElements(shape_); }
  int64_t bytes() const { return numElements() * te::dtypeBytes(dtype_); }
  bool defined() const { return data_ != nullptr; }
  void* data() const { return data_.get(); }
  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(data_.get());
  }
  NDArray clone() const;

  // Seeded uniform values in [lo, hi) (floats), or integers in [lo, hi) for integer types.
  void fillRandom(uint64_t seed, double lo = -1.0, double hi = 1.0);
  void fill(double value);

 private:
  te::Shape shape_;
  te::DType dtype_ = te::DType::Float32;
  std::shared_ptr<char> data_;
};

struct Comparison {
  double max_abs_err = 0;
  double max_rel_err = 0;
  int64_t mismatches = 0;  // elements outside atol + rtol * |expected|
  int64_t non_finite = 0;  // NaN/inf in `actual` where `expected` is finite
  bool ok() const { return mismatches == 0 && non_finite == 0; }
};
// Compares element-wise (shapes and dtypes must match).
Comparison compare(const NDArray& actual, const NDArray& expected, double atol = 1e-4, double rtol = 1e-4);

}  // namespace ttune::runtime
