// StmtVisitor and StmtMutator (lower/stmt_functor.h): the visitor reaches every statement kind
// and every expression; the mutator gives back the very node when nothing changes and rebuilds
// only the path to what did.
#include <gtest/gtest.h>

#include <map>

#include "ir_builders.h"
#include "lower/stmt_functor.h"

namespace ttune {
namespace {

using lower::ForKind;
using lower::Stmt;
using testing::buffer;

// let n = 4; allocate T[8]; { for i in [0, n): T[i] = A[i]; if n > 2 prefetch A[0] else C[0] = 1 }
struct EveryKind {
  te::Var n{"n"}, i{"i"};
  te::BufferRef a = buffer("A", 8), c = buffer("C", 8), t = buffer("T", 8, te::MemScope::Local);
  Stmt store = lower::makeStore(t, i, te::bufferLoad(a, i));
  Stmt loop = lower::makeFor(i, n, 4, ForKind::Serial, store);
  Stmt branch = lower::makeIf(te::Expr(n) > te::intImm(2), lower::makePrefetch(a, te::intImm(0)),
                              lower::makeStore(c, te::intImm(0), te::floatImm(1)));
  Stmt root = lower::makeLet(n, te::intImm(4), lower::makeAllocate(t, lower::makeSeq({loop, branch})));
};

struct KindCounter : lower::StmtVisitor {
  std::map<std::string, int> kinds;
  int exprs = 0;
  void visitExpr(const te::Expr&) override { ++exprs; }
  void visitFor(const lower::For& f) override {
    ++kinds["for"];
    StmtVisitor::visitFor(f);
  }
  void visitStore(const lower::Store& s) override {
    ++kinds["store"];
    StmtVisitor::visitStore(s);
  }
  void visitIf(const lower::IfThenElse& i) override {
    ++kinds["if"];
    StmtVisitor::visitIf(i);
  }
  void visitAllocate(const lower::Allocate& a) override {
    ++kinds["allocate"];
    StmtVisitor::visitAllocate(a);
  }
  void visitSeq(const lower::Seq& q) override {
    ++kinds["seq"];
    StmtVisitor::visitSeq(q);
  }
  void visitLet(const lower::LetStmt& l) override {
    ++kinds["let"];
    StmtVisitor::visitLet(l);
  }
  void visitPrefetch(const lower::Prefetch& p) override {
    ++kinds["prefetch"];
    StmtVisitor::visitPrefetch(p);
  }
};

TEST(StmtVisitor, VisitsEveryKindAndEveryExpression) {
  EveryKind ir;
  KindCounter count;
  count.visit(ir.root);
  std::map<std::string, int> expected{{"allocate", 1}, {"for", 1}, {"if", 1},   {"let", 1},
                                      {"prefetch", 1}, {"seq", 1}, {"store", 2}};
  EXPECT_EQ(count.kinds, expected);
  // The let's value, the loop's extent, two stores' index and value, the condition, the prefetch's index.
  EXPECT_EQ(count.exprs, 8);
  count.visit(nullptr);  // an absent statement is empty
  EXPECT_EQ(count.exprs, 8);
}

// Stops at the first store.
struct FirstStore : lower::StmtVisitor {
  int stores = 0;
  void visitStore(const lower::Store&) override {
    ++stores;
    stop();
  }
};

TEST(StmtVisitor, StopEndsTheWalk) {
  EveryKind ir;
  FirstStore first;
  first.visit(ir.root);
  EXPECT_EQ(first.stores, 1);
}

TEST(StmtMutator, ReturnsTheSameNodeWhenNothingChanges) {
  EveryKind ir;
  lower::StmtMutator identity;
  EXPECT_EQ(identity.mutate(ir.root), ir.root);
  EXPECT_EQ(identity.mutate(nullptr), nullptr);
}

struct UnrollAll : lower::StmtMutator {
  Stmt mutateFor(const Stmt& s, const lower::For& f) override {
    return rebuildFor(s, f, ForKind::Unrolled, mutate(f.body));
  }
};

TEST(StmtMutator, RebuildsOnlyThePathToAChange) {
  EveryKind ir;
  Stmt out = UnrollAll().mutate(ir.root);
  ASSERT_NE(out, ir.root);
  const auto& let = std::get<lower::LetStmt>(out->kind);
  const auto& alloc = std::get<lower::Allocate>(let.body->kind);
  const auto& seq = std::get<lower::Seq>(alloc.body->kind);
  ASSERT_EQ(seq.stmts.size(), 2u);
  const auto& f = std::get<lower::For>(seq.stmts[0]->kind);
  EXPECT_EQ(f.kind, ForKind::Unrolled);
  EXPECT_EQ(f.body, ir.store);         // below the change: shared
  EXPECT_EQ(seq.stmts[1], ir.branch);  // beside it: shared
  EXPECT_EQ(let.var.get(), ir.n.get());
  EXPECT_EQ(alloc.buffer, ir.t);
}

}  // namespace
}  // namespace ttune
