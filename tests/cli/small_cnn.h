// A small ONNX CNN for command-line tests that tune, transfer and compare whole models in
// CI-sized time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "frontend/onnx_builder.h"

namespace ttune::cli::testing {

// conv 3x3 + relu, conv 3x3 stride 2 + relu, global pool, dense: a small CNN of the given sizes.
inline void writeCnn(const std::filesystem::path& path, int64_t hw, int64_t c1, int64_t c2, uint64_t seed) {
  using I = int64_t;
  frontend::testing::ModelBuilder b;
  b.input("x", {I(1), I(3), hw, hw});
  b.random("w1", {c1, 3, 3, 3}, seed, -0.5, 0.5);
  b.random("b1", {c1}, seed + 1);
  auto& conv1 = b.node("Conv", {"x", "w1", "b1"}, {"c1"});
  frontend::testing::setAttr(conv1, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"});
  b.random("w2", {c2, c1, 3, 3}, seed + 2, -0.5, 0.5);
  b.random("b2", {c2}, seed + 3);
  auto& conv2 = b.node("Conv", {"r1", "w2", "b2"}, {"c2"});
  frontend::testing::setAttr(conv2, "pads", std::vector<int64_t>{1, 1, 1, 1});
  frontend::testing::setAttr(conv2, "strides", std::vector<int64_t>{2, 2});
  b.node("Relu", {"c2"}, {"r2"});
  b.node("GlobalAveragePool", {"r2"}, {"p"});
  b.node("Flatten", {"p"}, {"f"});
  b.random("wf", {10, c2}, seed + 4);
  frontend::testing::setAttr(b.node("Gemm", {"f", "wf"}, {"y"}), "transB", I(1));
  b.output("y");
  std::ofstream(path, std::ios::binary) << b.bytes();
}

}  // namespace ttune::cli::testing
