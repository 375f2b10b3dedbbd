// Software prefetch of the block the next parallel iteration streams first.
//
// A parallel iteration that passes several times over one block of a read-only input (a 1x1
// convolution's output-channel block of packed weights, read once per pixel row of the tile)
// finds the block in L2 in every pass but the first; the first pass waits on memory at the rate
// the FMAs consume the block, several times faster than one core's share of DRAM bandwidth. The
// hardware's stream prefetchers run only a few lines ahead of such a pass. Measured on Zen 5 (2
// threads, AVX2 code), a 7x7, 1024 -> 2048 channel 1x1 convolution whose 8 MiB of weights come
// from memory ran at 139-146 GFLOP/s inside a model against 172-178 with the weights warm.
//
// The pass rewrites the loop that streams the block (the outermost loop under the parallel loop
// whose variable indexes it, every loop between them being a pass loop that does not) so that
// during the second pass each of its iterations also prefetches the lines iteration p + 1 reads
// at the same point: the next block arrives spread over a whole pass, while this block is read
// from cache. ttune_parallel_for gives each thread a contiguous range of iterations, so p + 1 is
// the same thread's next block except at the end of its range. Only blocks that fit in L2 next to
// the current one are prefetched; the prefetch goes to L2 (the current block's passes keep L1).
//
// A parallel loop fused over blocks and pixel rows (the block is p // D) is left alone: its
// block is re-read in D times as many passes, so the cold one costs little.
//
// Measured in ResNeXt-50 and ResNet-50 on Zen 5 (2 threads, ten interleaved rounds, AVX2 code):
// the 7x7 stage's 1x1 convolutions 6-12% faster, the models' kernel totals 2%. On AVX-512 code
// the same kernels moved within the run-to-run spread (and a 64 MiB-weight kernel lost 5%), so
// lower::lowerOptionsFor turns the pass on for AVX2 targets only.
//
// Prefetches change no value: correctness never depends on this pass, only speed.
#pragma once

#include <cstdint>

#include "lower/loop_ir.h"

namespace ttune::lower {

struct PrefetchOptions {
  int64_t line_bytes = 64;
  // Blocks smaller than this are left to the hardware: a short first pass costs little.
  int64_t min_block_bytes = 16 << 10;
  // Blocks larger than this (a quarter of L2 is a good choice) would evict the current block.
  int64_t max_block_bytes = 256 << 10;
  // Lines one iteration of the streaming loop may prefetch (its footprint in the block).
  int max_lines_per_iteration = 8;
};

// Returns s with prefetches added where the pattern above holds (s itself when nowhere).
Stmt prefetchNextBlocks(const Stmt& s, const PrefetchOptions& options);

}  // namespace ttune::lower
