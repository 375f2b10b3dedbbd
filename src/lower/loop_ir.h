// The loop IR: imperative loop nests over flat buffers, produced by lowering a State and consumed
// by the code generator and the cost model's feature extractor.
//
// Statements are immutable shared nodes over a closed variant (Prefetch is a hint only).
// Expressions are te::Expr where tensor reads have become BufferLoad(buffer, flat index). Loops
// run from 0 to `extent` (an expression; `max_extent` is a constant upper bound, equal to extent
// when it is constant).
// Loop kinds:
//   Serial     an ordinary loop;
//   Parallel   iterations run on the thread pool; never nested inside another Parallel;
//   Vectorized the body runs once for max_extent lanes with vector instructions (when extent is
//              smaller at run time the code generator falls back to a scalar loop);
//   Unrolled   the body is replicated (same fallback for a smaller run-time extent).
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "te/expr.h"

namespace ttune::lower {

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled };
const char* forKindName(ForKind k);

struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

struct For {
  te::Var var;
  te::Expr extent;
  int64_t max_extent = 0;
  ForKind kind = ForKind::Serial;
  Stmt body;
};
struct Store {
  te::BufferRef buffer;
  te::Expr index;
  te::Expr value;
};
struct IfThenElse {
  te::Expr cond;
  Stmt then_case;
  Stmt else_case;  // may be null
};
// Makes `buffer` (Local or Global scope) exist for the duration of body.
struct Allocate {
  te::BufferRef buffer;
  Stmt body;
};
struct Seq {
  std::vector<Stmt> stmts;
};
struct LetStmt {
  te::Var var;
  te::Expr value;
  Stmt body;
};
// A hint that buffer[index] is read soon (lower/prefetch.h): the code generator issues a
// prefetch of its cache line outside vector bodies. Changes no value.
struct Prefetch {
  te::BufferRef buffer;
  te::Expr index;
};

struct StmtNode {
  using Kind = std::variant<For, Store, IfThenElse, Allocate, Seq, LetStmt, Prefetch>;
  Kind kind;
};

Stmt makeFor(te::Var var, te::Expr extent, int64_t max_extent, ForKind kind, Stmt body);
Stmt makeStore(te::BufferRef buffer, te::Expr index, te::Expr value);
Stmt makeIf(te::Expr cond, Stmt then_case, Stmt else_case = nullptr);
Stmt makeAllocate(te::BufferRef buffer, Stmt body);
Stmt makeSeq(std::vector<Stmt> stmts);  // flattens nested Seqs, drops nulls
Stmt makeLet(te::Var var, te::Expr value, Stmt body);
Stmt makePrefetch(te::BufferRef buffer, te::Expr index);

// A lowered kernel: `args` are the kernel arguments in ComputeDAG::tensors() order, followed by
// the size parameters its loop extents use (ComputeDAG::sizeParams(), each an int64).
struct LoweredFunc {
  std::string name;
  std::vector<te::BufferRef> args;
  Stmt body;
  std::vector<te::Var> size_params;
};

std::string toString(const Stmt& s, int indent = 0);
std::string toString(const LoweredFunc& f);

}  // namespace ttune::lower
