#include "te/printer.h"

#include "support/overload.h"
#include "support/strings.h"

namespace ttune::te {

namespace {

void print(std::string& out, const Expr& e);

// An axis of a run-time extent prints as "i<seq" (te::IterVar).
void printAxis(std::string& out, const IterVar& iv) {
  out += iv.name();
  if (!iv.runtime_extent.defined()) return;
  out += "<";
  print(out, iv.runtime_extent);
}

void printList(std::string& out, const std::vector<Expr>& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    print(out, items[i]);
  }
}

void print(std::string& out, const Expr& e) {
  if (!e.defined()) {
    out += "<undef>";
    return;
  }
  std::visit(Overload{
                 [&](const IntImm& n) {
                   if (e.dtype() == DType::Bool)
                     out += n.value ? "true" : "false";
                   else
                     out += std::to_string(n.value);
                 },
                 [&](const FloatImm& n) { out += formatDouble(n.value) + "f"; },
                 [&](const VarRef& n) { out += n.var.name(); },
                 [&](const Binary& n) {
                   switch (n.op) {
                     case BinOp::Min:
                     case BinOp::Max:
                     case BinOp::Pow:
                       out += binOpName(n.op);
                       out += "(";
                       print(out, n.a);
                       out += ", ";
                       print(out, n.b);
                       out += ")";
                       return;
                     default:
                       break;
                   }
                   const char* sym = n.op == BinOp::FloorDiv ? "//" : n.op == BinOp::FloorMod ? "%" : binOpName(n.op);
                   out += "(";
                   print(out, n.a);
                   out += " ";
                   out += sym;
                   out += " ";
                   print(out, n.b);
                   out += ")";
                 },
                 [&](const Unary& n) {
                   out += n.op == UnOp::Neg ? "-" : n.op == UnOp::Not ? "!" : unOpName(n.op);
                   out += "(";
                   print(out, n.a);
                   out += ")";
                 },
                 [&](const Select& n) {
                   out += "select(";
                   print(out, n.cond);
                   out += ", ";
                   print(out, n.t);
                   out += ", ";
                   print(out, n.f);
                   out += ")";
                 },
                 [&](const Cast& n) {
                   out += dtypeName(e.dtype());
                   out += "(";
                   print(out, n.a);
                   out += ")";
                 },
                 [&](const TensorRead& n) {
                   out += n.tensor.name() + "[";
                   printList(out, n.indices);
                   out += "]";
                 },
                 [&](const BufferLoad& n) {
                   out += n.buffer->name + "[";
                   print(out, n.index);
                   out += "]";
                 },
                 [&](const Reduce& n) {
                   out += reduceKindName(n.kind);
                   out += "(";
                   print(out, n.source);
                   out += ", axis=[";
                   for (size_t i = 0; i < n.axes.size(); ++i) {
                     if (i) out += ", ";
                     printAxis(out, n.axes[i]);
                   }
                   out += "]";
                   if (n.cond.defined()) {
                     out += ", where=";
                     print(out, n.cond);
                   }
                   out += ")";
                 },
             },
             e.node().kind);
}

}  // namespace

std::string toString(const Expr& e) {
  std::string out;
  print(out, e);
  return out;
}

std::string toString(const Operation& op) {
  if (op.isPlaceholder())
    return op.name() + " = placeholder(" + shapeToString(op.shape()) + ", " + dtypeName(op.dtype()) + ")";
  const ComputeOp& c = op.compute();
  std::string s = op.name() + "[";
  for (size_t i = 0; i < c.axes.size(); ++i) {
    if (i) s += ", ";
    printAxis(s, c.axes[i]);
  }
  s += "] = " + toString(c.body);
  return s;
}

}  // namespace ttune::te
