// Per-store feature vectors of a lowered kernel: the input of the auto-scheduler's cost model.
//
// One vector of StoreFeatures::num_features() floats per Store statement of the loop IR (in
// program order), describing what that statement computes, how it touches memory and how the loops
// around it are annotated. The cost model predicts a score per store and sums them per state
// ("pack-sum"), so a state is a variable number of rows.
//
// Layout (version kVersion; every value is log2p(x) = sign(x)*log2(1+|x|), one-hots included,
// which leaves them 0/1):
//   1 computation (59)  float/int op counts by kind (mad = mul+add pairs that contract to FMA,
//                       addsub, mul, divmod, cmp incl. min/max, math_func, other_func), bool and
//                       select ops, all times the store's expected execution count; for each of
//                       vectorized / unrolled / parallel loops: number, product, innermost length
//                       and an 8-way position one-hot; guard features (executed fraction of the
//                       max iteration space, enclosing ifs, vector-tail fraction, loops whose
//                       extent could not be evaluated); the innermost rolled loop (one left as a
//                       loop in machine code): trips, reduction or not, largest access stride,
//                       statements per iteration; largest stride under the innermost vector
//                       loop; how often parallel regions are entered.
//   2 buffer access (5 x 20) the store's buffers sorted by (lines, bytes) descending, top five,
//                       zero-padded: access type, bytes, unique bytes, cache lines, unique lines,
//                       reuse type / distance / count, the same per reuse, the stride of the
//                       innermost loop moving the access (Ansor's) and of the innermost rolled
//                       loop (0: invariant), and whether the buffer is a local (register) tile.
//   3 arithmetic intensity curve (10): float ops / bytes touched, sampled at 10 points of the
//                       cumulative op count from the innermost loop outwards.
//   4 allocation (5)    of the written buffer when the kernel allocates it.
//   5 outer scope (3)   expected executions, number of loops, the stage's auto-unroll limit.
//
// Deviations from Ansor's features (OSDI 2020, §5.2 and its appendix), each deliberate:
//  - Trip counts are *expected* trip counts: a loop whose extent is an expression (tail of a
//    non-dividing split, clamped region) gets the mean of its extent over the iterations of the
//    loops the extent depends on (enumerated exactly, or stratified-sampled beyond a budget, always
//    including the last iteration where tails live). Guards that stay `if`s contribute the
//    fraction of iterations that pass. So imperfect tiles are counted at their real work, zero-trip
//    loops give zero counts (never NaN), and an extent that cannot be evaluated falls back to its
//    constant max_extent (an upper bound, never 1) and is counted in `unknown_extents`.
//  - FMA pairs are detected (float_mad); Ansor's MAD counter is always 0.
//  - Position one-hots are computed (Ansor's are commented out): the annotated loop is spatial when
//    its variable indexes the stored element, reduce otherwise; inner / outer when it is the
//    innermost / outermost loop of the store, middle otherwise; mixed when loops disagree.
//  - One row per Store node (Ansor keeps one per written buffer, so a reduction's init nest is lost).
//  - No GPU features; added for CPUs: guard features, the innermost rolled loop group (LLVM's
//    auto-vectorizer and loop overhead act there), gather detection under vector loops, parallel
//    dispatch count, per-buffer rolled-loop stride and local_scope, allocation local flag.
//  - Touched regions are counted on the flat index: terms with equal strides merge (conv windows
//    give (OH+R-1)(OW+S-1)), overlapping strides merge into progressions; no magic constants.
//  - reuse_dis_bytes counts the current store's accesses only (Ansor's depends on visit order).
//
// Expected counts are exact whenever the enumeration fits its budget (tested against a
// brute-force execution count on random schedules). Extraction is a pure function of the IR
// (deterministic, thread-safe, no global state).
//
// To add a feature: add X(name) to a group macro below (the struct field, the count and the name
// come from it), compute it in features.cc (StoreFeaturizer::featurize), bump kVersion (saved
// models of another version are refused) and update the count in tests/autotune/feature_test.cc.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lower/loop_ir.h"
#include "schedule/state.h"
#include "support/expected.h"

namespace ttune::autotune {

// The feature tables stay laid out as written: clang-format does not settle on X-macro lists.
// clang-format off
// Position one-hot of annotated loops (8 features), see the header comment.
#define TTUNE_FEATURE_POSITION(X, p)                                                             \
  X(p##_pos_none) X(p##_pos_inner_spatial) X(p##_pos_middle_spatial) X(p##_pos_outer_spatial) \
  X(p##_pos_inner_reduce) X(p##_pos_middle_reduce) X(p##_pos_outer_reduce) X(p##_pos_mixed)

#define TTUNE_FEATURE_OPS(X, t)                                                     \
  X(t##_mad) X(t##_addsub) X(t##_mul) X(t##_divmod) X(t##_cmp) X(t##_math_func) \
  X(t##_other_func)

// Group 1: computation.
#define TTUNE_FEATURES_COMPUTE(X)                                                       \
  TTUNE_FEATURE_OPS(X, float) TTUNE_FEATURE_OPS(X, int) X(bool_op) X(select_op)         \
  X(vec_num) X(vec_prod) X(vec_len) TTUNE_FEATURE_POSITION(X, vec)                      \
  X(unroll_num) X(unroll_prod) X(unroll_len) TTUNE_FEATURE_POSITION(X, unroll)          \
  X(parallel_num) X(parallel_prod) X(parallel_len) TTUNE_FEATURE_POSITION(X, parallel)  \
  /* expected executions / executions with every loop at its max extent (1: no tails) */ \
  X(exec_ratio)                                                                         \
  /* enclosing IfThenElse guards */                                                     \
  X(guard_ifs)                                                                          \
  /* fraction of runs of the innermost vectorized loop shorter than its width (scalar) */ \
  X(vec_tail_frac)                                                                      \
  /* enclosing loops whose extent could not be evaluated (max_extent used) */           \
  X(unknown_extents)                                                                    \
  /* the innermost loop that stays a loop in machine code (serial or parallel: unrolled \
     and vectorized loops are replicated): its expected trips (loop overhead; LLVM's     \
     auto-vectorizer works on it) and whether it does not index the stored element      \
     (an accumulation chain) */                                                         \
  X(rolled_len)                                                                         \
  X(rolled_reduce)                                                                      \
  /* largest access stride in elements under that loop (0: all invariant, 1: all        \
     contiguous or invariant, so LLVM can vectorize it) */                              \
  X(rolled_max_stride)                                                                  \
  /* statements per iteration of that loop: product of the unrolled and vectorized      \
     loops inside it */                                                                 \
  X(rolled_body)                                                                        \
  /* largest access stride under the innermost vectorized loop (> 1: gathers/scatters) */\
  X(vec_max_stride)                                                                     \
  /* times the outermost parallel loop is entered (thread-pool dispatches) */            \
  X(parallel_launches)

// Group 2: one buffer accessed by the store.
#define TTUNE_FEATURES_BUFFER(X)                                                        \
  X(acc_read) X(acc_write) X(acc_readwrite)                                             \
  X(bytes) X(unique_bytes) X(lines) X(unique_lines)                                     \
  X(reuse_loop) X(reuse_serial) X(reuse_none)                                           \
  X(reuse_dis_iter) X(reuse_dis_bytes) X(reuse_ct)                                      \
  X(bytes_d_reuse_ct) X(unique_bytes_d_reuse_ct) X(lines_d_reuse_ct)                    \
  X(unique_lines_d_reuse_ct) X(stride) X(rolled_stride) X(local_scope)

// Group 4: allocation of the written buffer.
#define TTUNE_FEATURES_ALLOC(X) \
  X(alloc_size) X(alloc_prod) X(alloc_outer_prod) X(alloc_inner_prod) X(alloc_local)

// Group 5: outer scope.
#define TTUNE_FEATURES_OUTER(X) X(outer_prod) X(num_loops) X(auto_unroll_max_step)

#define TTUNE_FEATURE_FIELD(name) float name = 0;
#define TTUNE_FEATURE_COUNT(name) +1
#define TTUNE_FEATURE_VISIT(name) f(#name, index, self.name);
// clang-format on

struct ComputeFeatures {
  TTUNE_FEATURES_COMPUTE(TTUNE_FEATURE_FIELD)
  static constexpr size_t kCount = 0 TTUNE_FEATURES_COMPUTE(TTUNE_FEATURE_COUNT);
  template <class Self, class F>
  static void visit(Self& self, F&& f, int index = -1) {
    TTUNE_FEATURES_COMPUTE(TTUNE_FEATURE_VISIT)
  }
};

struct BufferFeatures {
  TTUNE_FEATURES_BUFFER(TTUNE_FEATURE_FIELD)
  static constexpr size_t kCount = 0 TTUNE_FEATURES_BUFFER(TTUNE_FEATURE_COUNT);
  template <class Self, class F>
  static void visit(Self& self, F&& f, int index = -1) {
    TTUNE_FEATURES_BUFFER(TTUNE_FEATURE_VISIT)
  }
};

struct AllocFeatures {
  TTUNE_FEATURES_ALLOC(TTUNE_FEATURE_FIELD)
  static constexpr size_t kCount = 0 TTUNE_FEATURES_ALLOC(TTUNE_FEATURE_COUNT);
  template <class Self, class F>
  static void visit(Self& self, F&& f, int index = -1) {
    TTUNE_FEATURES_ALLOC(TTUNE_FEATURE_VISIT)
  }
};

struct OuterFeatures {
  TTUNE_FEATURES_OUTER(TTUNE_FEATURE_FIELD)
  static constexpr size_t kCount = 0 TTUNE_FEATURES_OUTER(TTUNE_FEATURE_COUNT);
  template <class Self, class F>
  static void visit(Self& self, F&& f, int index = -1) {
    TTUNE_FEATURES_OUTER(TTUNE_FEATURE_VISIT)
  }
};

// The raw (not yet log-scaled) features of one store. Field order is the vector order.
struct StoreFeatures {
  static constexpr uint32_t kVersion = 1;
  static constexpr size_t kMaxBuffers = 5;
  static constexpr size_t kCurveSamples = 10;

  ComputeFeatures compute;
  std::array<BufferFeatures, kMaxBuffers> buffers;
  std::array<float, kCurveSamples> ai_curve{};
  AllocFeatures alloc;
  OuterFeatures outer;

  static constexpr size_t num_features() {
    return ComputeFeatures::kCount + kMaxBuffers * BufferFeatures::kCount + kCurveSamples + AllocFeatures::kCount +
           OuterFeatures::kCount;
  }
  // Visits f(const char* name, int index, float& value) (const float& on a const object) in
  // vector order; index is the buffer rank for buffer features, the sample for the curve, -1
  // otherwise (featureNames() shows how they combine: "b<index>.<name>", "<name>_<index>").
  template <class F>
  void forEach(F&& f) {
    visit(*this, f);
  }
  template <class F>
  void forEach(F&& f) const {
    visit(*this, f);
  }
  // Appends the log2p-scaled values (num_features() of them).
  void appendScaled(std::vector<float>& out) const;

 private:
  template <class Self, class F>
  static void visit(Self& self, F&& f) {
    ComputeFeatures::visit(self.compute, f);
    for (size_t k = 0; k < kMaxBuffers; ++k) BufferFeatures::visit(self.buffers[k], f, static_cast<int>(k));
    for (size_t k = 0; k < kCurveSamples; ++k) f("ai_curve", static_cast<int>(k), self.ai_curve[k]);
    AllocFeatures::visit(self.alloc, f);
    OuterFeatures::visit(self.outer, f);
  }
};

// Names of the features in vector order (size num_features()).
const std::vector<std::string>& featureNames();
inline constexpr size_t kNumFeatures = StoreFeatures::num_features();

// The features of one state: n_stores rows of kNumFeatures floats, row-major. n_stores == 0 means
// the state could not be featurized (the cost model predicts -inf for it).
struct StateFeatures {
  int n_stores = 0;
  std::vector<float> data;
  bool valid() const { return n_stores > 0; }
  const float* row(int i) const { return data.data() + static_cast<size_t>(i) * kNumFeatures; }
  // Ansor's flat layout: [n_stores, row_1..., row_n...].
  std::vector<float> flat() const;
};

// Features of a lowered kernel. `state`, when given, supplies what the IR does not carry (the
// auto-unroll limit of each stage, matched by buffer name). Never fails; a kernel without stores
// gives n_stores == 0.
StateFeatures extractFeatures(const lower::LoweredFunc& func, const schedule::State* state = nullptr);
// The unscaled per-store features (for tests and debugging).
std::vector<StoreFeatures> extractStoreFeatures(const lower::LoweredFunc& func, const schedule::State* state = nullptr);

// Lowers then extracts; fails with the lowering's reason.
Expected<StateFeatures> featuresOf(const schedule::State& state);
// featuresOf for many states on `threads` threads (0: one per core); failures give empty features.
std::vector<StateFeatures> featuresOfAll(const std::vector<schedule::State>& states, int threads = 1);

float log2p(double x);

}  // namespace ttune::autotune
