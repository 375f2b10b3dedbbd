#include "runtime/ndarray.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "support/assert.h"
#include "support/rng.h"
#include "te/dtype_io.h"

namespace ttune::runtime {

namespace {
std::shared_ptr<char> allocate(int64_t bytes) {
  void* p = nullptr;
  size_t size = (static_cast<size_t>(bytes) + 63) & ~size_t(63);
  if (posix_memalign(&p, 64, size ? size : 64) != 0) TT_UNREACHABLE("out of memory allocating a tensor");
  return std::shared_ptr<char>(static_cast<char*>(p), [](char* q) { std::free(q); });
}
}  // namespace

NDArray::NDArray(te::Shape shape, te::DType dtype) : shape_(std::move(shape)), dtype_(dtype) {
  data_ = allocate(bytes());
  std::memset(data_.get(), 0, static_cast<size_t>(bytes()));
}

NDArray NDArray::empty(te::Shape shape, te::DType dtype) {
  NDArray a;
  a.shape_ = std::move(shape);
  a.dtype_ = dtype;
  a.data_ = allocate(a.bytes());
  return a;
}

NDArray NDArray::clone() const {
  NDArray a = empty(shape_, dtype_);
  std::memcpy(a.data(), data(), static_cast<size_t>(bytes()));
  return a;
}

void NDArray::fillRandom(uint64_t seed, double lo, double hi) {
  Rng rng(seed);
  int64_t n = numElements();
  switch (dtype_) {
    case te::DType::Float32:
      for (int64_t i = 0; i < n; ++i) as<float>()[i] = static_cast<float>(rng.uniform(lo, hi));
      break;
    case te::DType::Int32:
      for (int64_t i = 0; i < n; ++i)
        as<int32_t>()[i] = static_cast<int32_t>(rng.uniformInt(static_cast<int64_t>(lo), static_cast<int64_t>(hi) - 1));
      break;
    case te::DType::Int64:
      for (int64_t i = 0; i < n; ++i)
        as<int64_t>()[i] = rng.uniformInt(static_cast<int64_t>(lo), static_cast<int64_t>(hi) - 1);
      break;
    case te::DType::Bool:
      for (int64_t i = 0; i < n; ++i) as<uint8_t>()[i] = rng.bernoulli(0.5);
      break;
    case te::DType::Float64:
    case te::DType::Float16:
    case te::DType::BFloat16:
      for (int64_t i = 0; i < n; ++i) te::storeDouble(data(), dtype_, i, rng.uniform(lo, hi));
      break;
    default: {
      // The range clamped to the type: [lo, hi) as for the wider integers where it fits.
      int64_t a = std::clamp<int64_t>(static_cast<int64_t>(lo), te::intTypeMin(dtype_), te::intTypeMax(dtype_));
      int64_t b = std::clamp<int64_t>(static_cast<int64_t>(hi) - 1, a, te::intTypeMax(dtype_));
      for (int64_t i = 0; i < n; ++i) te::storeInt(data(), dtype_, i, rng.uniformInt(a, b));
      break;
    }
  }
}

void NDArray::fill(double value) {
  int64_t n = numElements();
  for (int64_t i = 0; i < n; ++i) te::storeDouble(data(), dtype_, i, value);
}

Comparison compare(const NDArray& actual, const NDArray& expected, double atol, double rtol) {
  TT_ASSERT(actual.shape() == expected.shape() && actual.dtype() == expected.dtype(),
            "compare: shape or dtype mismatch");
  Comparison c;
  int64_t n = actual.numElements();
  for (int64_t i = 0; i < n; ++i) {
    if (te::isInt(actual.dtype()) &&
        te::loadInt(actual.data(), actual.dtype(), i) == te::loadInt(expected.data(), expected.dtype(), i))
      continue;  // exact: 64-bit integers need not survive the trip through double
    double a = te::loadDouble(actual.data(), actual.dtype(), i),
           e = te::loadDouble(expected.data(), expected.dtype(), i);
    if (std::isfinite(e) && !std::isfinite(a)) {
      ++c.non_finite;
      continue;
    }
    if (!std::isfinite(e)) {
      if (!(a == e || (std::isnan(a) && std::isnan(e)))) ++c.mismatches;
      continue;
    }
    double d = std::fabs(a - e);
    c.max_abs_err = std::max(c.max_abs_err, d);
    if (std::fabs(e) > 1e-6) c.max_rel_err = std::max(c.max_rel_err, d / std::fabs(e));
    if (d > atol + rtol * std::fabs(e)) ++c.mismatches;
  }
  return c;
}

}  // namespace ttune::runtime
