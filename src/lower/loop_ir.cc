#include "lower/loop_ir.h"

#include "support/overload.h"
#include "te/printer.h"

namespace ttune::lower {

const char* forKindName(ForKind k) {
  switch (k) {
    case ForKind::Serial:
      return "for";
    case ForKind::Parallel:
      return "parallel";
    case ForKind::Vectorized:
      return "vectorized";
    case ForKind::Unrolled:
      return "unrolled";
  }
  return "?";
}

namespace {
Stmt make(StmtNode::Kind k) { return std::make_shared<const StmtNode>(StmtNode{std::move(k)}); }
}  // namespace

Stmt makeFor(te::Var var, te::Expr extent, int64_t max_extent, ForKind kind, Stmt body) {
  return make(For{std::move(var), std::move(extent), max_extent, kind, std::move(body)});
}
Stmt makeStore(te::BufferRef buffer, te::Expr index, te::Expr value) {
  return make(Store{std::move(buffer), std::move(index), std::move(value)});
}
Stmt makeIf(te::Expr cond, Stmt then_case, Stmt else_case) {
  return make(IfThenElse{std::move(cond), std::move(then_case), std::move(else_case)});
}
Stmt makeAllocate(te::BufferRef buffer, Stmt body) { return make(Allocate{std::move(buffer), std::move(body)}); }
Stmt makeLet(te::Var var, te::Expr value, Stmt body) {
  return make(LetStmt{std::move(var), std::move(value), std::move(body)});
}
Stmt makePrefetch(te::BufferRef buffer, te::Expr index) { return make(Prefetch{std::move(buffer), std::move(index)}); }
Stmt makeSeq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s) continue;
    if (const Seq* q = std::get_if<Seq>(&s->kind)) {
      flat.insert(flat.end(), q->stmts.begin(), q->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return make(Seq{std::move(flat)});
}

std::string toString(const Stmt& s, int indent) {
  if (!s) return "";
  std::string pad(2 * indent, ' ');
  return std::visit(
      Overload{
          [&](const For& f) {
            std::string ext = te::toString(f.extent);
            return pad + forKindName(f.kind) + " " + f.var.name() + " in [0, " + ext + ")" +
                   (std::to_string(f.max_extent) == ext ? "" : " max " + std::to_string(f.max_extent)) + "\n" +
                   toString(f.body, indent + 1);
          },
          [&](const Store& st) {
            return pad + st.buffer->name + "[" + te::toString(st.index) + "] = " + te::toString(st.value) + "\n";
          },
          [&](const IfThenElse& i) {
            std::string out = pad + "if " + te::toString(i.cond) + "\n" + toString(i.then_case, indent + 1);
            if (i.else_case) out += pad + "else\n" + toString(i.else_case, indent + 1);
            return out;
          },
          [&](const Allocate& a) {
            const char* scope = a.buffer->scope == te::MemScope::Local ? "local" : "global";
            return pad + "allocate " + a.buffer->name + "[" + std::to_string(a.buffer->size) + "] " + scope + "\n" +
                   toString(a.body, indent);
          },
          [&](const Seq& q) {
            std::string out;
            for (const Stmt& c : q.stmts) out += toString(c, indent);
            return out;
          },
          [&](const LetStmt& l) {
            return pad + "let " + l.var.name() + " = " + te::toString(l.value) + "\n" + toString(l.body, indent);
          },
          [&](const Prefetch& p) { return pad + "prefetch " + p.buffer->name + "[" + te::toString(p.index) + "]\n"; },
      },
      s->kind);
}

std::string toString(const LoweredFunc& f) {
  std::string out = "func " + f.name + "(";
  for (size_t i = 0; i < f.args.size(); ++i) out += (i ? ", " : "") + f.args[i]->name;
  for (const te::Var& p : f.size_params) out += ", int64 " + p.name();
  return out + ")\n" + toString(f.body, 1);
}

}  // namespace ttune::lower
