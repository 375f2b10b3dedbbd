#include "lower/stmt_functor.h"

#include "support/overload.h"

namespace ttune::lower {

void StmtVisitor::visit(const Stmt& s) {
  if (!s || stopped_) return;
  std::visit(Overload{
                 [&](const For& x) { visitFor(x); },
                 [&](const Store& x) { visitStore(x); },
                 [&](const IfThenElse& x) { visitIf(x); },
                 [&](const Allocate& x) { visitAllocate(x); },
                 [&](const Seq& x) { visitSeq(x); },
                 [&](const LetStmt& x) { visitLet(x); },
                 [&](const Prefetch& x) { visitPrefetch(x); },
             },
             s->kind);
}

void StmtVisitor::visitFor(const For& f) {
  visitExpr(f.extent);
  visit(f.body);
}
void StmtVisitor::visitStore(const Store& s) {
  visitExpr(s.index);
  visitExpr(s.value);
}
void StmtVisitor::visitIf(const IfThenElse& i) {
  visitExpr(i.cond);
  visit(i.then_case);
  visit(i.else_case);
}
void StmtVisitor::visitAllocate(const Allocate& a) { visit(a.body); }
void StmtVisitor::visitSeq(const Seq& q) {
  for (const Stmt& c : q.stmts) visit(c);
}
void StmtVisitor::visitLet(const LetStmt& l) {
  visitExpr(l.value);
  visit(l.body);
}
void StmtVisitor::visitPrefetch(const Prefetch& p) { visitExpr(p.index); }

Stmt StmtMutator::mutate(const Stmt& s) {
  if (!s) return s;
  return std::visit(Overload{
                        [&](const For& x) { return mutateFor(s, x); },
                        [&](const Store& x) { return mutateStore(s, x); },
                        [&](const IfThenElse& x) { return mutateIf(s, x); },
                        [&](const Allocate& x) { return mutateAllocate(s, x); },
                        [&](const Seq& x) { return mutateSeq(s, x); },
                        [&](const LetStmt& x) { return mutateLet(s, x); },
                        [&](const Prefetch& x) { return mutatePrefetch(s, x); },
                    },
                    s->kind);
}

Stmt StmtMutator::rebuildFor(const Stmt& s, const For& f, ForKind kind, Stmt body) {
  return kind == f.kind && body == f.body ? s : makeFor(f.var, f.extent, f.max_extent, kind, std::move(body));
}

Stmt StmtMutator::mutateFor(const Stmt& s, const For& f) { return rebuildFor(s, f, f.kind, mutate(f.body)); }
Stmt StmtMutator::mutateStore(const Stmt& s, const Store&) { return s; }
Stmt StmtMutator::mutateIf(const Stmt& s, const IfThenElse& i) {
  Stmt t = mutate(i.then_case), e = mutate(i.else_case);
  return t == i.then_case && e == i.else_case ? s : makeIf(i.cond, std::move(t), std::move(e));
}
Stmt StmtMutator::mutateAllocate(const Stmt& s, const Allocate& a) {
  Stmt b = mutate(a.body);
  return b == a.body ? s : makeAllocate(a.buffer, std::move(b));
}
Stmt StmtMutator::mutateSeq(const Stmt& s, const Seq& q) {
  std::vector<Stmt> out;
  out.reserve(q.stmts.size());
  bool changed = false;
  for (const Stmt& c : q.stmts) {
    out.push_back(mutate(c));
    changed |= out.back() != c;
  }
  return changed ? makeSeq(std::move(out)) : s;
}
Stmt StmtMutator::mutateLet(const Stmt& s, const LetStmt& l) {
  Stmt b = mutate(l.body);
  return b == l.body ? s : makeLet(l.var, l.value, std::move(b));
}
Stmt StmtMutator::mutatePrefetch(const Stmt& s, const Prefetch&) { return s; }

}  // namespace ttune::lower
