#include "measure/peak.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TTUNE_PEAK_X86 1
#endif

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace ttune::measure {

namespace {

#ifdef TTUNE_PEAK_X86
// Independent accumulators as named variables (an array may stay in memory): 12 for AVX2
// (12 x 8 lanes), 24 for AVX-512 (24 x 16 lanes); each iteration is one FMA per accumulator.
#define TT_ACC12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define TT_ACC24(X) TT_ACC12(X) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)

__attribute__((target("avx2,fma"))) float fmaLoopAvx2(int64_t iters) {
  const __m256 x = _mm256_set1_ps(0.9999f), y = _mm256_set1_ps(1e-7f);
#define TT_DECL(i) __m256 a##i = _mm256_set1_ps(0.001f * (i));
#define TT_FMA(i) a##i = _mm256_fmadd_ps(a##i, x, y);
#define TT_SUM(i) s = _mm256_add_ps(s, a##i);
  TT_ACC12(TT_DECL)
  for (int64_t n = 0; n < iters; ++n) {
    TT_ACC12(TT_FMA)
  }
  __m256 s = _mm256_setzero_ps();
  TT_ACC12(TT_SUM)
#undef TT_DECL
#undef TT_FMA
#undef TT_SUM
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0];
}

__attribute__((target("avx512f"))) float fmaLoopAvx512(int64_t iters) {
  const __m512 x = _mm512_set1_ps(0.9999f), y = _mm512_set1_ps(1e-7f);
#define TT_DECL(i) __m512 a##i = _mm512_set1_ps(0.001f * (i));
#define TT_FMA(i) a##i = _mm512_fmadd_ps(a##i, x, y);
#define TT_SUM(i) s = _mm512_add_ps(s, a##i);
  TT_ACC24(TT_DECL)
  for (int64_t n = 0; n < iters; ++n) {
    TT_ACC24(TT_FMA)
  }
  __m512 s = _mm512_setzero_ps();
  TT_ACC24(TT_SUM)
#undef TT_DECL
#undef TT_FMA
#undef TT_SUM
  float out[16];
  _mm512_storeu_ps(out, s);
  return out[0];
}

#endif

}  // namespace

double measurePeakGflops(const std::string& isa, int threads, double seconds) {
#ifndef TTUNE_PEAK_X86
  // Only the x86 FMA loops exist: on other machines the peak is unknown (0) and GFLOP/s figures
  // are printed without a share of it.
  (void)isa, (void)threads, (void)seconds;
  return 0;
#else
  __builtin_cpu_init();
  double flops_per_iter;
  float (*loop)(int64_t);
  if (isa == "avx2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    loop = fmaLoopAvx2;
    flops_per_iter = 12 * 8 * 2;
  } else if (isa == "avx512" && __builtin_cpu_supports("avx512f")) {
    loop = fmaLoopAvx512;
    flops_per_iter = 24 * 16 * 2;
  } else {
    return 0;
  }
  using clock = std::chrono::steady_clock;
  // Calibrate on one thread: iterations for about a tenth of the time.
  int64_t iters = 1 << 16;
  for (;;) {
    auto t0 = clock::now();
    volatile float sink = loop(iters);
    (void)sink;
    double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s > seconds / 10) {
      iters = static_cast<int64_t>(iters * seconds / s);
      break;
    }
    iters *= 4;
  }
  // Best of three aggregate runs on all threads.
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<double> secs(threads);
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
      ts.emplace_back([&, t] {
        ready++;
        while (!go) {
        }
        auto t0 = clock::now();
        volatile float sink = loop(iters);
        (void)sink;
        secs[t] = std::chrono::duration<double>(clock::now() - t0).count();
      });
    while (ready < threads) {
    }
    go = true;
    for (auto& t : ts) t.join();
    double slowest = 0;
    for (double s : secs) slowest = std::max(slowest, s);
    best = std::max(best, flops_per_iter * static_cast<double>(iters) * threads / slowest * 1e-9);
  }
  return best;
#endif
}

double measurePeakGflops(const schedule::Target& target, int threads, double seconds) {
  // The peak of another architecture's code is the device's, not this machine's: unknown here.
  if (target.isa == schedule::Isa::Neon || target.isa == schedule::Isa::Scalar) return 0;
  return measurePeakGflops(target.vector_bits >= 512 ? "avx512" : "avx2", threads, seconds);
}

}  // namespace ttune::measure
