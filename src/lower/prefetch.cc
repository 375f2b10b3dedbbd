#include "lower/prefetch.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "lower/stmt_functor.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::lower {

namespace {

using te::Expr;

// Buffers the statement stores to.
class StoredBuffers : public StmtVisitor {
 public:
  std::unordered_set<const te::Buffer*> buffers;

 protected:
  void visitStore(const Store& x) override { buffers.insert(x.buffer.get()); }
};

// A read of a kernel argument inside the streaming loop, its index with every let-bound variable
// replaced by its value (so that it names loop variables only).
struct Read {
  te::BufferRef buffer;
  Expr index;
  bool consistent = true;  // false once two different indices of the buffer were seen
};

// Reads of read-only arguments in a loop's body (`stored` are the buffers the kernel writes), and
// the loops inside it; lets are those enclosing the body, then its own.
class Reads : public StmtVisitor {
 public:
  Reads(const std::unordered_set<const te::Buffer*>& stored, te::VarMap<Expr> lets)
      : stored_(stored), lets_(std::move(lets)) {}
  std::vector<const For*> loops;
  std::vector<Read> reads;

 protected:
  void visitExpr(const Expr& e) override {
    te::visitAll(e, [&](const Expr& x) {
      const te::BufferLoad* ld = x.as<te::BufferLoad>();
      if (!ld || ld->buffer->scope != te::MemScope::Arg || stored_.count(ld->buffer.get())) return;
      Expr idx = te::substitute(ld->index, lets_);
      for (Read& r : reads)
        if (r.buffer == ld->buffer) {
          r.consistent = r.consistent && te::structurallyEqual(r.index, idx);
          return;
        }
      reads.push_back(Read{ld->buffer, idx, true});
    });
  }
  void visitFor(const For& f) override {
    loops.push_back(&f);
    StmtVisitor::visitFor(f);
  }
  void visitLet(const LetStmt& l) override {
    visitExpr(l.value);
    lets_[l.var.get()] = te::substitute(l.value, lets_);
    visit(l.body);
  }
  void visitPrefetch(const Prefetch&) override {}

 private:
  const std::unordered_set<const te::Buffer*>& stored_;
  te::VarMap<Expr> lets_;
};

// Inside parallel loop `par`, under the loops in passes_: rewrites the loops that stream a block.
class Streamer : public StmtMutator {
 public:
  Streamer(const PrefetchOptions& o, const std::unordered_set<const te::Buffer*>& stored, const For& par)
      : opt_(o), stored_(stored), par_(&par) {}

 protected:
  Stmt mutateFor(const Stmt& s, const For& f) override {
    if (f.kind == ForKind::Vectorized) return s;
    if (f.kind == ForKind::Serial)
      if (Stmt r = streamed(s, f)) return r;
    passes_.push_back(&f);
    Stmt r = StmtMutator::mutateFor(s, f);
    passes_.pop_back();
    return r;
  }
  Stmt mutateLet(const Stmt& s, const LetStmt& l) override {
    lets_[l.var.get()] = te::substitute(l.value, lets_);
    Stmt r = StmtMutator::mutateLet(s, l);
    lets_.erase(l.var.get());
    return r;
  }

 private:
  // The prefetches for `read` when loop l streams its block (empty when the pattern does not hold).
  std::vector<Stmt> prefetchesFor(const Read& read, const For& l, const std::vector<const For*>& inner) {
    const te::VarNode* p = par_->var.get();
    if (passes_.empty() || !read.consistent || !te::usesVar(read.index, p) || !te::usesVar(read.index, l.var.get()))
      return {};
    for (const For* pass : passes_)
      if (te::usesVar(read.index, pass->var.get())) return {};
    // p indexes the block linearly. (A parallel loop fused over blocks and pixel rows indexes it
    // by p // D; its block is re-read in D times as many passes, so the cold one matters little:
    // measured without gain, left alone.)
    auto cp = te::linearCoefficient(read.index, p);
    if (!cp || *cp <= 0) return {};
    // Every variable of the index is p, l's or an inner loop's, each with a constant non-negative
    // coefficient: the block is then the box those loops sweep.
    auto coef = [&](const te::VarNode* v) { return te::linearCoefficient(read.index, v); };
    auto cl = coef(l.var.get());
    if (!cl || *cl < 0) return {};
    te::VarMap<Expr> next{{p, Expr(par_->var) + te::intImm(1)}};
    int64_t inner_span = 1, touched = l.max_extent;
    std::vector<const te::VarNode*> known{p, l.var.get()};
    for (const For* f : inner) {
      known.push_back(f->var.get());
      auto c = coef(f->var.get());
      if (!c || *c < 0) return {};
      if (*c == 0) continue;
      inner_span += *c * (f->max_extent - 1);
      touched *= f->max_extent;
      next[f->var.get()] = te::intImm(0);
    }
    bool stray = false;
    te::visitAll(read.index, [&](const Expr& x) {
      if (const te::VarRef* v = x.as<te::VarRef>())
        if (std::find(known.begin(), known.end(), v->var.get()) == known.end()) stray = true;
    });
    if (stray) return {};
    int64_t block_span = inner_span + *cl * (l.max_extent - 1);
    int64_t elem = te::dtypeBytes(read.buffer->dtype);
    int64_t block_bytes = block_span * elem;
    if (*cp < block_span || 2 * touched < block_span) return {};  // blocks overlap, or sparse reads
    if (block_bytes < opt_.min_block_bytes || block_bytes > opt_.max_block_bytes) return {};
    int64_t line = std::max<int64_t>(1, opt_.line_bytes / elem);
    int64_t lines = (inner_span + line - 1) / line;
    // A footprint that does not start on a line boundary touches one more line.
    bool aligned = *cp % line == 0 && *cl % line == 0;
    if (lines + (aligned ? 0 : 1) > opt_.max_lines_per_iteration) return {};
    Expr base = te::simplify(te::substitute(read.index, next));
    std::vector<Stmt> out;
    for (int64_t k = 0; k < lines; ++k)
      out.push_back(makePrefetch(read.buffer, te::simplify(base + te::intImm(k * line))));
    if (!aligned) out.push_back(makePrefetch(read.buffer, te::simplify(base + te::intImm(inner_span - 1))));
    return out;
  }

  // Rewrites loop l (statement s) when it streams a block: null when it does not.
  Stmt streamed(const Stmt& s, const For& l) {
    Reads found(stored_, lets_);
    found.visit(l.body);
    std::vector<Stmt> prefetches;
    for (const Read& r : found.reads) {
      std::vector<Stmt> p = prefetchesFor(r, l, found.loops);
      prefetches.insert(prefetches.end(), p.begin(), p.end());
    }
    if (prefetches.empty()) return nullptr;
    // The second pass: the innermost pass loop at 1, the others at 0.
    Expr cond = Expr(par_->var) + te::intImm(1) < par_->extent;
    for (size_t k = 0; k < passes_.size(); ++k)
      cond = cond && (Expr(passes_[k]->var) == te::intImm(k + 1 == passes_.size() ? 1 : 0));
    prefetches.push_back(l.body);
    Stmt with = makeFor(l.var, l.extent, l.max_extent, l.kind, makeSeq(std::move(prefetches)));
    return makeIf(cond, with, s);
  }

  const PrefetchOptions& opt_;
  const std::unordered_set<const te::Buffer*>& stored_;
  const For* par_;
  te::VarMap<Expr> lets_;
  std::vector<const For*> passes_;
};

// Outside the parallel loops: finds them.
class ParallelLoops : public StmtMutator {
 public:
  ParallelLoops(const PrefetchOptions& o, std::unordered_set<const te::Buffer*> stored)
      : opt_(o), stored_(std::move(stored)) {}

 protected:
  Stmt mutateFor(const Stmt& s, const For& f) override {
    if (f.kind != ForKind::Parallel) return StmtMutator::mutateFor(s, f);
    return rebuildFor(s, f, f.kind, Streamer(opt_, stored_, f).mutate(f.body));
  }

 private:
  const PrefetchOptions& opt_;
  std::unordered_set<const te::Buffer*> stored_;
};

}  // namespace

Stmt prefetchNextBlocks(const Stmt& s, const PrefetchOptions& options) {
  StoredBuffers stored;
  stored.visit(s);
  return ParallelLoops(options, std::move(stored.buffers)).mutate(s);
}

}  // namespace ttune::lower
