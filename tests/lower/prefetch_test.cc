// The prefetch pass (lower/prefetch.h): what it prefetches is exactly what the next parallel
// iteration reads first, in one pass only; blocks it must leave alone stay untouched; kernels
// with prefetches stay exact on both x86 ISA levels and their assembly carries the instruction.
#include <gtest/gtest.h>

#include <set>
#include <unordered_map>

#include "codegen/codegen.h"
#include "codegen/target.h"
#include "common/check.h"
#include "lower/lower.h"
#include "lower/stmt_functor.h"
#include "measure/builder.h"
#include "ops/registry.h"
#include "te/arith.h"
#include "te/printer.h"

namespace ttune {
namespace {

using lower::Stmt;

struct Loop {
  const te::VarNode* var;
  int64_t extent;
};

// A loop the pass rewrote: the loops around it inside the parallel loop, its guard, the
// prefetching version and the original.
struct Rewritten {
  std::vector<Loop> passes;
  te::Expr guard;
  const lower::For* with = nullptr;
  const lower::For* without = nullptr;
  std::vector<const lower::Prefetch*> prefetches;
};

struct Scan {
  const lower::For* parallel = nullptr;
  std::vector<Rewritten> rewritten;
  int prefetches = 0;
};

// Records the parallel loop, the rewritten loops and the prefetches.
struct Scanner : lower::StmtVisitor {
  std::vector<Loop> loops;  // enclosing the statement visited, inside the parallel loop
  Scan out;

  void visitFor(const lower::For& f) override {
    if (f.kind == lower::ForKind::Parallel) {
      out.parallel = &f;
      visit(f.body);
      return;
    }
    loops.push_back({f.var.get(), f.max_extent});
    visit(f.body);
    loops.pop_back();
  }
  void visitIf(const lower::IfThenElse& i) override {
    const lower::For* with = i.then_case ? std::get_if<lower::For>(&i.then_case->kind) : nullptr;
    const lower::Seq* body = with ? std::get_if<lower::Seq>(&with->body->kind) : nullptr;
    if (body && std::holds_alternative<lower::Prefetch>(body->stmts.front()->kind)) {
      Rewritten r{loops, i.cond, with, std::get_if<lower::For>(&i.else_case->kind), {}};
      for (const Stmt& c : body->stmts)
        if (const auto* p = std::get_if<lower::Prefetch>(&c->kind)) r.prefetches.push_back(p);
      out.rewritten.push_back(r);
    }
    visit(i.then_case);
    visit(i.else_case);
  }
  void visitPrefetch(const lower::Prefetch&) override { ++out.prefetches; }
};

Scan scanFunc(const lower::LoweredFunc& f) {
  Scanner s;
  s.visit(f.body);
  return s.out;
}

using Values = std::unordered_map<const te::VarNode*, int64_t>;

// The value of an index or condition over integer loop variables (all of them given).
int64_t eval(const te::Expr& e, const Values& v) {
  if (const auto* i = e.as<te::IntImm>()) return i->value;
  if (const auto* r = e.as<te::VarRef>()) {
    auto it = v.find(r->var.get());
    EXPECT_NE(it, v.end()) << r->var.name();
    return it == v.end() ? 0 : it->second;
  }
  const auto* b = e.as<te::Binary>();
  EXPECT_NE(b, nullptr) << te::toString(e);
  if (!b) return 0;
  int64_t x = eval(b->a, v), y = eval(b->b, v);
  auto floordiv = [](int64_t a, int64_t d) { return a / d - ((a % d != 0) && ((a < 0) != (d < 0))); };
  switch (b->op) {
    case te::BinOp::Add:
      return x + y;
    case te::BinOp::Sub:
      return x - y;
    case te::BinOp::Mul:
      return x * y;
    case te::BinOp::FloorDiv:
      return floordiv(x, y);
    case te::BinOp::FloorMod:
      return x - floordiv(x, y) * y;
    case te::BinOp::Min:
      return std::min(x, y);
    case te::BinOp::Max:
      return std::max(x, y);
    case te::BinOp::Eq:
      return x == y;
    case te::BinOp::Ne:
      return x != y;
    case te::BinOp::Lt:
      return x < y;
    case te::BinOp::Le:
      return x <= y;
    case te::BinOp::Gt:
      return x > y;
    case te::BinOp::Ge:
      return x >= y;
    case te::BinOp::And:
      return x && y;
    case te::BinOp::Or:
      return x || y;
    default:
      ADD_FAILURE() << te::toString(e);
      return 0;
  }
}

// Every index at which the values stored inside loop f read `buffer` (lets substituted), with the
// loops inside f.
struct Reads : lower::StmtVisitor {
  Reads(const te::Buffer* buffer, std::vector<Loop> inner) : buffer(buffer), inner(std::move(inner)) {}
  const te::Buffer* buffer;
  std::vector<Loop> inner;
  te::VarMap<te::Expr> lets;
  std::vector<te::Expr> out;

  void visitFor(const lower::For& f) override {
    inner.push_back({f.var.get(), f.max_extent});
    visit(f.body);
  }
  void visitStore(const lower::Store& x) override {
    te::visitAll(x.value, [&](const te::Expr& e) {
      if (const auto* ld = e.as<te::BufferLoad>(); ld && ld->buffer.get() == buffer)
        out.push_back(te::substitute(ld->index, lets));
    });
  }
  void visitLet(const lower::LetStmt& l) override {
    lets[l.var.get()] = l.value;
    visit(l.body);
  }
};

// Every combination of the loops' values, each as a substitution.
void combinations(const std::vector<Loop>& loops, size_t k, Values& values, const std::function<void()>& fn) {
  if (k == loops.size()) return fn();
  for (int64_t v = 0; v < loops[k].extent; ++v) {
    values[loops[k].var] = v;
    combinations(loops, k + 1, values, fn);
  }
}

std::shared_ptr<const te::ComputeDAG> conv(const std::vector<std::string>& params) {
  std::vector<std::string> kv = {"layout=NHWC", "R=1", "S=1"};
  kv.insert(kv.end(), params.begin(), params.end());
  return std::make_shared<const te::ComputeDAG>(ops::buildOp("conv2d", kv).dag());
}

// The pass on whatever the target's default (it is on for AVX2 only), to test it on both ISAs.
lower::LowerOptions withPrefetch(const schedule::Target& t) {
  lower::LowerOptions lo = lower::lowerOptionsFor(t);
  lo.prefetch = lower::PrefetchOptions{.max_block_bytes = t.l2_bytes / 4};
  return lo;
}

lower::LoweredFunc lowered(const std::shared_ptr<const te::ComputeDAG>& dag, const schedule::Target& t,
                           const lower::LowerOptions& lo) {
  auto st = schedule::State::replay(dag, measure::defaultScheduleFor(*dag, t));
  EXPECT_TRUE(st.ok()) << st.error();
  auto f = lower::lower(*st, "kernel", lo);
  EXPECT_TRUE(f.ok()) << f.error();
  return *f;
}

// The last stage's 1x1 convolution of a ResNet (7x7, 1024 -> 2048): per parallel iteration a
// 64 KiB (AVX2) or 128 KiB (AVX-512) block of packed weights, re-read for every pixel row.
TEST(Prefetch, SecondPassFetchesExactlyTheLinesTheNextBlockReads) {
  for (const char* target : {"x86-64-v3", "x86-64-v4"}) {
    SCOPED_TRACE(target);
    auto t = codegen::resolveTarget(target);
    ASSERT_TRUE(t.ok()) << t.error();
    lower::LoweredFunc f = lowered(conv({"H=7", "W=7", "C=1024", "K=2048"}), *t, withPrefetch(*t));
    Scan s = scanFunc(f);
    ASSERT_NE(s.parallel, nullptr);
    ASSERT_EQ(s.rewritten.size(), 1u) << lower::toString(f);
    const Rewritten& r = s.rewritten[0];
    ASSERT_NE(r.without, nullptr);
    const te::Buffer* w = r.prefetches[0]->buffer.get();
    EXPECT_NE(w->name.find("weight"), std::string::npos);
    const te::VarNode* p = s.parallel->var.get();
    const int64_t extent = s.parallel->max_extent;

    // Lines (16 floats) of the buffer iteration `it` reads in the original loop...
    constexpr int64_t kLine = 16;
    Reads found(w, {{r.without->var.get(), r.without->max_extent}});
    found.visit(r.without->body);
    const std::vector<Loop>& inner = found.inner;
    const std::vector<te::Expr>& idx = found.out;
    ASSERT_FALSE(idx.empty());
    auto read = [&](int64_t it) {
      std::set<int64_t> lines;
      Values values{{p, it}};
      for (const te::Expr& e : idx) {
        std::vector<Loop> used;
        for (const Loop& l : inner)
          if (te::usesVar(e, l.var)) used.push_back(l);
        combinations(used, 0, values, [&] { lines.insert(eval(e, values) / kLine); });
      }
      return lines;
    };
    // ...and the lines its prefetches name in a pass whose guard holds.
    auto fetched = [&](int64_t it) {
      std::set<int64_t> lines;
      for (int64_t i = 0; i < r.with->max_extent; ++i)
        for (const lower::Prefetch* pf : r.prefetches) {
          EXPECT_EQ(pf->buffer.get(), w);
          lines.insert(eval(pf->index, {{p, it}, {r.with->var.get(), i}}) / kLine);
        }
      return lines;
    };
    // The guard holds in one pass per block, for every block but the last; then it prefetches the
    // next block: the lines of the next iteration that reads other lines than this one.
    std::set<int64_t> block;
    int blocks = 0, guarded = 0;
    for (int64_t it = 0; it < extent; ++it) {
      std::set<int64_t> mine = read(it);
      if (mine != block) ++blocks, block = mine;
      EXPECT_GE(mine.size() * kLine * 4, 64u << 10);
      int passes = 0;
      Values values{{p, it}};
      combinations(r.passes, 0, values, [&] { passes += eval(r.guard, values) != 0; });
      ASSERT_LE(passes, 1) << "iteration " << it;
      if (passes == 0) continue;
      ++guarded;
      int64_t next = it + 1;
      while (next < extent && read(next) == mine) ++next;
      ASSERT_LT(next, extent);
      EXPECT_EQ(fetched(it), read(next)) << "iteration " << it;
    }
    EXPECT_GT(blocks, 2);
    EXPECT_EQ(guarded, blocks - 1);
  }
}

TEST(Prefetch, BlocksThatAreSmallOrReadOnceAreLeftAlone) {
  auto t = codegen::resolveTarget("x86-64-v3");
  ASSERT_TRUE(t.ok()) << t.error();
  // 64 -> 64 channels: a 4 KiB block, below the threshold.
  EXPECT_EQ(scanFunc(lowered(conv({"H=14", "W=14", "C=64", "K=64"}), *t, lower::lowerOptionsFor(*t))).prefetches, 0);
  // 14x14: the parallel loop is fused over blocks and pixel rows (p // 14 picks the block), which
  // re-read each block in 98 passes; the cold one is not worth a prefetch.
  EXPECT_EQ(scanFunc(lowered(conv({"H=14", "W=14", "C=1024", "K=256"}), *t, lower::lowerOptionsFor(*t))).prefetches, 0);
  // One pixel: each block is read in a single pass.
  EXPECT_EQ(scanFunc(lowered(conv({"H=1", "W=1", "C=1024", "K=2048"}), *t, lower::lowerOptionsFor(*t))).prefetches, 0);
  // A block larger than a quarter of L2 would evict the one being read.
  schedule::Target small_l2 = *t;
  small_l2.l2_bytes = 128 << 10;
  EXPECT_EQ(scanFunc(lowered(conv({"H=7", "W=7", "C=1024", "K=2048"}), small_l2, lower::lowerOptionsFor(small_l2)))
                .prefetches,
            0);
  // Targets where it was measured without gain (AVX-512) do not get it by default.
  auto v4 = codegen::resolveTarget("x86-64-v4");
  ASSERT_TRUE(v4.ok()) << v4.error();
  EXPECT_FALSE(lower::lowerOptionsFor(*v4).prefetch.has_value());
  EXPECT_TRUE(lower::lowerOptionsFor(*t).prefetch.has_value());
  // Options without the pass (how the cost model's features see a schedule).
  lower::LowerOptions plain;
  plain.vector_lanes = t->lanes();
  EXPECT_EQ(scanFunc(lowered(conv({"H=7", "W=7", "C=1024", "K=2048"}), *t, plain)).prefetches, 0);
}

TEST(Prefetch, KernelsWithPrefetchesStayExactOnBothIsas) {
  auto dag = conv({"H=7", "W=7", "C=512", "K=2048"});
  testing::Checker checker(dag);
  for (const schedule::Target& t : testing::isaTargets()) {
    lower::LoweredFunc f = lowered(dag, t, withPrefetch(t));
    EXPECT_GT(scanFunc(f).prefetches, 0) << schedule::isaName(t.isa) << "\n" << lower::toString(f);
    auto as = codegen::emitAssembly(f, t);
    ASSERT_TRUE(as.ok()) << as.error();
    EXPECT_NE(as->find("prefetcht1"), std::string::npos) << schedule::isaName(t.isa);
    std::string skip = testing::skipReason(t);
    if (!skip.empty()) {
      std::cout << "[  SKIPPED ] " << schedule::isaName(t.isa) << ": " << skip << "\n";
      continue;
    }
    auto st = schedule::State::replay(dag, measure::defaultScheduleFor(*dag, t));
    ASSERT_TRUE(st.ok()) << st.error();
    auto r = checker.check(*st, 3, 1e-4, 1e-4, withPrefetch(t), t);
    ASSERT_TRUE(r.built) << r.error;
    EXPECT_NE(r.lowered.find("prefetch"), std::string::npos);
    EXPECT_TRUE(r.cmp.ok()) << schedule::isaName(t.isa) << " max abs err " << r.cmp.max_abs_err;
  }
}

}  // namespace
}  // namespace ttune
