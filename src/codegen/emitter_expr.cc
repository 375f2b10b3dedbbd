#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "codegen/emitter.h"
#include "support/assert.h"
#include "support/overload.h"
#include "te/expr_functor.h"
#include "te/float16.h"

namespace ttune::codegen {

namespace {
// Largest constant lane stride loaded as one wide load plus a shuffle instead of a gather.
constexpr int64_t kMaxLoadStride = 4;
}  // namespace

llvm::Type* Emitter::scalarType(te::DType t) {
  switch (t) {
    case te::DType::Float32:
      return b_.getFloatTy();
    case te::DType::Int32:
      return b_.getInt32Ty();
    case te::DType::Int64:
      return b_.getInt64Ty();
    case te::DType::Bool:
      return b_.getInt1Ty();
    case te::DType::Int8:
    case te::DType::UInt8:
      return b_.getInt8Ty();
    case te::DType::Int16:
    case te::DType::UInt16:
    case te::DType::Float16:  // carried as bits (emitter_types.cc)
    case te::DType::BFloat16:
      return b_.getInt16Ty();
    case te::DType::UInt32:
      return b_.getInt32Ty();
    case te::DType::UInt64:
      return b_.getInt64Ty();
    case te::DType::Float64:
      return b_.getDoubleTy();
  }
  TT_UNREACHABLE("dtype");
}

llvm::Type* Emitter::storageType(te::DType t) { return t == te::DType::Bool ? b_.getInt8Ty() : scalarType(t); }

llvm::Value* Emitter::splat(llvm::Value* v) { return b_.CreateVectorSplat(lanes_, v); }

llvm::Value* Emitter::toLanes(llvm::Value* v) { return (vvar_ && !isVector(v)) ? splat(v) : v; }

llvm::Value* Emitter::allOnesMask() { return splat(b_.getTrue()); }

llvm::Value* Emitter::accessMask(const te::Buffer* buf) {
  // Private tiles too: a tile clamped to its producer's shape (24 channels covered by vectors of
  // 16) is not padded to whole vectors, so the inactive lanes of a tail vector alias the next
  // row; stores to tiles blend (emitStore), so those lanes keep their values.
  if (mask_ && tail_mask_) return b_.CreateAnd(mask_, tail_mask_);
  return mask_ ? mask_ : tail_mask_;
}

void Emitter::tagAccess(llvm::Instruction* inst, const te::Buffer* buf) {
  auto s = scope_.find(buf);
  if (s == scope_.end()) return;
  inst->setMetadata(llvm::LLVMContext::MD_alias_scope, s->second);
  inst->setMetadata(llvm::LLVMContext::MD_noalias, noalias_.at(buf));
}

llvm::Value* Emitter::address(const te::Buffer* buf, llvm::Value* index) {
  auto it = bufs_.find(buf);
  TT_ASSERT(it != bufs_.end(), "codegen: buffer " + buf->name + " is not allocated here");
  return b_.CreateInBoundsGEP(storageType(buf->dtype), it->second, index);
}

llvm::Value* Emitter::callIntrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(&mod_, id, {args[0]->getType()});
  return b_.CreateCall(f, args);
}

llvm::Value* Emitter::emitExpr(const te::Expr& e) {
  return std::visit(Overload{
                        [&](const te::IntImm& n) -> llvm::Value* {
                          return llvm::ConstantInt::get(scalarType(e.dtype()), n.value, true);
                        },
                        [&](const te::FloatImm& n) -> llvm::Value* {
                          if (e.dtype() == te::DType::Float16)
                            return b_.getInt16(te::floatToHalf(te::doubleToFloatOdd(n.value)));
                          if (e.dtype() == te::DType::BFloat16)
                            return b_.getInt16(te::floatToBf16(te::doubleToFloatOdd(n.value)));
                          return llvm::ConstantFP::get(scalarType(e.dtype()), n.value);
                        },
                        [&](const te::VarRef& n) -> llvm::Value* {
                          auto it = vars_.find(n.var.get());
                          TT_ASSERT(it != vars_.end(), "codegen: unbound variable " + n.var.name());
                          return it->second;
                        },
                        [&](const te::Binary& n) { return emitBinary(n, e); },
                        [&](const te::Unary& n) -> llvm::Value* {
                          llvm::Value* a = emitExpr(n.a);
                          if (n.op == te::UnOp::Not) return b_.CreateNot(a);
                          if (te::isHalfFloat(e.dtype()))
                            return floatToHalf(emitUnaryFloat(n.op, halfToFloat(a, e.dtype())), e.dtype());
                          if (te::isFloat(e.dtype())) return emitUnaryFloat(n.op, a);
                          if (n.op == te::UnOp::Neg) return b_.CreateNeg(a);
                          if (n.op == te::UnOp::Abs && te::isUnsigned(e.dtype())) return a;
                          if (n.op == te::UnOp::Abs) return callIntrinsic(llvm::Intrinsic::abs, {a, b_.getFalse()});
                          TT_UNREACHABLE(std::string("integer ") + te::unOpName(n.op));
                        },
                        [&](const te::Select& n) { return emitSelect(n); },
                        [&](const te::Cast& n) { return emitCast(n, e.dtype()); },
                        [&](const te::BufferLoad& n) { return emitLoad(n.buffer, n.index); },
                        [&](const te::TensorRead& n) -> llvm::Value* {
                          TT_UNREACHABLE("codegen: unlowered read of " + n.tensor.name());
                        },
                        [&](const te::Reduce&) -> llvm::Value* { TT_UNREACHABLE("codegen: unlowered reduction"); },
                    },
                    e.node().kind);
}

llvm::Value* Emitter::emitBinary(const te::Binary& n, const te::Expr& e) {
  using te::BinOp;
  llvm::Value* a = emitExpr(n.a);
  llvm::Value* b = emitExpr(n.b);
  if (isVector(a) != isVector(b)) {
    a = toLanes(a);
    b = toLanes(b);
  }
  if (te::isHalfFloat(n.a.dtype())) {
    // 16-bit floats compute in float32 and round back (dtype.h).
    a = halfToFloat(a, n.a.dtype());
    b = halfToFloat(b, n.a.dtype());
    llvm::Value* r = emitBinaryValues(n.op, a, b, te::DType::Float32, n);
    return e.dtype() == n.a.dtype() ? floatToHalf(r, n.a.dtype()) : r;
  }
  return emitBinaryValues(n.op, a, b, n.a.dtype(), n);
}

llvm::Value* Emitter::emitBinaryValues(te::BinOp op, llvm::Value* a, llvm::Value* b, te::DType t, const te::Binary& n) {
  using te::BinOp;
  bool fl = te::isFloat(t);
  // Unsigned types compare, divide and take min/max unsigned; everything else is signed.
  bool uns = te::isUnsigned(t);
  switch (op) {
    case BinOp::Add:
      return fl ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
    case BinOp::Sub:
      return fl ? b_.CreateFSub(a, b) : b_.CreateSub(a, b);
    case BinOp::Mul:
      return fl ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
    case BinOp::Div:
      return b_.CreateFDiv(a, b);
    case BinOp::FloorDiv:
    case BinOp::FloorMod: {
      // Unsigned floor division is plain unsigned division.
      if (uns) return op == BinOp::FloorDiv ? b_.CreateUDiv(a, b) : b_.CreateURem(a, b);
      if (te::dtypeBytes(t) <= 2 && t != te::DType::Bool) {
        // 8- and 16-bit division in 32 bits: int8's -128 / -1 must wrap rather than overflow.
        llvm::Type* wide = a->getType()->getWithNewBitWidth(32);
        llvm::Value* wa = b_.CreateSExt(a, wide);
        llvm::Value* wb = b_.CreateSExt(b, wide);
        llvm::Value* q = b_.CreateSDiv(wa, wb);
        llvm::Value* m = b_.CreateSRem(wa, wb);
        llvm::Value* zero = llvm::Constant::getNullValue(wide);
        llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(m, zero),
                                           b_.CreateICmpNE(b_.CreateICmpSLT(m, zero), b_.CreateICmpSLT(wb, zero)));
        llvm::Value* r = op == BinOp::FloorDiv ? b_.CreateSub(q, b_.CreateZExt(adjust, wide))
                                               : b_.CreateSelect(adjust, b_.CreateAdd(m, wb), m);
        return b_.CreateTrunc(r, a->getType());
      }
      int64_t c;
      bool pos_const = te::isConstInt(n.b, &c) && c > 0;
      if (pos_const && te::constIntBound(n.a, bounds_).lo >= 0)
        return op == BinOp::FloorDiv ? b_.CreateUDiv(a, b) : b_.CreateURem(a, b);
      llvm::Value* q = b_.CreateSDiv(a, b);
      llvm::Value* r = b_.CreateSRem(a, b);
      llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
      llvm::Value* adjust =
          b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
      if (op == BinOp::FloorDiv) return b_.CreateSub(q, b_.CreateZExt(adjust, a->getType()));
      return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
    }
    case BinOp::Min:
      return fl ? callIntrinsic(llvm::Intrinsic::minnum, {a, b})
                : callIntrinsic(uns ? llvm::Intrinsic::umin : llvm::Intrinsic::smin, {a, b});
    case BinOp::Max:
      return fl ? callIntrinsic(llvm::Intrinsic::maxnum, {a, b})
                : callIntrinsic(uns ? llvm::Intrinsic::umax : llvm::Intrinsic::smax, {a, b});
    case BinOp::Pow:
      if (!fl) return intPow(a, b, uns);
      return callIntrinsic(llvm::Intrinsic::pow, {a, b});
    case BinOp::Eq:
      return fl ? b_.CreateFCmpOEQ(a, b) : b_.CreateICmpEQ(a, b);
    case BinOp::Ne:
      return fl ? b_.CreateFCmpUNE(a, b) : b_.CreateICmpNE(a, b);
    case BinOp::Lt:
      return fl ? b_.CreateFCmpOLT(a, b) : uns ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b);
    case BinOp::Le:
      return fl ? b_.CreateFCmpOLE(a, b) : uns ? b_.CreateICmpULE(a, b) : b_.CreateICmpSLE(a, b);
    case BinOp::Gt:
      return fl ? b_.CreateFCmpOGT(a, b) : uns ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b);
    case BinOp::Ge:
      return fl ? b_.CreateFCmpOGE(a, b) : uns ? b_.CreateICmpUGE(a, b) : b_.CreateICmpSGE(a, b);
    case BinOp::And:
      return b_.CreateAnd(a, b);
    case BinOp::Or:
      return b_.CreateOr(a, b);
  }
  TT_UNREACHABLE("binary op");
}

llvm::Value* Emitter::emitSelect(const te::Select& n) {
  llvm::Value* c = emitExpr(n.cond);
  // A condition known here (an unrolled loop's index picking a coefficient) emits only its branch.
  if (auto* k = llvm::dyn_cast<llvm::Constant>(c)) {
    if (k->isAllOnesValue()) return emitExpr(n.t);
    if (k->isNullValue()) return emitExpr(n.f);
  }
  bool lazy = te::hasMemoryRead(n.t) || te::hasMemoryRead(n.f);
  if (!lazy) {
    llvm::Value* t = emitExpr(n.t);
    llvm::Value* f = emitExpr(n.f);
    if (isVector(c) || isVector(t) != isVector(f)) {
      t = toLanes(t);
      f = toLanes(f);
      if (isVector(t)) c = toLanes(c);
    }
    return b_.CreateSelect(c, t, f);
  }
  if (isVector(c)) {
    // Lane-dependent condition: each branch runs under its mask so reads never leave bounds.
    llvm::Value* saved = mask_;
    mask_ = saved ? b_.CreateAnd(saved, c) : c;
    llvm::Value* t = toLanes(emitExpr(n.t));
    llvm::Value* nc = b_.CreateNot(c);
    mask_ = saved ? b_.CreateAnd(saved, nc) : nc;
    llvm::Value* f = toLanes(emitExpr(n.f));
    mask_ = saved;
    return b_.CreateSelect(c, t, f);
  }
  // Uniform condition: branch, so the untaken side's reads never happen.
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* tb = llvm::BasicBlock::Create(ctx_, "sel.t", fn);
  llvm::BasicBlock* fb = llvm::BasicBlock::Create(ctx_, "sel.f", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "sel.end", fn);
  b_.CreateCondBr(c, tb, fb);
  b_.SetInsertPoint(tb);
  llvm::Value* t = emitExpr(n.t);
  llvm::BasicBlock* tend = b_.GetInsertBlock();
  b_.SetInsertPoint(fb);
  llvm::Value* f = emitExpr(n.f);
  llvm::BasicBlock* fend = b_.GetInsertBlock();
  if (isVector(t) != isVector(f)) {  // both sides must have one type
    if (!isVector(t)) {
      b_.SetInsertPoint(tend);
      t = splat(t);
    } else {
      b_.SetInsertPoint(fend);
      f = splat(f);
    }
  }
  b_.SetInsertPoint(tend);
  b_.CreateBr(done);
  b_.SetInsertPoint(fend);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  llvm::PHINode* phi = b_.CreatePHI(t->getType(), 2);
  phi->addIncoming(t, tend);
  phi->addIncoming(f, fend);
  return phi;
}

llvm::Value* Emitter::emitCast(const te::Cast& n, te::DType to) {
  llvm::Value* a = emitExpr(n.a);
  te::DType from = n.a.dtype();
  llvm::Type* tt = scalarType(to);
  if (isVector(a)) tt = llvm::VectorType::get(tt, llvm::ElementCount::getFixed(lanes_));
  if (from == to) return a;
  // 16-bit floats: through float32 (float64 rounded to odd first, so the value rounds once).
  if (te::isHalfFloat(to)) return floatToHalf(toFloat32(a, from, true), to);
  if (te::isHalfFloat(from)) {
    a = halfToFloat(a, from);
    from = te::DType::Float32;
    if (to == from) return a;
  }
  if (to == te::DType::Bool) {
    if (te::isFloat(from)) return b_.CreateFCmpUNE(a, llvm::Constant::getNullValue(a->getType()));
    return b_.CreateICmpNE(a, llvm::Constant::getNullValue(a->getType()));
  }
  if (te::isFloat(to)) {
    if (te::isFloat(from)) return to == te::DType::Float64 ? b_.CreateFPExt(a, tt) : b_.CreateFPTrunc(a, tt);
    if (from == te::DType::Bool || te::isUnsigned(from)) return b_.CreateUIToFP(a, tt);
    return b_.CreateSIToFP(a, tt);
  }
  // to integer
  if (te::isFloat(from)) {
    if (to == te::DType::Int32 || to == te::DType::Int64) return b_.CreateFPToSI(a, tt);
    if (te::dtypeBytes(to) == 1) {
      // To 8 bits through int32, so values beyond the type wrap (as the evaluator does) instead
      // of being poison.
      llvm::Type* i32 = tt->getWithNewBitWidth(32);
      return b_.CreateTrunc(b_.CreateFPToSI(a, i32), tt);
    }
    return floatToWideInt(a, to, tt);
  }
  if (from == te::DType::Bool || te::isUnsigned(from)) return b_.CreateZExtOrTrunc(a, tt);
  return b_.CreateSExtOrTrunc(a, tt);
}

Emitter::LaneUse Emitter::laneUse(const te::Expr& index) const {
  LaneUse u;
  if (!vvar_) return u;
  bool lane_var = false, vector_let = false;
  std::function<void(const te::Expr&)> walk = [&](const te::Expr& e) {
    if (const te::VarRef* v = e.as<te::VarRef>()) {
      if (v->var.get() == vvar_)
        lane_var = true;
      else if (auto it = vars_.find(v->var.get()); it != vars_.end() && isVector(it->second))
        vector_let = true;
      return;
    }
    te::forEachChild(e, walk);
  };
  walk(index);
  u.varying = lane_var || vector_let;
  u.affine = lane_var && !vector_let;
  return u;
}

llvm::Value* Emitter::emitLoad(const te::BufferRef& bref, const te::Expr& index) {
  const te::Buffer* buf = bref.get();
  llvm::Type* st = storageType(buf->dtype);
  llvm::Align align(te::dtypeBytes(buf->dtype));
  auto finish = [&](llvm::Value* v) -> llvm::Value* {
    if (buf->dtype != te::DType::Bool) return v;
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  };
  LaneUse lanes = laneUse(index);
  // A private tile is sized for every lane and is read without a mask (a blend where a condition
  // masks its writes), which keeps it promotable to registers.
  llvm::Value* mask = buf->scope == te::MemScope::Local ? nullptr : accessMask(buf);
  if (!lanes.varying) {
    llvm::Value* idx = emitExpr(index);
    llvm::Value* p = address(buf, idx);
    if (mask) {
      // Lanes may be inactive, and with none active the address may be out of bounds: one
      // element loaded under "any lane active". The value stays a scalar, so an index built
      // from it (a gather's tap) still addresses memory with one base, not a vector of them.
      llvm::Type* v1 = llvm::FixedVectorType::get(st, 1);
      llvm::Value* any = b_.CreateVectorSplat(1, b_.CreateOrReduce(mask));
      auto* ld = b_.CreateMaskedLoad(v1, p, align, any, llvm::Constant::getNullValue(v1));
      tagAccess(ld, buf);
      return finish(b_.CreateExtractElement(ld, uint64_t{0}));
    }
    auto* ld = b_.CreateAlignedLoad(st, p, align);
    tagAccess(ld, buf);
    return finish(ld);
  }
  llvm::Type* vt = llvm::VectorType::get(st, llvm::ElementCount::getFixed(lanes_));
  auto coef = lanes.affine ? te::linearCoefficient(index, vvar_) : std::nullopt;
  if (coef && *coef == 1) {
    te::VarMap<te::Expr> sub{{vvar_, te::Expr(vbase_)}};
    llvm::Value* p = address(buf, emitExpr(te::substitute(index, sub)));
    llvm::Instruction* ld =
        mask
            ? static_cast<llvm::Instruction*>(b_.CreateMaskedLoad(vt, p, align, mask, llvm::Constant::getNullValue(vt)))
            : b_.CreateAlignedLoad(vt, p, align);
    tagAccess(ld, buf);
    return finish(ld);
  }
  // A small constant stride (a strided convolution's input), or lanes at constant offsets of one
  // base that are not linear in the lane (the input channels of a group that several output
  // lanes share, floor(lane / g) * g + c): one masked wide load of the span, touching only the
  // needed elements, then a shuffle -- far cheaper than a gather.
  std::optional<std::vector<int64_t>> offsets;
  if (coef && *coef >= 2 && *coef <= kMaxLoadStride) {
    offsets.emplace(lanes_);
    for (int l = 0; l < lanes_; ++l) (*offsets)[l] = l * *coef;
  } else if (lanes.affine && !coef) {
    offsets = laneOffsets(index);
  }
  if (offsets)
    if (llvm::Value* v = loadAtOffsets(buf, index, mask, *offsets)) return finish(v);
  llvm::Value* vidx = toLanes(emitExpr(index));
  llvm::Value* ptrs = address(buf, vidx);
  auto* g = b_.CreateMaskedGather(vt, ptrs, align, mask ? mask : allOnesMask(), llvm::Constant::getNullValue(vt));
  tagAccess(g, buf);
  return finish(g);
}

llvm::Value* Emitter::loadAtOffsets(const te::Buffer* buf, const te::Expr& index, llvm::Value* mask,
                                    const std::vector<int64_t>& offsets) {
  auto [lo, hi] = std::minmax_element(offsets.begin(), offsets.end());
  const int64_t first = *lo;
  const int span = static_cast<int>(*hi - first + 1);
  std::vector<int> owner(span, -1);
  bool shared = false;
  for (int l = 0; l < lanes_; ++l) {
    int j = static_cast<int>(offsets[l] - first);
    shared |= owner[j] >= 0;
    if (owner[j] < 0) owner[j] = l;
  }
  // Lanes sharing an element would need their masks combined: a masked access stays a gather.
  if (shared && mask) return nullptr;
  llvm::Type* st = storageType(buf->dtype);
  llvm::Align align(te::dtypeBytes(buf->dtype));
  te::VarMap<te::Expr> sub{{vvar_, te::Expr(vbase_)}};
  te::Expr start = te::substitute(index, sub);
  if (first != 0) start = te::simplify(start + te::Expr(first));
  llvm::Value* p = address(buf, emitExpr(start));
  llvm::Value* lane_mask = mask ? mask : allOnesMask();
  llvm::SmallVector<int, 64> spread(span), pick(lanes_);
  for (int j = 0; j < span; ++j) spread[j] = owner[j] >= 0 ? owner[j] : lanes_;
  for (int l = 0; l < lanes_; ++l) pick[l] = static_cast<int>(offsets[l] - first);
  llvm::Value* wide_mask =
      b_.CreateShuffleVector(lane_mask, llvm::Constant::getNullValue(lane_mask->getType()), spread);
  llvm::Type* wt = llvm::VectorType::get(st, llvm::ElementCount::getFixed(span));
  auto* ld = b_.CreateMaskedLoad(wt, p, align, wide_mask, llvm::Constant::getNullValue(wt));
  tagAccess(ld, buf);
  return b_.CreateShuffleVector(ld, pick);
}

std::optional<std::vector<int64_t>> Emitter::laneOffsets(const te::Expr& index) const {
  auto it = vars_.find(vbase_.get());
  const auto* base = it == vars_.end() ? nullptr : llvm::dyn_cast<llvm::ConstantInt>(it->second);
  if (!base) return std::nullopt;
  auto at = [&](int64_t lane) {
    te::VarMap<te::Expr> sub{{vvar_, te::Expr(base->getSExtValue() + lane)}};
    return te::substitute(index, sub);
  };
  const te::Expr first = at(0);
  std::vector<int64_t> offsets(lanes_);
  for (int l = 0; l < lanes_; ++l) {
    // The offset must not depend on the other loops' values: a constant after simplification.
    if (!te::isConstInt(te::simplify(at(l) - first, bounds_), &offsets[l])) return std::nullopt;
  }
  auto [lo, hi] = std::minmax_element(offsets.begin(), offsets.end());
  if (*hi - *lo >= kMaxLoadStride * lanes_) return std::nullopt;
  return offsets;
}

void Emitter::emitStore(const lower::Store& s) { storeValue(s.buffer, s.index, emitExpr(s.value)); }

void Emitter::storeValue(const te::BufferRef& buffer, const te::Expr& index, llvm::Value* v) {
  const te::Buffer* buf = buffer.get();
  llvm::Type* st = storageType(buf->dtype);
  llvm::Align align(te::dtypeBytes(buf->dtype));
  if (buf->dtype == te::DType::Bool) {
    llvm::Type* t8 = isVector(v) ? llvm::VectorType::get(st, llvm::ElementCount::getFixed(lanes_)) : st;
    v = b_.CreateZExt(v, t8);
  }
  LaneUse lanes = laneUse(index);
  llvm::Value* mask = accessMask(buf);
  if (!lanes.varying) {
    TT_ASSERT(!isVector(v) && !mask_, "codegen: lane-varying store to one address");
    auto* si = b_.CreateAlignedStore(v, address(buf, emitExpr(index)), align);
    tagAccess(si, buf);
    return;
  }
  v = toLanes(v);
  auto coef = lanes.affine ? te::linearCoefficient(index, vvar_) : std::nullopt;
  if (coef && *coef == 1) {
    te::VarMap<te::Expr> sub{{vvar_, te::Expr(vbase_)}};
    llvm::Value* p = address(buf, emitExpr(te::substitute(index, sub)));
    if (mask && buf->scope == te::MemScope::Local) {
      // Blend into a private tile instead of a masked store (keeps it in registers).
      llvm::Type* vt = v->getType();
      auto* old = b_.CreateAlignedLoad(vt, p, align);
      tagAccess(old, buf);
      v = b_.CreateSelect(mask, v, old);
      mask = nullptr;
    }
    llvm::Instruction* si = mask ? static_cast<llvm::Instruction*>(b_.CreateMaskedStore(v, p, align, mask))
                                 : b_.CreateAlignedStore(v, p, align);
    tagAccess(si, buf);
    return;
  }
  llvm::Value* ptrs = address(buf, toLanes(emitExpr(index)));
  auto* sc = b_.CreateMaskedScatter(v, ptrs, align, mask ? mask : allOnesMask());
  tagAccess(sc, buf);
}

}  // namespace ttune::codegen
