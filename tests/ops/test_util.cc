#include "test_util.h"

#include <cmath>

#include "support/error.h"
#include "te/compute_dag.h"
#include "te/dtype_io.h"
#include "te/evaluator.h"

namespace ttune::ops::testing {

Buffer Buffer::zeros(const Shape& shape, DType dtype) {
  Buffer b;
  b.shape = shape;
  b.dtype = dtype;
  size_t n = static_cast<size_t>(te::shapeElements(shape));
  switch (dtype) {
    case DType::Float32:
      b.f.assign(n, 0.0f);
      break;
    case DType::Int32:
      b.i32.assign(n, 0);
      break;
    case DType::Int64:
      b.i64.assign(n, 0);
      break;
    default:  // bool, the 8-bit types and the others: bytes
      b.b.assign(n * static_cast<size_t>(te::dtypeBytes(dtype)), 0);
      break;
  }
  return b;
}

void* Buffer::data() {
  switch (dtype) {
    case DType::Float32:
      return f.data();
    case DType::Int32:
      return i32.data();
    case DType::Int64:
      return i64.data();
    default:
      return b.data();
  }
}

double Buffer::get(int64_t i) const {
  switch (dtype) {
    case DType::Float32:
      return f[i];
    case DType::Int32:
      return i32[i];
    case DType::Int64:
      return static_cast<double>(i64[i]);
    default:
      return te::loadDouble(b.data(), dtype, i);
  }
}

void Buffer::set(int64_t i, double v) {
  switch (dtype) {
    case DType::Float32:
      f[i] = static_cast<float>(v);
      break;
    case DType::Int32:
      i32[i] = static_cast<int32_t>(v);
      break;
    case DType::Int64:
      i64[i] = static_cast<int64_t>(v);
      break;
    default:
      te::storeDouble(b.data(), dtype, i, v);
      break;
  }
}

double Buffer::at(const std::vector<int64_t>& idx) const { return get(offsetOf(shape, idx)); }

Buffer randomBuffer(const Shape& shape, Rng& rng, double lo, double hi, DType dtype) {
  Buffer b = Buffer::zeros(shape, dtype);
  for (int64_t i = 0; i < b.size(); ++i) {
    if (dtype == DType::Float32)
      b.set(i, rng.uniform(lo, hi));
    else
      b.set(i, static_cast<double>(rng.uniformInt(static_cast<int64_t>(lo), static_cast<int64_t>(hi))));
  }
  return b;
}

Buffer intBuffer(const Shape& shape, const std::vector<int64_t>& values, DType dtype) {
  Buffer b = Buffer::zeros(shape, dtype);
  EXPECT_EQ(static_cast<int64_t>(values.size()), b.size());
  for (int64_t i = 0; i < b.size() && i < static_cast<int64_t>(values.size()); ++i)
    b.set(i, static_cast<double>(values[i]));
  return b;
}

std::vector<Buffer> run(const std::vector<te::Tensor>& inputs, std::vector<Buffer> data,
                        const std::vector<te::Tensor>& outputs) {
  te::ComputeDAG dag(inputs, outputs);
  std::vector<void*> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(data[i].shape, inputs[i].shape()) << "input " << i;
    EXPECT_EQ(data[i].dtype, inputs[i].dtype()) << "input " << i;
    args.push_back(data[i].data());
  }
  std::vector<Buffer> outs;
  outs.reserve(outputs.size());
  for (const te::Tensor& t : outputs) outs.push_back(Buffer::zeros(t.shape(), t.dtype()));
  for (Buffer& b : outs) args.push_back(b.data());
  te::evaluate(dag, args);
  return outs;
}

Buffer run1(const std::vector<te::Tensor>& inputs, std::vector<Buffer> data, const te::Tensor& output) {
  return run(inputs, std::move(data), {output})[0];
}

int64_t offsetOf(const Shape& shape, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + idx[d];
  return off;
}

void forEachIndex(const Shape& shape, const std::function<void(const std::vector<int64_t>&)>& fn) {
  for (int64_t e : shape)
    if (e <= 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  while (true) {
    fn(idx);
    size_t d = shape.size();
    while (d > 0 && ++idx[d - 1] == shape[d - 1]) idx[--d] = 0;
    if (d == 0) return;
  }
}

::testing::AssertionResult allClose(const Buffer& got, const Shape& want_shape, const std::vector<double>& want,
                                    double rtol, double atol) {
  if (got.shape != want_shape)
    return ::testing::AssertionFailure() << "shape " << te::shapeToString(got.shape) << " != expected "
                                         << te::shapeToString(want_shape);
  if (static_cast<int64_t>(want.size()) != got.size())
    return ::testing::AssertionFailure() << "reference has " << want.size() << " values, output " << got.size();
  int bad = 0;
  std::string report;
  for (int64_t i = 0; i < got.size(); ++i) {
    double g = got.get(i), w = want[i];
    bool ok = (std::isnan(g) && std::isnan(w)) || g == w || std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!ok && bad++ < 5) report += cat("\n  [", i, "] got ", g, " want ", w);
  }
  if (bad) return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements differ:" << report;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult throwsError(const std::function<void()>& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
  } catch (const Error& e) {
    std::string msg = e.what();
    for (const std::string& p : parts)
      if (msg.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message \"" << msg << "\" lacks \"" << p << "\"";
    return ::testing::AssertionSuccess() << msg;
  }
  return ::testing::AssertionFailure() << "no ttune::Error was thrown";
}

std::vector<std::string> axisNamesOf(const te::Tensor& t) {
  std::vector<std::string> out;
  for (const te::IterVar& iv : t.op().compute().axes) out.push_back(iv.name());
  return out;
}

std::vector<std::string> reduceAxisNamesOf(const te::Tensor& t) {
  std::vector<std::string> out;
  for (const te::IterVar& iv : t.op().compute().reduceAxes()) out.push_back(iv.name());
  return out;
}

std::vector<std::string> opNames(const std::vector<te::Tensor>& inputs, const std::vector<te::Tensor>& outputs) {
  te::ComputeDAG dag(inputs, outputs);
  std::vector<std::string> out;
  for (const te::Tensor& t : dag.ops()) out.push_back(t.name());
  return out;
}

}  // namespace ttune::ops::testing
