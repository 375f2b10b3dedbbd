// ONNX LSTM, GRU and RNN (opsets 11-17: forward, reverse and bidirectional, layouts 0 and 1,
// initial states, LSTM peepholes, GRU's linear_before_reset, clip, the activations ttune has).
//
// The input projections of every time step are one dense layer over the whole sequence
// ([T*B, I] x [G*H, I]^T, both biases folded in where the math allows), so most of the
// arithmetic runs as one large matrix product. The time loop is unrolled into the graph: each
// step is the recurrent product h R^T (a dense layer on [B, H]) with its gate arithmetic fused
// in (one lstm_cell / gru_cell operator for the default activations, ops/recurrent.h), all steps
// one kernel of one workload reading their time step through a view, called T times by the
// executor's static plan — no step goes back through the executor or the host. sequence_lens is accepted when it gives
// every batch element the full length.
#include <algorithm>

#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using graph::BinaryKind;
using graph::UnaryKind;

enum class Cell { Lstm, Gru, Rnn };

struct Activation {
  UnaryKind kind = UnaryKind::Sigmoid;
  double alpha = 0, beta = 0;
};

struct Rnn {
  Cell cell = Cell::Lstm;
  int64_t gates = 4, hidden = 0, dirs = 1, seq = 0, batch = 0, input = 0;
  bool reverse_only = false, batch_first = false, linear_before_reset = false;
  double clip = 0;              // 0: none
  std::vector<Activation> act;  // per direction, the cell's activation list
};

Activation activation(const Ctx& c, const std::string& name, const std::vector<float>& alphas,
                      const std::vector<float>& betas, size_t& ai, size_t& bi) {
  auto next = [](const std::vector<float>& v, size_t& i, double def) { return i < v.size() ? v[i++] : def; };
  if (name == "Sigmoid") return {UnaryKind::Sigmoid};
  if (name == "Tanh") return {UnaryKind::Tanh};
  if (name == "Relu") return {UnaryKind::Relu};
  if (name == "HardSigmoid") {
    double a = next(alphas, ai, 0.2);
    return {UnaryKind::HardSigmoid, a, next(betas, bi, 0.5)};
  }
  if (name == "LeakyRelu") return {UnaryKind::LeakyRelu, next(alphas, ai, 0.01)};
  c.fail("activation ", name, " is not supported (Sigmoid, Tanh, Relu, HardSigmoid, LeakyRelu are)");
}

Rnn readAttributes(Ctx& c, Cell cell) {
  Rnn r;
  r.cell = cell;
  r.gates = cell == Cell::Lstm ? 4 : cell == Cell::Gru ? 3 : 1;
  if (cell == Cell::Lstm)
    c.checkAttrs({"activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size",
                  "input_forget", "layout"});
  else if (cell == Cell::Gru)
    c.checkAttrs({"activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size", "layout",
                  "linear_before_reset"});
  else
    c.checkAttrs({"activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size", "layout"});
  if (c.attrInt("input_forget", 0) != 0) c.fail("input_forget=1 is not supported");
  std::string dir = c.attrString("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional") c.fail("direction ", dir, " is not valid");
  r.dirs = dir == "bidirectional" ? 2 : 1;
  r.reverse_only = dir == "reverse";
  r.batch_first = c.attrInt("layout", 0) == 1;
  r.linear_before_reset = c.attrInt("linear_before_reset", 0) != 0;
  r.clip = c.hasAttr("clip") ? c.attrFloat("clip", 0) : 0;
  if (c.hasAttr("clip") && r.clip <= 0) c.fail("clip ", r.clip, " must be positive");

  for (int i = 0; i < 3; ++i) requireFloat32(c, i);
  te::Shape xs = c.shape(0), ws = c.shape(1), rs = c.shape(2);
  if (xs.size() != 3) c.fail("the input X has rank ", xs.size(), ", not 3");
  r.seq = r.batch_first ? xs[1] : xs[0];
  r.batch = r.batch_first ? xs[0] : xs[1];
  r.input = xs[2];
  r.hidden = c.attrInt("hidden_size", ws.size() == 3 ? ws[1] / r.gates : 0);
  if (ws != te::Shape{r.dirs, r.gates * r.hidden, r.input})
    c.fail("W has shape ", te::shapeToString(ws), ", expected ",
           te::shapeToString({r.dirs, r.gates * r.hidden, r.input}));
  if (rs != te::Shape{r.dirs, r.gates * r.hidden, r.hidden})
    c.fail("R has shape ", te::shapeToString(rs), ", expected ",
           te::shapeToString({r.dirs, r.gates * r.hidden, r.hidden}));
  if (r.hidden <= 0 || r.seq <= 0) c.fail("hidden_size and the sequence length must be positive");

  std::vector<std::string> names;
  if (const onnx::AttributeProto* a = c.attr("activations"))
    for (const std::string& s : a->strings()) names.push_back(s);
  std::vector<std::string> defaults = cell == Cell::Lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                      : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                          : std::vector<std::string>{"Tanh"};
  size_t per = defaults.size();
  if (names.empty())
    for (int64_t d = 0; d < r.dirs; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  if (names.size() != per * static_cast<size_t>(r.dirs))
    c.fail("activations lists ", names.size(), " functions; this cell needs ", per * static_cast<size_t>(r.dirs));
  std::vector<float> alphas = c.attrFloats("activation_alpha"), betas = c.attrFloats("activation_beta");
  size_t ai = 0, bi = 0;
  for (const std::string& n : names) r.act.push_back(activation(c, n, alphas, betas, ai, bi));

  if (c.present(4)) {
    std::vector<int64_t> lens = c.ints(4, "sequence_lens");
    for (int64_t l : lens)
      if (l != r.seq)
        c.fail("sequence_lens holds ", l, "; only sequences of the full length ", r.seq, " are supported");
  }
  return r;
}

class Builder {
 public:
  Builder(Ctx& c, const Rnn& r) : c_(c), r_(r) {}

  int slice(int v, int64_t axis, int64_t begin, int64_t end, const std::string& tag) {
    if (begin == 0 && end == c_.val(v).shape[static_cast<size_t>(axis)]) return v;
    return c_.emit(graph::SliceAttrs{{begin}, {end}, {axis}, {1}}, {v}, tag);
  }
  // [rows, K] x [N, K]^T: a dense layer when w is constant, a matmul otherwise.
  int product(int x, int w, const std::string& tag) {
    if (c_.val(w).isConstant()) return c_.emit(graph::DenseAttrs{}, {x, w}, tag);
    return c_.emit(graph::MatMulAttrs{false, true}, {x, w}, tag);
  }
  // The cell's activations are the defaults (sigmoid gates, tanh otherwise): the fused cell ops.
  bool defaultActivations(size_t first) const {
    size_t n = r_.cell == Cell::Lstm ? 3 : r_.cell == Cell::Gru ? 2 : 1;
    for (size_t k = 0; k < n; ++k)
      if (r_.act[first + k].kind != (k == 0 ? UnaryKind::Sigmoid : UnaryKind::Tanh)) return false;
    return true;
  }
  int act(const Activation& a, int v, const std::string& tag) { return c_.unary(a.kind, v, tag, a.alpha, a.beta); }
  int clip(int v, const std::string& tag) {
    return r_.clip > 0 ? c_.unary(UnaryKind::Clip, v, tag, -r_.clip, r_.clip) : v;
  }
  int add(int a, int b, const std::string& tag) { return c_.binary(BinaryKind::Add, a, b, tag); }
  int mul(int a, int b, const std::string& tag) { return c_.binary(BinaryKind::Mul, a, b, tag); }

  // One direction: returns h per time index (in time order), and the final h and c.
  struct Out {
    std::vector<int> hs;
    int h = -1, cell = -1;
  };
  Out direction(int64_t d, bool reverse, int x2d) {
    const int64_t g = r_.gates, hd = r_.hidden, b = r_.batch;
    std::string dn = "d" + std::to_string(d) + "_";
    int w = c_.reshape(slice(c_.in(1), 0, d, d + 1, dn + "W"), {g * hd, r_.input}, dn + "W_2d");
    int rw = c_.reshape(slice(c_.in(2), 0, d, d + 1, dn + "R"), {g * hd, hd}, dn + "R_2d");
    // Input-side bias: Wb + Rb, except GRU's Rbh when linear_before_reset (it goes inside r *).
    int xbias = -1, hbias = -1;
    if (c_.present(3)) {
      int bb = c_.reshape(slice(c_.in(3), 0, d, d + 1, dn + "B"), {2 * g * hd}, dn + "B_1d");
      int wb = slice(bb, 0, 0, g * hd, dn + "Wb"), rb = slice(bb, 0, g * hd, 2 * g * hd, dn + "Rb");
      if (r_.cell == Cell::Gru && r_.linear_before_reset) {
        int zr = slice(rb, 0, 0, 2 * hd, dn + "Rb_zr");
        int zeros = c_.addConstant(runtime::NDArray({hd}, te::DType::Float32), dn + "no_bias");
        xbias = add(wb, c_.emit(graph::ConcatAttrs{0}, {zr, zeros}, dn + "Rb_zr0"), dn + "x_bias");
        hbias = c_.emit(graph::ConcatAttrs{0},
                        {c_.addConstant(runtime::NDArray({2 * hd}, te::DType::Float32), dn + "no_bias_zr"),
                         slice(rb, 0, 2 * hd, 3 * hd, dn + "Rb_h")},
                        dn + "h_bias");
      } else {
        xbias = add(wb, rb, dn + "x_bias");
      }
    }
    int xp = product(x2d, w, dn + "input_projection");
    if (xbias >= 0) xp = add(xp, xbias, dn + "input_projection_bias");
    xp = c_.reshape(xp, {r_.seq, b, g * hd}, dn + "projections");

    auto initial = [&](int i, const char* what) {
      if (!c_.present(i)) return c_.addConstant(runtime::NDArray({b, hd}, te::DType::Float32), dn + what);
      te::Shape want = r_.batch_first ? te::Shape{b, r_.dirs, hd} : te::Shape{r_.dirs, b, hd};
      if (c_.shape(i) != want)
        c_.fail(c_.inputLabel(i), " has shape ", te::shapeToString(c_.shape(i)), ", expected ",
                te::shapeToString(want));
      int v = c_.in(i);
      if (r_.batch_first) v = c_.transpose(v, {1, 0, 2}, dn + what + "_dbh");
      return c_.reshape(slice(v, 0, d, d + 1, dn + what), {b, hd}, dn + what + "_2d");
    };
    Out o;
    o.h = initial(5, "initial_h");
    if (r_.cell == Cell::Lstm) o.cell = initial(6, "initial_c");
    int peep = -1;
    if (r_.cell == Cell::Lstm && c_.present(7)) {
      if (c_.shape(7) != te::Shape{r_.dirs, 3 * hd})
        c_.fail("P has shape ", te::shapeToString(c_.shape(7)), ", expected ", te::shapeToString({r_.dirs, 3 * hd}));
      peep = c_.reshape(slice(c_.in(7), 0, d, d + 1, dn + "P"), {3 * hd}, dn + "P_1d");
    }
    const size_t a0 = static_cast<size_t>(d) * (r_.cell == Cell::Lstm ? 3 : r_.cell == Cell::Gru ? 2 : 1);
    o.hs.assign(static_cast<size_t>(r_.seq), -1);
    for (int64_t s = 0; s < r_.seq; ++s) {
      int64_t t = reverse ? r_.seq - 1 - s : s;
      std::string sn = dn + "t" + std::to_string(t) + "_";
      int xt = c_.reshape(slice(xp, 0, t, t + 1, sn + "x"), {b, g * hd}, sn + "x_2d");
      auto gate = [&](int v, int64_t k, const std::string& n) { return slice(v, 1, k * hd, (k + 1) * hd, sn + n); };
      if (r_.cell == Cell::Lstm && defaultActivations(a0)) {
        // One fused step: the recurrent product, the gates and both states in one kernel; the
        // states are views of its [2, B, H] output.
        int z = add(xt, product(o.h, rw, sn + "recurrent"), sn + "gates");
        std::vector<int> ins{z, o.cell};
        if (peep >= 0) ins.push_back(peep);
        int hc = c_.emit(graph::RecurrentCellAttrs{graph::RecurrentCell::Lstm, r_.clip}, ins, sn + "cell");
        o.h = c_.reshape(slice(hc, 0, 0, 1, sn + "h_view"), {b, hd}, sn + "h");
        o.cell = c_.reshape(slice(hc, 0, 1, 2, sn + "c_view"), {b, hd}, sn + "c");
      } else if (r_.cell == Cell::Gru && r_.linear_before_reset && defaultActivations(a0)) {
        int hr = product(o.h, rw, sn + "recurrent");
        if (hbias >= 0) hr = add(hr, hbias, sn + "recurrent_bias");
        o.h = c_.emit(graph::RecurrentCellAttrs{graph::RecurrentCell::Gru, r_.clip}, {xt, hr, o.h}, sn + "h");
      } else if (r_.cell == Cell::Lstm) {
        int z = add(xt, product(o.h, rw, sn + "recurrent"), sn + "gates");
        auto peephole = [&](int v, int64_t k, int cv, const std::string& n) {
          if (peep < 0) return v;
          return add(v, mul(slice(peep, 0, k * hd, (k + 1) * hd, sn + n + "_p"), cv, sn + n + "_peep"),
                     sn + n + "_pre");
        };
        int i = act(r_.act[a0], clip(peephole(gate(z, 0, "i"), 0, o.cell, "i"), sn + "i_clip"), sn + "i_act");
        int f = act(r_.act[a0], clip(peephole(gate(z, 2, "f"), 2, o.cell, "f"), sn + "f_clip"), sn + "f_act");
        int cand = act(r_.act[a0 + 1], clip(gate(z, 3, "c"), sn + "c_clip"), sn + "c_act");
        o.cell = add(mul(f, o.cell, sn + "keep"), mul(i, cand, sn + "write"), sn + "cell");
        int og = act(r_.act[a0], clip(peephole(gate(z, 1, "o"), 1, o.cell, "o"), sn + "o_clip"), sn + "o_act");
        o.h = mul(og, act(r_.act[a0 + 2], o.cell, sn + "cell_act"), sn + "h");
      } else if (r_.cell == Cell::Gru) {
        int hr = product(o.h, rw, sn + "recurrent");
        if (hbias >= 0) hr = add(hr, hbias, sn + "recurrent_bias");
        int zg =
            act(r_.act[a0], clip(add(gate(xt, 0, "xz"), gate(hr, 0, "hz"), sn + "z_pre"), sn + "z_clip"), sn + "z");
        int rg =
            act(r_.act[a0], clip(add(gate(xt, 1, "xr"), gate(hr, 1, "hr"), sn + "r_pre"), sn + "r_clip"), sn + "r");
        int hpart;
        if (r_.linear_before_reset) {
          hpart = mul(rg, gate(hr, 2, "hh"), sn + "reset");
        } else {
          int rh = c_.reshape(slice(rw, 0, 2 * hd, 3 * hd, dn + "Rh"), {hd, hd}, dn + "Rh_2d");
          hpart = product(mul(rg, o.h, sn + "reset"), rh, sn + "reset_recurrent");
        }
        int cand = act(r_.act[a0 + 1], clip(add(gate(xt, 2, "xh"), hpart, sn + "h_pre"), sn + "h_clip"), sn + "h_cand");
        // h = (1 - z) * cand + z * h = cand + z * (h - cand)
        o.h = add(cand, mul(zg, c_.binary(BinaryKind::Sub, o.h, cand, sn + "delta"), sn + "carry"), sn + "h");
      } else {
        o.h = act(r_.act[a0], clip(add(xt, product(o.h, rw, sn + "recurrent"), sn + "pre"), sn + "clip"), sn + "h");
      }
      o.hs[static_cast<size_t>(t)] = o.h;
    }
    return o;
  }

 private:
  Ctx& c_;
  const Rnn& r_;
};

void importRecurrent(Ctx& c, Cell cell) {
  Rnn r = readAttributes(c, cell);
  Builder b(c, r);
  int x = c.in(0);
  if (r.batch_first) x = c.transpose(x, {1, 0, 2}, "time_major");
  int x2d = c.reshape(x, {r.seq * r.batch, r.input}, "steps_as_rows");
  std::vector<Builder::Out> outs;
  for (int64_t d = 0; d < r.dirs; ++d) outs.push_back(b.direction(d, r.reverse_only || d == 1, x2d));

  auto stackStates = [&](auto pick, const char* tag) {  // [D, B, H], or [B, D, H] in layout 1
    std::vector<int> parts;
    for (int64_t d = 0; d < r.dirs; ++d)
      parts.push_back(c.reshape(pick(outs[static_cast<size_t>(d)]), {1, r.batch, r.hidden},
                                std::string(tag) + "_d" + std::to_string(d)));
    int v = parts.size() == 1 ? parts[0] : c.emit(graph::ConcatAttrs{0}, parts, tag);
    return r.batch_first ? c.transpose(v, {1, 0, 2}, std::string(tag) + "_batch_first") : v;
  };
  if (c.outputUsed(0)) {
    std::vector<int> steps;
    for (int64_t t = 0; t < r.seq; ++t) {
      std::vector<int> dirs;
      for (int64_t d = 0; d < r.dirs; ++d)
        dirs.push_back(c.reshape(outs[static_cast<size_t>(d)].hs[static_cast<size_t>(t)], {1, 1, r.batch, r.hidden},
                                 "Y_t" + std::to_string(t) + "_d" + std::to_string(d)));
      steps.push_back(dirs.size() == 1 ? dirs[0] : c.emit(graph::ConcatAttrs{1}, dirs, "Y_t" + std::to_string(t)));
    }
    int y = steps.size() == 1 ? steps[0] : c.emit(graph::ConcatAttrs{0}, steps, "Y");  // [T, D, B, H]
    c.setOutput(0, r.batch_first ? c.transpose(y, {2, 0, 1, 3}, "Y_batch_first") : y);
  }
  if (c.outputUsed(1)) c.setOutput(1, stackStates([](const Builder::Out& o) { return o.h; }, "Y_h"));
  if (cell == Cell::Lstm && c.outputUsed(2))
    c.setOutput(2, stackStates([](const Builder::Out& o) { return o.cell; }, "Y_c"));
}

void importLstm(Ctx& c) { importRecurrent(c, Cell::Lstm); }
void importGru(Ctx& c) { importRecurrent(c, Cell::Gru); }
void importRnn(Ctx& c) { importRecurrent(c, Cell::Rnn); }

}  // namespace

void addRecurrentOps(OpTable& t) {
  t["LSTM"] = importLstm;
  t["GRU"] = importGru;
  t["RNN"] = importRnn;
}

}  // namespace ttune::frontend::detail
