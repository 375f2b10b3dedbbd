// What the tests of exported libraries share: export options, the C API of a library loaded
// with dlopen, running it on arrays, and a small ONNX model to export.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "deploy/exporter.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"
#include "onnx_builder.h"
#include "runtime/ndarray.h"
#include "temp_dir.h"
#include "ttune/ttune_model.h"

namespace ttune::deploy::testing {

namespace fs = std::filesystem;
using frontend::testing::ModelBuilder;
using frontend::testing::setAttr;

inline ExportOptions options(const fs::path& dir, const std::string& name, bool static_archive = true,
                             const std::string& compiler = "") {
  ExportOptions o;
  o.dir = dir.string();
  o.name = name;
  o.source = "a test";
  o.static_archive = static_archive;
  o.compiler = compiler;
  return o;
}

// The C API of one exported library, loaded RTLD_LOCAL (as Python's ctypes does). Never closed:
// tests load several libraries in one process and this keeps their thread pools valid to the end.
struct Library {
  void* handle = nullptr;
  decltype(&ttune_model_create) create;
  decltype(&ttune_model_destroy) destroy;
  decltype(&ttune_model_run) run;
  decltype(&ttune_model_run_n) run_n;
  decltype(&ttune_model_num_inputs) num_inputs;
  decltype(&ttune_model_num_outputs) num_outputs;
  decltype(&ttune_model_input_info) input_info;
  decltype(&ttune_model_output_info) output_info;
  decltype(&ttune_model_name) name;
  decltype(&ttune_last_error) last_error;
  decltype(&ttune_last_status) last_status;
  decltype(&ttune_abi_version) abi_version;

  explicit Library(const std::string& path) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) ADD_FAILURE() << dlerror();
    load(create, "ttune_model_create");
    load(destroy, "ttune_model_destroy");
    load(run, "ttune_model_run");
    load(run_n, "ttune_model_run_n");
    load(num_inputs, "ttune_model_num_inputs");
    load(num_outputs, "ttune_model_num_outputs");
    load(input_info, "ttune_model_input_info");
    load(output_info, "ttune_model_output_info");
    load(name, "ttune_model_name");
    load(last_error, "ttune_last_error");
    load(last_status, "ttune_last_status");
    load(abi_version, "ttune_abi_version");
  }
  template <class F>
  void load(F& f, const char* symbol) {
    f = handle ? reinterpret_cast<F>(dlsym(handle, symbol)) : nullptr;
    if (!f) ADD_FAILURE() << "the library does not export " << symbol;
  }
};

// Runs a loaded model on arrays; returns the outputs (empty after a failure).
inline std::vector<runtime::NDArray> runExported(const Library& lib, ttune_model* m,
                                                 const std::vector<runtime::NDArray>& inputs) {
  std::vector<const void*> in;
  for (const auto& a : inputs) in.push_back(a.data());
  std::vector<runtime::NDArray> outs;
  std::vector<void*> out;
  for (int i = 0; i < lib.num_outputs(m); ++i) {
    ttune_tensor_info info;
    EXPECT_EQ(lib.output_info(m, i, &info), TTUNE_OK);
    outs.push_back(
        runtime::NDArray::empty(te::Shape(info.shape, info.shape + info.ndim), static_cast<te::DType>(info.dtype)));
    out.push_back(outs.back().data());
  }
  int rc = lib.run_n(m, static_cast<int>(in.size()), in.data(), static_cast<int>(out.size()), out.data());
  EXPECT_EQ(rc, TTUNE_OK) << lib.last_error();
  return rc == TTUNE_OK ? outs : std::vector<runtime::NDArray>{};
}

inline void expectBitIdentical(const std::vector<runtime::NDArray>& got, const std::vector<runtime::NDArray>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << "output " << i;
    ASSERT_EQ(got[i].dtype(), want[i].dtype()) << "output " << i;
    EXPECT_EQ(std::memcmp(got[i].data(), want[i].data(), static_cast<size_t>(got[i].bytes())), 0)
        << "output " << i << " differs";
  }
}

// A small ONNX model: conv (+bias) + relu + max pool + gemm + softmax, with the pooled
// activations as a second output and the input itself as a third (an output no kernel writes).
inline std::string smallOnnx(const fs::path& dir, uint64_t seed = 1) {
  ModelBuilder b(13);
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{12}, int64_t{12}});
  b.random("w", {8, 3, 3, 3}, seed);
  b.random("b", {8}, seed + 1);
  b.random("fc_w", {10, 288}, seed + 2, -0.2, 0.2);
  b.random("fc_b", {10}, seed + 3);
  onnx::NodeProto& conv = b.node("Conv", {"x", "w", "b"}, {"c"}, "conv1");
  setAttr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  setAttr(conv, "kernel_shape", std::vector<int64_t>{3, 3});
  b.node("Relu", {"c"}, {"r"});
  onnx::NodeProto& pool = b.node("MaxPool", {"r"}, {"p"});
  setAttr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
  setAttr(pool, "strides", std::vector<int64_t>{2, 2});
  b.node("Flatten", {"p"}, {"f"});
  setAttr(b.node("Gemm", {"f", "fc_w", "fc_b"}, {"g"}, "fc"), "transB", int64_t{1});
  b.node("Softmax", {"g"}, {"y"});
  b.output("y");
  b.output("p");
  b.output("x");
  std::string path = (dir / ("small" + std::to_string(seed) + ".onnx")).string();
  std::ofstream(path, std::ios::binary) << b.bytes();
  return path;
}

inline graph::Graph loadOptimized(const std::string& onnx_path) {
  graph::Graph g = frontend::importOnnx(onnx_path);
  graph::optimizeGraph(g);
  return g;
}

}  // namespace ttune::deploy::testing
