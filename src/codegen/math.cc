// Float math for generated code. exp, erf, tanh, sin, cos, tan and atan are inline polynomial
// approximations that work on whole vectors: llvm.sin / llvm.cos would also work in the JIT and in
// exported libraries (they become sinf / cosf calls, and exports link libm), but a libm call
// scalarizes every vector op. Accuracy is about 1e-7 relative for exp, sin, cos (for |x| up to
// ~1e5; the three-part Cody-Waite reduction loses digits beyond) and atan, and 2e-7 absolute for
// erf and tanh, well inside the tolerance against the reference. asin / acos reduce to atan; the
// hyperbolic functions and their inverses are built from exp and log (log1p-style where
// cancellation would cost relative accuracy near zero). float64 math calls libm's double functions
// lane by lane: the polynomials above are sized for float32's precision.
#include <cmath>

#include <llvm/IR/Intrinsics.h>

#include "codegen/emitter.h"
#include "support/assert.h"

namespace ttune::codegen {

llvm::Value* Emitter::constF(llvm::Type* like, double v) { return llvm::ConstantFP::get(like, v); }

namespace {
// Horner evaluation with fused multiply-adds: c[0] + x*(c[1] + x*(c[2] + ...)).
llvm::Value* horner(llvm::IRBuilder<>& b, llvm::Module& m, llvm::Value* x, const std::vector<double>& c) {
  llvm::Type* t = x->getType();
  llvm::Function* fma = llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::fmuladd, {t});
  llvm::Value* acc = llvm::ConstantFP::get(t, c.back());
  for (size_t i = c.size() - 1; i-- > 0;) acc = b.CreateCall(fma, {acc, x, llvm::ConstantFP::get(t, c[i])});
  return acc;
}
}  // namespace

llvm::Value* Emitter::fastExp(llvm::Value* x) {
  llvm::Type* t = x->getType();
  x = callIntrinsic(llvm::Intrinsic::maxnum, {x, constF(t, -87.3)});
  x = callIntrinsic(llvm::Intrinsic::minnum, {x, constF(t, 88.3)});
  // x = n*ln2 + r with |r| <= ln2/2 (Cody-Waite split of ln2).
  llvm::Value* n = callIntrinsic(llvm::Intrinsic::roundeven, {b_.CreateFMul(x, constF(t, 1.4426950408889634))});
  llvm::Value* r = b_.CreateFSub(x, b_.CreateFMul(n, constF(t, 0.693145751953125)));
  r = b_.CreateFSub(r, b_.CreateFMul(n, constF(t, 1.428606765330187e-06)));
  llvm::Value* p = horner(b_, mod_, r, {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040});
  // 2^n by building the float exponent field.
  llvm::Type* it = t->isVectorTy()
                       ? llvm::VectorType::get(b_.getInt32Ty(), llvm::cast<llvm::VectorType>(t)->getElementCount())
                       : static_cast<llvm::Type*>(b_.getInt32Ty());
  llvm::Value* ni = b_.CreateFPToSI(n, it);
  llvm::Value* bits = b_.CreateShl(b_.CreateAdd(ni, llvm::ConstantInt::get(it, 127)), llvm::ConstantInt::get(it, 23));
  return b_.CreateFMul(p, b_.CreateBitCast(bits, t));
}

llvm::Value* Emitter::fastErf(llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Value* ax = callIntrinsic(llvm::Intrinsic::fabs, {x});
  // Large |x|: Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7).
  llvm::Value* tt =
      b_.CreateFDiv(constF(t, 1.0), b_.CreateFAdd(constF(t, 1.0), b_.CreateFMul(ax, constF(t, 0.3275911))));
  llvm::Value* poly = horner(b_, mod_, tt, {0.0, 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429});
  llvm::Value* e = fastExp(b_.CreateFNeg(b_.CreateFMul(ax, ax)));
  llvm::Value* big = b_.CreateFSub(constF(t, 1.0), b_.CreateFMul(poly, e));
  big = callIntrinsic(llvm::Intrinsic::copysign, {big, x});
  // Small |x|: Maclaurin series keeps the relative error small near zero.
  llvm::Value* x2 = b_.CreateFMul(x, x);
  llvm::Value* s = horner(b_, mod_, x2, {1.0, -1.0 / 3, 1.0 / 10, -1.0 / 42, 1.0 / 216, -1.0 / 1320});
  llvm::Value* small = b_.CreateFMul(b_.CreateFMul(x, s), constF(t, 1.1283791670955126));
  return b_.CreateSelect(b_.CreateFCmpOLT(ax, constF(t, 0.5)), small, big);
}

llvm::Value* Emitter::fastTanh(llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Value* ax = callIntrinsic(llvm::Intrinsic::fabs, {x});
  // tanh|x| = 1 - 2 / (exp(2|x|) + 1)
  llvm::Value* e = fastExp(b_.CreateFMul(ax, constF(t, 2.0)));
  llvm::Value* big = b_.CreateFSub(constF(t, 1.0), b_.CreateFDiv(constF(t, 2.0), b_.CreateFAdd(e, constF(t, 1.0))));
  big = callIntrinsic(llvm::Intrinsic::copysign, {big, x});
  llvm::Value* x2 = b_.CreateFMul(x, x);
  llvm::Value* s = horner(b_, mod_, x2, {1.0, -1.0 / 3, 2.0 / 15, -17.0 / 315});
  llvm::Value* small = b_.CreateFMul(x, s);
  return b_.CreateSelect(b_.CreateFCmpOLT(ax, constF(t, 0.125)), small, big);
}

llvm::Value* Emitter::fastSinCosTan(llvm::Value* x, int which) {
  llvm::Type* t = x->getType();
  llvm::Type* it = t->isVectorTy()
                       ? llvm::VectorType::get(b_.getInt32Ty(), llvm::cast<llvm::VectorType>(t)->getElementCount())
                       : static_cast<llvm::Type*>(b_.getInt32Ty());
  // x = j*pi/2 + r with |r| <= pi/4; pi/2 split in three parts whose first two have few
  // significant bits, so j*part is exact for |j| < 2^15 or so.
  llvm::Value* j = callIntrinsic(llvm::Intrinsic::roundeven, {b_.CreateFMul(x, constF(t, 0.6366197723675814))});
  llvm::Value* r = b_.CreateFSub(x, b_.CreateFMul(j, constF(t, 1.5703125)));
  r = b_.CreateFSub(r, b_.CreateFMul(j, constF(t, 4.837512969970703125e-4)));
  r = b_.CreateFSub(r, b_.CreateFMul(j, constF(t, 7.54978995489188216e-8)));
  // The quadrant, from j clamped so that the conversion is defined for inf / NaN inputs (whose
  // r is NaN anyway).
  llvm::Value* jc = callIntrinsic(llvm::Intrinsic::minnum,
                                  {callIntrinsic(llvm::Intrinsic::maxnum, {j, constF(t, -1e7)}), constF(t, 1e7)});
  llvm::Value* q = b_.CreateFPToSI(jc, it);
  if (which == 1) q = b_.CreateAdd(q, llvm::ConstantInt::get(it, 1));  // cos x = sin(x + pi/2)
  // Minimax polynomials on [-pi/4, pi/4] (Cephes sinf / cosf).
  llvm::Value* r2 = b_.CreateFMul(r, r);
  llvm::Value* sp = horner(b_, mod_, r2, {-1.6666654611e-1, 8.3321608736e-3, -1.9515295891e-4});
  llvm::Value* s = b_.CreateFAdd(r, b_.CreateFMul(b_.CreateFMul(r, r2), sp));
  llvm::Value* cp = horner(b_, mod_, r2, {4.166664568298827e-2, -1.388731625493765e-3, 2.443315711809948e-5});
  llvm::Value* c = b_.CreateFAdd(b_.CreateFSub(constF(t, 1.0), b_.CreateFMul(r2, constF(t, 0.5))),
                                 b_.CreateFMul(b_.CreateFMul(r2, r2), cp));
  llvm::Value* zero = llvm::ConstantInt::get(it, 0);
  llvm::Value* odd = b_.CreateICmpNE(b_.CreateAnd(q, llvm::ConstantInt::get(it, 1)), zero);
  if (which == 2)  // tan x = tan r for even j, -cot r for odd j
    return b_.CreateSelect(odd, b_.CreateFNeg(b_.CreateFDiv(c, s)), b_.CreateFDiv(s, c));
  llvm::Value* v = b_.CreateSelect(odd, c, s);
  llvm::Value* neg = b_.CreateICmpNE(b_.CreateAnd(q, llvm::ConstantInt::get(it, 2)), zero);
  return b_.CreateSelect(neg, b_.CreateFNeg(v), v);
}

llvm::Value* Emitter::fastAtan(llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Value* ax = callIntrinsic(llvm::Intrinsic::fabs, {x});
  // Cephes atanf: reduce |x| to |t| <= tan(pi/8) with atan x = pi/2 + atan(-1/x) above tan(3pi/8)
  // and pi/4 + atan((x-1)/(x+1)) above tan(pi/8). (|x| = inf gives t = -0 and pi/2.)
  llvm::Value* big = b_.CreateFCmpOGT(ax, constF(t, 2.414213562373095));
  llvm::Value* mid = b_.CreateFCmpOGT(ax, constF(t, 0.4142135623730950));
  llvm::Value* tb = b_.CreateFNeg(b_.CreateFDiv(constF(t, 1.0), ax));
  llvm::Value* tm = b_.CreateFDiv(b_.CreateFSub(ax, constF(t, 1.0)), b_.CreateFAdd(ax, constF(t, 1.0)));
  llvm::Value* tt = b_.CreateSelect(big, tb, b_.CreateSelect(mid, tm, ax));
  llvm::Value* y0 = b_.CreateSelect(big, constF(t, 1.5707963267948966),
                                    b_.CreateSelect(mid, constF(t, 0.7853981633974483), constF(t, 0.0)));
  llvm::Value* z = b_.CreateFMul(tt, tt);
  llvm::Value* p = horner(b_, mod_, z, {-3.33329491539e-1, 1.99777106478e-1, -1.38776856032e-1, 8.05374449538e-2});
  llvm::Value* y = b_.CreateFAdd(tt, b_.CreateFMul(b_.CreateFMul(p, z), tt));
  return callIntrinsic(llvm::Intrinsic::copysign, {b_.CreateFAdd(y0, y), x});
}

// log(1 + u) accurate for small u: log(w) * u / (w - 1) with w = 1 + u cancels the rounding of w
// (needs strict IEEE arithmetic, which the generated code keeps: no fast-math flags).
llvm::Value* Emitter::log1p(llvm::Value* u) {
  llvm::Type* t = u->getType();
  llvm::Value* w = b_.CreateFAdd(constF(t, 1.0), u);
  llvm::Value* l = callIntrinsic(llvm::Intrinsic::log, {w});
  llvm::Value* v = b_.CreateFMul(l, b_.CreateFDiv(u, b_.CreateFSub(w, constF(t, 1.0))));
  v = b_.CreateSelect(b_.CreateFCmpOEQ(w, constF(t, 1.0)), u, v);
  return b_.CreateSelect(b_.CreateFCmpOEQ(w, constF(t, INFINITY)), w, v);
}

llvm::Value* Emitter::emitHyperbolic(te::UnOp op, llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Value* ax = callIntrinsic(llvm::Intrinsic::fabs, {x});
  llvm::Value* half = constF(t, 0.5);
  auto logBig = [&](llvm::Value* a) {  // log(2a): asinh / acosh for a where a^2 + 1 rounds to a^2
    return b_.CreateFAdd(callIntrinsic(llvm::Intrinsic::log, {a}), constF(t, 0.6931471805599453));
  };
  switch (op) {
    case te::UnOp::Sinh: {
      llvm::Value* e = fastExp(ax);
      llvm::Value* big = b_.CreateFMul(half, b_.CreateFSub(e, b_.CreateFDiv(constF(t, 1.0), e)));
      // Near zero e - 1/e cancels: the Maclaurin series instead (error < 1e-10 below 0.5).
      llvm::Value* x2 = b_.CreateFMul(ax, ax);
      llvm::Value* s = horner(b_, mod_, x2, {1.0, 1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362880});
      llvm::Value* small = b_.CreateFMul(ax, s);
      llvm::Value* v = b_.CreateSelect(b_.CreateFCmpOLT(ax, half), small, big);
      return callIntrinsic(llvm::Intrinsic::copysign, {v, x});
    }
    case te::UnOp::Cosh: {
      llvm::Value* e = fastExp(ax);
      return b_.CreateFMul(half, b_.CreateFAdd(e, b_.CreateFDiv(constF(t, 1.0), e)));
    }
    case te::UnOp::Asinh: {  // log1p(a + a^2 / (1 + sqrt(1 + a^2)))
      llvm::Value* a2 = b_.CreateFMul(ax, ax);
      llvm::Value* sq = callIntrinsic(llvm::Intrinsic::sqrt, {b_.CreateFAdd(constF(t, 1.0), a2)});
      llvm::Value* u = b_.CreateFAdd(ax, b_.CreateFDiv(a2, b_.CreateFAdd(constF(t, 1.0), sq)));
      llvm::Value* v = b_.CreateSelect(b_.CreateFCmpOGT(ax, constF(t, 4096.0)), logBig(ax), log1p(u));
      return callIntrinsic(llvm::Intrinsic::copysign, {v, x});
    }
    case te::UnOp::Acosh: {  // log1p((x - 1) + sqrt((x - 1)(x + 1))); NaN below 1
      llvm::Value* xm = b_.CreateFSub(x, constF(t, 1.0));
      llvm::Value* sq = callIntrinsic(llvm::Intrinsic::sqrt, {b_.CreateFMul(xm, b_.CreateFAdd(x, constF(t, 1.0)))});
      llvm::Value* v = log1p(b_.CreateFAdd(xm, sq));
      return b_.CreateSelect(b_.CreateFCmpOGT(x, constF(t, 4096.0)), logBig(x), v);
    }
    case te::UnOp::Atanh: {  // 0.5 log1p(2a / (1 - a)), odd
      llvm::Value* u = b_.CreateFDiv(b_.CreateFMul(ax, constF(t, 2.0)), b_.CreateFSub(constF(t, 1.0), ax));
      return callIntrinsic(llvm::Intrinsic::copysign, {b_.CreateFMul(half, log1p(u)), x});
    }
    default:
      break;
  }
  TT_UNREACHABLE(std::string("hyperbolic ") + te::unOpName(op));
}

llvm::Value* Emitter::emitUnaryFloat(te::UnOp op, llvm::Value* x) {
  llvm::Type* t = x->getType();
  if (t->getScalarType()->isDoubleTy()) {
    switch (op) {
      case te::UnOp::Exp:
        return libmCall("exp", x);
      case te::UnOp::Log:
        return libmCall("log", x);
      case te::UnOp::Tanh:
        return libmCall("tanh", x);
      case te::UnOp::Erf:
        return libmCall("erf", x);
      case te::UnOp::Sigmoid:
        return b_.CreateFDiv(constF(t, 1.0), b_.CreateFAdd(constF(t, 1.0), libmCall("exp", b_.CreateFNeg(x))));
      case te::UnOp::Sin:
        return libmCall("sin", x);
      case te::UnOp::Cos:
        return libmCall("cos", x);
      case te::UnOp::Tan:
        return libmCall("tan", x);
      case te::UnOp::Asin:
        return libmCall("asin", x);
      case te::UnOp::Acos:
        return libmCall("acos", x);
      case te::UnOp::Atan:
        return libmCall("atan", x);
      case te::UnOp::Sinh:
        return libmCall("sinh", x);
      case te::UnOp::Cosh:
        return libmCall("cosh", x);
      case te::UnOp::Asinh:
        return libmCall("asinh", x);
      case te::UnOp::Acosh:
        return libmCall("acosh", x);
      case te::UnOp::Atanh:
        return libmCall("atanh", x);
      default:
        break;  // exact operations: the generic code below
    }
  }
  switch (op) {
    case te::UnOp::Neg:
      return b_.CreateFNeg(x);
    case te::UnOp::Abs:
      return callIntrinsic(llvm::Intrinsic::fabs, {x});
    case te::UnOp::Exp:
      return fastExp(x);
    case te::UnOp::Log:
      return callIntrinsic(llvm::Intrinsic::log, {x});
    case te::UnOp::Sqrt:
      return callIntrinsic(llvm::Intrinsic::sqrt, {x});
    case te::UnOp::Rsqrt:
      return b_.CreateFDiv(constF(t, 1.0), callIntrinsic(llvm::Intrinsic::sqrt, {x}));
    case te::UnOp::Tanh:
      return fastTanh(x);
    case te::UnOp::Erf:
      return fastErf(x);
    case te::UnOp::Sigmoid:
      return b_.CreateFDiv(constF(t, 1.0), b_.CreateFAdd(constF(t, 1.0), fastExp(b_.CreateFNeg(x))));
    case te::UnOp::Floor:
      return callIntrinsic(llvm::Intrinsic::floor, {x});
    case te::UnOp::Ceil:
      return callIntrinsic(llvm::Intrinsic::ceil, {x});
    case te::UnOp::Round:
      return callIntrinsic(llvm::Intrinsic::roundeven, {x});
    case te::UnOp::Sin:
      return fastSinCosTan(x, 0);
    case te::UnOp::Cos:
      return fastSinCosTan(x, 1);
    case te::UnOp::Tan:
      return fastSinCosTan(x, 2);
    case te::UnOp::Atan:
      return fastAtan(x);
    case te::UnOp::Asin: {  // atan(x / sqrt((1 - x)(1 + x))): +-pi/2 at +-1, NaN beyond
      llvm::Value* d = b_.CreateFMul(b_.CreateFSub(constF(t, 1.0), x), b_.CreateFAdd(constF(t, 1.0), x));
      return fastAtan(b_.CreateFDiv(x, callIntrinsic(llvm::Intrinsic::sqrt, {d})));
    }
    case te::UnOp::Acos: {  // 2 atan(sqrt((1 - x) / (1 + x))): accurate near both ends
      llvm::Value* q = b_.CreateFDiv(b_.CreateFSub(constF(t, 1.0), x), b_.CreateFAdd(constF(t, 1.0), x));
      return b_.CreateFMul(constF(t, 2.0), fastAtan(callIntrinsic(llvm::Intrinsic::sqrt, {q})));
    }
    case te::UnOp::Sinh:
    case te::UnOp::Cosh:
    case te::UnOp::Asinh:
    case te::UnOp::Acosh:
    case te::UnOp::Atanh:
      return emitHyperbolic(op, x);
    case te::UnOp::TruncBf16: {
      TT_ASSERT(t->getScalarType()->isFloatTy(), "trunc_bf16 of a non-float32 value");
      llvm::Type* it = intLike(x, 32);
      llvm::Value* cut =
          b_.CreateBitCast(b_.CreateAnd(b_.CreateBitCast(x, it), llvm::ConstantInt::get(it, 0xffff0000u)), t);
      return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, cut);
    }
    case te::UnOp::Not:
      break;
  }
  TT_UNREACHABLE(std::string("float unary ") + te::unOpName(op));
}

}  // namespace ttune::codegen
