// Generic traversal and rewriting of loop IR statements, so that a pass states only what it does
// at the statement kinds it cares about instead of repeating a walk over all of them.
//
// StmtVisitor walks a statement read-only: visit(s) calls the hook for s's kind, and every hook's
// default visits the kind's expressions (visitExpr, in field order) and then its child statements
// in order, so an override that still wants the children calls the base hook or visit() on them.
// StmtMutator rebuilds a statement bottom-up: mutate(s) calls the hook for s's kind, whose default
// mutates the child statements and returns s itself (the same node) when none changed, a node
// rebuilt with the new children otherwise (a Seq through makeSeq, which flattens and drops nulls).
// Expressions are carried over unchanged. Both take null statements (an absent else) as empty.
//
// Dispatch is one std::visit with a hook per kind of StmtNode::Kind, checked against its size: a
// new statement kind fails to compile here until it has hooks, and passes that must treat it
// specially are found by overriding them.
#pragma once

#include <variant>

#include "lower/loop_ir.h"

namespace ttune::lower {

static_assert(std::variant_size_v<StmtNode::Kind> == 7,
              "a new statement kind needs a hook in StmtVisitor and StmtMutator");

class StmtVisitor {
 public:
  virtual ~StmtVisitor() = default;
  void visit(const Stmt& s);

 protected:
  // Every expression the default hooks reach (For extent, Store index and value, If condition,
  // Let value, Prefetch index). Does nothing by default.
  virtual void visitExpr(const te::Expr&) {}
  virtual void visitFor(const For& f);
  virtual void visitStore(const Store& s);
  virtual void visitIf(const IfThenElse& i);
  virtual void visitAllocate(const Allocate& a);
  virtual void visitSeq(const Seq& q);
  virtual void visitLet(const LetStmt& l);
  virtual void visitPrefetch(const Prefetch& p);
  // Once called, visit() returns at once: a search that has its answer skips the rest.
  void stop() { stopped_ = true; }
  bool stopped() const { return stopped_; }

 private:
  bool stopped_ = false;
};

class StmtMutator {
 public:
  virtual ~StmtMutator() = default;
  Stmt mutate(const Stmt& s);

 protected:
  // `s` is the node whose kind is the second argument: returning it means "unchanged".
  virtual Stmt mutateFor(const Stmt& s, const For& f);
  virtual Stmt mutateStore(const Stmt& s, const Store& st);
  virtual Stmt mutateIf(const Stmt& s, const IfThenElse& i);
  virtual Stmt mutateAllocate(const Stmt& s, const Allocate& a);
  virtual Stmt mutateSeq(const Stmt& s, const Seq& q);
  virtual Stmt mutateLet(const Stmt& s, const LetStmt& l);
  virtual Stmt mutatePrefetch(const Stmt& s, const Prefetch& p);
  // Loop `f` (node s) with the given kind and body: s itself when both are f's.
  static Stmt rebuildFor(const Stmt& s, const For& f, ForKind kind, Stmt body);
};

}  // namespace ttune::lower
