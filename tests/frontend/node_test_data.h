// How the data of ONNX's node tests (libonnx-testdata) meets an imported graph, shared by the x86
// conformance test and the AArch64 one (tests/edge): two conventions of the data, not of ONNX.
#pragma once

#include <cstring>

#include "graph/graph.h"
#include "runtime/ndarray.h"

namespace ttune::frontend::testing {

// The test data stores bfloat16 tensors as their uint16 bits (numpy has no bfloat16): such a
// tensor is relabelled when the graph wants bfloat16.
inline runtime::NDArray asBf16If(const runtime::NDArray& a, te::DType want) {
  if (a.dtype() != te::DType::UInt16 || want != te::DType::BFloat16) return a;
  runtime::NDArray b = runtime::NDArray::empty(a.shape(), te::DType::BFloat16);
  if (a.bytes() > 0) std::memcpy(b.data(), a.data(), static_cast<size_t>(a.bytes()));
  return b;
}

// The case's data for graph input `id`. An input no node reads (CastLike's `like` contributes
// only its type) may come with data that contradicts its declared shape (the castlike cases: [1]
// for a declared [3, 4]); its values do not matter, so it gets an array of the declared shape.
inline runtime::NDArray caseInput(const graph::Graph& g, int id, const runtime::NDArray& data) {
  const graph::Value& v = g.value(id);
  runtime::NDArray a = asBf16If(data, v.dtype);
  bool read = false;
  for (const graph::Node& node : g.nodes())
    for (int in : node.inputs) read = read || in == id;
  for (int o : g.outputs()) read = read || o == id;
  if (!read && a.dtype() == v.dtype && a.shape() != v.shape) return runtime::NDArray(v.shape, v.dtype);
  return a;
}

}  // namespace ttune::frontend::testing
