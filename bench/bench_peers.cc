// bench_peers: ttune against oneDNN on a 1024^3 matmul and the 3x3 and 1x1 convolutions of
// ResNet-50, in one process, on the same thread count. ttune runs hand-written, Ansor-shaped
// schedules (multi-level tiling with a cached write-back tile, vectorize, parallel, unroll, weight
// layout rewrite) given below as plain step lists. For each case it prints GFLOP/s of ttune,
// oneDNN and the plain unscheduled loop nest, the ratio ttune/oneDNN and the compile time.
//
// The register tile (the innermost tile level) follows the target's register file
// (schedule::registerTileFor); the outer tile levels are written per case. oneDNN is limited to
// the target's instruction set, and the machine's measured FMA peak for it is printed, with every
// figure's share of it.
//
//   bench_peers [--threads N] [--json] [--case NAME]... [--repeat R] [--skip-unscheduled]
//               [--layout nhwc|nchw] [--target host|x86-64-v3|x86-64-v4|CPU]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cases.h"
#include "codegen/jit.h"
#include "codegen/target.h"
#include "lower/lower.h"
#include "measure/builder.h"
#include "measure/measurer.h"
#include "measure/timing.h"
#include "onednn_peer.h"
#include "runtime/thread_pool.h"
#include "support/json.h"
#include "support/strings.h"

using namespace ttune;
using schedule::Step;

namespace {

// Tile lengths of one spatial axis for SSRSRS-style tiling: lengths of the three inner levels.
using Tiles = std::vector<std::optional<int64_t>>;

// The innermost level of each tiling is the register tile: `rows` output pixels along the width
// times `vectors` vectors of output channels, sized for the target (4 x 3 vectors with 16
// registers, up to 14 x 2 with 32; see schedule/target.h).
struct RegTile {
  int64_t rows, width;  // width in elements: vectors x lanes
};
RegTile regTile(const schedule::Target& t, int64_t row_extent, int64_t vec_extent, int64_t row_stride_bytes = 0) {
  int lanes = t.lanes();
  schedule::RegisterTile rt =
      schedule::registerTileFor(t, row_extent, (vec_extent + lanes - 1) / lanes, row_stride_bytes);
  return {rt.rows, std::min<int64_t>(rt.vectors * lanes, vec_extent)};
}

// Multi-level tiling of a conv2d with a local write-back tile computed at the copy-out loop.
// The register tile runs output channels innermost and vectorizes them (the tile is private, so
// ttune lays it out channels-last), which keeps all vector lanes busy on 7x7 feature maps too.
// The copy-out vectorizes the output's innermost axis: channels (NHWC) or width (NCHW).
std::vector<Step> convSchedule(bench::ConvLayout layout, Tiles ff, Tiles yy, Tiles xx, Tiles rc, int64_t unroll,
                               bool pad_stage) {
  const std::string C = bench::convStage(layout), L = C + ".local";
  bool nhwc = layout == bench::ConvLayout::NHWC;
  std::vector<std::string> copy_inner =
      nhwc ? std::vector<std::string>{"yy.2", "xx.2", "ff.2"} : std::vector<std::string>{"ff.2", "yy.2", "xx.2"};
  using namespace schedule;
  std::vector<Step> s = {
      CacheWriteStep{C, "local"},
      SplitStep{L, "ff", std::nullopt, ff, true},
      SplitStep{L, "yy", std::nullopt, yy, true},
      SplitStep{L, "xx", std::nullopt, xx, true},
      SplitStep{L, "rc", std::nullopt, rc, true},
      ReorderStep{L,
                  {"nn", "ff.0", "yy.0", "xx.0", "ff.1", "yy.1", "xx.1", "rc.0", "ry", "rx", "ff.2", "yy.2", "xx.2",
                   "rc.1", "yy.3", "xx.3", "ff.3"}},
      FollowSplitStep{C, "ff", 1, 2},
      FollowSplitStep{C, "yy", 2, 2},
      FollowSplitStep{C, "xx", 3, 2},
      ReorderStep{C,
                  {"nn", "ff.0", "yy.0", "xx.0", "ff.1", "yy.1", "xx.1", copy_inner[0], copy_inner[1], copy_inner[2]}},
      ComputeAtStep{L, C, "xx.1"},
      FuseStep{C, {"nn", "ff.0", "yy.0", "xx.0", "ff.1", "yy.1", "xx.1"}},
      AnnotationStep{C, "nn@ff.0@yy.0@xx.0@ff.1@yy.1@xx.1@", IterAnnotation::Parallel},
      AnnotationStep{L, "ff.3", IterAnnotation::Vectorize},
      AnnotationStep{C, copy_inner[2], IterAnnotation::Vectorize},
      AutoUnrollStep{L, unroll},
      LayoutRewriteStep{L, "weight"},
  };
  if (pad_stage) {
    s.push_back(FuseStep{"pad", {"i", "j"}});
    s.push_back(AnnotationStep{"pad", "i@j@", IterAnnotation::Parallel});
    s.push_back(AnnotationStep{"pad", "l", IterAnnotation::Vectorize});
  }
  return s;
}

std::vector<Step> matmulSchedule(Tiles ii, Tiles jj, Tiles kk, int64_t unroll) {
  const std::string C = "matmul", L = C + ".local";
  using namespace schedule;
  return {
      CacheWriteStep{C, "local"},
      SplitStep{L, "i", std::nullopt, ii, true},
      SplitStep{L, "j", std::nullopt, jj, true},
      SplitStep{L, "k", std::nullopt, kk, true},
      ReorderStep{L, {"i.0", "j.0", "i.1", "j.1", "k.0", "i.2", "j.2", "k.1", "i.3", "j.3"}},
      FollowSplitStep{C, "i", 1, 2},
      FollowSplitStep{C, "j", 2, 2},
      ReorderStep{C, {"i.0", "j.0", "i.1", "j.1", "i.2", "j.2"}},
      ComputeAtStep{L, C, "j.1"},
      FuseStep{C, {"i.0", "j.0"}},
      AnnotationStep{C, "i.0@j.0@", IterAnnotation::Parallel},
      AnnotationStep{L, "j.3", IterAnnotation::Vectorize},
      AnnotationStep{C, "j.2", IterAnnotation::Vectorize},
      AutoUnrollStep{L, unroll},
      LayoutRewriteStep{L, "B"},
  };
}

struct Case {
  std::string name;
  std::shared_ptr<const te::ComputeDAG> dag;
  std::vector<Step> steps;
  std::function<bench::PeerKernel()> peer;
};

std::vector<Case> cases(bench::ConvLayout layout, const schedule::Target& target) {
  std::vector<Case> out;
  {
    bench::Workload w = bench::matmulWorkload(1024);
    RegTile rt = regTile(target, 1024, 1024);
    out.push_back({w.name, w.dag, matmulSchedule({4, 1, rt.rows}, {2, 1, rt.width}, {4}, 64), w.peer});
  }
  struct ConvCase {
    const char* name;
    bench::ConvShape shape;
    Tiles ff, yy, xx, rc;
    int64_t unroll;
  };
  const ConvCase convs[] = {
      {"conv3x3_56_c64", {1, 64, 56, 56, 64, 3, 3, 1, 1}, {1, 1, 16}, {1, 1, 1}, {1, 1, 8}, {2}, 64},
      {"conv3x3_28_c128", {1, 128, 28, 28, 128, 3, 3, 1, 1}, {1, 1, 32}, {1, 1, 2}, {1, 1, 2}, {2}, 64},
      {"conv3x3_14_c256", {1, 256, 14, 14, 256, 3, 3, 1, 1}, {1, 1, 32}, {1, 1, 1}, {1, 1, 7}, {2}, 64},
      {"conv3x3_7_c512", {1, 512, 7, 7, 512, 3, 3, 1, 1}, {1, 1, 16}, {1, 1, 2}, {1, 1, 7}, {8}, 64},
      {"conv1x1_56_c64_k256", {1, 64, 56, 56, 256, 1, 1, 1, 0}, {1, 1, 16}, {1, 1, 1}, {1, 1, 8}, {8}, 64},
      {"conv1x1_56_c256_k64", {1, 256, 56, 56, 64, 1, 1, 1, 0}, {1, 1, 32}, {1, 1, 1}, {1, 1, 7}, {8}, 64},
      {"conv1x1_14_c1024_k256", {1, 1024, 14, 14, 256, 1, 1, 1, 0}, {1, 1, 16}, {1, 1, 2}, {1, 1, 7}, {4}, 64},
      {"conv1x1_7_c512_k2048", {1, 512, 7, 7, 2048, 1, 1, 1, 0}, {1, 1, 16}, {1, 1, 2}, {1, 1, 7}, {4}, 64},
  };
  for (const ConvCase& c : convs) {
    bench::Workload w = bench::convWorkload(c.name, c.shape, layout);
    // The register tile: along the output width and the output channels.
    int64_t ow = (c.shape.w + 2 * c.shape.pad - c.shape.s) / c.shape.stride + 1;
    // Consecutive rows' inputs: a pixel of channels apart in NHWC, an element in NCHW.
    int64_t row_stride = c.shape.stride * 4 * (layout == bench::ConvLayout::NHWC ? c.shape.c : 1);
    RegTile rt = regTile(target, ow, c.shape.k, row_stride);
    Tiles ff = c.ff, yy = c.yy, xx = c.xx;
    ff[2] = rt.width;
    xx[2] = rt.rows;
    yy[2] = 1;
    out.push_back({w.name, w.dag, convSchedule(layout, ff, yy, xx, c.rc, c.unroll, c.shape.pad > 0), w.peer});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ttune vs oneDNN on matmul and ResNet-50 convolutions"};
  int threads = runtime::defaultNumThreads();
  bool json = false, skip_unscheduled = false;
  int repeat = 5;
  std::vector<std::string> only;
  std::string layout = "nhwc", target_name = "host";
  app.add_option("--threads", threads, "Threads for both ttune and oneDNN");
  app.add_option("--target", target_name, "ttune's target (oneDNN is limited to its instruction set)");
  app.add_option("--layout", layout, "Convolution layout of ttune's kernels: nhwc (as ttune runs models) or nchw")
      ->check(CLI::IsMember({"nhwc", "nchw"}));
  app.add_flag("--json", json, "One JSON object per case");
  app.add_option("--case", only, "Run only these cases");
  app.add_option("--repeat", repeat, "Timing rounds (each times ttune and oneDNN alternately, twice)");
  app.add_flag("--skip-unscheduled", skip_unscheduled, "Do not time the plain loop nests (slow)");
  std::string steps_dir;
  app.add_option("--save-steps", steps_dir, "Write each case's steps to DIR/CASE.json (for ttune show-schedule)");
  CLI11_PARSE(app, argc, argv);
  runtime::ThreadPool::global().setNumThreads(threads);
  bench::setOnednnThreads(threads);
  bench::BenchTarget bt;
  if (!bench::prepareTarget(target_name, threads, json, "bench_peers", &bt)) return 1;
  const schedule::Target* target = &bt.target;
  double peak = bt.peak_gflops;

  std::vector<double> compile_ms;
  double log_ratio_sum = 0;
  int n = 0;
  if (!json)
    std::printf("%-24s %10s %6s %10s %6s %8s %12s %10s\n", "case", "ttune", "peak", "oneDNN", "peak", "ratio",
                "unscheduled", "compile");
  for (Case& c : cases(bench::parseConvLayout(layout), *target)) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    if (!steps_dir.empty()) {
      Json arr = Json::array();
      for (const Step& st : c.steps) arr.push_back(schedule::stepToJson(st));
      std::ofstream(steps_dir + "/" + c.name + ".json") << arr.dump() << "\n";
    }
    measure::BuildResult b = measure::buildOne({c.dag, c.steps}, "kernel", *target);
    if (!b.ok()) {
      std::fprintf(stderr, "bench_peers: %s: %s\n", c.name.c_str(), b.message.c_str());
      return 1;
    }
    compile_ms.push_back(b.build_s * 1e3);
    bench::ReadyKernel kernel(*c.dag, b);
    bench::PeerKernel peer = c.peer();
    bench::Interleaved t = bench::timeInterleaved([&] { kernel.run(); }, peer.run, 2 * repeat, 50);
    bench::Timed tt{c.dag->flops() / t.a_s * 1e-9, t.a_s * 1e3};
    double peer_gflops = c.dag->flops() / t.b_s * 1e-9;
    double unsched = 0;
    if (!skip_unscheduled) {
      measure::BuildResult u = measure::buildOne({c.dag, {}}, "plain", *target);
      unsched = bench::timeBuild(*c.dag, u, 1, 0).gflops;
    }
    double ratio = t.speed_ratio;
    log_ratio_sum += std::log(ratio);
    ++n;
    if (json) {
      Json j{{"case", c.name},
             {"ttune_gflops", tt.gflops},
             {"onednn_gflops", peer_gflops},
             {"ratio", ratio},
             {"unscheduled_gflops", unsched},
             {"speedup_over_unscheduled", unsched > 0 ? tt.gflops / unsched : 0.0},
             {"ttune_ms", tt.median_ms},
             {"compile_ms", b.build_s * 1e3},
             {"threads", threads},
             {"ttune_peak_share", peak > 0 ? tt.gflops / peak : 0.0},
             {"onednn_peak_share", peak > 0 ? peer_gflops / peak : 0.0}};
      std::cout << j.dump() << std::endl;
    } else {
      std::printf("%-24s %10.1f %5.0f%% %10.1f %5.0f%% %8.2f %12.1f %8.0fms\n", c.name.c_str(), tt.gflops,
                  peak > 0 ? 100 * tt.gflops / peak : 0.0, peer_gflops, peak > 0 ? 100 * peer_gflops / peak : 0.0,
                  ratio, unsched, b.build_s * 1e3);
    }
  }
  double med = measure::median(compile_ms);
  if (json) {
    std::cout << Json{{"summary", true},
                      {"geomean_ratio", n ? std::exp(log_ratio_sum / n) : 0.0},
                      {"median_compile_ms", med},
                      {"threads", threads}}
                     .dump()
              << std::endl;
  } else {
    std::printf("geomean ratio %.2f, median compile time %.0f ms, %d threads\n", n ? std::exp(log_ratio_sum / n) : 0.0,
                med, threads);
  }
  return 0;
}
