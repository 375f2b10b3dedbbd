// ONNX signal-processing operators (opset 17): DFT and STFT as matrix products with a constant
// twiddle matrix, and the generators HannWindow, HammingWindow, BlackmanWindow and
// MelWeightMatrix, whose outputs are constants computed at import.
//
// DFT along an axis of static length N is a dense layer: the signal [M, N * C] (C = 1 real or 2
// complex components) times a constant [K * 2, N * C] matrix of cosines and sines gives the K
// complex outputs. That is O(N^2) per signal rather than an FFT's O(N log N), but it lands on the
// dense anchor (tiled, vectorised, tuned and transfer-tuned like any fully connected layer) and
// for the frame lengths of audio front ends (a few hundred) it is the faster choice on a CPU.
// STFT gathers its frames (a constant index table), applies a run-time window elementwise (a
// constant window is folded into the matrix) and runs the same product.
#include <cmath>
#include <numbers>

#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/onnx_importer.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

using te::DType;

// The [K * 2, n_in * comps] matrix of a length-`length` DFT over the first n_in samples (the rest
// zero padding): row 2k + 0 / 1 gives the real / imaginary part of output k; column n * comps + 0 / 1
// reads the real / imaginary part of sample n. window (n_in values or empty) scales sample n.
runtime::NDArray dftMatrix(int64_t n_in, int64_t length, int64_t k_out, int64_t comps, bool inverse,
                           const std::vector<double>& window) {
  runtime::NDArray w({k_out * 2, n_in * comps}, DType::Float32);
  float* p = w.as<float>();
  double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
  for (int64_t k = 0; k < k_out; ++k) {
    for (int64_t n = 0; n < n_in; ++n) {
      // k * n mod length keeps the angle small (and exact in the integers) for long transforms.
      double angle =
          sign * 2.0 * std::numbers::pi * static_cast<double>((k * n) % length) / static_cast<double>(length);
      double c = std::cos(angle) * scale, s = std::sin(angle) * scale;
      if (!window.empty()) c *= window[n], s *= window[n];
      // (xr + i xi)(c + i s) = (xr c - xi s) + i (xr s + xi c)
      p[(2 * k) * n_in * comps + n * comps] = static_cast<float>(c);
      p[(2 * k + 1) * n_in * comps + n * comps] = static_cast<float>(s);
      if (comps == 2) {
        p[(2 * k) * n_in * comps + n * comps + 1] = static_cast<float>(-s);
        p[(2 * k + 1) * n_in * comps + n * comps + 1] = static_cast<float>(c);
      }
    }
  }
  return w;
}

// x [..., N, comps] -> [..., K, 2] through the dense anchor.
int dftLastAxes(Ctx& c, int x, const runtime::NDArray& matrix, int64_t k_out, std::string_view tag) {
  te::Shape s = c.val(x).shape;
  int64_t rows = 1;
  for (size_t d = 0; d + 2 < s.size(); ++d) rows *= s[d];
  int flat = c.reshape(x, {rows, s[s.size() - 2] * s.back()}, std::string(tag) + "_rows");
  int w = c.addConstant(matrix, std::string(tag) + "_twiddles");
  int y = c.emit(graph::DenseAttrs{}, {flat, w}, tag);
  te::Shape out(s.begin(), s.end() - 2);
  out.push_back(k_out);
  out.push_back(2);
  return c.reshape(y, out, std::string(tag) + "_complex");
}

int64_t signalComponents(const Ctx& c, int i) {
  te::Shape s = c.shape(i);
  if (s.empty() || (s.back() != 1 && s.back() != 2))
    c.fail("the last axis of the signal must hold 1 (real) or 2 (complex) components, got shape ",
           te::shapeToString(s));
  return s.back();
}

void importDft(Ctx& c) {
  c.checkAttrs({"axis", "inverse", "onesided"});
  requireFloat(c, 0);
  te::Shape s = c.shape(0);
  int64_t comps = signalComponents(c, 0);
  int64_t rank = static_cast<int64_t>(s.size());
  int64_t axis = c.attrInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 1 || axis > rank - 2)
    c.fail("axis ", c.attrInt("axis", 1), " must name a signal axis (between the batch axis and the components)");
  bool inverse = c.attrInt("inverse", 0) != 0, onesided = c.attrInt("onesided", 0) != 0;
  if (onesided && (inverse || comps == 2))
    c.fail("onesided is only defined for the forward transform of a real signal");
  int64_t n = s[axis];
  int64_t length = c.present(1) ? static_cast<int64_t>(c.scalar(1, "dft_length")) : n;
  if (length <= 0) c.fail("dft_length ", length, " must be positive");
  int64_t k_out = onesided ? length / 2 + 1 : length;
  int x = c.in(0);
  if (n > length) x = c.emit(graph::SliceAttrs{{0}, {length}, {axis}, {1}}, {x}, "truncate");
  int64_t n_in = std::min(n, length);
  // Move the transformed axis next to the components, transform, move it back.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis) perm.push_back(d);
  perm.push_back(axis);
  perm.push_back(rank - 1);
  x = c.transpose(x, perm, "to_last");
  int y = dftLastAxes(c, x, dftMatrix(n_in, length, k_out, comps, inverse, {}), k_out, "dft");
  std::vector<int64_t> back(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) back[perm[d]] = static_cast<int64_t>(d);
  c.setOutput(0, c.transpose(y, back, {}));
}

void importStft(Ctx& c) {
  c.checkAttrs({"onesided"});
  requireFloat(c, 0);
  te::Shape s = c.shape(0);
  if (s.size() != 3) c.fail("the signal must be [batch, length, components], got ", te::shapeToString(s));
  int64_t comps = signalComponents(c, 0);
  int64_t step = static_cast<int64_t>(c.scalar(1, "frame_step"));
  if (step <= 0) c.fail("frame_step ", step, " must be positive");
  bool has_window = c.present(2);
  if (has_window && c.rank(2) != 1) c.fail("the window must be 1-D");
  int64_t length = has_window ? c.shape(2)[0] : 0;
  if (c.present(3)) {
    int64_t fl = static_cast<int64_t>(c.scalar(3, "frame_length"));
    if (has_window && fl != length) c.fail("frame_length ", fl, " differs from the window's length ", length);
    length = fl;
  }
  if (length <= 0) c.fail("needs a window or a frame_length");
  if (length > s[1]) c.fail("the frame length ", length, " exceeds the signal length ", s[1]);
  bool onesided = c.attrInt("onesided", 1) != 0;
  if (onesided && comps == 2) c.fail("onesided is only defined for a real signal");
  int64_t frames = 1 + (s[1] - length) / step;
  int64_t k_out = onesided ? length / 2 + 1 : length;
  std::vector<int64_t> idx;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < length; ++j) idx.push_back(f * step + j);
  runtime::NDArray table({frames, length}, DType::Int64);
  copyBytes(table.data(), idx.data(), idx.size() * sizeof(int64_t));
  int ids = c.addConstant(table, "frame_indices");
  int x = c.emit(graph::GatherAttrs{1}, {c.in(0), ids}, "frames");  // [batch, frames, length, comps]
  std::vector<double> window;
  if (has_window && c.isConst(2)) {
    requireFloat(c, 2);
    runtime::NDArray w = c.constant(2, "window");
    for (int64_t j = 0; j < length; ++j) window.push_back(w.as<float>()[j]);
  } else if (has_window) {
    requireFloat(c, 2);
    int w = c.reshape(c.in(2), {length, 1}, "window_column");
    x = c.binary(graph::BinaryKind::Mul, x, w, "windowed");
  }
  c.setOutput(0, dftLastAxes(c, x, dftMatrix(length, length, k_out, comps, false, window), k_out, "dft"));
}

// ---- generators -----------------------------------------------------------------------------

DType outputType(const Ctx& c) {
  DType t = dtypeFromOnnx(static_cast<int>(c.attrInt("output_datatype", 1)), "the output_datatype");
  if (t != DType::Float32) c.fail("output_datatype ", te::dtypeName(t), " is not supported (only float32 is)");
  return t;
}

runtime::NDArray floats(const std::vector<double>& v, te::Shape shape) {
  runtime::NDArray a(std::move(shape), DType::Float32);
  for (size_t i = 0; i < v.size(); ++i) a.as<float>()[i] = static_cast<float>(v[i]);
  return a;
}

// Generalized cosine windows: sum_k a_k cos(2 pi k n / N), N = size (periodic) or size - 1.
void importWindow(Ctx& c, std::vector<double> coefficients) {
  c.checkAttrs({"output_datatype", "periodic"});
  outputType(c);
  int64_t size = static_cast<int64_t>(c.scalar(0, "size"));
  if (size <= 0) c.fail("the size ", size, " must be positive (empty tensors are not supported)");
  c.checkSize({size});
  bool periodic = c.attrInt("periodic", 1) != 0;
  double denom = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(size));
  for (int64_t n = 0; n < size; ++n) {
    double v = 0;
    for (size_t k = 0; k < coefficients.size(); ++k)
      v += coefficients[k] * (denom == 0 ? 1.0 : std::cos(2.0 * std::numbers::pi * static_cast<double>(k * n) / denom));
    w[n] = v;
  }
  c.setOutput(0, c.addConstant(floats(w, {size}), {}));
}

void importHann(Ctx& c) { importWindow(c, {0.5, -0.5}); }
void importHamming(Ctx& c) { importWindow(c, {25.0 / 46.0, -21.0 / 46.0}); }
void importBlackman(Ctx& c) { importWindow(c, {0.42, -0.5, 0.08}); }

// Triangular filters between mel-spaced points, as defined by the operator's specification
// (num_mel_bins + 2 points, bin positions floor((dft_length + 1) * hz / sample_rate)).
void importMelWeightMatrix(Ctx& c) {
  c.checkAttrs({"output_datatype"});
  outputType(c);
  int64_t bins = static_cast<int64_t>(c.scalar(0, "num_mel_bins"));
  int64_t dft_length = static_cast<int64_t>(c.scalar(1, "dft_length"));
  double rate = c.scalar(2, "sample_rate"), lo = c.scalar(3, "lower_edge_hertz"), hi = c.scalar(4, "upper_edge_hertz");
  if (bins <= 0 || dft_length <= 0 || rate <= 0) c.fail("num_mel_bins, dft_length and sample_rate must be positive");
  if (lo < 0 || hi <= lo) c.fail("the edges ", lo, " and ", hi, " Hz must satisfy 0 <= lower < upper");
  int64_t spectrum = dft_length / 2 + 1;
  c.checkSize({spectrum, bins});
  auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  double mlo = mel(lo), step = (mel(hi) - mlo) / static_cast<double>(bins + 2);
  std::vector<int64_t> point(static_cast<size_t>(bins + 2));
  for (int64_t i = 0; i < bins + 2; ++i) {
    double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + mlo) / 2595.0) - 1.0);
    point[i] = static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz / rate));
  }
  std::vector<double> w(static_cast<size_t>(spectrum * bins), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double& {
    if (j < 0 || j >= spectrum)
      c.fail("a filter edge falls outside the ", spectrum, " spectrum bins (check the edges)");
    return w[j * bins + i];
  };
  for (int64_t i = 0; i < bins; ++i) {
    int64_t left = point[i], center = point[i + 1], right = point[i + 2];
    if (center == left)
      at(center, i) = 1;
    else
      for (int64_t j = left; j <= center; ++j)
        at(j, i) = static_cast<double>(j - left) / static_cast<double>(center - left);
    for (int64_t j = center; j < right; ++j)
      at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  c.setOutput(0, c.addConstant(floats(w, {spectrum, bins}), {}));
}

}  // namespace

void addSignalOps(OpTable& t) {
  t["DFT"] = importDft;
  t["STFT"] = importStft;
  t["HannWindow"] = importHann;
  t["HammingWindow"] = importHamming;
  t["BlackmanWindow"] = importBlackman;
  t["MelWeightMatrix"] = importMelWeightMatrix;
}

}  // namespace ttune::frontend::detail
