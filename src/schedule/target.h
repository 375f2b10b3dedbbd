// Target: the machine code is generated for -- instruction set, vector width, vector register
// file, caches and cores. Schedules (the default schedule, the search space, hand schedules) read
// their register-tile and cache-tile shapes from it, code generation its CPU and features, and
// every record says which target it was measured on. Nothing else may assume a lane count, a
// register count or a cache size.
//
// A Target is plain data; codegen/target_desc.h resolves one from a name ("host", "x86-64-v3",
// "x86-64-v4", an LLVM CPU name) and tells whether this machine can run its code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace ttune::schedule {

// Vector instruction-set level of a target: what the generated code may use.
enum class Isa : uint8_t {
  Scalar,  // no vector unit ttune uses (128-bit SSE is treated as this level's 4 lanes)
  Sse,     // x86-64 SSE4.2: 128-bit, 16 registers
  Avx2,    // x86-64 AVX2 + FMA: 256-bit, 16 registers
  Avx512,  // x86-64 AVX-512 F/BW/DQ/VL: 512-bit, 32 registers
  Neon,    // aarch64 Advanced SIMD: 128-bit, 32 registers
};
const char* isaName(Isa isa);  // "avx2", "avx512", ...
std::optional<Isa> parseIsa(const std::string& s);
int isaVectorBits(Isa isa);
int isaVectorRegisters(Isa isa);
// The ISA level records of `vector_bits` were measured with, for records that predate the field.
Isa isaFromVectorBits(int vector_bits);

struct Target {
  std::string name;      // as asked for: "host", "x86-64-v3", "znver3", ...
  std::string triple;    // LLVM target triple
  std::string cpu;       // LLVM CPU name
  std::string features;  // LLVM feature string ("+avx2,+fma,-avx512f,...")
  Isa isa = Isa::Avx2;
  int vector_bits = 256;
  int vector_registers = 16;
  bool fma = true;
  // Data caches in bytes, per core for L1/L2 and per package for L3 (read from the OS for the
  // host; a named target compiled on this machine inherits this machine's caches and cores).
  int64_t l1d_bytes = 32 << 10;
  int64_t l2_bytes = 1 << 20;
  int64_t l3_bytes = 16 << 20;
  int l1d_ways = 8;              // L1d associativity: lines whose addresses differ by l1d_bytes / l1d_ways share a set
  bool caches_measured = false;  // false: the sizes above are assumptions, not readings
  int cores = 1;
  // Consecutive 8-bit reduction elements one integer dot-product instruction sums into each
  // int32 lane: 4 with vpdpbusd (AVX512-VNNI, AVX-VNNI) or sdot/udot (AArch64 dotprod), 2 with
  // vpmaddwd (x86 AVX2 / AVX-512 without VNNI, on operands widened to int16), 1 without one.
  // int8 reductions are split by it, innermost (codegen/emitter_dot.cc).
  int int8_group = 1;
  // The same for bfloat16 reductions (float32 sums): 2 with vdpbf16ps (AVX512-BF16), else 1.
  int bf16_group = 1;

  // float32 (or int32) lanes of one vector register.
  int lanes(int elem_bytes = 4) const { return std::max(1, vector_bits / (8 * elem_bytes)); }
};

// The shape of a register tile for an outer-product reduction (acc[rows][vectors] +=
// broadcast(a[row]) * w[vector]): rows x vectors accumulators, plus one register for the
// broadcast and the weight vectors, must fit the register file. Preference: enough accumulators
// to hide the FMA latency (two FMA pipes x about 4 cycles), then as many as fit, then squarer
// tiles (fewer loads per FMA); a quarter more accumulators than that (slack for late operands)
// when they gain clearly without more loads per FMA.
struct RegisterTile {
  int rows = 1;
  int vectors = 1;
};
// `max_rows`/`max_vectors` bound the tile by the extents it covers (0: unbounded).
// `row_stride_bytes` (0: unknown) is the distance between consecutive rows' broadcast reads (an
// NHWC conv: stride x input channels x 4). Rows whose reads fall into the same L1 set evict each
// other while the weights stream past: at most l1d_ways - 1 rows may share a set (a 1x1 conv
// with 1024 input channels, rows 4 KiB apart, all in one set of an 8-way 32 KiB L1: 14 rows ran
// at 77% of peak, 7 rows at 97%).
RegisterTile registerTileFor(const Target& t, int64_t max_rows = 0, int64_t max_vectors = 0,
                             int64_t row_stride_bytes = 0);
// The modelled share of the FMA pipes' throughput that registerTileFor's tile reaches on extents
// (max_rows, max_vectors): one reduction step with 25% slack on the FMA latency, lanes of tiles
// that overhang the extents counted as waste. Compares ways of presenting the same product
// (graph/flatten.h: a 1x1 convolution's pixels as image rows or as one axis).
double registerTileScore(const Target& t, int64_t max_rows, int64_t max_vectors, int64_t row_stride_bytes = 0);
// The register tile for a product without a broadcast operand (acc[rows][vectors] +=
// x[row][vector] * w[vector]: a depthwise convolution). Every FMA loads its own operand, so a
// larger tile reuses nothing more; it needs only enough independent accumulators to hide the FMA
// latency, at most two vectors wide. Bounded like registerTileFor. With `dividing_rows` (rows
// read contiguously, i.e. stride 1), a few more rows are tried and rows that divide max_rows win.
RegisterTile elementwiseTileFor(const Target& t, int64_t max_rows = 0, int64_t max_vectors = 0,
                                bool dividing_rows = false);
// Vector registers a register tile of `accumulators` vectors and `operand_vectors` loaded
// operands needs; schedules whose innermost tile needs more than the target has spill.
int registersNeeded(int accumulators, int operand_vectors);

}  // namespace ttune::schedule
