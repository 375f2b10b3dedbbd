#include "cases.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "codegen/jit.h"
#include "measure/measurer.h"
#include "measure/peak.h"
#include "measure/timing.h"
#include "ops/nn.h"
#include "support/json.h"
#include "support/rng.h"
#include "te/evaluator.h"

namespace ttune::bench {

std::shared_ptr<const te::ComputeDAG> matmulDag(int64_t m, int64_t n, int64_t k) {
  te::Tensor a = te::placeholder("A", {m, k});
  te::Tensor b = te::placeholder("B", {k, n}, te::DType::Float32, true);
  return std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{a, b},
                                                std::vector<te::Tensor>{ops::matmul(a, b)});
}

ConvLayout parseConvLayout(const std::string& s) {
  if (s == "nhwc") return ConvLayout::NHWC;
  if (s == "nchw") return ConvLayout::NCHW;
  throw std::runtime_error("layout must be nhwc or nchw, got '" + s + "'");
}

std::string convStage(ConvLayout layout) { return layout == ConvLayout::NHWC ? "conv2d_nhwc" : "conv2d_nchw"; }

std::shared_ptr<const te::ComputeDAG> convDag(const ConvShape& c, ConvLayout layout) {
  bool nhwc = layout == ConvLayout::NHWC;
  te::Shape ds = nhwc ? te::Shape{c.n, c.h, c.w, c.c} : te::Shape{c.n, c.c, c.h, c.w};
  te::Shape ws = nhwc ? te::Shape{c.r, c.s, c.c, c.k} : te::Shape{c.k, c.c, c.r, c.s};
  te::Tensor data = te::placeholder("data", ds);
  te::Tensor w = te::placeholder("weight", ws, te::DType::Float32, true);
  ops::Hw st{c.stride, c.stride};
  ops::Pad4 pd{c.pad, c.pad, c.pad, c.pad};
  te::Tensor y = nhwc ? ops::conv2d_nhwc(data, w, st, pd) : ops::conv2d_nchw(data, w, st, pd);
  return std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{data, w}, std::vector<te::Tensor>{y});
}

Workload matmulWorkload(int64_t n) {
  return {"matmul_" + std::to_string(n), matmulDag(n, n, n), [n] { return onednnMatmul(n, n, n); }};
}

Workload convWorkload(const std::string& name, const ConvShape& shape, ConvLayout layout) {
  return {name, convDag(shape, layout), [shape] { return onednnConv(shape); }};
}

Workload resnetConv(const std::string& name, ConvLayout layout) {
  struct Named {
    const char* name;
    ConvShape shape;
  };
  static const Named layers[] = {
      {"conv3x3_56_c64", {1, 64, 56, 56, 64, 3, 3, 1, 1}},
      {"conv3x3_28_c128", {1, 128, 28, 28, 128, 3, 3, 1, 1}},
      {"conv3x3_14_c256", {1, 256, 14, 14, 256, 3, 3, 1, 1}},
      {"conv3x3_7_c512", {1, 512, 7, 7, 512, 3, 3, 1, 1}},
      {"conv1x1_56_c64_k256", {1, 64, 56, 56, 256, 1, 1, 1, 0}},
      {"conv1x1_56_c256_k64", {1, 256, 56, 56, 64, 1, 1, 1, 0}},
      {"conv1x1_14_c1024_k256", {1, 1024, 14, 14, 256, 1, 1, 1, 0}},
      {"conv1x1_7_c512_k2048", {1, 512, 7, 7, 2048, 1, 1, 1, 0}},
  };
  for (const Named& l : layers)
    if (name == l.name) return convWorkload(l.name, l.shape, layout);
  throw std::runtime_error("unknown benchmark layer " + name);
}

ReadyKernel::ReadyKernel(const te::ComputeDAG& original, const measure::BuildResult& b) {
  auto fn = codegen::loadKernel(b.code);
  if (!fn.ok()) throw std::runtime_error(fn.error());
  fn_ = *fn;
  std::vector<runtime::NDArray> inputs;
  for (const te::Tensor& t : original.inputs()) {
    runtime::NDArray a(t.shape(), t.dtype());
    a.fillRandom(7, -1, 1);
    inputs.push_back(a);
  }
  arrays_ = measure::scheduledInputs(original, inputs, *b.scheduled, b.layouts);
  for (const te::Tensor& t : b.scheduled->outputs()) arrays_.push_back(runtime::NDArray(t.shape(), t.dtype()));
  for (auto& a : arrays_) args_.push_back(a.data());
  checkAgainstReference(original, inputs);
}

// A benchmark must time a kernel that computes the right thing: one run, compared with the
// reference evaluator at random output points (whole evaluation of these kernels would take
// minutes in the interpreter).
void ReadyKernel::checkAgainstReference(const te::ComputeDAG& original, const std::vector<runtime::NDArray>& inputs) {
  run();
  std::vector<void*> ref_args;
  for (const auto& a : inputs) ref_args.push_back(const_cast<void*>(static_cast<const void*>(a.data())));
  const size_t n_out = original.outputs().size();
  for (size_t o = 0; o < n_out; ++o) ref_args.push_back(nullptr);
  Rng rng(11);
  for (size_t o = 0; o < n_out; ++o) {
    const runtime::NDArray& got = arrays_[arrays_.size() - n_out + o];
    const te::Shape& shape = original.outputs()[o].shape();
    int64_t n = te::shapeElements(shape);
    std::vector<std::vector<int64_t>> pts;
    std::vector<int64_t> flat;
    for (int s = 0; s < 256; ++s) {
      int64_t f = static_cast<int64_t>(rng.uniformInt(0, n - 1)), r = f;
      std::vector<int64_t> idx(shape.size());
      for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) idx[d] = r % shape[d], r /= shape[d];
      pts.push_back(idx);
      flat.push_back(f);
    }
    std::vector<double> ref = te::evaluateAt(original, ref_args, static_cast<int>(o), pts);
    const float* g = static_cast<const float*>(got.data());
    for (size_t p = 0; p < pts.size(); ++p)
      if (!(std::fabs(g[flat[p]] - ref[p]) <= 1e-3 + 1e-3 * std::fabs(ref[p])))
        throw std::runtime_error("the kernel computes a wrong result at output element " + std::to_string(flat[p]) +
                                 ": " + std::to_string(g[flat[p]]) + " where the reference evaluator gives " +
                                 std::to_string(ref[p]));
  }
}

Timed timeBuild(const te::ComputeDAG& original, const measure::BuildResult& b, int repeat, double min_ms) {
  ReadyKernel k(original, b);
  measure::TimingOptions opt;
  opt.repeat = repeat;
  opt.min_repeat_ms = min_ms;
  measure::Timing t = measure::timeFunction([&] { k.run(); }, opt);
  return {original.flops() / t.median_s * 1e-9, t.median_s * 1e3};
}

Interleaved timeInterleaved(const std::function<void()>& a, const std::function<void()>& b, int rounds,
                            double min_block_ms) {
  measure::TimingOptions opt;
  opt.repeat = 1;
  opt.min_repeat_ms = min_block_ms;
  std::vector<double> ta, tb, ratios;
  // After a block, the side that ran keeps its threads spinning for a while (OpenMP's and
  // ttune's pools both spin before sleeping); on a machine with as many cores as threads they
  // would steal cycles from the other side's next block. A short idle gap lets them sleep.
  auto gap = [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); };
  for (int r = 0; r < rounds; ++r) {
    ta.push_back(measure::timeFunction(a, opt).median_s);
    gap();
    tb.push_back(measure::timeFunction(b, opt).median_s);
    gap();
    ratios.push_back(tb.back() / ta.back());
  }
  return {measure::median(ta), measure::median(tb), measure::median(ratios)};
}

bool prepareTarget(const std::string& name, int threads, bool json, const char* program, BenchTarget* out) {
  auto target = codegen::resolveTarget(name);
  if (!target.ok()) {
    std::fprintf(stderr, "%s: %s\n", program, target.error().c_str());
    return false;
  }
  Status can = codegen::runnable(*target);
  if (!can.ok()) {
    std::fprintf(stderr, "%s: %s\n", program, can.error().c_str());
    return false;
  }
  out->target = *target;
  std::string isa = schedule::isaName(target->isa);
  out->onednn_isa = limitOnednnIsa(isa);
  out->peak_gflops = measure::measurePeakGflops(isa, threads);
  if (json)
    std::cout << Json{{"host", codegen::describe(codegen::hostTarget())},
                      {"target", codegen::describe(*target)},
                      {"onednn_isa", out->onednn_isa},
                      {"peak_gflops", out->peak_gflops},
                      {"threads", threads}}
                     .dump()
              << std::endl;
  else
    std::printf("host %s\ntarget %s, oneDNN %s, measured %s FMA peak %.1f GFLOP/s on %d threads\n\n",
                codegen::describe(codegen::hostTarget()).c_str(), codegen::describe(*target).c_str(),
                out->onednn_isa.c_str(), isa.c_str(), out->peak_gflops, threads);
  return true;
}

}  // namespace ttune::bench
