#include "autotune/feature_ops.h"

namespace ttune::autotune::detail {

using te::BinOp;
using te::Expr;
using te::UnOp;

namespace {
bool isMul(const Expr& e, bool flt) {
  const te::Binary* b = e.as<te::Binary>();
  return b && b->op == BinOp::Mul && te::isFloat(e.dtype()) == flt;
}

}  // namespace

void countOps(const Expr& e, OpCounts& c) {
  const te::ExprNode& n = e.node();
  if (const auto* b = std::get_if<te::Binary>(&n.kind)) {
    bool flt = te::isFloat(b->a.dtype());
    double* k = flt ? c.flt : c.integer;
    switch (b->op) {
      case BinOp::Add:
      case BinOp::Sub:
        // a*b + c, c + a*b, a*b - c, c - a*b: one fused multiply-add (LLVM contracts them).
        for (const Expr* m : {&b->a, &b->b}) {
          if (isMul(*m, flt)) {
            const te::Binary* mb = m->as<te::Binary>();
            ++k[kMad];
            countOps(mb->a, c);
            countOps(mb->b, c);
            countOps(m == &b->a ? b->b : b->a, c);
            return;
          }
        }
        ++k[kAddSub];
        break;
      case BinOp::Mul:
        ++k[kMul];
        break;
      case BinOp::Div:
      case BinOp::FloorDiv:
      case BinOp::FloorMod:
        ++k[kDivMod];
        break;
      case BinOp::Pow:
        ++k[kMathFunc];
        break;
      case BinOp::And:
      case BinOp::Or:
        ++c.bool_op;
        break;
      default:
        ++k[kCmp];
        break;  // comparisons, min, max
    }
    countOps(b->a, c);
    countOps(b->b, c);
  } else if (const auto* u = std::get_if<te::Unary>(&n.kind)) {
    double* k = te::isFloat(u->a.dtype()) ? c.flt : c.integer;
    switch (u->op) {
      case UnOp::Neg:
        ++k[kAddSub];
        break;
      case UnOp::Not:
        ++c.bool_op;
        break;
      case UnOp::Abs:
      case UnOp::Floor:
      case UnOp::Ceil:
      case UnOp::Round:
        ++k[kOtherFunc];
        break;
      default:
        ++k[kMathFunc];
        break;  // exp, log, sqrt, rsqrt, tanh, erf, sigmoid
    }
    countOps(u->a, c);
  } else if (const auto* s = std::get_if<te::Select>(&n.kind)) {
    ++c.select_op;
    countOps(s->cond, c);
    countOps(s->t, c);
    countOps(s->f, c);
  } else if (const auto* ca = std::get_if<te::Cast>(&n.kind)) {
    countOps(ca->a, c);
  } else if (const auto* l = std::get_if<te::BufferLoad>(&n.kind)) {
    countOps(l->index, c);
  }
}

void collectLoads(const Expr& e, std::vector<const te::BufferLoad*>& out) {
  const te::ExprNode& n = e.node();
  if (const auto* l = std::get_if<te::BufferLoad>(&n.kind)) {
    out.push_back(l);
    collectLoads(l->index, out);
  } else if (const auto* b = std::get_if<te::Binary>(&n.kind)) {
    collectLoads(b->a, out);
    collectLoads(b->b, out);
  } else if (const auto* u = std::get_if<te::Unary>(&n.kind)) {
    collectLoads(u->a, out);
  } else if (const auto* s = std::get_if<te::Select>(&n.kind)) {
    collectLoads(s->cond, out);
    collectLoads(s->t, out);
    collectLoads(s->f, out);
  } else if (const auto* c = std::get_if<te::Cast>(&n.kind)) {
    collectLoads(c->a, out);
  }
}

}  // namespace ttune::autotune::detail
