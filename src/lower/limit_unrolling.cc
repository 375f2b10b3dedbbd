#include "lower/limit_unrolling.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>

#include "lower/stmt_functor.h"
#include "support/hash.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::lower {

namespace {

// Whether a select in a statement's expressions has a condition that uses var.
class SelectOn : public StmtVisitor {
 public:
  explicit SelectOn(const te::VarNode* var) : var_(var) {}
  bool found() const { return stopped(); }

 protected:
  void visitExpr(const te::Expr& e) override {
    te::visitAll(e, [&](const te::Expr& x) {
      if (const te::Select* sel = x.as<te::Select>(); sel && te::usesVar(sel->cond, var_)) stop();
    });
  }

 private:
  const te::VarNode* var_;
};

bool hasSelectOn(const Stmt& s, const te::VarNode* var) {
  SelectOn search(var);
  search.visit(s);
  return search.found();
}

// Emitted sizes (in expression nodes) for limit(). Unrolled loops multiply their body (or sum it
// over the iterations when selects depend on the index: with the index known, a select whose
// condition it decides counts only its taken branch, as the code generator emits only that one),
// vectorized loops emit one body per chunk of lanes, and a dynamic extent emits the body twice
// (full and tail version). limit() asks for the size of every unrolled loop's subtree, so loop
// sizes with no variable known are memoized per loop; select conditions are decided once per
// structure and values of the known variables they use (a Winograd transform's tile repeats the
// same few conditions hundreds of times, each a simplification). Stores, ifs and prefetches
// count one node besides their expressions; loop extents and let values are not counted.
class SizeCounter : public StmtVisitor {
 public:
  explicit SizeCounter(int lanes) : lanes_(lanes) {}

  int64_t size(const Stmt& s) { return emitted(s); }

 protected:
  void visitExpr(const te::Expr& e) override { size_ += exprSize(e); }
  void visitFor(const For& f) override {
    const bool memoize = known_.empty();
    if (memoize)
      if (auto it = sizes_.find(&f); it != sizes_.end()) {
        size_ += it->second;
        return;
      }
    int64_t n = loopSize(f);
    if (memoize) sizes_.emplace(&f, n);
    size_ += n;
  }
  void visitStore(const Store& s) override {
    ++size_;
    StmtVisitor::visitStore(s);
  }
  void visitIf(const IfThenElse& i) override {
    ++size_;
    StmtVisitor::visitIf(i);
  }
  void visitLet(const LetStmt& l) override { visit(l.body); }
  void visitPrefetch(const Prefetch& p) override {
    ++size_;
    StmtVisitor::visitPrefetch(p);
  }

 private:
  int64_t emitted(const Stmt& s) {
    int64_t outer = size_;
    size_ = 0;
    visit(s);
    int64_t n = size_;
    size_ = outer;
    return n;
  }

  int64_t loopSize(const For& f) {
    int64_t versions = te::isConstInt(f.extent) ? 1 : 2;
    if (f.kind == ForKind::Unrolled) {
      if (f.max_extent <= 64 && selectsOn(f)) {
        int64_t total = 0;
        for (int64_t k = 0; k < f.max_extent; ++k) {
          known_[f.var.get()] = te::IntBound::exact(k);
          total += emitted(f.body);
        }
        known_.erase(f.var.get());
        return versions * total;
      }
      return versions * f.max_extent * emitted(f.body);
    }
    int64_t body = emitted(f.body);
    if (f.kind == ForKind::Vectorized) return versions * ((f.max_extent + lanes_ - 1) / lanes_) * body;
    return body + 1;
  }

  int64_t exprSize(const te::Expr& e) {
    int64_t n = 0;
    std::function<void(const te::Expr&)> walk = [&](const te::Expr& x) {
      ++n;
      if (const te::Select* s = x.as<te::Select>(); s && !known_.empty()) {
        if (std::optional<bool> taken = decide(s->cond)) {
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
  std::optional<bool> decide(const te::Expr& cond) {
    std::vector<std::pair<const te::VarNode*, int64_t>> used;
    te::visitAll(cond, [&](const te::Expr& x) {
      if (const te::VarRef* v = x.as<te::VarRef>())
        if (auto it = known_.find(v->var.get()); it != known_.end()) used.emplace_back(v->var.get(), it->second.lo);
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
  int64_t size_ = 0;                               // of the statement being counted
  te::VarBounds known_;                            // unrolled loop variables at one of their values
  std::unordered_map<const For*, int64_t> sizes_;  // loops of the statement being limited
  std::unordered_map<const For*, bool> selects_on_;
  std::unordered_map<uint64_t, std::vector<Decision>> decisions_;
};

// Unrolled loops over the budget, outermost first, become serial.
class Limiter : public StmtMutator {
 public:
  Limiter(int64_t budget, int lanes) : budget_(budget), sizes_(lanes) {}

 protected:
  Stmt mutateFor(const Stmt& s, const For& f) override {
    if (f.kind == ForKind::Unrolled && sizes_.size(s) > budget_)
      return rebuildFor(s, f, ForKind::Serial, mutate(f.body));
    return StmtMutator::mutateFor(s, f);
  }

 private:
  int64_t budget_;
  SizeCounter sizes_;  // valid while the statement is alive and unchanged: its loops are keys
};

}  // namespace

Stmt limitUnrolling(const Stmt& s, int64_t max_nodes, int lanes) {
  return Limiter(max_nodes, std::max(1, lanes)).mutate(s);
}

}  // namespace ttune::lower
