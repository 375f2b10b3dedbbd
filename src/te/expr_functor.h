// Generic traversal and rewriting of expressions: child iteration, post-order visits, rebuilding
// with mapped children, and variable substitution. Passes that only need these stay small.
#pragma once

#include <functional>
#include <unordered_map>

#include "te/expr.h"

namespace ttune::te {

template <class V>
using VarMap = std::unordered_map<const VarNode*, V>;

// Calls fn on each direct child (Reduce: source then cond; axes are not expressions).
void forEachChild(const Expr& e, const std::function<void(const Expr&)>& fn);
// Post-order visit of every node.
void visitAll(const Expr& e, const std::function<void(const Expr&)>& fn);
// Rebuilds e with each child replaced by f(child); returns e itself if nothing changed.
Expr mapChildren(const Expr& e, const std::function<Expr(const Expr&)>& f);
// Replaces variables by expressions.
Expr substitute(const Expr& e, const VarMap<Expr>& map);
// True when e mentions var.
bool usesVar(const Expr& e, const VarNode* var);
// True when e contains any TensorRead or BufferLoad (so it is not safe to evaluate speculatively).
bool hasMemoryRead(const Expr& e);
// Rewrites every TensorRead with f(read node, already-rewritten indices).
Expr rewriteReads(const Expr& e, const std::function<Expr(const TensorRead&, std::vector<Expr>)>& f);
// Structural equality (vars by identity, buffers and tensors by identity).
bool structurallyEqual(const Expr& a, const Expr& b);
// A hash consistent with structurallyEqual (equal expressions hash equal), for sets and memos
// keyed by expressions within one process: vars, buffers and tensors hash by address.
uint64_t structuralHash(const Expr& e);

}  // namespace ttune::te
