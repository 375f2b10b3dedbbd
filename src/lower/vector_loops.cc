#include "lower/vector_loops.h"

#include <unordered_map>

#include "lower/stmt_functor.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::lower {

namespace {

// Checks the body's statements and collects its stores and loads (the loads of store indices and
// values, if conditions and let values: loop extents and prefetches load nothing that matters).
// Stops at the first statement that is not lane-parallel.
class LaneCheck : public StmtVisitor {
 public:
  explicit LaneCheck(const te::VarNode* lane) : lane_(lane) {}

  bool parallel(const Stmt& body) {
    visit(body);
    if (stopped()) return false;
    for (const auto& [buf, idx] : loads_) {
      auto it = stored_.find(buf);
      if (it == stored_.end()) continue;
      bool same = false;
      for (const te::Expr& e : it->second) same = same || te::structurallyEqual(e, idx);
      if (!same) return false;
    }
    return true;
  }

 protected:
  void visitExpr(const te::Expr& e) override {
    te::visitAll(e, [&](const te::Expr& x) {
      if (const te::BufferLoad* l = x.as<te::BufferLoad>()) loads_.emplace_back(l->buffer.get(), l->index);
    });
  }
  void visitFor(const For& f) override {
    if (te::usesVar(f.extent, lane_) || f.kind == ForKind::Parallel) stop();
    visit(f.body);
  }
  void visitStore(const Store& s) override {
    auto coef = te::linearCoefficient(s.index, lane_);
    if (!coef || *coef == 0) stop();
    stored_[s.buffer.get()].push_back(s.index);
    StmtVisitor::visitStore(s);
  }
  void visitAllocate(const Allocate&) override { stop(); }
  void visitPrefetch(const Prefetch&) override {}

 private:
  const te::VarNode* lane_;
  std::unordered_map<const te::Buffer*, std::vector<te::Expr>> stored_;
  std::vector<std::pair<const te::Buffer*, te::Expr>> loads_;
};

class VectorLoops : public StmtMutator {
 protected:
  Stmt mutateFor(const Stmt& s, const For& f) override {
    Stmt body = mutate(f.body);
    ForKind kind = f.kind;
    if (kind == ForKind::Vectorized && (f.max_extent <= 1 || !isLaneParallel(body, f.var.get())))
      kind = f.max_extent <= 16 ? ForKind::Unrolled : ForKind::Serial;
    return rebuildFor(s, f, kind, body);
  }
};

}  // namespace

bool isLaneParallel(const Stmt& body, const te::VarNode* lane) { return LaneCheck(lane).parallel(body); }

Stmt resolveVectorLoops(const Stmt& s) { return VectorLoops().mutate(s); }

}  // namespace ttune::lower
