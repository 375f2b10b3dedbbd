#include "ops/recurrent.h"

#include "ops/op_utils.h"
#include "support/error.h"

namespace ttune::ops {

namespace {

using te::Expr;
using te::Var;

Expr clipped(const Expr& e, double clip) { return clip > 0 ? te::min(te::max(e, Expr(-clip)), Expr(clip)) : e; }

void check2d(const char* op, const te::Tensor& t, const char* what, int64_t rows, int64_t cols) {
  TT_CHECK_ARG(
      t.defined() && t.ndim() == 2 && t.shape()[0] == rows && t.shape()[1] == cols && t.dtype() == te::DType::Float32,
      op, ": ", what, " must be float32 [", rows, ", ", cols, "]");
}

}  // namespace

te::Tensor lstm_cell(const te::Tensor& z, const te::Tensor& c, const te::Tensor& p, double clip) {
  TT_CHECK_ARG(c.defined() && c.ndim() == 2, "lstm_cell: the cell state must be [B, H]");
  int64_t b = c.shape()[0], h = c.shape()[1];
  check2d("lstm_cell", z, "the gates", b, 4 * h);
  check2d("lstm_cell", c, "the cell state", b, h);
  if (p.defined())
    TT_CHECK_ARG(p.ndim() == 1 && p.shape()[0] == 3 * h, "lstm_cell: the peepholes must be [3H] = [", 3 * h, "]");
  return te::compute(
      "T_lstm_cell", {2, b, h},
      [&](const std::vector<Var>& v) {
        Expr s = v[0], r = v[1], j = v[2];
        Expr cv = c(r, j);
        auto gate = [&](int64_t k) { return z(r, Expr(k * h) + j); };
        auto peep = [&](int64_t k, const Expr& state) { return p.defined() ? p(Expr(k * h) + j) * state : Expr(0.0); };
        Expr i = te::sigmoid(clipped(gate(0) + peep(0, cv), clip));
        Expr f = te::sigmoid(clipped(gate(2) + peep(2, cv), clip));
        Expr g = te::tanh(clipped(gate(3), clip));
        Expr next = f * cv + i * g;
        Expr o = te::sigmoid(clipped(gate(1) + peep(1, next), clip));
        return te::select(s == Expr(0), o * te::tanh(next), next);
      },
      te::OpTag::Injective);
}

te::Tensor gru_cell(const te::Tensor& x, const te::Tensor& hr, const te::Tensor& h, double clip) {
  TT_CHECK_ARG(h.defined() && h.ndim() == 2, "gru_cell: the state must be [B, H]");
  int64_t b = h.shape()[0], n = h.shape()[1];
  check2d("gru_cell", x, "the input projection", b, 3 * n);
  check2d("gru_cell", hr, "the recurrent projection", b, 3 * n);
  check2d("gru_cell", h, "the state", b, n);
  return te::compute(
      "T_gru_cell", {b, n},
      [&](const std::vector<Var>& v) {
        Expr r = v[0], j = v[1];
        auto at = [&](const te::Tensor& t, int64_t k) { return t(r, Expr(k * n) + j); };
        Expr zg = te::sigmoid(clipped(at(x, 0) + at(hr, 0), clip));
        Expr rg = te::sigmoid(clipped(at(x, 1) + at(hr, 1), clip));
        Expr cand = te::tanh(clipped(at(x, 2) + rg * at(hr, 2), clip));
        return cand + zg * (h(r, j) - cand);
      },
      te::OpTag::Injective);
}

}  // namespace ttune::ops
