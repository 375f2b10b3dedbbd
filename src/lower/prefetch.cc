#include "lower/prefetch.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "support/overload.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::lower {

namespace {

using te::Expr;

void storedBuffers(const Stmt& s, std::unordered_set<const te::Buffer*>& out) {
  if (!s) return;
  std::visit(Overload{
                 [&](const For& f) { storedBuffers(f.body, out); },
                 [&](const Store& x) { out.insert(x.buffer.get()); },
                 [&](const IfThenElse& i) {
                   storedBuffers(i.then_case, out);
                   storedBuffers(i.else_case, out);
                 },
                 [&](const Allocate& a) { storedBuffers(a.body, out); },
                 [&](const Seq& q) {
                   for (const Stmt& c : q.stmts) storedBuffers(c, out);
                 },
                 [&](const LetStmt& l) { storedBuffers(l.body, out); },
                 [&](const Prefetch&) {},
             },
             s->kind);
}

// A read of a kernel argument inside the streaming loop, its index with every let-bound variable
// replaced by its value (so that it names loop variables only).
struct Read {
  te::BufferRef buffer;
  Expr index;
  bool consistent = true;  // false once two different indices of the buffer were seen
};

class Pass {
 public:
  Pass(const PrefetchOptions& o, std::unordered_set<const te::Buffer*> stored) : opt_(o), stored_(std::move(stored)) {}

  // Outside the parallel loop: find it.
  Stmt outside(const Stmt& s) {
    if (!s) return s;
    return std::visit(Overload{
                          [&](const For& f) -> Stmt {
                            if (f.kind != ForKind::Parallel) {
                              Stmt b = outside(f.body);
                              return b == f.body ? s : makeFor(f.var, f.extent, f.max_extent, f.kind, b);
                            }
                            par_ = &f;
                            lets_.clear();
                            passes_.clear();
                            Stmt b = inside(f.body);
                            par_ = nullptr;
                            return b == f.body ? s : makeFor(f.var, f.extent, f.max_extent, f.kind, b);
                          },
                          [&](const Store&) { return s; },
                          [&](const IfThenElse& i) -> Stmt {
                            Stmt t = outside(i.then_case), e = outside(i.else_case);
                            return t == i.then_case && e == i.else_case ? s : makeIf(i.cond, t, e);
                          },
                          [&](const Allocate& a) -> Stmt {
                            Stmt b = outside(a.body);
                            return b == a.body ? s : makeAllocate(a.buffer, b);
                          },
                          [&](const Seq& q) -> Stmt { return rebuildSeq(s, q, [&](const Stmt& c) { return outside(c); }); },
                          [&](const LetStmt& l) -> Stmt {
                            Stmt b = outside(l.body);
                            return b == l.body ? s : makeLet(l.var, l.value, b);
                          },
                          [&](const Prefetch&) { return s; },
                      },
                      s->kind);
  }

 private:
  template <class F>
  static Stmt rebuildSeq(const Stmt& s, const Seq& q, F&& f) {
    std::vector<Stmt> out;
    bool changed = false;
    for (const Stmt& c : q.stmts) {
      out.push_back(f(c));
      changed |= out.back() != c;
    }
    return changed ? makeSeq(std::move(out)) : s;
  }

  // Inside the parallel loop, under the loops in passes_.
  Stmt inside(const Stmt& s) {
    if (!s) return s;
    return std::visit(Overload{
                          [&](const For& f) -> Stmt {
                            if (f.kind == ForKind::Vectorized) return s;
                            if (f.kind == ForKind::Serial)
                              if (Stmt r = streamed(s, f)) return r;
                            passes_.push_back(&f);
                            Stmt b = inside(f.body);
                            passes_.pop_back();
                            return b == f.body ? s : makeFor(f.var, f.extent, f.max_extent, f.kind, b);
                          },
                          [&](const Store&) { return s; },
                          [&](const IfThenElse& i) -> Stmt {
                            Stmt t = inside(i.then_case), e = inside(i.else_case);
                            return t == i.then_case && e == i.else_case ? s : makeIf(i.cond, t, e);
                          },
                          [&](const Allocate& a) -> Stmt {
                            Stmt b = inside(a.body);
                            return b == a.body ? s : makeAllocate(a.buffer, b);
                          },
                          [&](const Seq& q) -> Stmt { return rebuildSeq(s, q, [&](const Stmt& c) { return inside(c); }); },
                          [&](const LetStmt& l) -> Stmt {
                            lets_[l.var.get()] = te::substitute(l.value, lets_);
                            Stmt b = inside(l.body);
                            lets_.erase(l.var.get());
                            return b == l.body ? s : makeLet(l.var, l.value, b);
                          },
                          [&](const Prefetch&) { return s; },
                      },
                      s->kind);
  }

  // Reads of read-only arguments in the body of loop `l`, and the loops inside it.
  void collect(const Stmt& s, te::VarMap<Expr>& lets, std::vector<const For*>& loops, std::vector<Read>& reads) {
    if (!s) return;
    auto scan = [&](const Expr& e) {
      te::visitAll(e, [&](const Expr& x) {
        const te::BufferLoad* ld = x.as<te::BufferLoad>();
        if (!ld || ld->buffer->scope != te::MemScope::Arg || stored_.count(ld->buffer.get())) return;
        Expr idx = te::substitute(ld->index, lets);
        for (Read& r : reads)
          if (r.buffer == ld->buffer) {
            r.consistent = r.consistent && te::structurallyEqual(r.index, idx);
            return;
          }
        reads.push_back(Read{ld->buffer, idx, true});
      });
    };
    std::visit(Overload{
                   [&](const For& f) {
                     scan(f.extent);
                     loops.push_back(&f);
                     collect(f.body, lets, loops, reads);
                   },
                   [&](const Store& x) {
                     scan(x.index);
                     scan(x.value);
                   },
                   [&](const IfThenElse& i) {
                     scan(i.cond);
                     collect(i.then_case, lets, loops, reads);
                     collect(i.else_case, lets, loops, reads);
                   },
                   [&](const Allocate& a) { collect(a.body, lets, loops, reads); },
                   [&](const Seq& q) {
                     for (const Stmt& c : q.stmts) collect(c, lets, loops, reads);
                   },
                   [&](const LetStmt& l) {
                     scan(l.value);
                     lets[l.var.get()] = te::substitute(l.value, lets);
                     collect(l.body, lets, loops, reads);
                   },
                   [&](const Prefetch&) {},
               },
               s->kind);
  }

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
    for (int64_t k = 0; k < lines; ++k) out.push_back(makePrefetch(read.buffer, te::simplify(base + te::intImm(k * line))));
    if (!aligned) out.push_back(makePrefetch(read.buffer, te::simplify(base + te::intImm(inner_span - 1))));
    return out;
  }

  // Rewrites loop l (statement s) when it streams a block: null when it does not.
  Stmt streamed(const Stmt& s, const For& l) {
    te::VarMap<Expr> lets = lets_;
    std::vector<const For*> inner;
    std::vector<Read> reads;
    collect(l.body, lets, inner, reads);
    std::vector<Stmt> prefetches;
    for (const Read& r : reads) {
      std::vector<Stmt> p = prefetchesFor(r, l, inner);
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

  PrefetchOptions opt_;
  std::unordered_set<const te::Buffer*> stored_;
  const For* par_ = nullptr;
  te::VarMap<Expr> lets_;
  std::vector<const For*> passes_;
};

}  // namespace

Stmt prefetchNextBlocks(const Stmt& s, const PrefetchOptions& options) {
  std::unordered_set<const te::Buffer*> stored;
  storedBuffers(s, stored);
  return Pass(options, std::move(stored)).outside(s);
}

}  // namespace ttune::lower
