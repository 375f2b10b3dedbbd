#include "lower/register_tile_unroll.h"

#include <algorithm>
#include <unordered_set>

#include "lower/stmt_functor.h"
#include "te/expr_functor.h"

namespace ttune::lower {

namespace {

using TileSet = std::unordered_set<const te::Buffer*>;

// Whether a statement reads or writes a tile at an index that depends on `var` (stores' indices
// and values only: that is where tile accesses are).
class IndexesTile : public StmtVisitor {
 public:
  IndexesTile(const TileSet& tiles, const te::VarNode* var) : tiles_(tiles), var_(var) {}
  bool found() const { return stopped(); }

 protected:
  void visitStore(const Store& x) override {
    if (tiles_.count(x.buffer.get()) && te::usesVar(x.index, var_)) stop();
    te::visitAll(x.value, [&](const te::Expr& e) {
      if (const te::BufferLoad* l = e.as<te::BufferLoad>())
        if (tiles_.count(l->buffer.get()) && te::usesVar(l->index, var_)) stop();
    });
  }

 private:
  const TileSet& tiles_;
  const te::VarNode* var_;
};

// Counts, in steps_, the steps of what it mutates; tiles_ holds the tiles in scope.
class Unroller : public StmtMutator {
 public:
  Unroller(int64_t max_tile, int64_t max_steps) : max_tile_(max_tile), max_steps_(max_steps) {}

 protected:
  Stmt mutateFor(const Stmt& s, const For& f) override {
    int64_t outer = steps_;
    steps_ = 0;
    Stmt body = mutate(f.body);
    int64_t steps = (f.kind == ForKind::Vectorized ? 1 : f.max_extent) * steps_;
    steps_ = outer + steps;
    ForKind kind = f.kind;
    if (kind == ForKind::Serial && steps <= max_steps_ && indexesTile(f.body, f.var.get())) kind = ForKind::Unrolled;
    return rebuildFor(s, f, kind, body);
  }
  Stmt mutateStore(const Stmt& s, const Store&) override {
    ++steps_;
    return s;
  }
  Stmt mutatePrefetch(const Stmt& s, const Prefetch&) override {
    ++steps_;
    return s;
  }
  Stmt mutateIf(const Stmt& s, const IfThenElse& i) override {
    int64_t outer = steps_;
    steps_ = 0;
    Stmt r = StmtMutator::mutateIf(s, i);
    steps_ = outer + std::max<int64_t>(1, steps_);
    return r;
  }
  Stmt mutateAllocate(const Stmt& s, const Allocate& a) override {
    bool mine = isRegisterTile(*a.buffer, max_tile_) && tiles_.insert(a.buffer.get()).second;
    Stmt r = StmtMutator::mutateAllocate(s, a);
    if (mine) tiles_.erase(a.buffer.get());
    return r;
  }
  Stmt mutateSeq(const Stmt& s, const Seq& q) override {
    // A tile allocated by one statement of a sequence is read by the ones after it (its
    // write-back): it is a tile for all of them.
    std::vector<const te::Buffer*> added;
    for (const Stmt& c : q.stmts)
      if (const Allocate* a = std::get_if<Allocate>(&c->kind);
          a && isRegisterTile(*a->buffer, max_tile_) && tiles_.insert(a->buffer.get()).second)
        added.push_back(a->buffer.get());
    Stmt r = StmtMutator::mutateSeq(s, q);
    for (const te::Buffer* b : added) tiles_.erase(b);
    return r;
  }

 private:
  bool indexesTile(const Stmt& s, const te::VarNode* var) const {
    IndexesTile search(tiles_, var);
    search.visit(s);
    return search.found();
  }

  int64_t max_tile_, max_steps_;
  int64_t steps_ = 0;
  TileSet tiles_;
};

}  // namespace

Stmt unrollRegisterTileLoops(const Stmt& s, int64_t max_tile_elements, int64_t max_steps) {
  return Unroller(max_tile_elements, max_steps).mutate(s);
}

}  // namespace ttune::lower
