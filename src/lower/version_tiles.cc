#include "lower/version_tiles.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "lower/stmt_functor.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::lower {

namespace {

using VarSet = std::unordered_set<const te::VarNode*>;

// Variables bound inside a statement (loop variables and lets).
class BoundVars : public StmtVisitor {
 public:
  VarSet vars;

 protected:
  void visitFor(const For& f) override {
    vars.insert(f.var.get());
    StmtVisitor::visitFor(f);
  }
  void visitLet(const LetStmt& l) override {
    vars.insert(l.var.get());
    StmtVisitor::visitLet(l);
  }
};

bool usesAny(const te::Expr& e, const VarSet& vars) {
  bool found = false;
  te::visitAll(e, [&](const te::Expr& x) {
    if (const te::VarRef* v = x.as<te::VarRef>(); v && vars.count(v->var.get())) found = true;
  });
  return found;
}

// Loops whose run-time extent depends on nothing bound inside the statement visited (`inner`).
class InvariantTails : public StmtVisitor {
 public:
  explicit InvariantTails(const VarSet& inner) : inner_(inner) {}
  std::vector<const For*> loops;

 protected:
  void visitFor(const For& f) override {
    if (!te::isConstInt(f.extent) && !usesAny(f.extent, inner_)) loops.push_back(&f);
    StmtVisitor::visitFor(f);
  }

 private:
  const VarSet& inner_;
};

// The statement with the loops in `extents` given those constant extents (a loop at its maximum
// keeps it as its bound; a shorter one, a tail, gets the shorter bound unless it is vectorized,
// whose code covers its lanes up to the maximum with a mask).
class WithExtents : public StmtMutator {
 public:
  explicit WithExtents(const std::unordered_map<const te::VarNode*, int64_t>& extents) : extents_(extents) {}

 protected:
  Stmt mutateFor(const Stmt& s, const For& f) override {
    Stmt body = mutate(f.body);
    if (auto it = extents_.find(f.var.get()); it != extents_.end()) {
      int64_t max = f.kind == ForKind::Vectorized ? f.max_extent : it->second;
      return makeFor(f.var, te::intImm(it->second), max, f.kind, body);
    }
    return rebuildFor(s, f, f.kind, body);
  }

 private:
  const std::unordered_map<const te::VarNode*, int64_t>& extents_;
};

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
  VarSet used;
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
  BoundVars bound;
  bound.visit(region);
  InvariantTails invariant(bound.vars);
  invariant.visit(region);
  const std::vector<const For*>& tails = invariant.loops;
  if (tails.empty()) return region;
  std::vector<te::Expr> distinct;  // the distinct extent expressions, with their loops' maxima
  std::vector<int64_t> maxima;
  std::vector<size_t> which;  // tails[i]'s expression
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
    return WithExtents(extents).mutate(region);
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

// Versions every register tile's region, keeping track of what encloses it.
class Versioner : public StmtMutator {
 public:
  explicit Versioner(int64_t max_tile) : max_tile_(max_tile) {}

 protected:
  Stmt mutateFor(const Stmt& s, const For& f) override {
    int64_t ext;
    bool constant = te::isConstInt(f.extent, &ext);
    if (constant) enc_.loops.emplace_back(f.var.get(), ext);
    Stmt r = StmtMutator::mutateFor(s, f);
    if (constant) enc_.loops.pop_back();
    return r;
  }
  Stmt mutateSeq(const Stmt& s, const Seq& q) override {
    // A register tile's region: the tile's allocation (its producer) and the statements after it
    // that read it (the write-back).
    for (const Stmt& c : q.stmts)
      if (const Allocate* a = std::get_if<Allocate>(&c->kind); a && isRegisterTile(*a->buffer, max_tile_))
        return versionRegion(s, enc_);
    return StmtMutator::mutateSeq(s, q);
  }
  Stmt mutateLet(const Stmt& s, const LetStmt& l) override {
    enc_.lets[l.var.get()] = l.value;
    Stmt r = StmtMutator::mutateLet(s, l);
    enc_.lets.erase(l.var.get());
    return r;
  }

 private:
  int64_t max_tile_;
  Enclosing enc_;
};

}  // namespace

Stmt versionTiles(const Stmt& s, int64_t max_tile_elements) { return Versioner(max_tile_elements).mutate(s); }

}  // namespace ttune::lower
