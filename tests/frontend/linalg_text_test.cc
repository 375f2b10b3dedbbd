// Det (Gaussian elimination unrolled into graph nodes) against a Laplace expansion in double, and
// TfIdfVectorizer (n-gram counting as comparisons of shifted views) against a direct count; both
// through the reference evaluator and compiled.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "frontend/onnx/onnx_importer.h"
#include "onnx_builder.h"
#include "support/rng.h"
#include "test_util.h"

namespace ttune::frontend {
namespace {

using namespace testing;
using I = int64_t;

// Determinant by cofactor expansion along the first row: no pivoting, no division.
double laplace(const std::vector<double>& a, int n) {
  if (n == 1) return a[0];
  double det = 0;
  for (int j = 0; j < n; ++j) {
    std::vector<double> minor;
    for (int r = 1; r < n; ++r)
      for (int col = 0; col < n; ++col)
        if (col != j) minor.push_back(a[r * n + col]);
    det += (j % 2 ? -1.0 : 1.0) * a[j] * laplace(minor, n - 1);
  }
  return det;
}

// Imports y = Det(x) for x of `shape` and checks the reference evaluator and the compiled model
// on `x` against the Laplace expansion, within float32 rounding of the elimination: relative to
// Hadamard's bound (the product of the row norms), which bounds every term.
void checkDet(const te::Shape& shape, const runtime::NDArray& x) {
  ModelBuilder b(13);
  std::vector<Dim> dims(shape.begin(), shape.end());
  b.input("x", dims);
  b.node("Det", {"x"}, {"y"});
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  int64_t n = shape.back(), count = x.numElements() / (n * n);
  te::Shape batch(shape.begin(), shape.end() - 2);
  std::vector<runtime::NDArray> got = graph::evaluateGraph(g, {x});
  got.push_back(executor::CompiledModel::compile(g).run({x})[0]);
  for (size_t k = 0; k < got.size(); ++k) {
    SCOPED_TRACE(k == 0 ? "reference" : "compiled");
    ASSERT_EQ(got[k].shape(), batch);
    for (int64_t m = 0; m < count; ++m) {
      std::vector<double> a(x.as<float>() + m * n * n, x.as<float>() + (m + 1) * n * n);
      double bound = 1;
      for (int64_t r = 0; r < n; ++r) {
        double s = 0;
        for (int64_t c = 0; c < n; ++c) s += a[r * n + c] * a[r * n + c];
        bound *= std::sqrt(s);
      }
      double want = laplace(a, static_cast<int>(n)), v = got[k].as<float>()[m];
      EXPECT_FALSE(std::isnan(v)) << "matrix " << m;
      EXPECT_NEAR(v, want, 1e-5 * (1 + bound)) << "matrix " << m;
    }
  }
}

TEST(OnnxDet, RandomMatricesOfEverySizeUpToSix) {
  for (int64_t n = 1; n <= 6; ++n) {
    SCOPED_TRACE("n = " + std::to_string(n));
    te::Shape shape{2, 3, n, n};
    checkDet(shape, randomArray(shape, static_cast<uint64_t>(n)));
  }
}

TEST(OnnxDet, PivotingSingularAndScalarOutput) {
  // A permutation (every leading entry zero until swapped: det -1), a matrix with two equal rows
  // and one with a zero column (det 0, not NaN), a zero leading entry that needs one swap.
  runtime::NDArray x = floatArray({4, 3, 3}, {0, 1, 0, 0, 0, 1, 1,  0, 0,  //
                                              1, 2, 3, 4, 5, 6, 1,  2, 3,  //
                                              0, 2, 3, 0, 5, 6, 0,  7, 8,  //
                                              0, 2, 1, 3, 1, 4, -1, 5, 9});
  checkDet({4, 3, 3}, x);
  checkDet({2, 2}, floatArray({2, 2}, {0, 1, 2, 3}));  // ONNX's test_det_2d: a rank-0 output, -2
}

TEST(OnnxDet, RefusesWhatItCannotRead) {
  ModelBuilder b(13);
  b.input("x", {I(3), I(4)});
  b.node("Det", {"x"}, {"y"});
  b.output("y");
  EXPECT_NE(importError(b.model()).find("square"), std::string::npos);
}

// ---- TfIdfVectorizer ----------------------------------------------------------------------------

struct TfIdf {
  int64_t min_len = 1, max_len = 3, max_skip = 0;
  std::string mode = "TF";
  std::vector<int64_t> counts, pool, indexes;
  std::vector<float> weights;
};

// Direct count: every pool n-gram of a counted length, at every start and every distance.
std::vector<float> tfidfByHand(const TfIdf& p, const std::vector<int64_t>& row) {
  int64_t width = 0;
  for (int64_t i : p.indexes) width = std::max(width, i + 1);
  std::vector<float> out(static_cast<size_t>(width), 0);
  int64_t g = 0, len = static_cast<int64_t>(row.size());
  for (size_t k = 0; k < p.counts.size(); ++k) {
    int64_t l = static_cast<int64_t>(k) + 1;
    int64_t end = k + 1 < p.counts.size() ? p.counts[k + 1] : static_cast<int64_t>(p.pool.size());
    for (int64_t at = p.counts[k]; at < end; at += l, ++g) {
      if (l < p.min_len || l > p.max_len) continue;
      for (int64_t d = 1; d <= (l == 1 ? 1 : p.max_skip + 1); ++d)
        for (int64_t s = 0; s + (l - 1) * d < len; ++s) {
          bool hit = true;
          for (int64_t j = 0; j < l; ++j) hit = hit && row[s + j * d] == p.pool[at + j];
          if (hit) out[p.indexes[g]] += 1;
        }
    }
  }
  for (int64_t i = 0; i < width; ++i) {
    float w = p.weights.empty() ? 1.0f : p.weights[i];
    if (p.mode == "IDF") out[i] = out[i] > 0 ? w : 0;
    if (p.mode == "TFIDF") out[i] *= w;
  }
  return out;
}

void checkTfIdf(const TfIdf& p, te::DType dtype, const te::Shape& shape, uint64_t seed) {
  ModelBuilder b(13);
  std::vector<Dim> dims(shape.begin(), shape.end());
  b.input("x", dims, dtype);
  onnx::NodeProto& n = b.node("TfIdfVectorizer", {"x"}, {"y"});
  setAttr(n, "min_gram_length", p.min_len);
  setAttr(n, "max_gram_length", p.max_len);
  setAttr(n, "max_skip_count", p.max_skip);
  setAttr(n, "mode", p.mode);
  setAttr(n, "ngram_counts", p.counts);
  setAttr(n, "pool_int64s", p.pool);
  setAttr(n, "ngram_indexes", p.indexes);
  if (!p.weights.empty()) setAttr(n, "weights", p.weights);
  b.output("y");
  graph::Graph g = importOnnxModel(b.model());
  // Tokens 0-4 so that the pool's n-grams occur often.
  Rng rng(seed);
  runtime::NDArray x(shape, dtype);
  int64_t rows = shape.size() == 2 ? shape[0] : 1, len = shape.back();
  std::vector<float> want;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> row;
    for (int64_t i = 0; i < len; ++i) {
      int64_t v = static_cast<int64_t>(rng.uniformInt(0, 4));
      row.push_back(v);
      if (dtype == te::DType::Int32)
        x.as<int32_t>()[r * len + i] = static_cast<int32_t>(v);
      else
        x.as<int64_t>()[r * len + i] = v;
    }
    std::vector<float> y = tfidfByHand(p, row);
    want.insert(want.end(), y.begin(), y.end());
  }
  int64_t width = static_cast<int64_t>(want.size()) / rows;
  expectOutputs(g, {x}, {floatArray(shape.size() == 2 ? te::Shape{rows, width} : te::Shape{width}, want)});
}

TfIdf samplePool() {
  TfIdf p;
  // Unigrams 0, 3, 9 (never seen); bigrams (1 2), (2 2), (0 4); trigrams (1 1 1), (2 0 3).
  p.counts = {0, 3, 9};
  p.pool = {0, 3, 9, 1, 2, 2, 2, 0, 4, 1, 1, 1, 2, 0, 3};
  // Unigram 0 and trigram (2 0 3) share output coordinate 4.
  p.indexes = {4, 0, 6, 1, 2, 5, 3, 4};
  return p;
}

TEST(OnnxTfIdf, CountsEveryLengthAndSkip) {
  for (int64_t skip : {0, 2}) {
    for (int64_t min_len : {1, 2}) {
      SCOPED_TRACE("skip " + std::to_string(skip) + ", min length " + std::to_string(min_len));
      TfIdf p = samplePool();
      p.max_skip = skip;
      p.min_len = min_len;
      checkTfIdf(p, te::DType::Int32, {3, 11}, 7 + static_cast<uint64_t>(skip + min_len));
      checkTfIdf(p, te::DType::Int64, {13}, 9 + static_cast<uint64_t>(skip + min_len));
    }
  }
}

TEST(OnnxTfIdf, WeightingModes) {
  for (const char* mode : {"IDF", "TFIDF"}) {
    SCOPED_TRACE(mode);
    TfIdf p = samplePool();
    p.mode = mode;
    p.max_skip = 1;
    checkTfIdf(p, te::DType::Int64, {2, 9}, 3);  // unit weights
    p.weights = {0.5f, 2.0f, 1.5f, 3.0f, 0.25f, 4.0f, 1.0f, 2.5f};
    checkTfIdf(p, te::DType::Int32, {2, 9}, 4);
  }
}

TEST(OnnxTfIdf, RowsShorterThanTheNgrams) {
  TfIdf p = samplePool();
  p.min_len = 3;
  p.max_skip = 3;
  checkTfIdf(p, te::DType::Int64, {2, 2}, 5);  // nothing fits: zeros
  checkTfIdf(p, te::DType::Int64, {2, 4}, 6);  // trigrams at distance 1 only
}

TEST(OnnxTfIdf, RefusesStringsAndFloats) {
  {
    ModelBuilder b(13);
    b.input("x", {I(4)}, te::DType::Int64);
    onnx::NodeProto& n = b.node("TfIdfVectorizer", {"x"}, {"y"});
    setAttr(n, "mode", std::string("TF"));
    setAttr(n, "ngram_counts", std::vector<int64_t>{0});
    setAttr(n, "ngram_indexes", std::vector<int64_t>{0});
    onnx::AttributeProto* a = n.add_attribute();
    a->set_name("pool_strings");
    a->set_type(onnx::AttributeProto::STRINGS);
    a->add_strings("hello");
    b.output("y");
    EXPECT_NE(importError(b.model()).find("pool_strings"), std::string::npos);
  }
  TfIdf p = samplePool();
  ModelBuilder b(13);
  b.input("x", {I(4)});
  onnx::NodeProto& n = b.node("TfIdfVectorizer", {"x"}, {"y"});
  setAttr(n, "mode", p.mode);
  setAttr(n, "min_gram_length", I(1));
  setAttr(n, "max_gram_length", I(2));
  setAttr(n, "ngram_counts", p.counts);
  setAttr(n, "pool_int64s", p.pool);
  setAttr(n, "ngram_indexes", p.indexes);
  b.output("y");
  EXPECT_NE(importError(b.model()).find("int32 or int64"), std::string::npos);
}

}  // namespace
}  // namespace ttune::frontend
