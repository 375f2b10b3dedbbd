// Conversions between element types that LLVM has no single instruction for on every target:
// the 16-bit floats (bit operations, exactly te/float16.h), float64 -> float32 rounded to odd,
// float -> integer conversions that are defined for every input, integer pow, and float64 math
// through libm.
#include <llvm/IR/Intrinsics.h>

#include "codegen/emitter.h"
#include "support/assert.h"

namespace ttune::codegen {

llvm::Type* Emitter::intLike(llvm::Value* v, unsigned bits) {
  llvm::Type* it = b_.getIntNTy(bits);
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(v->getType()))
    return llvm::VectorType::get(it, vt->getElementCount());
  return it;
}

llvm::Value* Emitter::halfToFloat(llvm::Value* bits, te::DType t) {
  llvm::Type* i32 = intLike(bits, 32);
  llvm::Type* f32 = i32->getWithNewType(b_.getFloatTy());
  auto k = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* h = b_.CreateZExt(bits, i32);
  if (t == te::DType::BFloat16) return b_.CreateBitCast(b_.CreateShl(h, k(16)), f32);
  llvm::Value* sign = b_.CreateShl(b_.CreateAnd(h, k(0x8000)), k(16));
  llvm::Value* em = b_.CreateAnd(h, k(0x7fff));
  // Normal: rebias the exponent (15 -> 127); inf / NaN: all-ones exponent.
  llvm::Value* normal = b_.CreateAdd(b_.CreateShl(em, k(13)), k(112u << 23));
  normal = b_.CreateSelect(b_.CreateICmpUGE(em, k(0x7c00)), b_.CreateAdd(normal, k(112u << 23)), normal);
  // Zero / subnormal: mantissa * 2^-24, exact in float32.
  llvm::Value* sub = b_.CreateFMul(b_.CreateUIToFP(em, f32), llvm::ConstantFP::get(f32, 5.9604644775390625e-8));
  llvm::Value* mag = b_.CreateSelect(b_.CreateICmpULT(em, k(0x400)), b_.CreateBitCast(sub, i32), normal);
  return b_.CreateBitCast(b_.CreateOr(mag, sign), f32);
}

llvm::Value* Emitter::floatToHalf(llvm::Value* f, te::DType t) {
  llvm::Type* i32 = intLike(f, 32);
  llvm::Type* i16 = intLike(f, 16);
  auto k = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* u = b_.CreateBitCast(f, i32);
  llvm::Value* a = b_.CreateAnd(u, k(0x7fffffff));
  llvm::Value* nan = b_.CreateICmpUGT(a, k(0x7f800000));
  if (t == te::DType::BFloat16) {
    llvm::Value* rounded = b_.CreateAdd(u, b_.CreateAdd(k(0x7fff), b_.CreateAnd(b_.CreateLShr(u, k(16)), k(1))));
    llvm::Value* r = b_.CreateSelect(nan, b_.CreateOr(u, k(0x400000)), rounded);
    return b_.CreateTrunc(b_.CreateLShr(r, k(16)), i16);
  }
  llvm::Value* sign = b_.CreateAnd(b_.CreateLShr(u, k(16)), k(0x8000));
  llvm::Value* nanv = b_.CreateOr(k(0x7e00), b_.CreateAnd(b_.CreateLShr(a, k(13)), k(0x3ff)));
  // Subnormal results: adding 0.5 makes float32's own addition round at 2^-24.
  llvm::Value* sum = b_.CreateFAdd(b_.CreateBitCast(a, f->getType()), llvm::ConstantFP::get(f->getType(), 0.5));
  llvm::Value* subv = b_.CreateSub(b_.CreateBitCast(sum, i32), k(0x3f000000));
  llvm::Value* r = b_.CreateSub(a, k(0x38000000));
  r = b_.CreateAdd(r, b_.CreateAdd(k(0xfff), b_.CreateAnd(b_.CreateLShr(r, k(13)), k(1))));
  llvm::Value* normv = b_.CreateLShr(r, k(13));
  llvm::Value* mag = b_.CreateSelect(b_.CreateICmpULT(a, k(0x38800000)), subv, normv);
  mag = b_.CreateSelect(b_.CreateICmpUGE(a, k(0x477ff000)), k(0x7c00), mag);
  mag = b_.CreateSelect(nan, nanv, mag);
  return b_.CreateTrunc(b_.CreateOr(mag, sign), i16);
}

llvm::Value* Emitter::doubleToFloatOdd(llvm::Value* d) {
  llvm::Type* i32 = intLike(d, 32);
  llvm::Type* f32 = i32->getWithNewType(b_.getFloatTy());
  llvm::Value* f = b_.CreateFPTrunc(d, f32);
  llvm::Value* back = b_.CreateFPExt(f, d->getType());
  llvm::Value* u = b_.CreateBitCast(f, i32);
  // Rounded away from zero (including to infinity): one ulp back toward zero.
  llvm::Value* away =
      b_.CreateFCmpOGT(callIntrinsic(llvm::Intrinsic::fabs, {back}), callIntrinsic(llvm::Intrinsic::fabs, {d}));
  u = b_.CreateSub(u, b_.CreateZExt(away, i32));
  llvm::Value* inexact = b_.CreateFCmpONE(back, d);  // false for NaN
  u = b_.CreateOr(u, b_.CreateZExt(inexact, i32));
  return b_.CreateBitCast(u, f32);
}

llvm::Value* Emitter::toFloat32(llvm::Value* v, te::DType from, bool odd) {
  if (from == te::DType::Float32) return v;
  if (te::isHalfFloat(from)) return halfToFloat(v, from);
  llvm::Type* f32 = intLike(v, 32)->getWithNewType(b_.getFloatTy());
  if (from == te::DType::Float64) return odd ? doubleToFloatOdd(v) : b_.CreateFPTrunc(v, f32);
  if (from == te::DType::Bool || te::isUnsigned(from)) return b_.CreateUIToFP(v, f32);
  return b_.CreateSIToFP(v, f32);
}

llvm::Value* Emitter::floatToWideInt(llvm::Value* f, te::DType to, llvm::Type* tt) {
  llvm::Type* i64 = intLike(f, 64);
  llvm::Function* s = llvm::Intrinsic::getDeclaration(&mod_, llvm::Intrinsic::fptosi_sat, {i64, f->getType()});
  llvm::Value* v = b_.CreateCall(s, {f});
  if (to == te::DType::UInt64) {
    llvm::Function* u = llvm::Intrinsic::getDeclaration(&mod_, llvm::Intrinsic::fptoui_sat, {i64, f->getType()});
    llvm::Value* big = b_.CreateFCmpOGE(f, llvm::ConstantFP::get(f->getType(), 9223372036854775808.0));
    v = b_.CreateSelect(big, b_.CreateCall(u, {f}), v);
  }
  return b_.CreateTrunc(v, tt);
}

llvm::Value* Emitter::intPow(llvm::Value* x, llvm::Value* n, bool unsigned_n) {
  llvm::Type* t = x->getType();
  unsigned bits = t->getScalarSizeInBits();
  auto k = [&](int64_t v) { return llvm::ConstantInt::get(t, v, true); };
  // Square and multiply over every bit of n: straight-line code, so it vectorizes.
  llvm::Value* r = k(1);
  llvm::Value* b = x;
  for (unsigned i = 0; i < bits; ++i) {
    llvm::Value* bit = b_.CreateICmpNE(b_.CreateAnd(n, k(int64_t{1} << (i < 63 ? i : 63))), k(0));
    if (i == 63) bit = b_.CreateICmpSLT(n, k(0));  // the top bit of a 64-bit n
    r = b_.CreateSelect(bit, b_.CreateMul(r, b), r);
    b = b_.CreateMul(b, b);
  }
  if (unsigned_n) return r;
  // n < 0: the truncated 1 / x^-n (te::evaluator's intPow).
  llvm::Value* one = b_.CreateICmpEQ(x, k(1));
  llvm::Value* minus_one = b_.CreateICmpEQ(x, k(-1));
  llvm::Value* odd = b_.CreateICmpNE(b_.CreateAnd(n, k(1)), k(0));
  llvm::Value* neg = b_.CreateSelect(one, k(1), b_.CreateSelect(minus_one, b_.CreateSelect(odd, k(-1), k(1)), k(0)));
  return b_.CreateSelect(b_.CreateICmpSLT(n, k(0)), neg, r);
}

llvm::Value* Emitter::libmCall(const char* name, llvm::Value* x) {
  llvm::Type* d = b_.getDoubleTy();
  llvm::FunctionCallee fn = mod_.getOrInsertFunction(name, llvm::FunctionType::get(d, {d}, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->setDoesNotThrow();
    f->setOnlyAccessesInaccessibleMemory();  // errno only
  }
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vt) return b_.CreateCall(fn, {x});
  llvm::Value* out = llvm::UndefValue::get(vt);
  for (unsigned l = 0; l < vt->getNumElements(); ++l)
    out = b_.CreateInsertElement(out, b_.CreateCall(fn, {b_.CreateExtractElement(x, l)}), l);
  return out;
}

}  // namespace ttune::codegen
