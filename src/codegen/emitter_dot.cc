// Dot products in vector loops (the int8 and bfloat16 kernels' inner loop).
//
// An int8 reduction's register tile ends in a short loop over a group of G consecutive reduction
// elements (G = 4 or 2, schedule::dotGroup) inside the vectorized loop over its int32
// accumulators:
//     for g in [0, G): acc[i] = acc[i] + int32(a[..g..]) * int32(b[..g..])
// and a bfloat16 one the same with float32 accumulators and widenings (G = 2).
// Emitted as it reads, that is G widened multiplies and adds per vector, each operand vector
// gathered at a stride of G. This file emits it as the target's dot-product instruction instead,
// one per native vector, on operands loaded as G * lanes contiguous bytes when the weights are
// packed in (lane, g) order (the layout rewrite does that), and as one broadcast G-byte word for
// the lane-invariant operand:
//   vpdpbusd (AVX512-VNNI, AVX-VNNI)   four u8 x s8 products summed into each int32 lane;
//   vpmaddwd (x86 AVX2 / AVX-512 BW)   operands widened to int16, pairs summed into int32 lanes
//                                      (exact for every signedness: no vpmaddubsw saturation);
//   sdot / udot (AArch64 dotprod)      four s8 x s8 (u8 x u8) products per lane;
//   vdpbf16ps (AVX512-BF16)            two bfloat16 products per float32 lane (the pair's sum is
//                                      rounded once, and denormals flushed, so bfloat16 kernels
//                                      agree with the evaluator to float32 rounding, not bits).
// Integer sums wrap in int32 exactly like the evaluator's (te/dtype.h). Anything else -- other element
// types, masked lanes (tail tiles, conditions), lane counts that are not a native vector --
// returns false and is emitted as written.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsAArch64.h>
#include <llvm/IR/IntrinsicsX86.h>

#include "codegen/emitter.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::codegen {

namespace {

bool hasFeature(const std::string& features, const std::string& f) {
  size_t pos = 0;
  const std::string want = "+" + f;
  while ((pos = features.find(want, pos)) != std::string::npos) {
    size_t end = pos + want.size();
    if (end == features.size() || features[end] == ',') return true;
    pos = end;
  }
  return false;
}

// The narrow operand under a widening cast: int32(load of int8 / uint8) or float32(load of
// bfloat16), whichever `acc` (the accumulator's type) takes.
const te::BufferLoad* widened(const te::Expr& e, te::DType acc) {
  const te::Cast* c = e.as<te::Cast>();
  if (!c || e.dtype() != acc) return nullptr;
  const bool narrow = acc == te::DType::Int32 ? te::is8BitInt(c->a.dtype()) : c->a.dtype() == te::DType::BFloat16;
  return narrow ? c->a.as<te::BufferLoad>() : nullptr;
}

}  // namespace

Emitter::DotUnits Emitter::dotUnits(const std::string& features, int vector_bits) {
  DotUnits d;
  const bool x86 = hasFeature(features, "sse2");
  d.vnni = x86 && ((vector_bits == 512 && hasFeature(features, "avx512vnni")) ||
                   (vector_bits <= 256 && (hasFeature(features, "avxvnni") ||
                                           (hasFeature(features, "avx512vnni") && hasFeature(features, "avx512vl")))));
  d.pairs = x86 && (vector_bits == 512   ? hasFeature(features, "avx512bw")
                    : vector_bits == 256 ? hasFeature(features, "avx2")
                                         : true);
  d.arm_dot = hasFeature(features, "dotprod") && hasFeature(features, "neon");
  d.bf16 = x86 && hasFeature(features, "avx512bf16") && (vector_bits == 512 || hasFeature(features, "avx512vl"));
  return d;
}

// One operand of the group as G * lanes elements in (lane, g) order, from its load `ld` (whose
// index depends on g = gvar). Lane-invariant: one G-element word broadcast to every lane;
// varying: one contiguous load when the index moves by 1 along g and by G along the lanes, else
// G vectors interleaved.
llvm::Value* Emitter::dotOperand(const te::BufferLoad& ld, const te::Var& gvar, int group) {
  const te::Buffer* buf = ld.buffer.get();
  te::VarMap<te::Expr> at0{{gvar.get(), te::intImm(0)}};
  te::Expr first = te::simplify(te::substitute(ld.index, at0));
  std::optional<int64_t> along_g = te::linearCoefficient(ld.index, gvar.get());
  LaneUse lanes = laneUse(first);
  llvm::Type* elem = storageType(buf->dtype);
  llvm::Type* bytes = llvm::FixedVectorType::get(elem, static_cast<unsigned>(group * lanes_));
  if (along_g && *along_g == 1) {
    if (!lanes.varying) {
      llvm::Type* word = b_.getIntNTy(static_cast<unsigned>(8 * te::dtypeBytes(buf->dtype) * group));
      auto* w = b_.CreateAlignedLoad(word, address(buf, emitExpr(first)), llvm::Align(1));
      tagAccess(w, buf);
      return b_.CreateBitCast(b_.CreateVectorSplat(lanes_, w), bytes);
    }
    std::optional<int64_t> along_lanes = lanes.affine ? te::linearCoefficient(first, vvar_) : std::nullopt;
    if (along_lanes && *along_lanes == group) {
      te::VarMap<te::Expr> at_base{{vvar_, te::Expr(vbase_)}};
      auto* v = b_.CreateAlignedLoad(bytes, address(buf, emitExpr(te::substitute(first, at_base))), llvm::Align(1));
      tagAccess(v, buf);
      return v;
    }
  }
  // General: each g's vector, then interleaved into (lane, g) order.
  llvm::Value* saved = vars_[gvar.get()];
  std::vector<llvm::Value*> parts;
  for (int g = 0; g < group; ++g) {
    vars_[gvar.get()] = b_.getInt64(g);
    parts.push_back(toLanes(emitLoad(ld.buffer, ld.index)));
  }
  vars_[gvar.get()] = saved;
  auto concat = [&](llvm::Value* a, llvm::Value* b) {
    int n = static_cast<int>(llvm::cast<llvm::FixedVectorType>(a->getType())->getNumElements());
    llvm::SmallVector<int, 128> idx(2 * n);
    for (int i = 0; i < 2 * n; ++i) idx[i] = i;
    return b_.CreateShuffleVector(a, b, idx);
  };
  llvm::Value* all =
      group == 2 ? concat(parts[0], parts[1]) : concat(concat(parts[0], parts[1]), concat(parts[2], parts[3]));
  llvm::SmallVector<int, 128> order(group * lanes_);
  for (int l = 0; l < lanes_; ++l)
    for (int g = 0; g < group; ++g) order[l * group + g] = g * lanes_ + l;
  return b_.CreateShuffleVector(all, all, order);
}

// Pairs of int16 products summed into int32 (vpmaddwd), on operands of G * lanes bytes widened
// by their signedness; groups of four add their two pairs.
llvm::Value* Emitter::pairDot(llvm::Value* a, bool a_signed, llvm::Value* b, bool b_signed, int group) {
  const int n = group * lanes_;
  llvm::Type* wide = llvm::FixedVectorType::get(b_.getInt16Ty(), static_cast<unsigned>(n));
  llvm::Value* wa = a_signed ? b_.CreateSExt(a, wide) : b_.CreateZExt(a, wide);
  llvm::Value* wb = b_signed ? b_.CreateSExt(b, wide) : b_.CreateZExt(b, wide);
  const int piece = vector_bits_ / 16;  // int16 elements of one native vector
  llvm::Intrinsic::ID id = vector_bits_ == 512   ? llvm::Intrinsic::x86_avx512_pmaddw_d_512
                           : vector_bits_ == 256 ? llvm::Intrinsic::x86_avx2_pmadd_wd
                                                 : llvm::Intrinsic::x86_sse2_pmadd_wd;
  // One or two native vectors of int16 (groups of 2 or 4 on lanes_ = one native int32 vector).
  llvm::Value* all = nullptr;
  for (int at = 0; at < n; at += piece) {
    llvm::SmallVector<int, 64> idx(piece);
    for (int i = 0; i < piece; ++i) idx[i] = at + i;
    llvm::Value* sum = b_.CreateCall(llvm::Intrinsic::getDeclaration(&mod_, id),
                                     {b_.CreateShuffleVector(wa, wa, idx), b_.CreateShuffleVector(wb, wb, idx)});
    if (!all) {
      all = sum;
      continue;
    }
    llvm::SmallVector<int, 64> both(2 * (piece / 2));
    for (int k = 0; k < piece; ++k) both[k] = k;
    all = b_.CreateShuffleVector(all, sum, both);
  }
  if (group == 2) return all;
  llvm::SmallVector<int, 32> even(lanes_), odd(lanes_);
  for (int l = 0; l < lanes_; ++l) {
    even[l] = 2 * l;
    odd[l] = 2 * l + 1;
  }
  return b_.CreateAdd(b_.CreateShuffleVector(all, all, even), b_.CreateShuffleVector(all, all, odd));
}

bool Emitter::tryEmitDot(const lower::For& f) {
  int64_t group = 0;
  if (!vvar_ || mask_ || tail_mask_ || !te::isConstInt(f.extent, &group) || (group != 2 && group != 4)) return false;
  if (lanes_ != vector_bits_ / 32) return false;
  const lower::Store* st = f.body ? std::get_if<lower::Store>(&f.body->kind) : nullptr;
  if (!st || te::usesVar(st->index, f.var.get())) return false;
  const te::DType acc_type = st->buffer->dtype;
  if (acc_type != te::DType::Int32 && acc_type != te::DType::Float32) return false;
  const te::Binary* add = st->value.as<te::Binary>();
  if (!add || add->op != te::BinOp::Add) return false;
  // acc + product, either way round, acc read where it is written.
  auto isAcc = [&](const te::Expr& e) {
    const te::BufferLoad* l = e.as<te::BufferLoad>();
    return l && l->buffer.get() == st->buffer.get() && te::structurallyEqual(l->index, st->index);
  };
  const te::Expr& prod = isAcc(add->a) ? add->b : isAcc(add->b) ? add->a : te::Expr();
  const te::Binary* mul = prod.defined() ? prod.as<te::Binary>() : nullptr;
  if (!mul || mul->op != te::BinOp::Mul) return false;
  const te::BufferLoad* x = widened(mul->a, acc_type);
  const te::BufferLoad* y = widened(mul->b, acc_type);
  if (!x || !y) return false;
  const bool x_signed = x->buffer->dtype == te::DType::Int8, y_signed = y->buffer->dtype == te::DType::Int8;
  const DotUnits units = dotUnits(features_, vector_bits_);
  enum class Unit { Vnni, Pairs, ArmDot, Bf16 } unit;
  if (acc_type == te::DType::Float32) {
    if (group != 2 || !units.bf16 || vector_bits_ < 256) return false;
    unit = Unit::Bf16;
  } else if (group == 4 && units.vnni && x_signed != y_signed)
    unit = Unit::Vnni;
  else if (group == 4 && units.arm_dot && x_signed == y_signed && vector_bits_ == 128)
    unit = Unit::ArmDot;
  else if (units.pairs)
    unit = Unit::Pairs;
  else
    return false;
  const int g = static_cast<int>(group);
  llvm::Value* a = dotOperand(*x, f.var, g);
  llvm::Value* b = dotOperand(*y, f.var, g);
  llvm::Value* acc = emitExpr(isAcc(add->a) ? add->a : add->b);
  llvm::Type* words = llvm::FixedVectorType::get(b_.getInt32Ty(), static_cast<unsigned>(lanes_));
  llvm::Value* result = nullptr;
  switch (unit) {
    case Unit::Vnni: {
      if (x_signed) std::swap(a, b);  // vpdpbusd's first source is the unsigned one
      llvm::Intrinsic::ID id = vector_bits_ == 512   ? llvm::Intrinsic::x86_avx512_vpdpbusd_512
                               : vector_bits_ == 256 ? llvm::Intrinsic::x86_avx512_vpdpbusd_256
                                                     : llvm::Intrinsic::x86_avx512_vpdpbusd_128;
      result = b_.CreateCall(llvm::Intrinsic::getDeclaration(&mod_, id),
                             {acc, b_.CreateBitCast(a, words), b_.CreateBitCast(b, words)});
      break;
    }
    case Unit::ArmDot: {
      llvm::Intrinsic::ID id = x_signed ? llvm::Intrinsic::aarch64_neon_sdot : llvm::Intrinsic::aarch64_neon_udot;
      llvm::Function* fn = llvm::Intrinsic::getDeclaration(&mod_, id, {words, a->getType()});
      result = b_.CreateCall(fn, {acc, a, b});
      break;
    }
    case Unit::Pairs:
      result = b_.CreateAdd(acc, pairDot(a, x_signed, b, y_signed, g));
      break;
    case Unit::Bf16: {
      llvm::Type* pairs = llvm::FixedVectorType::get(b_.getBFloatTy(), static_cast<unsigned>(2 * lanes_));
      llvm::Intrinsic::ID id = vector_bits_ == 512 ? llvm::Intrinsic::x86_avx512bf16_dpbf16ps_512
                                                   : llvm::Intrinsic::x86_avx512bf16_dpbf16ps_256;
      result = b_.CreateCall(llvm::Intrinsic::getDeclaration(&mod_, id),
                             {acc, b_.CreateBitCast(a, pairs), b_.CreateBitCast(b, pairs)});
      break;
    }
  }
  storeValue(st->buffer, st->index, result);
  return true;
}

}  // namespace ttune::codegen
