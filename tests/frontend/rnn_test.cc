// LSTM, GRU and RNN checked against plain loops written here from the ONNX operator definitions
// (the forms PyTorch exports: bidirectional, GRU with linear_before_reset, initial states,
// batch-first layout), through the reference evaluator and compiled; and the unrolled time loop
// is one recurrent kernel, not one per step.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "executor/executor.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "onnx_builder.h"
#include "test_util.h"

namespace ttune::frontend {
namespace {

using namespace testing;
using I = int64_t;

enum class Cell { Lstm, Gru, Rnn };

struct Case {
  Cell cell = Cell::Lstm;
  I seq = 5, batch = 2, input = 3, hidden = 4;
  bool bidirectional = false, reverse = false, batch_first = false, bias = true, initial = false, peepholes = false;
  bool linear_before_reset = false;
};

float sigm(float x) { return 1.0f / (1.0f + std::exp(-x)); }

struct Arrays {
  runtime::NDArray x, w, r, b, h0, c0, p;
};

// Y [T, D, B, H] (time-major), Y_h [D, B, H], Y_c [D, B, H].
std::vector<runtime::NDArray> reference(const Case& k, const Arrays& a) {
  I g = k.cell == Cell::Lstm ? 4 : k.cell == Cell::Gru ? 3 : 1, dirs = k.bidirectional ? 2 : 1, hd = k.hidden;
  runtime::NDArray y({k.seq, dirs, k.batch, hd}, te::DType::Float32), yh({dirs, k.batch, hd}, te::DType::Float32),
      yc({dirs, k.batch, hd}, te::DType::Float32);
  auto X = [&](I t, I b, I i) {
    return k.batch_first ? a.x.as<float>()[(b * k.seq + t) * k.input + i]
                         : a.x.as<float>()[(t * k.batch + b) * k.input + i];
  };
  for (I d = 0; d < dirs; ++d) {
    const float* W = a.w.as<float>() + d * g * hd * k.input;
    const float* R = a.r.as<float>() + d * g * hd * hd;
    const float* B = k.bias ? a.b.as<float>() + d * 2 * g * hd : nullptr;
    for (I b = 0; b < k.batch; ++b) {
      std::vector<float> h(hd, 0), c(hd, 0);
      if (k.initial)
        for (I j = 0; j < hd; ++j) {
          h[j] = a.h0.as<float>()[(d * k.batch + b) * hd + j];
          if (k.cell == Cell::Lstm) c[j] = a.c0.as<float>()[(d * k.batch + b) * hd + j];
        }
      for (I s = 0; s < k.seq; ++s) {
        I t = (k.reverse || d == 1) ? k.seq - 1 - s : s;
        auto xw = [&](I row) {
          float v = B ? B[row] : 0;
          for (I i = 0; i < k.input; ++i) v += W[row * k.input + i] * X(t, b, i);
          return v;
        };
        auto hr = [&](I row, const std::vector<float>& hv) {
          float v = B ? B[g * hd + row] : 0;
          for (I j = 0; j < hd; ++j) v += R[row * hd + j] * hv[j];
          return v;
        };
        std::vector<float> nh(hd), nc(hd);
        for (I j = 0; j < hd; ++j) {
          if (k.cell == Cell::Lstm) {
            const float* P = k.peepholes ? a.p.as<float>() + d * 3 * hd : nullptr;
            float i = sigm(xw(j) + hr(j, h) + (P ? P[j] * c[j] : 0));
            float f = sigm(xw(2 * hd + j) + hr(2 * hd + j, h) + (P ? P[2 * hd + j] * c[j] : 0));
            float cand = std::tanh(xw(3 * hd + j) + hr(3 * hd + j, h));
            nc[j] = f * c[j] + i * cand;
            float o = sigm(xw(hd + j) + hr(hd + j, h) + (P ? P[hd + j] * nc[j] : 0));
            nh[j] = o * std::tanh(nc[j]);
          } else if (k.cell == Cell::Gru) {
            float z = sigm(xw(j) + hr(j, h));
            float r = sigm(xw(hd + j) + hr(hd + j, h));
            float cand;
            if (k.linear_before_reset) {
              cand = std::tanh(xw(2 * hd + j) + r * hr(2 * hd + j, h));
            } else {
              std::vector<float> rh(hd);
              for (I m = 0; m < hd; ++m) rh[m] = sigm(xw(hd + m) + hr(hd + m, h)) * h[m];
              cand = std::tanh(xw(2 * hd + j) + hr(2 * hd + j, rh));
            }
            nh[j] = (1 - z) * cand + z * h[j];
          } else {
            nh[j] = std::tanh(xw(j) + hr(j, h));
          }
        }
        h = nh, c = nc;
        for (I j = 0; j < hd; ++j) y.as<float>()[((t * dirs + d) * k.batch + b) * hd + j] = h[j];
      }
      for (I j = 0; j < hd; ++j) {
        yh.as<float>()[(d * k.batch + b) * hd + j] = h[j];
        yc.as<float>()[(d * k.batch + b) * hd + j] = c[j];
      }
    }
  }
  return {y, yh, yc};
}

runtime::NDArray toBatchFirst(const runtime::NDArray& a, const std::vector<int>& perm) {
  te::Shape s = a.shape(), out(s.size());
  for (size_t i = 0; i < s.size(); ++i) out[i] = s[static_cast<size_t>(perm[i])];
  runtime::NDArray r(out, a.dtype());
  std::vector<I> idx(s.size(), 0);
  for (I f = 0; f < a.numElements(); ++f) {
    I rest = f;
    for (size_t d = s.size(); d-- > 0;) idx[d] = rest % s[d], rest /= s[d];
    I o = 0;
    for (size_t d = 0; d < s.size(); ++d) o = o * out[d] + idx[static_cast<size_t>(perm[d])];
    r.as<float>()[o] = a.as<float>()[f];
  }
  return r;
}

// Returns the number of distinct kernels of the compiled model.
size_t check(const Case& k) {
  I g = k.cell == Cell::Lstm ? 4 : k.cell == Cell::Gru ? 3 : 1, dirs = k.bidirectional ? 2 : 1, hd = k.hidden;
  ModelBuilder b(14);
  te::Shape xs = k.batch_first ? te::Shape{k.batch, k.seq, k.input} : te::Shape{k.seq, k.batch, k.input};
  te::Shape hs = k.batch_first ? te::Shape{k.batch, dirs, hd} : te::Shape{dirs, k.batch, hd};
  b.input("X", {xs.begin(), xs.end()});
  Arrays a;
  a.x = randomArray(xs, 1);
  a.w = b.random("W", {dirs, g * hd, k.input}, 2, -0.6, 0.6);
  a.r = b.random("R", {dirs, g * hd, hd}, 3, -0.6, 0.6);
  std::vector<std::string> ins{"X", "W", "R", k.bias ? "B" : "", "", "", "", ""};
  if (k.bias) a.b = b.random("B", {dirs, 2 * g * hd}, 4);
  std::vector<runtime::NDArray> inputs{a.x};
  if (k.initial) {
    runtime::NDArray h0 = randomArray(hs, 5), c0 = randomArray(hs, 6);
    b.input("h0", {hs.begin(), hs.end()});
    ins[5] = "h0", inputs.push_back(h0);
    a.h0 = k.batch_first ? toBatchFirst(h0, {1, 0, 2}) : h0;
    if (k.cell == Cell::Lstm) {
      b.input("c0", {hs.begin(), hs.end()});
      ins[6] = "c0", inputs.push_back(c0);
      a.c0 = k.batch_first ? toBatchFirst(c0, {1, 0, 2}) : c0;
    }
  }
  if (k.peepholes) a.p = b.random("P", {dirs, 3 * hd}, 7), ins[7] = "P";
  while (ins.back().empty()) ins.pop_back();
  const char* op = k.cell == Cell::Lstm ? "LSTM" : k.cell == Cell::Gru ? "GRU" : "RNN";
  std::vector<std::string> outs{"Y", "Y_h"};
  if (k.cell == Cell::Lstm) outs.push_back("Y_c");
  onnx::NodeProto& n = b.node(op, ins, outs);
  setAttr(n, "hidden_size", hd);
  if (k.bidirectional) setAttr(n, "direction", std::string("bidirectional"));
  if (k.reverse) setAttr(n, "direction", std::string("reverse"));
  if (k.batch_first) setAttr(n, "layout", I(1));
  if (k.linear_before_reset) setAttr(n, "linear_before_reset", I(1));
  for (const std::string& o : outs) b.output(o);

  std::vector<runtime::NDArray> want = reference(k, a);
  if (k.batch_first)
    want[0] = toBatchFirst(want[0], {2, 0, 1, 3}), want[1] = toBatchFirst(want[1], {1, 0, 2}),
    want[2] = toBatchFirst(want[2], {1, 0, 2});
  graph::Graph graph = importOnnxModel(b.model());
  std::vector<runtime::NDArray> got = graph::evaluateGraph(graph, inputs);
  if (got.size() != outs.size()) {
    ADD_FAILURE() << got.size() << " outputs";
    return 0;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("reference evaluator, output " + outs[i]);
    expectClose(got[i], want[i], 1e-5, 1e-4);
  }
  graph::optimizeGraph(graph);
  executor::CompiledModel m = executor::CompiledModel::compile(graph);
  got = m.run(inputs);
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("compiled, output " + outs[i]);
    expectClose(got[i], want[i], 1e-5, 1e-4);
  }
  std::set<std::string> distinct;
  for (const auto& kern : m.kernels()) distinct.insert(kern.workload_key);
  return distinct.size();
}

// The unrolled steps share their kernels (a time step's projections are a view of the sequence's):
// a longer sequence compiles no more kernels.
void checkSteps(Case k) {
  size_t n = check(k);
  k.seq += 4;
  EXPECT_EQ(check(k), n) << "a longer sequence needs more distinct kernels";
}

TEST(OnnxRecurrent, LstmForms) {
  checkSteps({.cell = Cell::Lstm});
  check({.cell = Cell::Lstm, .bidirectional = true, .initial = true});
  check({.cell = Cell::Lstm, .batch_first = true, .initial = true, .peepholes = true});
}

TEST(OnnxRecurrent, GruForms) {
  checkSteps({.cell = Cell::Gru, .linear_before_reset = true});
  check({.cell = Cell::Gru, .bidirectional = true, .initial = true, .linear_before_reset = true});
  check({.cell = Cell::Gru, .reverse = true, .bias = true});
}

TEST(OnnxRecurrent, RnnForms) {
  checkSteps({.cell = Cell::Rnn});
  check({.cell = Cell::Rnn, .seq = 7, .bidirectional = true, .batch_first = true, .bias = false, .initial = true});
}

}  // namespace
}  // namespace ttune::frontend
