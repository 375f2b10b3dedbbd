#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>

#include <unordered_set>

#include "codegen/emitter.h"
#include "lower/stmt_functor.h"
#include "lower/vector_loops.h"
#include "support/assert.h"
#include "support/overload.h"
#include "te/expr_functor.h"

namespace ttune::codegen {

using lower::ForKind;
using lower::Stmt;

Emitter::Emitter(llvm::LLVMContext& ctx, llvm::Module& mod, const std::string& cpu, const std::string& features,
                 int vector_bits)
    : ctx_(ctx), mod_(mod), b_(ctx), cpu_(cpu), features_(features), vector_bits_(vector_bits) {}

llvm::Function* Emitter::newFunction(const std::string& name, llvm::FunctionType* type) {
  llvm::Function* f = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, mod_);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  f->addFnAttr("target-cpu", cpu_);
  f->addFnAttr("target-features", features_);
  std::string vb = std::to_string(vector_bits_);
  f->addFnAttr("prefer-vector-width", vb);
  f->addFnAttr("min-legal-vector-width", vb);
  f->addFnAttr("frame-pointer", "none");
  return f;
}

llvm::AllocaInst* Emitter::entryAlloca(llvm::Type* type, llvm::Value* count, const std::string& name) {
  llvm::IRBuilder<> eb(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  llvm::AllocaInst* a = eb.CreateAlloca(type, count, name);
  a->setAlignment(llvm::Align(64));
  return a;
}

void Emitter::emitKernel(const lower::LoweredFunc& f) {
  kernel_name_ = f.name;
  // Alias scopes for every buffer of the kernel.
  std::vector<const te::Buffer*> all;
  for (const te::BufferRef& b : f.args) all.push_back(b.get());
  struct Allocations : lower::StmtVisitor {
    std::vector<const te::Buffer*>& all;
    explicit Allocations(std::vector<const te::Buffer*>& a) : all(a) {}
    void visitAllocate(const lower::Allocate& a) override {
      all.push_back(a.buffer.get());
      StmtVisitor::visitAllocate(a);
    }
  };
  Allocations(all).visit(f.body);
  llvm::MDBuilder md(ctx_);
  alias_domain_ = md.createAnonymousAliasScopeDomain(f.name);
  for (const te::Buffer* b : all)
    scope_[b] = llvm::MDNode::get(ctx_, {md.createAnonymousAliasScope(alias_domain_, b->name)});
  for (const te::Buffer* b : all) {
    std::vector<llvm::Metadata*> others;
    for (const te::Buffer* o : all)
      if (o != b) others.push_back(scope_[o]->getOperand(0));
    noalias_[b] = llvm::MDNode::get(ctx_, others);
  }

  llvm::Type* ptr = llvm::PointerType::get(ctx_, 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr}, false);
  fn_ = newFunction(f.name, type);
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  b_.SetInsertPoint(entry);
  llvm::Value* args = fn_->getArg(0);
  for (size_t i = 0; i < f.args.size(); ++i) {
    llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(ptr, args, i);
    llvm::LoadInst* p = b_.CreateLoad(ptr, slot, f.args[i]->name);
    p->setMetadata(llvm::LLVMContext::MD_nonnull, llvm::MDNode::get(ctx_, {}));
    bufs_[f.args[i].get()] = p;
  }
  // Size parameters follow the tensors, each passed as a pointer to its int64 value.
  for (size_t i = 0; i < f.size_params.size(); ++i) {
    llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(ptr, args, f.args.size() + i);
    llvm::Value* p = b_.CreateLoad(ptr, slot);
    const te::Var& param = f.size_params[i];
    vars_[param.get()] = b_.CreateLoad(b_.getInt64Ty(), p, param.name());
    bounds_[param.get()] = te::IntBound{0, te::IntBound::kPosInf};
  }
  emitStmt(f.body);
  b_.CreateRetVoid();
}

void Emitter::emitStmt(const Stmt& s) {
  if (!s) return;
  std::visit(Overload{
                 [&](const lower::For& x) { emitFor(x); },
                 [&](const lower::Store& x) { emitStore(x); },
                 [&](const lower::IfThenElse& x) { emitIf(x); },
                 [&](const lower::Allocate& x) { emitAllocate(x); },
                 [&](const lower::Seq& x) {
                   for (const Stmt& c : x.stmts) emitStmt(c);
                 },
                 [&](const lower::LetStmt& x) {
                   llvm::Value* v = emitExpr(x.value);
                   vars_[x.var.get()] = v;
                   if (!isVector(v)) bounds_[x.var.get()] = te::constIntBound(x.value, bounds_);
                   emitStmt(x.body);
                 },
                 [&](const lower::Prefetch& x) { emitPrefetch(x); },
             },
             s->kind);
}

void Emitter::emitPrefetch(const lower::Prefetch& p) {
  if (vvar_ != nullptr) return;  // a lane-varying address has no single line to fetch
  llvm::Value* index = emitExpr(p.index);
  if (isVector(index)) return;
  // Read, locality 2 (L2 and outward: the lines are needed a pass from now), data cache.
  callIntrinsic(llvm::Intrinsic::prefetch,
                {address(p.buffer.get(), index), b_.getInt32(0), b_.getInt32(2), b_.getInt32(1)});
}

void Emitter::emitIf(const lower::IfThenElse& s) {
  llvm::Value* c = emitExpr(s.cond);
  if (isVector(c)) {
    llvm::Value* saved = mask_;
    mask_ = saved ? b_.CreateAnd(saved, c) : c;
    emitStmt(s.then_case);
    if (s.else_case) {
      llvm::Value* nc = b_.CreateNot(c);
      mask_ = saved ? b_.CreateAnd(saved, nc) : nc;
      emitStmt(s.else_case);
    }
    mask_ = saved;
    return;
  }
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "then", fn_);
  llvm::BasicBlock* else_bb = s.else_case ? llvm::BasicBlock::Create(ctx_, "else", fn_) : nullptr;
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "endif", fn_);
  b_.CreateCondBr(c, then_bb, else_bb ? else_bb : done);
  b_.SetInsertPoint(then_bb);
  emitStmt(s.then_case);
  b_.CreateBr(done);
  if (else_bb) {
    b_.SetInsertPoint(else_bb);
    emitStmt(s.else_case);
    b_.CreateBr(done);
  }
  b_.SetInsertPoint(done);
}

void Emitter::emitAllocate(const lower::Allocate& a) {
  const te::Buffer* buf = a.buffer.get();
  llvm::Type* et = storageType(buf->dtype);
  llvm::Value* p;
  if (buf->scope == te::MemScope::Local) {
    // Slack after the tile: a vector of a tail tile (up to 64 lanes, see emitVectorized) may
    // reach past the tile's last row; its inactive lanes are read and blended back unchanged.
    p = entryAlloca(et, b_.getInt64(buf->size + kLocalSlack), buf->name);
    bufs_[buf] = p;
    emitStmt(a.body);
    return;
  }
  llvm::Type* ptr = llvm::PointerType::get(ctx_, 0);
  llvm::FunctionCallee alloc = mod_.getOrInsertFunction("ttune_alloc", ptr, b_.getInt64Ty());
  llvm::FunctionCallee release = mod_.getOrInsertFunction("ttune_free", b_.getVoidTy(), ptr);
  p = b_.CreateCall(alloc, {b_.getInt64(buf->size * te::dtypeBytes(buf->dtype))}, buf->name);
  bufs_[buf] = p;
  emitStmt(a.body);
  b_.CreateCall(release, {p});
}

void Emitter::emitFor(const lower::For& f) {
  if (vvar_ && tryEmitDot(f)) return;
  int64_t c;
  bool const_ext = te::isConstInt(f.extent, &c);
  switch (f.kind) {
    case ForKind::Serial:
      break;
    case ForKind::Unrolled:
      if (vvar_ == nullptr || !te::usesVar(f.extent, vvar_)) return emitUnrolled(f);
      break;
    case ForKind::Vectorized:
      if (vvar_ == nullptr) return emitVectorized(f);
      break;  // already vectorizing an outer loop: run this one serially over vector lanes
    case ForKind::Parallel:
      if (vvar_ == nullptr) return emitParallel(f);
      break;
  }
  (void)const_ext;
  llvm::Value* ext = emitExpr(f.extent);
  TT_ASSERT(!isVector(ext), "loop extent varies across vector lanes");
  emitSerialLoop(f.var, b_.getInt64(0), ext, f.max_extent, f.body);
}

void Emitter::emitSerialLoop(const te::Var& var, llvm::Value* begin, llvm::Value* end, int64_t max_extent,
                             const Stmt& body) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, var.name() + ".header", fn_);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, var.name() + ".body", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, var.name() + ".exit", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* iv = b_.CreatePHI(b_.getInt64Ty(), 2, var.name());
  iv->addIncoming(begin, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(iv, end), loop, exit);
  b_.SetInsertPoint(loop);
  vars_[var.get()] = iv;
  bounds_[var.get()] = te::IntBound{0, std::max<int64_t>(0, max_extent - 1)};
  emitStmt(body);
  llvm::Value* next = b_.CreateAdd(iv, b_.getInt64(1), "", true, true);
  iv->addIncoming(next, b_.GetInsertBlock());
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
}

void Emitter::emitUnrolled(const lower::For& f) {
  int64_t n;
  auto replicate = [&]() {
    for (int64_t k = 0; k < f.max_extent; ++k) {
      vars_[f.var.get()] = b_.getInt64(k);
      bounds_[f.var.get()] = te::IntBound::exact(k);
      emitStmt(f.body);
    }
  };
  if (te::isConstInt(f.extent, &n) && n == f.max_extent) return replicate();
  // A shorter run-time extent (a tail tile) takes a guarded copy, still at constant offsets so
  // that register tiles stay in registers.
  llvm::Value* ext = emitExpr(f.extent);
  llvm::BasicBlock* full = llvm::BasicBlock::Create(ctx_, "unroll.full", fn_);
  llvm::BasicBlock* part = llvm::BasicBlock::Create(ctx_, "unroll.tail", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "unroll.done", fn_);
  b_.CreateCondBr(b_.CreateICmpEQ(ext, b_.getInt64(f.max_extent)), full, part);
  b_.SetInsertPoint(full);
  replicate();
  b_.CreateBr(done);
  b_.SetInsertPoint(part);
  emitGuardedUnroll(f.var, ext, f.max_extent, f.body);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

void Emitter::emitGuardedUnroll(const te::Var& var, llvm::Value* ext, int64_t max_extent, const Stmt& body) {
  for (int64_t k = 0; k < max_extent; ++k) {
    llvm::BasicBlock* run = llvm::BasicBlock::Create(ctx_, "lane", fn_);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(ctx_, "lane.next", fn_);
    b_.CreateCondBr(b_.CreateICmpSLT(b_.getInt64(k), ext), run, next);
    b_.SetInsertPoint(run);
    vars_[var.get()] = b_.getInt64(k);
    bounds_[var.get()] = te::IntBound::exact(k);
    emitStmt(body);
    b_.CreateBr(next);
    b_.SetInsertPoint(next);
  }
}

void Emitter::emitVectorBody(const te::Var& var, llvm::Value* base, int lanes, int64_t max_extent, const Stmt& body) {
  const te::VarNode* saved_v = vvar_;
  te::Var saved_base = vbase_;
  int saved_lanes = lanes_;
  vvar_ = var.get();
  vbase_ = te::Var(var.name() + ".base");
  lanes_ = lanes;
  vars_[vbase_.get()] = base;
  bounds_[vbase_.get()] = te::IntBound{0, std::max<int64_t>(0, max_extent - 1)};
  bounds_[var.get()] = te::IntBound{0, std::max<int64_t>(0, max_extent - 1)};
  llvm::Value* ramp = b_.CreateAdd(splat(base), [&] {
    std::vector<llvm::Constant*> c;
    for (int i = 0; i < lanes; ++i) c.push_back(b_.getInt64(i));
    return llvm::ConstantVector::get(c);
  }());
  vars_[var.get()] = ramp;
  emitStmt(body);
  vvar_ = saved_v;
  vbase_ = saved_base;
  lanes_ = saved_lanes;
}

void Emitter::emitVectorized(const lower::For& f) {
  int64_t L = f.max_extent;
  if (L <= 1 || !lower::isLaneParallel(f.body, f.var.get())) {
    // Not lane-parallel: run lanes one after the other (replicated when short).
    lower::For g = f;
    g.kind = L <= 64 ? ForKind::Unrolled : ForKind::Serial;
    return g.kind == ForKind::Unrolled ? emitUnrolled(g) : emitFor(g);
  }
  // Chunks of the native vector width: odd or wide lane counts legalize badly in LLVM.
  int native = std::max(4, vector_bits_ / 32);
  int W = static_cast<int>(L <= native ? L : native);
  int64_t n;
  if (te::isConstInt(f.extent, &n) && n == L) {
    int64_t full = L / W, rem = L % W;
    for (int64_t c = 0; c < full; ++c) emitVectorBody(f.var, b_.getInt64(c * W), W, L, f.body);
    if (rem > 0) emitVectorBody(f.var, b_.getInt64(full * W), static_cast<int>(rem), L, f.body);
    return;
  }
  llvm::Value* ext = emitExpr(f.extent);
  if (L <= 64) {
    // A tail tile: full vectors when the run-time extent is the whole loop, else guarded scalar
    // lanes at constant offsets (a variable offset would keep a register tile in memory).
    llvm::BasicBlock* full = llvm::BasicBlock::Create(ctx_, "vec.full", fn_);
    llvm::BasicBlock* part = llvm::BasicBlock::Create(ctx_, "vec.tail", fn_);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "vec.done", fn_);
    b_.CreateCondBr(b_.CreateICmpEQ(ext, b_.getInt64(L)), full, part);
    b_.SetInsertPoint(full);
    int64_t nfull = L / W, rem = L % W;
    for (int64_t c = 0; c < nfull; ++c) emitVectorBody(f.var, b_.getInt64(c * W), W, L, f.body);
    if (rem > 0) emitVectorBody(f.var, b_.getInt64(nfull * W), static_cast<int>(rem), L, f.body);
    b_.CreateBr(done);
    b_.SetInsertPoint(part);
    // The tail runs the same vectors under a lane mask (lane < extent).
    for (int64_t c = 0; c * W < L; ++c) {
      int lanes = static_cast<int>(std::min<int64_t>(W, L - c * W));
      std::vector<llvm::Constant*> iota;
      for (int i = 0; i < lanes; ++i) iota.push_back(b_.getInt64(c * W + i));
      llvm::Value* saved = tail_mask_;
      int saved_lanes = lanes_;
      lanes_ = lanes;
      tail_mask_ = b_.CreateICmpSLT(llvm::ConstantVector::get(iota), splat(ext));
      lanes_ = saved_lanes;
      emitVectorBody(f.var, b_.getInt64(c * W), lanes, L, f.body);
      tail_mask_ = saved;
    }
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    return;
  }
  // Long loops: full chunks of W lanes, then a scalar tail.
  llvm::Value* chunks = b_.CreateSDiv(ext, b_.getInt64(W));
  te::Var c(f.var.name() + ".chunk");
  {
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "vec.header", fn_);
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "vec.body", fn_);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "vec.exit", fn_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* iv = b_.CreatePHI(b_.getInt64Ty(), 2, "chunk");
    iv->addIncoming(b_.getInt64(0), pre);
    b_.CreateCondBr(b_.CreateICmpSLT(iv, chunks), loop, exit);
    b_.SetInsertPoint(loop);
    emitVectorBody(f.var, b_.CreateMul(iv, b_.getInt64(W)), W, L, f.body);
    llvm::Value* next = b_.CreateAdd(iv, b_.getInt64(1));
    iv->addIncoming(next, b_.GetInsertBlock());
    b_.CreateBr(header);
    b_.SetInsertPoint(exit);
  }
  emitSerialLoop(f.var, b_.CreateMul(chunks, b_.getInt64(W)), ext, L, f.body);
}

void Emitter::emitParallel(const lower::For& f) {
  llvm::Value* ext = emitExpr(f.extent);
  // Capture the body's free variables and the buffers it touches in an array of i64.
  struct Uses : lower::StmtVisitor {
    std::unordered_set<const te::VarNode*> vars;
    std::unordered_set<const te::Buffer*> bufs;
    void visitExpr(const te::Expr& e) override {
      te::visitAll(e, [&](const te::Expr& x) {
        if (const te::VarRef* v = x.as<te::VarRef>()) vars.insert(v->var.get());
        if (const te::BufferLoad* l = x.as<te::BufferLoad>()) bufs.insert(l->buffer.get());
      });
    }
    void visitStore(const lower::Store& x) override {
      bufs.insert(x.buffer.get());
      StmtVisitor::visitStore(x);
    }
    void visitPrefetch(const lower::Prefetch& x) override {
      bufs.insert(x.buffer.get());
      StmtVisitor::visitPrefetch(x);
    }
  } uses;
  uses.visit(f.body);
  const std::unordered_set<const te::VarNode*>& used_vars = uses.vars;
  const std::unordered_set<const te::Buffer*>& used_bufs = uses.bufs;
  std::vector<std::pair<const te::VarNode*, llvm::Value*>> vars;
  std::vector<std::pair<const te::Buffer*, llvm::Value*>> bufs;
  for (const auto& [v, val] : vars_)
    if (used_vars.count(v) && v != f.var.get() && !val->getType()->isVectorTy()) vars.emplace_back(v, val);
  for (const auto& [b, val] : bufs_)
    if (used_bufs.count(b)) bufs.emplace_back(b, val);
  size_t n = vars.size() + bufs.size();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* ptr = llvm::PointerType::get(ctx_, 0);
  llvm::AllocaInst* env = entryAlloca(i64, b_.getInt64(std::max<size_t>(n, 1)), "par.env");
  size_t k = 0;
  for (auto& [v, val] : vars) {
    llvm::Value* x = val->getType()->isIntegerTy(64) ? val : b_.CreateSExt(val, i64);
    b_.CreateStore(x, b_.CreateConstInBoundsGEP1_64(i64, env, k++));
  }
  for (auto& [buf, val] : bufs)
    b_.CreateStore(b_.CreatePtrToInt(val, i64), b_.CreateConstInBoundsGEP1_64(i64, env, k++));

  // The outlined body: void body(ptr env, i64 begin, i64 end).
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr, i64, i64}, false);
  llvm::Function* body = newFunction(kernel_name_ + ".par" + std::to_string(outlined_++), type);
  body->setLinkage(llvm::Function::InternalLinkage);
  llvm::Function* saved_fn = fn_;
  llvm::IRBuilderBase::InsertPoint saved_ip = b_.saveIP();
  auto saved_vars = vars_;
  auto saved_bufs = bufs_;
  auto saved_bounds = bounds_;
  fn_ = body;
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", body));
  llvm::Value* benv = body->getArg(0);
  k = 0;
  for (auto& [v, val] : vars) {
    llvm::Value* x = b_.CreateLoad(i64, b_.CreateConstInBoundsGEP1_64(i64, benv, k++));
    vars_[v] = val->getType()->isIntegerTy(64) ? x : b_.CreateTrunc(x, val->getType());
  }
  for (auto& [buf, val] : bufs)
    bufs_[buf] = b_.CreateIntToPtr(b_.CreateLoad(i64, b_.CreateConstInBoundsGEP1_64(i64, benv, k++)), ptr);
  emitSerialLoop(f.var, body->getArg(1), body->getArg(2), f.max_extent, f.body);
  b_.CreateRetVoid();
  fn_ = saved_fn;
  b_.restoreIP(saved_ip);
  vars_ = std::move(saved_vars);
  bufs_ = std::move(saved_bufs);
  bounds_ = std::move(saved_bounds);

  llvm::FunctionCallee pfor = mod_.getOrInsertFunction("ttune_parallel_for", b_.getVoidTy(), i64, ptr, ptr);
  b_.CreateCall(pfor, {ext, body, env});
}

}  // namespace ttune::codegen
