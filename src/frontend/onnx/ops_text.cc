// ONNX TfIdfVectorizer over integer tokens: counts of the pool's n-grams in each row, optionally
// weighted. The pool is an attribute, so the counting is static-shaped tensor arithmetic: for an
// n-gram length l and a distance d between its items (d = skip + 1; unigrams once, at d = 1, as
// ONNX Runtime and ONNX's reference count them), the l shifted views X[j*d : j*d + P] of each
// row (P = L - (l-1) d start positions) are compared with the pool's j-th items, the comparisons
// and-ed and summed over the start positions: [B, P, pool n-grams of length l] booleans reduced
// to [B, pool n-grams]. Those counts are then placed at their output coordinates (ngram_indexes,
// summed where two pool entries share one) and weighted per mode. Tokens are compared as int64,
// so an int32 input never matches a pool value outside its range by wrapping. String tokens
// (pool_strings) are refused: ttune has no string tensors.
#include <algorithm>
#include <map>
#include <string>

#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using te::DType;

enum class TfIdfMode { Tf, Idf, TfIdf };

struct NgramPool {
  // Per length l = 1 .. counts.size(): the items of each n-gram, [l][g] = item l of n-gram g.
  std::vector<std::vector<std::vector<int64_t>>> items;
  std::vector<std::vector<int64_t>> ids;  // per length, the global pool index of each n-gram
  int64_t size = 0;                       // number of n-grams in the pool
};

NgramPool readPool(const Ctx& c) {
  std::vector<int64_t> counts = c.attrInts("ngram_counts"), pool = c.attrInts("pool_int64s");
  NgramPool out;
  for (size_t k = 0; k < counts.size(); ++k) {
    int64_t len = static_cast<int64_t>(k) + 1;
    int64_t begin = counts[k], end = k + 1 < counts.size() ? counts[k + 1] : static_cast<int64_t>(pool.size());
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()))
      c.fail("ngram_counts ", listStr(counts), " does not split pool_int64s' ", pool.size(), " items");
    if ((end - begin) % len != 0)
      c.fail("the ", end - begin, " items of the ", len, "-grams in pool_int64s are not a multiple of ", len);
    std::vector<std::vector<int64_t>> by_item(static_cast<size_t>(len));
    std::vector<int64_t> ids;
    for (int64_t at = begin; at < end; at += len) {
      for (int64_t j = 0; j < len; ++j) by_item[j].push_back(pool[at + j]);
      ids.push_back(out.size++);
    }
    out.items.push_back(std::move(by_item));
    out.ids.push_back(std::move(ids));
  }
  return out;
}

TfIdfMode readMode(const Ctx& c) {
  std::string m = c.attrString("mode", "");
  if (m == "TF") return TfIdfMode::Tf;
  if (m == "IDF") return TfIdfMode::Idf;
  if (m == "TFIDF") return TfIdfMode::TfIdf;
  c.fail("mode \"", m, "\" is not one of TF, IDF, TFIDF");
}

void importTfIdfVectorizer(Ctx& c) {
  c.checkAttrs({"max_gram_length", "min_gram_length", "max_skip_count", "mode", "ngram_counts", "ngram_indexes",
                "pool_int64s", "pool_strings", "weights"});
  if (c.hasAttr("pool_strings") && !c.hasAttr("pool_int64s"))
    c.fail("string n-grams (pool_strings) are not supported: ttune has no string tensors");
  DType dt = c.dtype(0);
  if (dt != DType::Int32 && dt != DType::Int64)
    c.fail(c.inputLabel(0), " has dtype ", te::dtypeName(dt), ", but TfIdfVectorizer takes int32 or int64 tokens here");
  te::Shape s = c.shape(0);
  if (s.size() != 1 && s.size() != 2)
    c.fail("the input has rank ", s.size(), ", but TfIdfVectorizer takes [C] or [N, C]");
  int64_t rows = s.size() == 2 ? s[0] : 1, len = s.back();
  int64_t min_len = c.attrInt("min_gram_length", 0), max_len = c.attrInt("max_gram_length", 0);
  int64_t max_skip = c.attrInt("max_skip_count", 0);
  if (min_len < 1 || max_len < min_len)
    c.fail("min_gram_length ", min_len, " and max_gram_length ", max_len, " are not 1 <= min <= max");
  if (max_skip < 0) c.fail("max_skip_count ", max_skip, " is negative");
  TfIdfMode mode = readMode(c);
  NgramPool pool = readPool(c);
  std::vector<int64_t> out_index = c.attrInts("ngram_indexes");
  if (static_cast<int64_t>(out_index.size()) != pool.size)
    c.fail("ngram_indexes has ", out_index.size(), " entries for the pool's ", pool.size, " n-grams");
  int64_t width = 0;  // C = max(ngram_indexes) + 1
  for (int64_t i : out_index) {
    if (i < 0) c.fail("ngram_indexes holds the negative index ", i);
    width = std::max(width, i + 1);
  }
  std::vector<float> weights = c.attrFloats("weights");
  // ONNX Runtime and ONNX's reference weigh output coordinate i with weights[i].
  if (!weights.empty() && static_cast<int64_t>(weights.size()) < width)
    c.fail("weights has ", weights.size(), " entries for ", width, " output coordinates");
  c.checkSize({rows, width});

  int x = c.cast(c.reshape(c.in(0), {rows, len}, "rows"), DType::Int64, "tokens");
  std::vector<int> columns;        // counts [rows, pool n-grams of one length]
  std::vector<int64_t> column_id;  // the pool index of each counted column, in order
  int64_t longest = std::min<int64_t>(max_len, static_cast<int64_t>(pool.items.size()));
  for (int64_t l = min_len; l <= longest; ++l) {
    const auto& items = pool.items[l - 1];
    int64_t g = static_cast<int64_t>(pool.ids[l - 1].size());
    if (g == 0) continue;
    int total = -1;
    for (int64_t d = 1; d <= (l == 1 ? 1 : max_skip + 1); ++d) {
      int64_t starts = len - (l - 1) * d;
      if (starts <= 0) break;
      std::string t = std::to_string(l) + "gram_d" + std::to_string(d) + "_";
      int match = -1;
      for (int64_t j = 0; j < l; ++j) {
        int view = c.emit(graph::SliceAttrs{{j * d}, {j * d + starts}, {1}, {1}}, {x}, t + "view" + std::to_string(j));
        runtime::NDArray want({1, 1, g}, DType::Int64);
        std::copy(items[j].begin(), items[j].end(), want.as<int64_t>());
        int eq =
            c.binary(BinaryKind::Equal, c.reshape(view, {rows, starts, 1}, t + "column" + std::to_string(j)),
                     c.addConstant(std::move(want), t + "item" + std::to_string(j)), t + "equal" + std::to_string(j));
        match = match < 0 ? eq : c.binary(BinaryKind::And, match, eq, t + "match" + std::to_string(j));
      }
      int n = c.emit(graph::ReduceAttrs{graph::ReduceKind::Sum, {1}, false},
                     {c.cast(match, DType::Float32, t + "hits")}, t + "count");
      total = total < 0 ? n : c.binary(BinaryKind::Add, total, n, t + "total");
    }
    if (total < 0) continue;  // the rows are shorter than any n-gram of this length
    columns.push_back(total);
    column_id.insert(column_id.end(), pool.ids[l - 1].begin(), pool.ids[l - 1].end());
  }

  int y;
  if (columns.empty()) {
    y = c.addConstant(runtime::NDArray({rows, width}, DType::Float32), "no_ngram_counted");
  } else {
    columns.push_back(c.addConstant(runtime::NDArray({rows, 1}, DType::Float32), "zero_column"));
    int counts = c.emit(graph::ConcatAttrs{1}, columns, "counts");
    int64_t zero_col = static_cast<int64_t>(column_id.size());
    // Output coordinate i sums the counted columns whose ngram_indexes entry is i: one gather per
    // layer of such columns (pool entries normally map to distinct coordinates: one layer).
    std::map<int64_t, std::vector<int64_t>> sources;  // coordinate -> counted columns
    for (size_t k = 0; k < column_id.size(); ++k) sources[out_index[column_id[k]]].push_back(static_cast<int64_t>(k));
    size_t layers = 0;
    for (const auto& [i, cols] : sources) layers = std::max(layers, cols.size());
    y = -1;
    for (size_t r = 0; r < layers; ++r) {
      std::vector<int64_t> pick(static_cast<size_t>(width), zero_col);
      for (const auto& [i, cols] : sources)
        if (r < cols.size()) pick[i] = cols[r];
      std::string t = "layer" + std::to_string(r);
      int part = c.emit(graph::GatherAttrs{1}, {counts, c.addConstant(int64Tensor(pick), t + "_columns")}, t);
      y = y < 0 ? part : c.binary(BinaryKind::Add, y, part, t + "_sum");
    }
    int wc = -1;  // TF ignores weights
    if (!weights.empty() && mode != TfIdfMode::Tf) {
      runtime::NDArray w({width}, DType::Float32);
      std::copy(weights.begin(), weights.begin() + width, w.as<float>());
      wc = c.addConstant(std::move(w), "weights");
    }
    if (mode == TfIdfMode::Idf) {  // the weight (1 without weights) where the n-gram was seen
      int seen = c.binary(BinaryKind::Greater, y, c.scalarConstant(0, DType::Float32, "zero"), "seen");
      y = wc < 0 ? c.cast(seen, DType::Float32, "weighted")
                 : c.emit(graph::WhereAttrs{}, {seen, wc, c.scalarConstant(0, DType::Float32, "none")}, "weighted");
    } else if (mode == TfIdfMode::TfIdf && wc >= 0) {
      y = c.binary(BinaryKind::Mul, y, wc, "weighted");
    }
  }
  c.setOutput(0, c.reshape(y, s.size() == 2 ? te::Shape{rows, width} : te::Shape{width}, {}));
}

}  // namespace

void addTextOps(OpTable& t) { t["TfIdfVectorizer"] = importTfIdfVectorizer; }

}  // namespace ttune::frontend::detail
