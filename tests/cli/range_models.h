// Small ONNX models with symbolic dimensions, for the tests of models compiled for ranges of sizes
// (tests/cli/range_model_test.cc) and of their exports (tests/deploy/range_export_test.cc).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "frontend/onnx_builder.h"

namespace ttune::cli::testing {

using frontend::testing::ModelBuilder;
using frontend::testing::setAttr;

inline std::string writeModelBytes(const std::string& bytes, const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("ttune_range_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / (name + ".onnx")).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

inline std::string writeModel(ModelBuilder& b, const std::string& name) { return writeModelBytes(b.bytes(), name); }

// An attention block as exporters write it: the reshape target is computed from the input's
// shape (Shape, Gather, Concat), positions come from a table sliced to the sequence, and the
// sequence axis is reduced by the softmax and the second product.
inline std::string attentionModelBytes() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, std::string("seq"), int64_t{16}});
  b.random("wq", {16, 16}, 1);
  b.random("wk", {16, 16}, 2);
  b.random("wv", {16, 16}, 3);
  b.random("pos", {64, 16}, 4);
  b.random("gamma", {16}, 5, 0.5, 1.5);
  b.random("beta", {16}, 6);
  b.ints("zero", {0});
  b.ints("one", {1});
  b.ints("heads", {1, 2, 8});  // batch, heads, head size (sequence from the shape)
  b.node("Shape", {"x"}, {"shape"});
  b.node("Gather", {"shape", "one"}, {"seq_len"});
  b.node("Slice", {"pos", "zero", "seq_len", "zero"}, {"pos_s"});
  b.node("Add", {"x", "pos_s"}, {"h"});
  b.node("MatMul", {"h", "wq"}, {"q"});
  b.node("MatMul", {"h", "wk"}, {"k"});
  b.node("MatMul", {"h", "wv"}, {"v"});
  b.node("Slice", {"heads", "zero", "one"}, {"h_b"});
  b.node("Slice", {"heads", "one", "heads_end"}, {"h_rest"});
  b.ints("heads_end", {3});
  auto& cat = b.node("Concat", {"h_b", "seq_len", "h_rest"}, {"qshape"});
  setAttr(cat, "axis", int64_t{0});
  for (const char* t : {"q", "k", "v"}) {
    std::string n = t;
    b.node("Reshape", {n, "qshape"}, {n + "4"});
    auto& tr = b.node("Transpose", {n + "4"}, {n + "t"});
    setAttr(tr, "perm", n == "k" ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3});
  }
  b.node("MatMul", {"qt", "kt"}, {"scores"});
  auto& sm = b.node("Softmax", {"scores"}, {"p"});
  setAttr(sm, "axis", int64_t{-1});
  b.node("MatMul", {"p", "vt"}, {"ctx"});
  auto& back = b.node("Transpose", {"ctx"}, {"ctx_t"});
  setAttr(back, "perm", std::vector<int64_t>{0, 2, 1, 3});
  b.ints("flat", {1, -1, 16});
  b.node("Reshape", {"ctx_t", "flat"}, {"ctx2"});
  b.node("Add", {"ctx2", "h"}, {"res"});
  auto& ln = b.node("LayerNormalization", {"res", "gamma", "beta"}, {"y"});
  setAttr(ln, "axis", int64_t{-1});
  b.output("y");
  return b.bytes();
}

inline std::string attentionModel() { return writeModelBytes(attentionModelBytes(), "attention"); }

// nn.MultiheadAttention's pattern with sequence-first inputs: a product after a transpose,
// reshaped to merge the sequence and batch axes ([seq, batch, 16] -> [seq*batch, 16], a size
// in the index arithmetic), a dense layer on the merged rows, split back by a shape computed from
// the input (Shape, Gather, Concat).
inline std::string mergedAxesModel() {
  ModelBuilder b;
  b.input("x", {std::string("seq"), std::string("batch"), int64_t{16}});
  b.random("w1", {16, 16}, 11);
  b.random("w2", {16, 16}, 12);
  b.ints("zero", {0});
  b.ints("one", {1});
  b.ints("width", {16});
  b.ints("flat", {-1, 16});
  auto& t1 = b.node("Transpose", {"x"}, {"xt"});
  setAttr(t1, "perm", std::vector<int64_t>{1, 0, 2});
  b.node("MatMul", {"xt", "w1"}, {"h"});
  auto& t2 = b.node("Transpose", {"h"}, {"ht"});
  setAttr(t2, "perm", std::vector<int64_t>{1, 0, 2});
  b.node("Reshape", {"ht", "flat"}, {"rows"});
  b.node("MatMul", {"rows", "w2"}, {"p"});
  b.node("Shape", {"x"}, {"shape"});
  b.node("Gather", {"shape", "zero"}, {"seq_len"});
  b.node("Gather", {"shape", "one"}, {"batch_len"});
  auto& cat = b.node("Concat", {"seq_len", "batch_len", "width"}, {"back"});
  setAttr(cat, "axis", int64_t{0});
  b.node("Reshape", {"p", "back"}, {"p3"});
  b.node("Add", {"p3", "x"}, {"y"});
  b.output("y");
  return writeModel(b, "merged");
}

// A small CNN over a batch of images: convolution, pooling, flatten, a dense layer.
inline std::string cnnModel() {
  ModelBuilder b;
  b.input("img", {std::string("batch"), int64_t{3}, int64_t{10}, int64_t{10}});
  b.random("w", {8, 3, 3, 3}, 7);
  b.random("bias", {8}, 8);
  b.random("fc", {10, 8}, 9);
  b.random("fcb", {10}, 10);
  auto& conv = b.node("Conv", {"img", "w", "bias"}, {"c"});
  setAttr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"});
  b.node("GlobalAveragePool", {"r"}, {"g"});
  b.node("Flatten", {"g"}, {"f"});
  auto& gemm = b.node("Gemm", {"f", "fc", "fcb"}, {"logits"});
  setAttr(gemm, "transB", int64_t{1});
  b.output("logits");
  return writeModel(b, "cnn");
}

}  // namespace ttune::cli::testing
