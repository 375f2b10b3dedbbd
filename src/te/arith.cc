#include "te/arith.h"

#include <cmath>
#include <numeric>
#include <unordered_map>

#include "support/assert.h"
#include "support/overload.h"

namespace ttune::te {

namespace {

using I = IntBound;

int64_t satAdd(int64_t a, int64_t b) {
  if (a == I::kNegInf || b == I::kNegInf) return (a == I::kPosInf || b == I::kPosInf) ? 0 : I::kNegInf;
  if (a == I::kPosInf || b == I::kPosInf) return I::kPosInf;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? I::kPosInf : I::kNegInf;
  return r;
}

int64_t satMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  if (a == I::kNegInf || a == I::kPosInf || b == I::kNegInf || b == I::kPosInf) return neg ? I::kNegInf : I::kPosInf;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return neg ? I::kNegInf : I::kPosInf;
  return r;
}

int64_t floorDivI(int64_t a, int64_t b) {
  if (a == I::kNegInf) return b > 0 ? I::kNegInf : I::kPosInf;
  if (a == I::kPosInf) return b > 0 ? I::kPosInf : I::kNegInf;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

IntBound add(IntBound a, IntBound b) { return {satAdd(a.lo, b.lo), satAdd(a.hi, b.hi)}; }
IntBound neg(IntBound a) {
  auto n = [](int64_t v) { return v == I::kNegInf ? I::kPosInf : v == I::kPosInf ? I::kNegInf : -v; };
  return {n(a.hi), n(a.lo)};
}
IntBound mul(IntBound a, IntBound b) {
  int64_t c[4] = {satMul(a.lo, b.lo), satMul(a.lo, b.hi), satMul(a.hi, b.lo), satMul(a.hi, b.hi)};
  return {std::min({c[0], c[1], c[2], c[3]}), std::max({c[0], c[1], c[2], c[3]})};
}

}  // namespace

IntBound constIntBound(const Expr& e, const VarBounds& bounds) {
  IntBound r = std::visit(Overload{
                              [&](const IntImm& n) { return I::exact(n.value); },
                              [&](const FloatImm&) { return I{}; },
                              [&](const VarRef& n) {
                                auto it = bounds.find(n.var.get());
                                return it == bounds.end() ? I{} : it->second;
                              },
                              [&](const Binary& n) -> IntBound {
                                if (isComparison(n.op) || isLogical(n.op)) return {0, 1};
                                if (!isInt(n.a.dtype())) return I{};
                                IntBound a = constIntBound(n.a, bounds), b = constIntBound(n.b, bounds);
                                switch (n.op) {
                                  case BinOp::Add:
                                    return add(a, b);
                                  case BinOp::Sub:
                                    return add(a, neg(b));
                                  case BinOp::Mul:
                                    return mul(a, b);
                                  case BinOp::FloorDiv:
                                    if (b.isConst() && b.lo > 0) return {floorDivI(a.lo, b.lo), floorDivI(a.hi, b.lo)};
                                    return I{};
                                  case BinOp::FloorMod:
                                    if (b.isConst() && b.lo > 0) {
                                      if (a.lo >= 0 && a.hi < b.lo) return a;
                                      if (a.bounded() && floorDivI(a.lo, b.lo) == floorDivI(a.hi, b.lo)) {
                                        int64_t base = floorDivI(a.lo, b.lo) * b.lo;
                                        return {a.lo - base, a.hi - base};
                                      }
                                      return {0, b.lo - 1};
                                    }
                                    return I{};
                                  case BinOp::Min:
                                    return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
                                  case BinOp::Max:
                                    return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
                                  default:
                                    return I{};
                                }
                              },
                              [&](const Unary& n) -> IntBound {
                                if (n.op == UnOp::Not) return {0, 1};
                                if (n.op == UnOp::Neg && isInt(e.dtype())) return neg(constIntBound(n.a, bounds));
                                return I{};
                              },
                              [&](const Select& n) -> IntBound {
                                IntBound t = constIntBound(n.t, bounds), f = constIntBound(n.f, bounds);
                                return {std::min(t.lo, f.lo), std::max(t.hi, f.hi)};
                              },
                              [&](const Cast& n) -> IntBound {
                                if (e.dtype() == DType::Bool) return {0, 1};
                                if (isInt(n.a.dtype()) || n.a.dtype() == DType::Bool) return constIntBound(n.a, bounds);
                                return I{};
                              },
                              [&](const TensorRead&) {
                                return e.dtype() == DType::Bool ? I{0, 1} : I{};
                              },
                              [&](const BufferLoad&) {
                                return e.dtype() == DType::Bool ? I{0, 1} : I{};
                              },
                              [&](const Reduce&) { return I{}; },
                          },
                          e.node().kind);
  // UInt64 carriers are bit patterns (dtype.h) that int64 bounds do not order.
  if (isUnsigned64(e.dtype())) return I{};
  // Values of wrapping types (dtype.h) stay in their type: a bound that leaves the type's range
  // is the whole range.
  if (wrapsInAnalysis(e.dtype())) {
    IntBound full{intTypeMin(e.dtype()), intTypeMax(e.dtype())};
    if (r.lo < full.lo || r.hi > full.hi) return full;
  }
  return r;
}

// ---- Linear forms ---------------------------------------------------------------------------------

namespace {

void addTerm(LinearForm& f, const Expr& atom, int64_t coef) {
  if (coef == 0) return;
  const VarRef* av = atom.as<VarRef>();
  for (auto& [a, c] : f.terms) {
    const VarRef* bv = a.as<VarRef>();
    bool eq = (av && bv) ? av->var.same(bv->var) : (!av && !bv && structurallyEqual(a, atom));
    if (eq) {
      c += coef;
      return;
    }
  }
  f.terms.emplace_back(atom, coef);
}

void accumulate(LinearForm& f, const Expr& e, int64_t scale) {
  if (int64_t v; isConstInt(e, &v)) {
    f.constant += scale * v;
    return;
  }
  if (const Binary* b = e.as<Binary>(); b && isInt(e.dtype())) {
    switch (b->op) {
      case BinOp::Add:
        accumulate(f, b->a, scale);
        accumulate(f, b->b, scale);
        return;
      case BinOp::Sub:
        accumulate(f, b->a, scale);
        accumulate(f, b->b, -scale);
        return;
      case BinOp::Mul: {
        int64_t c;
        if (isConstInt(b->b, &c)) return accumulate(f, b->a, scale * c);
        if (isConstInt(b->a, &c)) return accumulate(f, b->b, scale * c);
        break;
      }
      default:
        break;
    }
  }
  if (const Unary* u = e.as<Unary>(); u && u->op == UnOp::Neg && isInt(e.dtype())) {
    accumulate(f, u->a, -scale);
    return;
  }
  addTerm(f, e, scale);
}

void removeZeroTerms(LinearForm& f) {
  std::erase_if(f.terms, [](const auto& t) { return t.second == 0; });
}

}  // namespace

LinearForm toLinear(const Expr& e) {
  LinearForm f;
  accumulate(f, e, 1);
  removeZeroTerms(f);
  return f;
}

Expr fromLinear(const LinearForm& f, DType dtype) {
  Expr out;
  for (const auto& [atom, coef] : f.terms) {
    if (coef == 0) continue;
    Expr a = atom.dtype() == dtype ? atom : cast(dtype, atom);
    if (!out.defined()) {
      out = coef == 1 ? a : coef == -1 ? -a : a * intImm(coef, dtype);
    } else if (coef > 0) {
      out = out + (coef == 1 ? a : a * intImm(coef, dtype));
    } else {
      out = out - (coef == -1 ? a : a * intImm(-coef, dtype));
    }
  }
  if (!out.defined()) return intImm(f.constant, dtype);
  if (f.constant > 0) out = out + intImm(f.constant, dtype);
  if (f.constant < 0) out = out - intImm(-f.constant, dtype);
  return out;
}

std::optional<int64_t> linearCoefficient(const Expr& e, const VarNode* var) {
  if (!usesVar(e, var)) return 0;
  LinearForm f = toLinear(e);
  int64_t coef = 0;
  for (const auto& [atom, c] : f.terms) {
    if (const VarRef* v = atom.as<VarRef>(); v && v->var.get() == var) {
      coef += c;
    } else if (usesVar(atom, var)) {
      return std::nullopt;
    }
  }
  return coef;
}

// ---- Simplifier ----------------------------------------------------------------------------------

namespace {

// Types whose arithmetic wraps below int64 (or, UInt64, whose carrier does not order its values).
bool isNarrow(DType t) { return wrapsInAnalysis(t); }

class Simplifier {
 public:
  explicit Simplifier(const VarBounds& bounds) : bounds_(bounds) {}

  Expr run(const Expr& e) {
    // Integer additive chains are canonicalized once, at their top: collect the linear form of
    // the whole chain, simplify only its non-linear atoms, rebuild. Not 8-bit chains: they wrap,
    // and the rearrangements (div/mod recombination, bounds of partial sums) assume they do not.
    if (isInt(e.dtype()) && !isNarrow(e.dtype()) && isLinearNode(e)) {
      LinearForm f = toLinear(e);
      LinearForm g;
      g.constant = f.constant;
      for (auto& [atom, coef] : f.terms) {
        Expr a = atom;
        if (const VarRef* v = atom.as<VarRef>()) {
          auto it = bounds_.find(v->var.get());
          if (it != bounds_.end() && it->second.isConst()) a = intImm(it->second.lo, atom.dtype());
        } else {
          a = run(atom);
        }
        if (int64_t v; isConstInt(a, &v))
          g.constant += coef * v;
        else
          accumulateTerm(g, a, coef);
      }
      recombineDivMod(g);
      Expr out = fromLinear(g, e.dtype());
      IntBound b = constIntBound(out, bounds_);
      return b.isConst() ? intImm(b.lo, e.dtype()) : out;
    }
    if (e.as<BufferLoad>()) {
      // One load node may occur many times in a tree (lowering shares the loads of one element):
      // its index is simplified once.
      auto it = loads_.find(e.get());
      if (it != loads_.end()) return it->second.second;
      Expr s = mapChildren(e, [&](const Expr& c) { return run(c); });
      loads_.emplace(e.get(), std::make_pair(e, s));
      return s;
    }
    Expr s = mapChildren(e, [&](const Expr& c) { return run(c); });
    if (isInt(s.dtype())) {
      if (int64_t v; isConstInt(s, &v)) return s;
      if (!s.as<VarRef>()) {
        IntBound b = constIntBound(s, bounds_);
        if (b.isConst()) return intImm(b.lo, s.dtype());
      }
    }
    return std::visit(Overload{
                          [&](const Binary& n) { return simplifyBinary(s, n); },
                          [&](const Unary& n) { return simplifyUnary(s, n); },
                          [&](const Select& n) {
                            if (s.dtype() != DType::Bool) {
                              if (int64_t c; isConstInt(n.cond, &c)) return c ? n.t : n.f;
                              IntBound cb = constIntBound(n.cond, bounds_);
                              if (cb.isConst()) return cb.lo ? n.t : n.f;
                            }
                            return s;
                          },
                          [&](const auto&) { return s; },
                      },
                      s.node().kind);
  }

 private:
  static bool isLinearNode(const Expr& e) {
    const Binary* b = e.as<Binary>();
    if (b) {
      if (b->op == BinOp::Add || b->op == BinOp::Sub) return true;
      if (b->op == BinOp::Mul) return isConstInt(b->a) || isConstInt(b->b);
      return false;
    }
    const Unary* u = e.as<Unary>();
    return u && u->op == UnOp::Neg;
  }

  // k*c*(x // c) + k*(x % c) == k*x: what splitting a fused loop back apart produces.
  static void recombineDivMod(LinearForm& f) {
    for (size_t i = 0; i < f.terms.size(); ++i) {
      const Binary* m = f.terms[i].first.as<Binary>();
      int64_t c;
      if (!m || m->op != BinOp::FloorMod || !isConstInt(m->b, &c) || c <= 0) continue;
      int64_t k = f.terms[i].second;
      for (size_t j = 0; j < f.terms.size(); ++j) {
        const Binary* d = f.terms[j].first.as<Binary>();
        int64_t c2;
        if (!d || d->op != BinOp::FloorDiv || !isConstInt(d->b, &c2) || c2 != c || f.terms[j].second != k * c) continue;
        if (!structurallyEqual(d->a, m->a)) continue;
        Expr x = m->a;
        f.terms[i].second = 0;
        f.terms[j].second = 0;
        accumulateTerm(f, x, k);
        recombineDivMod(f);
        return;
      }
    }
  }

  static void accumulateTerm(LinearForm& f, const Expr& atom, int64_t coef) {
    // The simplified atom may itself be linear (e.g. a div that simplified to a sum).
    LinearForm a = toLinear(atom);
    f.constant += coef * a.constant;
    for (const auto& [t, c] : a.terms) {
      bool merged = false;
      for (auto& [t2, c2] : f.terms) {
        const VarRef* v1 = t.as<VarRef>();
        const VarRef* v2 = t2.as<VarRef>();
        if ((v1 && v2) ? v1->var.same(v2->var) : (!v1 && !v2 && structurallyEqual(t, t2))) {
          c2 += coef * c;
          merged = true;
          break;
        }
      }
      if (!merged) f.terms.emplace_back(t, coef * c);
    }
    std::erase_if(f.terms, [](const auto& p) { return p.second == 0; });
  }

  Expr simplifyUnary(const Expr& s, const Unary& n) {
    double v;
    if (isConstFloat(n.a, &v)) {
      switch (n.op) {
        case UnOp::Neg:
          return floatImm(-v, s.dtype());
        case UnOp::Abs:
          return floatImm(std::fabs(v), s.dtype());
        case UnOp::Exp:
          return floatImm(std::exp(v), s.dtype());
        case UnOp::Sqrt:
          return floatImm(std::sqrt(v), s.dtype());
        default:
          break;
      }
    }
    return s;
  }

  // Bound of a - b. Differences of wrapping types wrap in their type, so they are taken in Int64
  // (UInt64 values may not fit it: unknown).
  IntBound differenceBound(const Expr& a, const Expr& b) {
    if (isUnsigned64(a.dtype())) return IntBound{};
    if (isNarrow(a.dtype())) return constIntBound(run(cast(DType::Int64, a) - cast(DType::Int64, b)), bounds_);
    return constIntBound(run(a - b), bounds_);
  }

  Expr simplifyBinary(const Expr& s, const Binary& n) {
    if (isFloat(n.a.dtype())) return foldFloat(s, n);
    if (!isInt(n.a.dtype())) return s;
    if (isComparison(n.op) || isLogical(n.op)) {
      if (isComparison(n.op)) {
        // Decide a ? b by the bound of a - b.
        IntBound d = differenceBound(n.a, n.b);
        switch (n.op) {
          case BinOp::Lt:
            if (d.hi < 0) return boolImm(true);
            if (d.lo >= 0) return boolImm(false);
            break;
          case BinOp::Le:
            if (d.hi <= 0) return boolImm(true);
            if (d.lo > 0) return boolImm(false);
            break;
          case BinOp::Gt:
            if (d.lo > 0) return boolImm(true);
            if (d.hi <= 0) return boolImm(false);
            break;
          case BinOp::Ge:
            if (d.lo >= 0) return boolImm(true);
            if (d.hi < 0) return boolImm(false);
            break;
          case BinOp::Eq:
            if (d.isConst()) return boolImm(d.lo == 0);
            if (d.lo > 0 || d.hi < 0) return boolImm(false);
            break;
          case BinOp::Ne:
            if (d.isConst()) return boolImm(d.lo != 0);
            if (d.lo > 0 || d.hi < 0) return boolImm(true);
            break;
          default:
            break;
        }
      } else {
        IntBound b = constIntBound(s, bounds_);
        if (b.isConst()) return boolImm(b.lo != 0);
      }
      return s;
    }
    switch (n.op) {
      case BinOp::FloorDiv:
      case BinOp::FloorMod: {
        int64_t c;
        if (isNarrow(n.a.dtype()) || !isConstInt(n.b, &c) || c <= 0) return s;
        return simplifyDivMod(s, n.op, n.a, c);
      }
      case BinOp::Min:
      case BinOp::Max: {
        IntBound a = constIntBound(n.a, bounds_), b = constIntBound(n.b, bounds_);
        bool isMin = n.op == BinOp::Min;
        if (a.hi <= b.lo) return isMin ? n.a : n.b;
        if (b.hi <= a.lo) return isMin ? n.b : n.a;
        IntBound d = differenceBound(n.a, n.b);
        if (d.hi <= 0) return isMin ? n.a : n.b;
        if (d.lo >= 0) return isMin ? n.b : n.a;
        return s;
      }
      default:
        return s;
    }
  }

  // x // c and x % c: split x = c*Q + R (terms whose coefficient c divides go to Q) and decide R's
  // contribution from its bounds.
  Expr simplifyDivMod(const Expr& s, BinOp op, const Expr& x, int64_t c) {
    LinearForm f = toLinear(x);
    LinearForm q, r;
    int64_t q0 = floorDivI(f.constant, c);
    r.constant = f.constant - q0 * c;
    q.constant = q0;
    for (const auto& [atom, coef] : f.terms) {
      if (coef % c == 0)
        q.terms.emplace_back(atom, coef / c);
      else
        r.terms.emplace_back(atom, coef);
    }
    // R = g*Y + r0 with g = gcd(c, R's coefficients): g*Y's residue mod c is a multiple of g (g
    // divides c), so the part of r0 below g never carries R across a multiple of c. It leaves
    // the quotient and adds to the remainder: (16a + 8 + l) // 32 == (16a) // 32 for 0 <= l < 8,
    // the input channel of a grouped convolution's vector lanes (8 of a group of 32).
    int64_t low = 0;
    if (!r.terms.empty()) {
      int64_t g = c;
      for (const auto& term : r.terms) g = std::gcd(g, term.second < 0 ? -term.second : term.second);
      low = r.constant % g;  // r.constant lies in [0, c)
      r.constant -= low;
    }
    DType t = s.dtype();
    Expr rem = fromLinear(r, t);
    IntBound rb = constIntBound(rem, bounds_);
    if (rb.bounded() && floorDivI(rb.lo, c) == floorDivI(rb.hi, c)) {
      int64_t k = floorDivI(rb.lo, c);
      if (op == BinOp::FloorDiv) {
        q.constant += k;
        return fromLinear(q, t);
      }
      r.constant += low - k * c;
      return fromLinear(r, t);
    }
    if (op == BinOp::FloorMod) {
      Expr m = binary(BinOp::FloorMod, rem, intImm(c, t));
      return low == 0 ? m : m + intImm(low, t);
    }
    if (q.terms.empty() && q.constant == 0) return binary(BinOp::FloorDiv, rem, intImm(c, t));
    return fromLinear(q, t) + binary(BinOp::FloorDiv, rem, intImm(c, t));
  }

  Expr foldFloat(const Expr& s, const Binary& n) {
    double a, b;
    bool ca = isConstFloat(n.a, &a), cb = isConstFloat(n.b, &b);
    // float32 folds round to float32; float64 ones stay exact; 16-bit floats are left alone.
    if (ca && cb && (s.dtype() == DType::Float32 || s.dtype() == DType::Float64)) {
      auto round = [&](double v) {
        return s.dtype() == DType::Float32 ? static_cast<double>(static_cast<float>(v)) : v;
      };
      switch (n.op) {
        case BinOp::Add:
          return floatImm(round(a + b), s.dtype());
        case BinOp::Sub:
          return floatImm(round(a - b), s.dtype());
        case BinOp::Mul:
          return floatImm(round(a * b), s.dtype());
        case BinOp::Div:
          if (b != 0) return floatImm(round(a / b), s.dtype());
          break;
        case BinOp::Min:
          return floatImm(std::min(a, b), s.dtype());
        case BinOp::Max:
          return floatImm(std::max(a, b), s.dtype());
        default:
          break;
      }
    }
    if (n.op == BinOp::Mul && cb && b == 1.0) return n.a;
    if (n.op == BinOp::Mul && ca && a == 1.0) return n.b;
    if (n.op == BinOp::Div && cb && b == 1.0) return n.a;
    return s;
  }

  const VarBounds& bounds_;
  // Load node -> (the node, kept alive so that its address is not reused; its simplified form).
  std::unordered_map<const ExprNode*, std::pair<Expr, Expr>> loads_;
};

}  // namespace

Expr simplify(const Expr& e, const VarBounds& bounds) { return Simplifier(bounds).run(e); }

bool proveTrue(const Expr& cond, const VarBounds& bounds) {
  Expr s = simplify(cond, bounds);
  int64_t v;
  return isConstInt(s, &v) && v != 0;
}

}  // namespace ttune::te
