#include "schedule/target.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ttune::schedule {

const char* isaName(Isa isa) {
  switch (isa) {
    case Isa::Scalar:
      return "scalar";
    case Isa::Sse:
      return "sse";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx512:
      return "avx512";
    case Isa::Neon:
      return "neon";
  }
  return "scalar";
}

std::optional<Isa> parseIsa(const std::string& s) {
  for (Isa i : {Isa::Scalar, Isa::Sse, Isa::Avx2, Isa::Avx512, Isa::Neon})
    if (s == isaName(i)) return i;
  return std::nullopt;
}

int isaVectorBits(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return 512;
    case Isa::Avx2:
      return 256;
    case Isa::Sse:
    case Isa::Neon:
    case Isa::Scalar:
      return 128;
  }
  return 128;
}

int isaVectorRegisters(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
    case Isa::Neon:
      return 32;
    case Isa::Avx2:
    case Isa::Sse:
    case Isa::Scalar:
      return 16;
  }
  return 16;
}

Isa isaFromVectorBits(int vector_bits) {
  return vector_bits >= 512 ? Isa::Avx512 : vector_bits >= 256 ? Isa::Avx2 : Isa::Sse;
}

int registersNeeded(int accumulators, int operand_vectors) {
  // The broadcast operand takes one register; the weight vectors are loaded once per reduction
  // step and reused by every row.
  return accumulators + operand_vectors + 1;
}

namespace {

// Share of the padded tile work that is useful when `extent` is covered by tiles of `tile`.
double coverage(int64_t extent, int64_t tile) {
  if (extent <= 0) return 1.0;
  int64_t tiles = (extent + tile - 1) / tile;
  return static_cast<double>(extent) / static_cast<double>(tiles * tile);
}

// The most of `rows` reads, `stride` bytes apart, that map to one L1 set (0 stride: unknown, 1).
int64_t rowsPerL1Set(const Target& t, int64_t rows, int64_t stride) {
  const int64_t line = 64, way = t.l1d_bytes / std::max(1, t.l1d_ways);
  if (stride <= 0 || way < line) return 1;
  int64_t s = stride % way;
  // Rows repeat their set every `period` rows; within a period each row has its own set (reads
  // closer than a line apart share one, which only helps).
  int64_t period = s == 0 ? 1 : way / std::gcd(std::max(s, line) / line * line, way);
  return (rows + period - 1) / period;
}

}  // namespace

RegisterTile elementwiseTileFor(const Target& t, int64_t max_rows, int64_t max_vectors, bool dividing_rows) {
  // Each FMA waits for its own load, so about six accumulators keep the pipes busy. Measured in
  // the mobile nets' depthwise layers (Zen 4, in-model profile): 3 x 2 and 4 x 2 tiles within
  // noise of each other where both leave a remainder of rows, 1.5-1.9x faster than an untiled
  // vectorized loop with a separate epilogue pass; 8 x 1 and 2 x 2 were no better. A remainder
  // costs more than the tile's shape: the partial block's guarded, unrolled code made a
  // 112-wide layer 1.7x slower with 3 rows than with 4 (which divide it); so with
  // `dividing_rows` up to two more rows than six accumulators need are tried, and rows that
  // divide the extent win. Not for strided rows: on stride-2 layers with inputs beyond L2, 3 x 2
  // ran 1.1-1.6x faster than 4 x 2 in spite of the remainder.
  const int in_flight = 6;
  RegisterTile best;
  double best_score = -1;
  for (int v = 1; v <= 2; ++v) {
    if (max_vectors > 0 && v > max_vectors) break;
    int r0 = (in_flight + v - 1) / v;
    for (int r = r0; r <= r0 + (dividing_rows ? 2 : 0); ++r) {
      int rows = max_rows > 0 ? static_cast<int>(std::min<int64_t>(r, max_rows)) : r;
      while (rows > 1 && registersNeeded(rows * v, v) > t.vector_registers) --rows;
      double score = coverage(max_rows, rows) * coverage(max_vectors, v) * std::min(1.0, rows * v / double(in_flight));
      // Ties: the wider tile (longer contiguous loads), then the fewest rows.
      if (score > best_score + 1e-9 || (score > best_score - 1e-9 && v > best.vectors)) {
        best = {rows, v};
        best_score = score;
      }
    }
  }
  return best;
}

namespace {

// Operands loaded per FMA in one reduction step: a broadcast per row, a load per vector.
double loadsPerFma(const RegisterTile& tile) { return double(tile.rows + tile.vectors) / (tile.rows * tile.vectors); }

struct TileChoice {
  RegisterTile tile;
  double score = 0;  // modelled share of the FMA pipes' throughput, tails counted as waste
};

// A simple throughput model of one reduction step of the tile: rows * vectors FMAs on two
// pipes, rows broadcasts + vectors loads on two load ports, and a dependency chain of
// `fma_latency` cycles per accumulator; lanes of tiles that overhang the extents count as
// wasted.
double tileScore(int r, int v, int64_t max_rows, int64_t max_vectors, double fma_latency) {
  const double fma_pipes = 2, load_ports = 2;
  double fmas = r * v;
  double cycles = std::max({fmas / fma_pipes, (r + v) / load_ports, fma_latency});
  return (fmas / fma_pipes) / cycles * coverage(max_rows, r) * coverage(max_vectors, v);
}

// The best tile by tileScore. Among tiles within 0.5% of the best throughput, fewer loads per FMA
// win (more reuse of each loaded operand, less cache traffic), then fewer accumulators (smaller
// tails). Tiles with more than `max_loads_per_fma` loads per FMA are left out.
TileChoice bestTile(const Target& t, int64_t max_rows, int64_t max_vectors, int64_t row_stride_bytes,
                    double fma_latency, double max_loads_per_fma = 1e9) {
  struct Cand {
    RegisterTile tile;
    double score, loads_per_fma;
  };
  std::vector<Cand> cands;
  // One or two rows (a matrix-vector product) may take more vectors instead.
  int max_v = max_rows > 0 && max_rows <= 2 ? 8 : 4;
  for (int v = 1; v <= max_v; ++v) {
    if (max_vectors > 0 && v > max_vectors) break;
    for (int r = 1; r <= 32; ++r) {
      if (max_rows > 0 && r > max_rows) break;
      if (rowsPerL1Set(t, r, row_stride_bytes) > std::max(1, t.l1d_ways - 1)) break;
      if (registersNeeded(r * v, v) > t.vector_registers) break;
      double loads_per_fma = loadsPerFma({r, v});
      if (loads_per_fma > max_loads_per_fma + 1e-9) continue;
      cands.push_back({{r, v}, tileScore(r, v, max_rows, max_vectors, fma_latency), loads_per_fma});
    }
  }
  if (cands.empty()) return {};
  double top = 0;
  for (const Cand& c : cands) top = std::max(top, c.score);
  const Cand* best = nullptr;
  for (const Cand& c : cands) {
    if (c.score < 0.995 * top) continue;
    if (!best || c.loads_per_fma < best->loads_per_fma - 1e-9 ||
        (c.loads_per_fma < best->loads_per_fma + 1e-9 &&
         c.tile.rows * c.tile.vectors < best->tile.rows * best->tile.vectors))
      best = &c;
  }
  return {best->tile, best->score};
}

}  // namespace

RegisterTile registerTileFor(const Target& t, int64_t max_rows, int64_t max_vectors, int64_t row_stride_bytes) {
  // The FMA latency is about 4 cycles, so two pipes need 8 independent accumulators -- with no
  // slack at all: every load or broadcast that arrives late stalls a chain. Measured with 16
  // registers (Zen 5, AVX2 code, 1x1 convolutions with 256-1024 input channels): 12
  // accumulators (6 x 2 vectors) ran 1.10-1.13x faster than 8 (4 x 2, 2 x 4) on 12-, 28- and
  // 56-wide images, 10 (5 x 2) 1.07-1.2x on 14-wide ones (their tail tile of 4 rows runs its own
  // straight-line version, lower::versionTiles; while it ran guarded code, 5 x 2 lost 15% with
  // 256 input channels), and on 7-wide ones 5 x 2 and 7 x 1 were no faster than 4 x 2. So the
  // tile is the one the 4-cycle model picks, unless a model that asks for 25% slack (5 cycles),
  // among tiles that load no more per FMA (14 x 1 on a 14-wide image, a broadcast per FMA, was
  // no faster), finds one at least 10% faster: a decision the models cannot make clearly keeps
  // the old tile.
  TileChoice tight = bestTile(t, max_rows, max_vectors, row_stride_bytes, 4);
  TileChoice slack = bestTile(t, max_rows, max_vectors, row_stride_bytes, 5, loadsPerFma(tight.tile));
  double tight_with_slack = tileScore(tight.tile.rows, tight.tile.vectors, max_rows, max_vectors, 5);
  if (slack.tile.rows * slack.tile.vectors > tight.tile.rows * tight.tile.vectors &&
      slack.score >= 1.1 * tight_with_slack)
    return slack.tile;
  return tight.tile;
}

double registerTileScore(const Target& t, int64_t max_rows, int64_t max_vectors, int64_t row_stride_bytes) {
  RegisterTile tile = registerTileFor(t, max_rows, max_vectors, row_stride_bytes);
  return tileScore(tile.rows, tile.vectors, max_rows, max_vectors, 5);
}

}  // namespace ttune::schedule
