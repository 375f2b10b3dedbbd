#include "te/expr_functor.h"

#include "support/assert.h"
#include "support/hash.h"
#include "support/overload.h"

namespace ttune::te {

void forEachChild(const Expr& e, const std::function<void(const Expr&)>& fn) {
  std::visit(Overload{
                 [](const IntImm&) {},
                 [](const FloatImm&) {},
                 [](const VarRef&) {},
                 [&](const Binary& n) {
                   fn(n.a);
                   fn(n.b);
                 },
                 [&](const Unary& n) { fn(n.a); },
                 [&](const Select& n) {
                   fn(n.cond);
                   fn(n.t);
                   fn(n.f);
                 },
                 [&](const Cast& n) { fn(n.a); },
                 [&](const TensorRead& n) {
                   for (const Expr& i : n.indices) fn(i);
                 },
                 [&](const BufferLoad& n) { fn(n.index); },
                 [&](const Reduce& n) {
                   fn(n.source);
                   if (n.cond.defined()) fn(n.cond);
                 },
             },
             e.node().kind);
}

void visitAll(const Expr& e, const std::function<void(const Expr&)>& fn) {
  forEachChild(e, [&](const Expr& c) { visitAll(c, fn); });
  fn(e);
}

Expr mapChildren(const Expr& e, const std::function<Expr(const Expr&)>& f) {
  return std::visit(Overload{
                        [&](const IntImm&) { return e; },
                        [&](const FloatImm&) { return e; },
                        [&](const VarRef&) { return e; },
                        [&](const Binary& n) {
                          Expr a = f(n.a), b = f(n.b);
                          return a.same(n.a) && b.same(n.b) ? e : binary(n.op, a, b);
                        },
                        [&](const Unary& n) {
                          Expr a = f(n.a);
                          return a.same(n.a) ? e : unary(n.op, a);
                        },
                        [&](const Select& n) {
                          Expr c = f(n.cond), t = f(n.t), fl = f(n.f);
                          return c.same(n.cond) && t.same(n.t) && fl.same(n.f) ? e : select(c, t, fl);
                        },
                        [&](const Cast& n) {
                          Expr a = f(n.a);
                          return a.same(n.a) ? e : cast(e.dtype(), a);
                        },
                        [&](const TensorRead& n) {
                          std::vector<Expr> idx;
                          bool changed = false;
                          for (const Expr& i : n.indices) {
                            idx.push_back(f(i));
                            changed |= !idx.back().same(i);
                          }
                          return changed ? n.tensor(idx) : e;
                        },
                        [&](const BufferLoad& n) {
                          Expr i = f(n.index);
                          return i.same(n.index) ? e : bufferLoad(n.buffer, i);
                        },
                        [&](const Reduce& n) {
                          Expr s = f(n.source);
                          Expr c = n.cond.defined() ? f(n.cond) : Expr();
                          return s.same(n.source) && c.same(n.cond) ? e : reduce(n.kind, s, n.axes, c);
                        },
                    },
                    e.node().kind);
}

Expr substitute(const Expr& e, const VarMap<Expr>& map) {
  if (map.empty()) return e;
  if (const VarRef* v = e.as<VarRef>()) {
    auto it = map.find(v->var.get());
    return it == map.end() ? e : it->second;
  }
  return mapChildren(e, [&](const Expr& c) { return substitute(c, map); });
}

bool usesVar(const Expr& e, const VarNode* var) {
  if (const VarRef* v = e.as<VarRef>()) return v->var.get() == var;
  bool found = false;
  forEachChild(e, [&](const Expr& c) { found = found || usesVar(c, var); });
  return found;
}

bool hasMemoryRead(const Expr& e) {
  if (e.as<TensorRead>() || e.as<BufferLoad>()) return true;
  bool found = false;
  forEachChild(e, [&](const Expr& c) { found = found || hasMemoryRead(c); });
  return found;
}

Expr rewriteReads(const Expr& e, const std::function<Expr(const TensorRead&, std::vector<Expr>)>& f) {
  if (const TensorRead* r = e.as<TensorRead>()) {
    std::vector<Expr> idx;
    for (const Expr& i : r->indices) idx.push_back(rewriteReads(i, f));
    return f(*r, std::move(idx));
  }
  return mapChildren(e, [&](const Expr& c) { return rewriteReads(c, f); });
}

bool structurallyEqual(const Expr& a, const Expr& b) {
  if (a.same(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a.dtype() != b.dtype() || a.node().kind.index() != b.node().kind.index()) return false;
  return std::visit(Overload{
                        [&](const IntImm& x) { return x.value == std::get<IntImm>(b.node().kind).value; },
                        [&](const FloatImm& x) { return x.value == std::get<FloatImm>(b.node().kind).value; },
                        [&](const VarRef& x) { return x.var.same(std::get<VarRef>(b.node().kind).var); },
                        [&](const Binary& x) {
                          const auto& y = std::get<Binary>(b.node().kind);
                          return x.op == y.op && structurallyEqual(x.a, y.a) && structurallyEqual(x.b, y.b);
                        },
                        [&](const Unary& x) {
                          const auto& y = std::get<Unary>(b.node().kind);
                          return x.op == y.op && structurallyEqual(x.a, y.a);
                        },
                        [&](const Select& x) {
                          const auto& y = std::get<Select>(b.node().kind);
                          return structurallyEqual(x.cond, y.cond) && structurallyEqual(x.t, y.t) &&
                                 structurallyEqual(x.f, y.f);
                        },
                        [&](const Cast& x) { return structurallyEqual(x.a, std::get<Cast>(b.node().kind).a); },
                        [&](const TensorRead& x) {
                          const auto& y = std::get<TensorRead>(b.node().kind);
                          if (!x.tensor.same(y.tensor) || x.indices.size() != y.indices.size()) return false;
                          for (size_t i = 0; i < x.indices.size(); ++i)
                            if (!structurallyEqual(x.indices[i], y.indices[i])) return false;
                          return true;
                        },
                        [&](const BufferLoad& x) {
                          const auto& y = std::get<BufferLoad>(b.node().kind);
                          return x.buffer == y.buffer && structurallyEqual(x.index, y.index);
                        },
                        [&](const Reduce& x) {
                          const auto& y = std::get<Reduce>(b.node().kind);
                          if (x.kind != y.kind || x.axes.size() != y.axes.size()) return false;
                          for (size_t i = 0; i < x.axes.size(); ++i)
                            if (!x.axes[i].var.same(y.axes[i].var)) return false;
                          return structurallyEqual(x.source, y.source) && (x.cond.defined() == y.cond.defined()) &&
                                 (!x.cond.defined() || structurallyEqual(x.cond, y.cond));
                        },
                    },
                    a.node().kind);
}

namespace {

void hashInto(Hasher& h, const Expr& e) {
  if (!e.defined()) {
    h.add(uint64_t{0});
    return;
  }
  h.add(static_cast<uint64_t>(e.node().kind.index())).add(static_cast<uint64_t>(e.dtype()));
  auto addr = [&](const void* p) { h.add(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p))); };
  std::visit(Overload{
                 [&](const IntImm& x) { h.add(x.value); },
                 [&](const FloatImm& x) { h.add(x.value); },
                 [&](const VarRef& x) { addr(x.var.get()); },
                 [&](const Binary& x) { h.add(static_cast<int>(x.op)); },
                 [&](const Unary& x) { h.add(static_cast<int>(x.op)); },
                 [&](const Select&) {},
                 [&](const Cast&) {},
                 [&](const TensorRead& x) { addr(x.tensor.get()); },
                 [&](const BufferLoad& x) { addr(x.buffer.get()); },
                 [&](const Reduce& x) {
                   h.add(static_cast<int>(x.kind));
                   for (const IterVar& a : x.axes) addr(a.var.get());
                   h.add(x.cond.defined() ? 1 : 0);
                 },
             },
             e.node().kind);
  forEachChild(e, [&](const Expr& c) { hashInto(h, c); });
}

}  // namespace

uint64_t structuralHash(const Expr& e) {
  Hasher h;
  hashInto(h, e);
  return h.value();
}

}  // namespace ttune::te
