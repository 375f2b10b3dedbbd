#include "lower/register_tiles.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "support/overload.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::lower {

namespace {

struct Result {
  Stmt stmt;
  int64_t steps = 1;     // statements executed per run (vector loops count once)
  bool bounded = true;   // every loop inside has a constant extent
};

class Pass {
 public:
  Pass(int64_t max_tile, int64_t max_steps) : max_tile_(max_tile), max_steps_(max_steps) {}

  Result run(const Stmt& s) {
    if (!s) return {s, 0, true};
    return std::visit(
        Overload{
            [&](const For& f) -> Result {
              Result body = run(f.body);
              int64_t ext;
              bool constant = te::isConstInt(f.extent, &ext);
              int64_t per = f.kind == ForKind::Vectorized ? 1 : f.max_extent;
              Result r{nullptr, per * body.steps, body.bounded};
              ForKind kind = f.kind;
              // A run-time extent is fine: unrolled loops with a short tail stay at constant offsets.
              (void)constant;
              if (kind == ForKind::Serial && body.bounded && r.steps <= max_steps_ && indexesTile(f.body, f.var.get()))
                kind = ForKind::Unrolled;
              r.stmt = (kind == f.kind && body.stmt == f.body) ? s : makeFor(f.var, f.extent, f.max_extent, kind, body.stmt);
              return r;
            },
            [&](const Store& st) -> Result { return {s, 1, true}; },
            [&](const IfThenElse& i) -> Result {
              Result t = run(i.then_case), e = run(i.else_case);
              Stmt out = (t.stmt == i.then_case && e.stmt == i.else_case) ? s : makeIf(i.cond, t.stmt, e.stmt);
              return {out, std::max<int64_t>(1, t.steps + e.steps), t.bounded && e.bounded};
            },
            [&](const Allocate& a) -> Result {
              bool small = a.buffer->scope == te::MemScope::Local && a.buffer->size <= max_tile_;
              if (small) tiles_.insert(a.buffer.get());
              Result b = run(a.body);
              if (small) tiles_.erase(a.buffer.get());
              return {b.stmt == a.body ? s : makeAllocate(a.buffer, b.stmt), b.steps, b.bounded};
            },
            [&](const Seq& q) -> Result {
              std::vector<Stmt> out;
              int64_t steps = 0;
              bool bounded = true, changed = false;
              for (const Stmt& c : q.stmts) {
                Result r = run(c);
                changed |= r.stmt != c;
                out.push_back(r.stmt);
                steps += r.steps;
                bounded = bounded && r.bounded;
              }
              return {changed ? makeSeq(std::move(out)) : s, steps, bounded};
            },
            [&](const LetStmt& l) -> Result {
              Result b = run(l.body);
              return {b.stmt == l.body ? s : makeLet(l.var, l.value, b.stmt), b.steps, b.bounded};
            },
        },
        s->kind);
  }

 private:
  // True when the body reads or writes a small local tile at an index that depends on var.
  bool indexesTile(const Stmt& s, const te::VarNode* var) {
    bool found = false;
    auto scan = [&](const te::Expr& e) {
      te::visitAll(e, [&](const te::Expr& x) {
        if (const te::BufferLoad* l = x.as<te::BufferLoad>())
          if (tiles_.count(l->buffer.get()) && te::usesVar(l->index, var)) found = true;
      });
    };
    std::function<void(const Stmt&)> walk = [&](const Stmt& st) {
      if (!st || found) return;
      std::visit(Overload{
                     [&](const For& f) { walk(f.body); },
                     [&](const Store& x) {
                       if (tiles_.count(x.buffer.get()) && te::usesVar(x.index, var)) found = true;
                       scan(x.value);
                     },
                     [&](const IfThenElse& i) { walk(i.then_case); walk(i.else_case); },
                     [&](const Allocate& a) { walk(a.body); },
                     [&](const Seq& q) { for (const Stmt& c : q.stmts) walk(c); },
                     [&](const LetStmt& l) { walk(l.body); },
                 },
                 st->kind);
    };
    walk(s);
    return found;
  }

  int64_t max_tile_, max_steps_;
  std::unordered_set<const te::Buffer*> tiles_;
};

int64_t exprSize(const te::Expr& e) {
  int64_t n = 0;
  te::visitAll(e, [&](const te::Expr&) { ++n; });
  return n;
}

// Emitted size of a statement (in expression nodes): unrolled loops multiply their body, vectorized loops emit one body
// per chunk of lanes, and a dynamic extent emits the body twice (full and tail version).
int64_t emittedSize(const Stmt& s, int lanes) {
  if (!s) return 0;
  return std::visit(Overload{
                        [&](const For& f) -> int64_t {
                          int64_t body = emittedSize(f.body, lanes);
                          int64_t ext;
                          bool constant = te::isConstInt(f.extent, &ext);
                          int64_t versions = constant ? 1 : 2;
                          if (f.kind == ForKind::Unrolled) return versions * f.max_extent * body;
                          if (f.kind == ForKind::Vectorized) return versions * ((f.max_extent + lanes - 1) / lanes) * body;
                          return body + 1;
                        },
                        [&](const Store& st) -> int64_t { return 1 + exprSize(st.index) + exprSize(st.value); },
                        [&](const IfThenElse& i) -> int64_t {
                          return 1 + exprSize(i.cond) + emittedSize(i.then_case, lanes) + emittedSize(i.else_case, lanes);
                        },
                        [&](const Allocate& a) -> int64_t { return emittedSize(a.body, lanes); },
                        [&](const Seq& q) -> int64_t {
                          int64_t t = 0;
                          for (const Stmt& c : q.stmts) t += emittedSize(c, lanes);
                          return t;
                        },
                        [&](const LetStmt& l) -> int64_t { return emittedSize(l.body, lanes); },
                    },
                    s->kind);
}

Stmt limit(const Stmt& s, int64_t budget, int lanes) {
  if (!s) return s;
  return std::visit(Overload{
                        [&](const For& f) -> Stmt {
                          if (f.kind == ForKind::Unrolled && emittedSize(s, lanes) > budget) {
                            Stmt body = limit(f.body, budget, lanes);
                            return makeFor(f.var, f.extent, f.max_extent, ForKind::Serial, body);
                          }
                          Stmt body = limit(f.body, budget, lanes);
                          return body == f.body ? s : makeFor(f.var, f.extent, f.max_extent, f.kind, body);
                        },
                        [&](const Store&) -> Stmt { return s; },
                        [&](const IfThenElse& i) -> Stmt {
                          Stmt t = limit(i.then_case, budget, lanes), e = limit(i.else_case, budget, lanes);
                          return t == i.then_case && e == i.else_case ? s : makeIf(i.cond, t, e);
                        },
                        [&](const Allocate& a) -> Stmt {
                          Stmt b = limit(a.body, budget, lanes);
                          return b == a.body ? s : makeAllocate(a.buffer, b);
                        },
                        [&](const Seq& q) -> Stmt {
                          std::vector<Stmt> out;
                          bool changed = false;
                          for (const Stmt& c : q.stmts) {
                            out.push_back(limit(c, budget, lanes));
                            changed |= out.back() != c;
                          }
                          return changed ? makeSeq(std::move(out)) : s;
                        },
                        [&](const LetStmt& l) -> Stmt {
                          Stmt b = limit(l.body, budget, lanes);
                          return b == l.body ? s : makeLet(l.var, l.value, b);
                        },
                    },
                    s->kind);
}

}  // namespace

Stmt limitUnrolling(const Stmt& s, int64_t max_statements, int lanes) { return limit(s, max_statements, std::max(1, lanes)); }

bool isLaneParallel(const Stmt& body, const te::VarNode* v) {
  bool ok = true;
  std::unordered_map<const te::Buffer*, std::vector<te::Expr>> stored;
  std::vector<std::pair<const te::Buffer*, te::Expr>> loads;
  auto scanLoads = [&](const te::Expr& e) {
    te::visitAll(e, [&](const te::Expr& x) {
      if (const te::BufferLoad* l = x.as<te::BufferLoad>()) loads.emplace_back(l->buffer.get(), l->index);
    });
  };
  std::function<void(const Stmt&)> walk = [&](const Stmt& s) {
    if (!s || !ok) return;
    std::visit(Overload{
                   [&](const For& x) {
                     if (te::usesVar(x.extent, v) || x.kind == ForKind::Parallel) ok = false;
                     walk(x.body);
                   },
                   [&](const Store& x) {
                     auto coef = te::linearCoefficient(x.index, v);
                     if (!coef || *coef == 0) ok = false;
                     stored[x.buffer.get()].push_back(x.index);
                     scanLoads(x.index);
                     scanLoads(x.value);
                   },
                   [&](const IfThenElse& x) {
                     scanLoads(x.cond);
                     walk(x.then_case);
                     walk(x.else_case);
                   },
                   [&](const Allocate&) { ok = false; },
                   [&](const Seq& x) { for (const Stmt& c : x.stmts) walk(c); },
                   [&](const LetStmt& x) {
                     scanLoads(x.value);
                     walk(x.body);
                   },
               },
               s->kind);
  };
  walk(body);
  if (!ok) return false;
  for (const auto& [buf, idx] : loads) {
    auto it = stored.find(buf);
    if (it == stored.end()) continue;
    bool same = false;
    for (const te::Expr& e : it->second) same = same || te::structurallyEqual(e, idx);
    if (!same) return false;
  }
  return true;
}

Stmt resolveVectorLoops(const Stmt& s) {
  if (!s) return s;
  return std::visit(Overload{
                        [&](const For& f) -> Stmt {
                          Stmt body = resolveVectorLoops(f.body);
                          ForKind kind = f.kind;
                          if (kind == ForKind::Vectorized && (f.max_extent <= 1 || !isLaneParallel(body, f.var.get())))
                            kind = f.max_extent <= 16 ? ForKind::Unrolled : ForKind::Serial;
                          return kind == f.kind && body == f.body ? s : makeFor(f.var, f.extent, f.max_extent, kind, body);
                        },
                        [&](const Store&) -> Stmt { return s; },
                        [&](const IfThenElse& i) -> Stmt {
                          Stmt t = resolveVectorLoops(i.then_case), e = resolveVectorLoops(i.else_case);
                          return t == i.then_case && e == i.else_case ? s : makeIf(i.cond, t, e);
                        },
                        [&](const Allocate& a) -> Stmt {
                          Stmt b = resolveVectorLoops(a.body);
                          return b == a.body ? s : makeAllocate(a.buffer, b);
                        },
                        [&](const Seq& q) -> Stmt {
                          std::vector<Stmt> out;
                          bool changed = false;
                          for (const Stmt& c : q.stmts) {
                            out.push_back(resolveVectorLoops(c));
                            changed |= out.back() != c;
                          }
                          return changed ? makeSeq(std::move(out)) : s;
                        },
                        [&](const LetStmt& l) -> Stmt {
                          Stmt b = resolveVectorLoops(l.body);
                          return b == l.body ? s : makeLet(l.var, l.value, b);
                        },
                    },
                    s->kind);
}

Stmt unrollRegisterTileLoops(const Stmt& s, int64_t max_tile_elements, int64_t max_steps) {
  return Pass(max_tile_elements, max_steps).run(s).stmt;
}

}  // namespace ttune::lower
