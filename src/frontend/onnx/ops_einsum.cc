// ONNX Einsum as the products it names. Each operand first takes its diagonals (a label repeated
// within one term: a transpose, a merge of the two axes and a strided gather) and sums out labels
// no other term and not the output uses; then the operands are combined left to right, each pair
// as one (batched) matrix product: labels both sides keep are the batch, labels only the pair
// uses the contraction, the rest the rows and columns. The product goes through the MatMul
// lowering (nn_common.h), so `bij,jk->bik` with a constant right side is a dense layer. A final
// transpose gives the output's label order. Float32 only.
#include <algorithm>
#include <map>

#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

// Labels: letters are their character codes, the axes an ellipsis covers are kEllipsis + i
// counted from the left of the widest ellipsis (aligned right across terms, as numpy broadcasts).
constexpr int kEllipsis = 1000;

struct Term {
  int value = -1;
  std::vector<int> labels;  // one per axis of value
};

struct Parsed {
  std::vector<std::vector<int>> inputs;  // labels per input term (ellipsis expanded)
  std::vector<int> output;
};

std::string stripSpaces(const std::string& s) {
  std::string out;
  for (char ch : s)
    if (ch != ' ') out += ch;
  return out;
}

// Splits one term into letters with at most one ellipsis; `ellipsis_at` gets its position or -1.
std::vector<int> termLetters(const Ctx& c, const std::string& term, int& ellipsis_at) {
  std::vector<int> letters;
  ellipsis_at = -1;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 3, "...") == 0) {
      if (ellipsis_at >= 0) c.fail("the equation term '", term, "' has two ellipses");
      ellipsis_at = static_cast<int>(letters.size());
      i += 2;
      continue;
    }
    char ch = term[i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
      c.fail("the equation term '", term, "' has the character '", ch, "', not a letter or '...'");
    letters.push_back(ch);
  }
  return letters;
}

Parsed parseEquation(const Ctx& c, const std::string& equation, const std::vector<size_t>& ranks) {
  std::string eq = stripSpaces(equation);
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ranks.size())
    c.fail("the equation '", equation, "' has ", terms.size(), " input terms for ", ranks.size(), " inputs");
  Parsed p;
  std::vector<std::vector<int>> letters(terms.size());
  std::vector<int> at(terms.size());
  size_t widest = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    letters[k] = termLetters(c, terms[k], at[k]);
    size_t named = letters[k].size();
    if (at[k] < 0 ? named != ranks[k] : named > ranks[k])
      c.fail("the equation term '", terms[k], "' does not match input ", k, " of rank ", ranks[k]);
    if (at[k] >= 0) widest = std::max(widest, ranks[k] - named);
  }
  auto expand = [&](const std::vector<int>& l, int pos, size_t span) {
    std::vector<int> out(l.begin(), l.begin() + (pos < 0 ? static_cast<long>(l.size()) : pos));
    for (size_t i = 0; pos >= 0 && i < span; ++i) out.push_back(kEllipsis + static_cast<int>(widest - span + i));
    if (pos >= 0) out.insert(out.end(), l.begin() + pos, l.end());
    return out;
  };
  for (size_t k = 0; k < terms.size(); ++k)
    p.inputs.push_back(expand(letters[k], at[k], at[k] < 0 ? 0 : ranks[k] - letters[k].size()));
  if (arrow != std::string::npos) {
    int out_at = -1;
    std::vector<int> out = termLetters(c, eq.substr(arrow + 2), out_at);
    if (out_at < 0 && widest > 0) c.fail("the equation '", equation, "' drops the ellipsis from its output");
    p.output = expand(out, out_at, widest);
    for (size_t i = 0; i < p.output.size(); ++i) {
      bool known = false;
      for (const auto& in : p.inputs) known = known || std::count(in.begin(), in.end(), p.output[i]);
      if (!known || std::count(p.output.begin(), p.output.end(), p.output[i]) > 1)
        c.fail("the equation '", equation, "' has an output label that is repeated or in no input");
    }
  } else {
    // Implicit output: the ellipsis axes, then the letters used exactly once, alphabetically.
    std::map<int, int> uses;
    for (const auto& in : p.inputs)
      for (int l : in) ++uses[l];
    for (size_t i = 0; i < widest; ++i) p.output.push_back(kEllipsis + static_cast<int>(i));
    for (const auto& [l, n] : uses)
      if (l < kEllipsis && n == 1) p.output.push_back(l);
  }
  return p;
}

// Takes the diagonal over every label repeated within the term.
Term takeDiagonals(Ctx& c, Term t) {
  for (;;) {
    size_t a = 0, b = 0;
    for (a = 0; a < t.labels.size(); ++a) {
      auto it = std::find(t.labels.begin() + static_cast<long>(a) + 1, t.labels.end(), t.labels[a]);
      if (it != t.labels.end()) {
        b = static_cast<size_t>(it - t.labels.begin());
        break;
      }
    }
    if (a == t.labels.size()) return t;
    te::Shape s = c.val(t.value).shape;
    if (s[a] != s[b]) c.fail("label repeated on axes of sizes ", s[a], " and ", s[b]);
    std::vector<int64_t> perm;
    std::vector<int> labels;
    for (size_t i = 0; i < s.size(); ++i)
      if (i != b) {
        perm.push_back(static_cast<int64_t>(i));
        labels.push_back(t.labels[i]);
        if (i == a) perm.push_back(static_cast<int64_t>(b));
      }
    int v = c.transpose(t.value, perm, "diagonal_axes");
    te::Shape merged;
    for (size_t i = 0; i < perm.size(); ++i) {
      if (i == a + 1)
        merged.back() *= s[b];
      else
        merged.push_back(s[static_cast<size_t>(perm[i])]);
    }
    v = c.reshape(v, merged, "diagonal_pairs");
    std::vector<int64_t> diag;
    for (int64_t i = 0; i < s[a]; ++i) diag.push_back(i * (s[a] + 1));
    v = c.emit(graph::GatherAttrs{static_cast<int64_t>(a)}, {v, c.addConstant(int64Tensor(diag), "diagonal")},
               "diagonal");
    t = {v, labels};
  }
}

// Sums out the axes whose labels are not in `keep`.
Term sumOut(Ctx& c, const Term& t, const std::vector<int>& keep) {
  std::vector<int64_t> axes;
  Term out{t.value, {}};
  for (size_t i = 0; i < t.labels.size(); ++i) {
    if (std::count(keep.begin(), keep.end(), t.labels[i]))
      out.labels.push_back(t.labels[i]);
    else
      axes.push_back(static_cast<int64_t>(i));
  }
  if (!axes.empty()) out.value = c.emit(graph::ReduceAttrs{graph::ReduceKind::Sum, axes, false}, {t.value}, "sum");
  return out;
}

int64_t labelSize(const Ctx& c, const Term& t, int label) {
  auto it = std::find(t.labels.begin(), t.labels.end(), label);
  return it == t.labels.end() ? 1 : c.val(t.value).shape[static_cast<size_t>(it - t.labels.begin())];
}

// The pair (a, b) as one matrix product over the labels outside `keep`.
Term contract(Ctx& c, const Term& a, const Term& b, const std::vector<int>& keep, size_t step) {
  std::string sfx = step > 1 ? std::to_string(step) : "";
  std::vector<int> batch, rows, cols, inner;
  auto in = [](const Term& t, int l) { return std::count(t.labels.begin(), t.labels.end(), l) > 0; };
  auto kept = [&](int l) { return std::count(keep.begin(), keep.end(), l) > 0; };
  for (int l : a.labels) (in(b, l) ? (kept(l) ? batch : inner) : rows).push_back(l);
  for (int l : b.labels)
    if (!in(a, l)) cols.push_back(l);
  // Broadcast shared labels of size 1 on one side (an ellipsis axis) to the other's size.
  auto arrange = [&](const Term& t, const std::vector<int>& first, const std::vector<int>& second,
                     const std::vector<int>& third, int64_t& d1, int64_t& d2, const char* tag) {
    std::vector<int64_t> perm;
    te::Shape target;
    for (const auto* group : {&first, &second, &third})
      for (int l : *group) {
        auto it = std::find(t.labels.begin(), t.labels.end(), l);
        if (it == t.labels.end()) continue;
        perm.push_back(it - t.labels.begin());
        target.push_back(std::max(labelSize(c, a, l), labelSize(c, b, l)));
      }
    int v = c.transpose(t.value, perm, std::string(tag) + "_order" + sfx);
    if (c.val(v).shape != target) v = c.emit(graph::ExpandAttrs{target}, {v}, std::string(tag) + "_broadcast" + sfx);
    d1 = d2 = 1;
    for (int l : second) d1 *= std::max(labelSize(c, a, l), labelSize(c, b, l));
    for (int l : third) d2 *= std::max(labelSize(c, a, l), labelSize(c, b, l));
    return v;
  };
  int64_t m = 1, k = 1, k2 = 1, n = 1, nb = 1;
  for (int l : batch) nb *= std::max(labelSize(c, a, l), labelSize(c, b, l));
  int va = arrange(a, batch, rows, inner, m, k, "lhs");
  int vb = arrange(b, batch, inner, cols, k2, n, "rhs");
  te::Shape as = batch.empty() ? te::Shape{m, k} : te::Shape{nb, m, k};
  te::Shape bs = batch.empty() ? te::Shape{k2, n} : te::Shape{nb, k2, n};
  int y = matmul(c, c.reshape(va, as, "lhs_matrix" + sfx), c.reshape(vb, bs, "rhs_matrix" + sfx), "product" + sfx);
  Term out{y, batch};
  out.labels.insert(out.labels.end(), rows.begin(), rows.end());
  out.labels.insert(out.labels.end(), cols.begin(), cols.end());
  te::Shape shape;
  for (int l : out.labels) shape.push_back(std::max(labelSize(c, a, l), labelSize(c, b, l)));
  out.value = c.reshape(y, shape, "product_axes" + sfx);
  return out;
}

void importEinsum(Ctx& c) {
  c.checkAttrs({"equation"});
  if (c.numInputs() == 0) c.fail("Einsum needs at least one input");
  std::vector<size_t> ranks;
  for (int i = 0; i < c.numInputs(); ++i) {
    requireFloat(c, i);
    ranks.push_back(c.rank(i));
  }
  std::string equation = c.attrString("equation", "");
  Parsed p = parseEquation(c, equation, ranks);
  std::vector<Term> terms;
  for (int i = 0; i < c.numInputs(); ++i) {
    Term t{c.in(i), p.inputs[static_cast<size_t>(i)]};
    te::Shape s = c.shape(i);
    for (size_t x = 0; x < s.size(); ++x)
      for (int j = 0; j < i; ++j) {
        int64_t other = labelSize(c, terms[static_cast<size_t>(j)], t.labels[x]);
        if (other != 1 && s[x] != 1 && other != s[x])
          c.fail("label sizes disagree: ", s[x], " in input ", i, " and ", other, " in input ", j);
      }
    terms.push_back(takeDiagonals(c, t));
  }
  // Labels still needed after operand i: the output's and those of the operands after it.
  auto neededAfter = [&](size_t i) {
    std::vector<int> keep = p.output;
    for (size_t j = i + 1; j < terms.size(); ++j)
      keep.insert(keep.end(), terms[j].labels.begin(), terms[j].labels.end());
    return keep;
  };
  Term acc = terms[0];
  {
    std::vector<int> keep = neededAfter(0);
    acc = sumOut(c, acc, keep);
  }
  for (size_t i = 1; i < terms.size(); ++i) {
    std::vector<int> keep = neededAfter(i);
    std::vector<int> keep_or_acc = keep;
    keep_or_acc.insert(keep_or_acc.end(), acc.labels.begin(), acc.labels.end());
    Term t = sumOut(c, terms[i], keep_or_acc);
    acc = contract(c, acc, t, keep, i);
  }
  acc = sumOut(c, acc, p.output);
  std::vector<int64_t> perm;
  for (int l : p.output) perm.push_back(std::find(acc.labels.begin(), acc.labels.end(), l) - acc.labels.begin());
  c.setOutput(0, c.transpose(acc.value, perm, "output_order"));
}

}  // namespace

void addEinsumOps(OpTable& t) { t["Einsum"] = importEinsum; }

}  // namespace ttune::frontend::detail
