// oneDNN as the vendor-library peer in benchmarks: the same convolution or matmul, with oneDNN
// free to choose its preferred (blocked) layouts; layout reorders happen once, outside the timed
// region, as they would in a network that stays in oneDNN's layouts.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace ttune::bench {

struct ConvShape {
  int64_t n, c, h, w, k, r, s, stride, pad;
};

// A prepared primitive; run() executes it once.
struct PeerKernel {
  std::function<void()> run;
  std::shared_ptr<void> keep_alive;
};

PeerKernel onednnConv(const ConvShape& shape);
PeerKernel onednnMatmul(int64_t m, int64_t n, int64_t k);
// Threads used by oneDNN (OpenMP).
void setOnednnThreads(int n);
// Limits oneDNN to the instruction set of ttune's target (before any primitive is created), so
// both sides run the same ISA: "avx2" or "avx512" (anything else: oneDNN's own choice). Returns
// the ISA oneDNN then uses, as text.
std::string limitOnednnIsa(const std::string& isa);

}  // namespace ttune::bench
