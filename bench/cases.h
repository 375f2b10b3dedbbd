// Benchmark workloads shared by bench_peers and bench_tune: the ComputeDAGs of a 1024^3 matmul
// and of ResNet-50's convolutions (constant weights; NHWC as ttune runs models, or NCHW as they
// are written), with their oneDNN counterparts (which pick their own layouts).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/jit.h"
#include "codegen/target.h"
#include "measure/builder.h"
#include "onednn_peer.h"
#include "runtime/ndarray.h"
#include "te/compute_dag.h"

namespace ttune::bench {

std::shared_ptr<const te::ComputeDAG> matmulDag(int64_t m, int64_t n, int64_t k);
enum class ConvLayout { NHWC, NCHW };
// Parses "nhwc" / "nchw"; throws on anything else.
ConvLayout parseConvLayout(const std::string& s);
// The conv stage's name in the DAG ("conv2d_nhwc" / "conv2d_nchw").
std::string convStage(ConvLayout layout);
std::shared_ptr<const te::ComputeDAG> convDag(const ConvShape& c, ConvLayout layout);

struct Workload {
  std::string name;
  std::shared_ptr<const te::ComputeDAG> dag;
  std::function<PeerKernel()> peer;
};

Workload matmulWorkload(int64_t n);
// The matmul and the four ResNet-50 layers tuned by bench_tune, or every layer of bench_peers.
Workload resnetConv(const std::string& name, ConvLayout layout = ConvLayout::NHWC);

struct Timed {
  double gflops = 0;
  double median_ms = 0;
};
// A built kernel loaded in this process with seeded inputs packed as its schedule needs. The
// constructor runs it once and checks its output against the reference evaluator at sampled
// points (throws std::runtime_error if it is wrong): nothing is timed that computes wrongly.
class ReadyKernel {
 public:
  ReadyKernel(const te::ComputeDAG& original, const measure::BuildResult& b);
  void run() { (*fn_)(args_.data()); }

 private:
  void checkAgainstReference(const te::ComputeDAG& original, const std::vector<runtime::NDArray>& inputs);
  std::shared_ptr<codegen::LoadedKernel> fn_;
  std::vector<runtime::NDArray> arrays_;
  std::vector<void*> args_;
};

// Times a built kernel in this process (inputs packed as its schedule needs).
Timed timeBuild(const te::ComputeDAG& original, const measure::BuildResult& b, int repeat, double min_repeat_ms);

// Times two functions in alternating blocks (`rounds` blocks of each, a block at least
// min_block_ms): each one's median seconds per call, and the median over rounds of the ratio of
// the two blocks of a round (b's time over a's: a's speed relative to b). The machines are
// shared: load that drifts during a run slows the two blocks of a round alike, so the paired
// ratio is steadier than the ratio of the medians.
struct Interleaved {
  double a_s = 0, b_s = 0;
  double speed_ratio = 0;  // median over rounds of b_time / a_time
};
Interleaved timeInterleaved(const std::function<void()>& a, const std::function<void()>& b, int rounds,
                            double min_block_ms);
Workload convWorkload(const std::string& name, const ConvShape& shape, ConvLayout layout);

// The target a benchmark compiles for, oneDNN limited to its instruction set, and the measured
// FMA peak of that instruction set on `threads` threads (for the "% of peak" columns).
struct BenchTarget {
  schedule::Target target;
  std::string onednn_isa;
  double peak_gflops = 0;
};
// Resolves --target (must run here), limits oneDNN, measures the peak and prints the header (a
// JSON object with --json). Returns false after printing why the target cannot be used.
bool prepareTarget(const std::string& name, int threads, bool json, const char* program, BenchTarget* out);

}  // namespace ttune::bench
