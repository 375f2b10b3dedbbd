#include "ops/winograd.h"

#include <functional>

#include "ops/transform.h"
#include "support/assert.h"
#include "support/error.h"

namespace ttune::ops {

using te::Expr;
using te::Var;

namespace {

using Mat = std::vector<std::vector<double>>;

// Transform matrices of F(m, 3) with the interpolation points 0, +-1, +-2 (Lavin & Gray).
struct Matrices {
  Mat BT, G, AT;  // a x a, a x 3, m x a
};

const Matrices& matrices(int64_t m) {
  static const Matrices f2{{{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
                           {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}},
                           {{1, 1, 1, 0}, {0, 1, -1, -1}}};
  static const Matrices f4{{{4, 0, -5, 0, 1, 0},
                            {0, -4, -4, 1, 1, 0},
                            {0, 4, -4, -1, 1, 0},
                            {0, -2, -1, 2, 1, 0},
                            {0, 2, -1, -2, 1, 0},
                            {0, 4, 0, -5, 0, 1}},
                           {{1.0 / 4, 0, 0},
                            {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                            {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                            {1.0 / 24, 1.0 / 12, 1.0 / 6},
                            {1.0 / 24, -1.0 / 12, 1.0 / 6},
                            {0, 0, 1}},
                           {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}};
  TT_ASSERT(m == 2 || m == 4, "winograd: unsupported tile");
  return m == 2 ? f2 : f4;
}

// Sum over the non-zero coefficients of `row` of coefficient x term(column).
Expr weightedSum(const std::vector<double>& row, const std::function<Expr(int)>& term) {
  Expr acc;
  for (size_t c = 0; c < row.size(); ++c) {
    double w = row[c];
    if (w == 0) continue;
    Expr t = term(static_cast<int>(c));
    Expr v = w == 1 ? t : w == -1 ? -t : t * te::floatImm(static_cast<float>(w));
    acc = acc.defined() ? acc + v : v;
  }
  return acc.defined() ? acc : te::floatImm(0.0f);
}

// mat[index] applied to term: a select chain over the rows (folds once `index` is a constant).
Expr rowSelect(const Mat& mat, const Expr& index, const std::function<Expr(int)>& term) {
  Expr out = weightedSum(mat.back(), term);
  for (int r = static_cast<int>(mat.size()) - 2; r >= 0; --r)
    out = te::select(index == te::intImm(r), weightedSum(mat[static_cast<size_t>(r)], term), out);
  return out;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

bool winogradTileSupported(int64_t m) { return m == 2 || m == 4; }

std::vector<float> winogradWeights(const std::vector<float>& hwio, int64_t C, int64_t K, int64_t m) {
  TT_CHECK_ARG(winogradTileSupported(m), "winograd: output tiles of ", m, " are not supported (2 or 4)");
  TT_CHECK_ARG(static_cast<int64_t>(hwio.size()) == 9 * C * K, "winograd: the filter has ", hwio.size(),
               " values, not 3x3x", C, "x", K);
  const Mat& G = matrices(m).G;
  int64_t a = m + 2;
  std::vector<float> out(static_cast<size_t>(a * a * C * K));
  for (int64_t c = 0; c < C; ++c)
    for (int64_t k = 0; k < K; ++k) {
      double g[3][3];
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) g[r][s] = hwio[static_cast<size_t>(((r * 3 + s) * C + c) * K + k)];
      for (int64_t xi = 0; xi < a; ++xi)
        for (int64_t nu = 0; nu < a; ++nu) {
          double v = 0;
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) v += G[static_cast<size_t>(xi)][r] * g[r][s] * G[static_cast<size_t>(nu)][s];
          out[static_cast<size_t>(((xi * a + nu) * C + c) * K + k)] = static_cast<float>(v);
        }
    }
  return out;
}

te::Tensor winograd_input(const te::Tensor& data, int64_t m, Pad4 padding) {
  const char* op = "winograd_input";
  TT_CHECK_ARG(winogradTileSupported(m), op, ": output tiles of ", m, " are not supported (2 or 4)");
  checkRank(op, data, 4, "input");
  checkDType(op, data, te::DType::Float32, "input");
  const te::Shape& s = data.shape();
  int64_t N = s[0], H = s[1], W = s[2], C = s[3];
  int64_t OH = H + padding[0] + padding[2] - 2, OW = W + padding[1] + padding[3] - 2;
  TT_CHECK_ARG(OH > 0 && OW > 0, op, ": a 3x3 window does not fit the padded input ", te::shapeToString(s));
  int64_t TH = ceilDiv(OH, m), TW = ceilDiv(OW, m), a = m + 2;
  // Pad so that every tile reads inside: the last tile starts at (T-1) m and spans a rows.
  te::Tensor in = pad(data, {0, padding[0], padding[1], 0},
                      {0, (TH - 1) * m + a - H - padding[0], (TW - 1) * m + a - W - padding[1], 0});
  const Mat& BT = matrices(m).BT;
  return te::compute(op, {a, a, N * TH * TW, C},
                     [&](const std::vector<Var>& v) {
                       const Var &xi = v[0], &nu = v[1], &p = v[2], &c = v[3];
                       Expr n = Expr(p) / (TH * TW), ty = (Expr(p) / TW) % TH, tx = Expr(p) % TW;
                       // (B^T d B)[xi][nu]: rows of d combined by B^T's row xi, each row combined by row nu.
                       return rowSelect(BT, xi, [&](int r) {
                         return rowSelect(BT, nu, [&](int q) { return in(n, ty * m + r, tx * m + q, c); });
                       });
                     },
                     te::OpTag::WinogradInput, {"eps", "nu", "p", "ci"});
}

te::Tensor winograd_output(const te::Tensor& tiles, int64_t m, int64_t N, int64_t OH, int64_t OW) {
  const char* op = "winograd_output";
  TT_CHECK_ARG(winogradTileSupported(m), op, ": output tiles of ", m, " are not supported (2 or 4)");
  checkRank(op, tiles, 4, "tiles");
  checkDType(op, tiles, te::DType::Float32, "tiles");
  int64_t a = m + 2, TH = ceilDiv(OH, m), TW = ceilDiv(OW, m);
  const te::Shape& s = tiles.shape();
  TT_CHECK_ARG(s[0] == a && s[1] == a && s[2] == N * TH * TW, op, ": tiles ", te::shapeToString(s), " do not match ", a,
               "x", a, "x", N * TH * TW, " for a ", N, "x", OH, "x", OW, " output with tiles of ", m);
  int64_t K = s[3];
  const Mat& AT = matrices(m).AT;
  return te::compute(op, {N, OH, OW, K},
                     [&](const std::vector<Var>& v) {
                       const Var &nn = v[0], &yy = v[1], &xx = v[2], &ff = v[3];
                       Expr p = (Expr(nn) * TH + Expr(yy) / m) * TW + Expr(xx) / m;
                       return rowSelect(AT, Expr(yy) % m, [&](int xi) {
                         return rowSelect(AT, Expr(xx) % m, [&](int nu) { return tiles(xi, nu, p, ff); });
                       });
                     },
                     te::OpTag::WinogradOutput, {"nn", "yy", "xx", "ff"});
}

}  // namespace ttune::ops
