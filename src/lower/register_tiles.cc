#include "lower/register_tiles.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "support/hash.h"
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
              bool mine = small && tiles_.insert(a.buffer.get()).second;
              Result b = run(a.body);
              if (mine) tiles_.erase(a.buffer.get());
              return {b.stmt == a.body ? s : makeAllocate(a.buffer, b.stmt), b.steps, b.bounded};
            },
            [&](const Seq& q) -> Result {
              // A tile allocated by one statement of a sequence is read by the ones after it
              // (its write-back): it is a tile for all of them.
              std::vector<const te::Buffer*> added;
              for (const Stmt& c : q.stmts)
                if (const Allocate* a = std::get_if<Allocate>(&c->kind);
                    a && a->buffer->scope == te::MemScope::Local && a->buffer->size <= max_tile_ && tiles_.insert(a->buffer.get()).second)
                  added.push_back(a->buffer.get());
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
              for (const te::Buffer* b : added) tiles_.erase(b);
              return {changed ? makeSeq(std::move(out)) : s, steps, bounded};
            },
            [&](const LetStmt& l) -> Result {
              Result b = run(l.body);
              return {b.stmt == l.body ? s : makeLet(l.var, l.value, b.stmt), b.steps, b.bounded};
            },
            [&](const Prefetch&) -> Result { return {s, 1, true}; },
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
                     [&](const Prefetch&) {},
                 },
                 st->kind);
    };
    walk(s);
    return found;
  }

  int64_t max_tile_, max_steps_;
  std::unordered_set<const te::Buffer*> tiles_;
};

bool hasSelectOn(const Stmt& s, const te::VarNode* var);

// Emitted sizes (in expression nodes) for limit(). Unrolled loops multiply their body (or sum it
// over the iterations when selects depend on the index: with the index known, a select whose
// condition it decides counts only its taken branch, as the code generator emits only that one),
// vectorized loops emit one body per chunk of lanes, and a dynamic extent emits the body twice
// (full and tail version). limit() asks for the size of every unrolled loop's subtree, so sizes
// with no variable known are memoized per node; select conditions are decided once per
// structure and values of the known variables they use (a Winograd transform's tile repeats the
// same few conditions hundreds of times, each a simplification).
class SizeCounter {
 public:
  explicit SizeCounter(int lanes) : lanes_(lanes) {}

  int64_t size(const Stmt& s) {
    te::VarBounds known;
    return emitted(s, known);
  }

 private:
  int64_t emitted(const Stmt& s, te::VarBounds& known) {
    if (!s) return 0;
    const bool memoize = known.empty();
    if (memoize)
      if (auto it = sizes_.find(s.get()); it != sizes_.end()) return it->second;
    int64_t size = std::visit(
        Overload{
            [&](const For& f) -> int64_t {
              int64_t ext;
              bool constant = te::isConstInt(f.extent, &ext);
              int64_t versions = constant ? 1 : 2;
              if (f.kind == ForKind::Unrolled) {
                if (f.max_extent <= 64 && selectsOn(f)) {
                  int64_t total = 0;
                  for (int64_t k = 0; k < f.max_extent; ++k) {
                    known[f.var.get()] = te::IntBound::exact(k);
                    total += emitted(f.body, known);
                  }
                  known.erase(f.var.get());
                  return versions * total;
                }
                return versions * f.max_extent * emitted(f.body, known);
              }
              int64_t body = emitted(f.body, known);
              if (f.kind == ForKind::Vectorized) return versions * ((f.max_extent + lanes_ - 1) / lanes_) * body;
              return body + 1;
            },
            [&](const Store& st) -> int64_t { return 1 + exprSize(st.index, known) + exprSize(st.value, known); },
            [&](const IfThenElse& i) -> int64_t {
              return 1 + exprSize(i.cond, known) + emitted(i.then_case, known) + emitted(i.else_case, known);
            },
            [&](const Allocate& a) -> int64_t { return emitted(a.body, known); },
            [&](const Seq& q) -> int64_t {
              int64_t t = 0;
              for (const Stmt& c : q.stmts) t += emitted(c, known);
              return t;
            },
            [&](const LetStmt& l) -> int64_t { return emitted(l.body, known); },
            [&](const Prefetch& p) -> int64_t { return 1 + exprSize(p.index, known); },
        },
        s->kind);
    if (memoize) sizes_.emplace(s.get(), size);
    return size;
  }

  int64_t exprSize(const te::Expr& e, const te::VarBounds& known) {
    int64_t n = 0;
    std::function<void(const te::Expr&)> walk = [&](const te::Expr& x) {
      ++n;
      if (const te::Select* s = x.as<te::Select>(); s && !known.empty()) {
        if (std::optional<bool> taken = decide(s->cond, known)) {
          walk(*taken ? s->t : s->f);
          return;
        }
      }
      te::forEachChild(x, walk);
    };
    walk(e);
    return n;
  }

  // Whether the loop's body has a select on its variable (once per loop).
  bool selectsOn(const For& f) {
    auto [it, fresh] = selects_on_.try_emplace(&f, false);
    if (fresh) it->second = hasSelectOn(f.body, f.var.get());
    return it->second;
  }

  // The condition's value when the known variables decide it.
  std::optional<bool> decide(const te::Expr& cond, const te::VarBounds& known) {
    std::vector<std::pair<const te::VarNode*, int64_t>> used;
    te::visitAll(cond, [&](const te::Expr& x) {
      if (const te::VarRef* v = x.as<te::VarRef>())
        if (auto it = known.find(v->var.get()); it != known.end()) used.emplace_back(v->var.get(), it->second.lo);
    });
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    Hasher h;
    h.add(te::structuralHash(cond));
    for (const auto& [v, val] : used) h.add(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(v))).add(val);
    auto& same_hash = decisions_[h.value()];
    for (const Decision& d : same_hash)
      if (d.used == used && te::structurallyEqual(d.cond, cond)) return d.value;
    te::VarBounds relevant;
    for (const auto& [v, val] : used) relevant[v] = te::IntBound::exact(val);
    int64_t v;
    std::optional<bool> value;
    if (te::isConstInt(te::simplify(cond, relevant), &v)) value = v != 0;
    same_hash.push_back({cond, std::move(used), value});
    return value;
  }

  struct Decision {
    te::Expr cond;
    std::vector<std::pair<const te::VarNode*, int64_t>> used;
    std::optional<bool> value;
  };
  int lanes_;
  std::unordered_map<const StmtNode*, int64_t> sizes_;  // nodes of the statement being limited
  std::unordered_map<const For*, bool> selects_on_;
  std::unordered_map<uint64_t, std::vector<Decision>> decisions_;
};

// True when a select in the statement's expressions has a condition that uses var.
bool hasSelectOn(const Stmt& s, const te::VarNode* var) {
  bool found = false;
  auto scan = [&](const te::Expr& e) {
    if (found) return;
    te::visitAll(e, [&](const te::Expr& x) {
      if (const te::Select* sel = x.as<te::Select>(); sel && te::usesVar(sel->cond, var)) found = true;
    });
  };
  std::function<void(const Stmt&)> walk = [&](const Stmt& st) {
    if (!st || found) return;
    std::visit(Overload{
                   [&](const For& f) { scan(f.extent); walk(f.body); },
                   [&](const Store& x) { scan(x.index); scan(x.value); },
                   [&](const IfThenElse& i) { scan(i.cond); walk(i.then_case); walk(i.else_case); },
                   [&](const Allocate& a) { walk(a.body); },
                   [&](const Seq& q) { for (const Stmt& c : q.stmts) walk(c); },
                   [&](const LetStmt& l) { scan(l.value); walk(l.body); },
                   [&](const Prefetch& p) { scan(p.index); },
               },
               st->kind);
  };
  walk(s);
  return found;
}

Stmt limit(const Stmt& s, int64_t budget, SizeCounter& sizes) {
  if (!s) return s;
  return std::visit(Overload{
                        [&](const For& f) -> Stmt {
                          if (f.kind == ForKind::Unrolled && sizes.size(s) > budget) {
                            Stmt body = limit(f.body, budget, sizes);
                            return makeFor(f.var, f.extent, f.max_extent, ForKind::Serial, body);
                          }
                          Stmt body = limit(f.body, budget, sizes);
                          return body == f.body ? s : makeFor(f.var, f.extent, f.max_extent, f.kind, body);
                        },
                        [&](const Store&) -> Stmt { return s; },
                        [&](const IfThenElse& i) -> Stmt {
                          Stmt t = limit(i.then_case, budget, sizes), e = limit(i.else_case, budget, sizes);
                          return t == i.then_case && e == i.else_case ? s : makeIf(i.cond, t, e);
                        },
                        [&](const Allocate& a) -> Stmt {
                          Stmt b = limit(a.body, budget, sizes);
                          return b == a.body ? s : makeAllocate(a.buffer, b);
                        },
                        [&](const Seq& q) -> Stmt {
                          std::vector<Stmt> out;
                          bool changed = false;
                          for (const Stmt& c : q.stmts) {
                            out.push_back(limit(c, budget, sizes));
                            changed |= out.back() != c;
                          }
                          return changed ? makeSeq(std::move(out)) : s;
                        },
                        [&](const LetStmt& l) -> Stmt {
                          Stmt b = limit(l.body, budget, sizes);
                          return b == l.body ? s : makeLet(l.var, l.value, b);
                        },
                        [&](const Prefetch&) { return s; },
                    },
                    s->kind);
}

// Variables bound inside a statement (loop variables and lets).
void boundVars(const Stmt& s, std::unordered_set<const te::VarNode*>& out) {
  if (!s) return;
  std::visit(Overload{
                 [&](const For& f) { out.insert(f.var.get()); boundVars(f.body, out); },
                 [&](const Store&) {},
                 [&](const IfThenElse& i) { boundVars(i.then_case, out); boundVars(i.else_case, out); },
                 [&](const Allocate& a) { boundVars(a.body, out); },
                 [&](const Seq& q) { for (const Stmt& c : q.stmts) boundVars(c, out); },
                 [&](const LetStmt& l) { out.insert(l.var.get()); boundVars(l.body, out); },
                 [&](const Prefetch&) {},
             },
             s->kind);
}

bool usesAny(const te::Expr& e, const std::unordered_set<const te::VarNode*>& vars) {
  bool found = false;
  te::visitAll(e, [&](const te::Expr& x) {
    if (const te::VarRef* v = x.as<te::VarRef>(); v && vars.count(v->var.get())) found = true;
  });
  return found;
}

// Loops of `s` whose run-time extent depends on nothing bound inside `s`.
void invariantTails(const Stmt& s, const std::unordered_set<const te::VarNode*>& inner, std::vector<const For*>& out) {
  if (!s) return;
  std::visit(Overload{
                 [&](const For& f) {
                   if (!te::isConstInt(f.extent) && !usesAny(f.extent, inner)) out.push_back(&f);
                   invariantTails(f.body, inner, out);
                 },
                 [&](const Store&) {},
                 [&](const IfThenElse& i) {
                   invariantTails(i.then_case, inner, out);
                   invariantTails(i.else_case, inner, out);
                 },
                 [&](const Allocate& a) { invariantTails(a.body, inner, out); },
                 [&](const Seq& q) { for (const Stmt& c : q.stmts) invariantTails(c, inner, out); },
                 [&](const LetStmt& l) { invariantTails(l.body, inner, out); },
                 [&](const Prefetch&) {},
             },
             s->kind);
}

// `s` with the loops in `extents` given those constant extents (a loop at its maximum keeps it as
// its bound; a shorter one, a tail, gets the shorter bound unless it is vectorized, whose
// code covers its lanes up to the maximum with a mask).
Stmt withExtents(const Stmt& s, const std::unordered_map<const te::VarNode*, int64_t>& extents) {
  if (!s) return s;
  return std::visit(Overload{
                        [&](const For& f) -> Stmt {
                          Stmt body = withExtents(f.body, extents);
                          if (auto it = extents.find(f.var.get()); it != extents.end()) {
                            int64_t max = f.kind == ForKind::Vectorized ? f.max_extent : it->second;
                            return makeFor(f.var, te::intImm(it->second), max, f.kind, body);
                          }
                          return body == f.body ? s : makeFor(f.var, f.extent, f.max_extent, f.kind, body);
                        },
                        [&](const Store&) -> Stmt { return s; },
                        [&](const IfThenElse& i) -> Stmt {
                          Stmt t = withExtents(i.then_case, extents), e = withExtents(i.else_case, extents);
                          return t == i.then_case && e == i.else_case ? s : makeIf(i.cond, t, e);
                        },
                        [&](const Allocate& a) -> Stmt {
                          Stmt b = withExtents(a.body, extents);
                          return b == a.body ? s : makeAllocate(a.buffer, b);
                        },
                        [&](const Seq& q) -> Stmt {
                          std::vector<Stmt> out;
                          for (const Stmt& c : q.stmts) out.push_back(withExtents(c, extents));
                          return makeSeq(std::move(out));
                        },
                        [&](const LetStmt& l) -> Stmt {
                          Stmt b = withExtents(l.body, extents);
                          return b == l.body ? s : makeLet(l.var, l.value, b);
                        },
                        [&](const Prefetch&) { return s; },
                    },
                    s->kind);
}

// What encloses a region: loops with constant extents and the values of lets.
struct Enclosing {
  std::vector<std::pair<const te::VarNode*, int64_t>> loops;
  te::VarMap<te::Expr> lets;
};

// Every combination of values `exprs` take over the enclosing loops' iterations, when each is a
// function of those loops alone (lets inlined) and there are at most `max_points` iterations
// to try; nullopt otherwise. Combinations are in order of first appearance.
std::optional<std::vector<std::vector<int64_t>>> valueCombinations(const std::vector<te::Expr>& exprs,
                                                                   const Enclosing& enc, int64_t max_points) {
  std::vector<te::Expr> inlined;
  std::unordered_set<const te::VarNode*> used;
  for (te::Expr e : exprs) {
    for (int depth = 0; depth < 16; ++depth) {  // lets refer to outer lets; their nesting is shallow
      bool has_let = false;
      te::visitAll(e, [&](const te::Expr& x) {
        if (const te::VarRef* v = x.as<te::VarRef>(); v && enc.lets.count(v->var.get())) has_let = true;
      });
      if (!has_let) break;
      e = te::substitute(e, enc.lets);
    }
    te::visitAll(e, [&](const te::Expr& x) {
      if (const te::VarRef* v = x.as<te::VarRef>()) used.insert(v->var.get());
    });
    inlined.push_back(e);
  }
  std::vector<std::pair<const te::VarNode*, int64_t>> dims;
  int64_t points = 1;
  for (const auto& [var, extent] : enc.loops)
    if (used.count(var)) {
      dims.emplace_back(var, extent);
      points *= std::max<int64_t>(extent, 1);
      if (points > max_points) return std::nullopt;
      used.erase(var);
    }
  if (!used.empty()) return std::nullopt;  // a variable that is not an enclosing loop's
  std::vector<std::vector<int64_t>> combos;
  std::vector<int64_t> at(dims.size(), 0);
  for (int64_t p = 0; p < points; ++p) {
    te::VarMap<te::Expr> point;
    for (size_t d = 0; d < dims.size(); ++d) point[dims[d].first] = te::intImm(at[d]);
    std::vector<int64_t> values;
    for (const te::Expr& e : inlined) {
      int64_t v;
      if (!te::isConstInt(te::simplify(te::substitute(e, point)), &v)) return std::nullopt;
      values.push_back(v);
    }
    if (std::find(combos.begin(), combos.end(), values) == combos.end()) combos.push_back(values);
    for (size_t d = dims.size(); d-- > 0;) {  // next point, the innermost loop fastest
      if (++at[d] < dims[d].second) break;
      at[d] = 0;
    }
  }
  return combos;
}

// `region` as `if (full) <constant extents> else <region>` when it has invariant run-time extents.
// When the enclosing loops determine those extents and give them only a few other combinations
// (the tail tiles of non-dividing splits: a 14-wide image in tiles of 5 has one tail of 4), each
// such combination gets its own constant-extent version too, so tails run straight-line code
// rather than a guard per row; the guarded region stays as the last resort.
Stmt versionRegion(const Stmt& region, const Enclosing& enc) {
  std::unordered_set<const te::VarNode*> inner;
  boundVars(region, inner);
  std::vector<const For*> tails;
  invariantTails(region, inner, tails);
  if (tails.empty()) return region;
  std::vector<te::Expr> distinct;  // the distinct extent expressions, with their loops' maxima
  std::vector<int64_t> maxima;
  std::vector<size_t> which;       // tails[i]'s expression
  for (const For* f : tails) {
    size_t k = 0;
    while (k < distinct.size() && !te::structurallyEqual(distinct[k], f->extent)) ++k;
    if (k == distinct.size()) {
      distinct.push_back(f->extent);
      maxima.push_back(f->max_extent);
    }
    which.push_back(k);
  }
  auto versionFor = [&](const std::vector<int64_t>& values) {
    std::unordered_map<const te::VarNode*, int64_t> extents;
    for (size_t i = 0; i < tails.size(); ++i) extents[tails[i]->var.get()] = values[which[i]];
    return withExtents(region, extents);
  };
  auto condFor = [&](const std::vector<int64_t>& values) {
    std::optional<te::Expr> cond;
    for (size_t k = 0; k < distinct.size(); ++k) {
      te::Expr c = distinct[k] == te::intImm(values[k]);
      cond = cond ? (*cond && c) : c;
    }
    return *cond;
  };
  Stmt rest = region;
  constexpr int64_t kMaxPoints = 4096;  // iterations enumerated at compile time
  constexpr size_t kMaxTailVersions = 2;
  if (auto combos = valueCombinations(distinct, enc, kMaxPoints)) {
    std::vector<std::vector<int64_t>> shorter;
    for (const std::vector<int64_t>& c : *combos)
      if (c != maxima) shorter.push_back(c);
    bool fits = shorter.size() <= kMaxTailVersions;
    for (const std::vector<int64_t>& c : shorter)
      for (size_t k = 0; k < c.size(); ++k) fits = fits && c[k] >= 0 && c[k] <= maxima[k];
    if (fits)
      for (auto it = shorter.rbegin(); it != shorter.rend(); ++it) rest = makeIf(condFor(*it), versionFor(*it), rest);
  }
  return makeIf(condFor(maxima), versionFor(maxima), rest);
}

Stmt version(const Stmt& s, int64_t max_tile, Enclosing& enc) {
  if (!s) return s;
  return std::visit(Overload{
                        [&](const For& f) -> Stmt {
                          int64_t ext;
                          bool constant = te::isConstInt(f.extent, &ext);
                          if (constant) enc.loops.emplace_back(f.var.get(), ext);
                          Stmt body = version(f.body, max_tile, enc);
                          if (constant) enc.loops.pop_back();
                          return body == f.body ? s : makeFor(f.var, f.extent, f.max_extent, f.kind, body);
                        },
                        [&](const Store&) -> Stmt { return s; },
                        [&](const IfThenElse& i) -> Stmt {
                          Stmt t = version(i.then_case, max_tile, enc), e = version(i.else_case, max_tile, enc);
                          return t == i.then_case && e == i.else_case ? s : makeIf(i.cond, t, e);
                        },
                        [&](const Allocate& a) -> Stmt {
                          Stmt b = version(a.body, max_tile, enc);
                          return b == a.body ? s : makeAllocate(a.buffer, b);
                        },
                        [&](const Seq& q) -> Stmt {
                          // A register tile's region: the tile's allocation (its producer) and the
                          // statements after it that read it (the write-back).
                          bool has_tile = false;
                          for (const Stmt& c : q.stmts)
                            if (const Allocate* a = std::get_if<Allocate>(&c->kind))
                              has_tile = has_tile || (a->buffer->scope == te::MemScope::Local && a->buffer->size <= max_tile);
                          if (has_tile) return versionRegion(s, enc);
                          std::vector<Stmt> out;
                          bool changed = false;
                          for (const Stmt& c : q.stmts) {
                            out.push_back(version(c, max_tile, enc));
                            changed |= out.back() != c;
                          }
                          return changed ? makeSeq(std::move(out)) : s;
                        },
                        [&](const LetStmt& l) -> Stmt {
                          enc.lets[l.var.get()] = l.value;
                          Stmt b = version(l.body, max_tile, enc);
                          enc.lets.erase(l.var.get());
                          return b == l.body ? s : makeLet(l.var, l.value, b);
                        },
                        [&](const Prefetch&) { return s; },
                    },
                    s->kind);
}

}  // namespace

Stmt versionTiles(const Stmt& s, int64_t max_tile_elements) {
  Enclosing enc;
  return version(s, max_tile_elements, enc);
}

Stmt limitUnrolling(const Stmt& s, int64_t max_statements, int lanes) {
  SizeCounter sizes(std::max(1, lanes));  // valid while s is alive and unchanged: its nodes are keys
  return limit(s, max_statements, sizes);
}

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
                   [&](const Prefetch&) {},
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
                        [&](const Prefetch&) { return s; },
                    },
                    s->kind);
}

Stmt unrollRegisterTileLoops(const Stmt& s, int64_t max_tile_elements, int64_t max_steps) {
  return Pass(max_tile_elements, max_steps).run(s).stmt;
}

}  // namespace ttune::lower
