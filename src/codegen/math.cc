// Float math for generated code. exp, erf and tanh are inline polynomial approximations that work
// on whole vectors (libm calls would scalarize every vector op); accuracy is about 1e-7 relative
// for exp and 2e-7 absolute for erf and tanh, well inside the tolerance against the reference.
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
  llvm::Type* it = t->isVectorTy() ? llvm::VectorType::get(b_.getInt32Ty(), llvm::cast<llvm::VectorType>(t)->getElementCount())
                                   : static_cast<llvm::Type*>(b_.getInt32Ty());
  llvm::Value* ni = b_.CreateFPToSI(n, it);
  llvm::Value* bits = b_.CreateShl(b_.CreateAdd(ni, llvm::ConstantInt::get(it, 127)), llvm::ConstantInt::get(it, 23));
  return b_.CreateFMul(p, b_.CreateBitCast(bits, t));
}

llvm::Value* Emitter::fastErf(llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Value* ax = callIntrinsic(llvm::Intrinsic::fabs, {x});
  // Large |x|: Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7).
  llvm::Value* tt = b_.CreateFDiv(constF(t, 1.0), b_.CreateFAdd(constF(t, 1.0), b_.CreateFMul(ax, constF(t, 0.3275911))));
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

llvm::Value* Emitter::emitUnaryFloat(te::UnOp op, llvm::Value* x) {
  llvm::Type* t = x->getType();
  switch (op) {
    case te::UnOp::Neg: return b_.CreateFNeg(x);
    case te::UnOp::Abs: return callIntrinsic(llvm::Intrinsic::fabs, {x});
    case te::UnOp::Exp: return fastExp(x);
    case te::UnOp::Log: return callIntrinsic(llvm::Intrinsic::log, {x});
    case te::UnOp::Sqrt: return callIntrinsic(llvm::Intrinsic::sqrt, {x});
    case te::UnOp::Rsqrt: return b_.CreateFDiv(constF(t, 1.0), callIntrinsic(llvm::Intrinsic::sqrt, {x}));
    case te::UnOp::Tanh: return fastTanh(x);
    case te::UnOp::Erf: return fastErf(x);
    case te::UnOp::Sigmoid:
      return b_.CreateFDiv(constF(t, 1.0), b_.CreateFAdd(constF(t, 1.0), fastExp(b_.CreateFNeg(x))));
    case te::UnOp::Floor: return callIntrinsic(llvm::Intrinsic::floor, {x});
    case te::UnOp::Ceil: return callIntrinsic(llvm::Intrinsic::ceil, {x});
    case te::UnOp::Round: return callIntrinsic(llvm::Intrinsic::roundeven, {x});
    case te::UnOp::Not: break;
  }
  TT_UNREACHABLE(std::string("float unary ") + te::unOpName(op));
}

}  // namespace ttune::codegen
