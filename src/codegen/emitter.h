// Private to codegen/: translates one LoweredFunc into an LLVM function (plus outlined parallel
// bodies) in a module. Split over emitter_stmt.cc (statements, loops, parallel outlining),
// emitter_expr.cc (expressions, loads/stores, vector lanes), emitter_types.cc (conversions
// between element types, 16-bit floats, integer pow) and math.cc (exp/erf/tanh).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include <unordered_map>
#include <vector>

#include "lower/loop_ir.h"
#include "te/arith.h"

namespace ttune::codegen {

class Emitter {
 public:
  Emitter(llvm::LLVMContext& ctx, llvm::Module& mod, const std::string& cpu, const std::string& features,
          int vector_bits);
  void emitKernel(const lower::LoweredFunc& f);

 private:
  // ---- statements (emitter_stmt.cc)
  void emitStmt(const lower::Stmt& s);
  void emitFor(const lower::For& f);
  void emitSerialLoop(const te::Var& var, llvm::Value* begin, llvm::Value* end, int64_t max_extent,
                      const lower::Stmt& body);
  void emitUnrolled(const lower::For& f);
  // for k in [0, max): if (k < extent) body[var = k] -- every access at a constant offset.
  void emitGuardedUnroll(const te::Var& var, llvm::Value* extent, int64_t max_extent, const lower::Stmt& body);
  void emitVectorized(const lower::For& f);
  void emitVectorBody(const te::Var& var, llvm::Value* base, int lanes, int64_t max_extent, const lower::Stmt& body);
  void emitParallel(const lower::For& f);
  void emitAllocate(const lower::Allocate& a);
  void emitIf(const lower::IfThenElse& s);
  void emitPrefetch(const lower::Prefetch& p);

  // ---- dot products of int8 and bfloat16 operands (emitter_dot.cc)
  // The dot-product instructions the target's features allow at its vector width.
  struct DotUnits {
    bool vnni = false;     // vpdpbusd
    bool pairs = false;    // vpmaddwd
    bool arm_dot = false;  // sdot / udot
    bool bf16 = false;     // vdpbf16ps
  };
  static DotUnits dotUnits(const std::string& features, int vector_bits);
  // Emits f, a group loop of an int8 or bfloat16 reduction inside a vector loop, as dot-product
  // instructions; false (nothing emitted) when f is not of that form or the target lacks them.
  bool tryEmitDot(const lower::For& f);
  llvm::Value* dotOperand(const te::BufferLoad& ld, const te::Var& gvar, int group);
  llvm::Value* pairDot(llvm::Value* a, bool a_signed, llvm::Value* b, bool b_signed, int group);
  llvm::Function* newFunction(const std::string& name, llvm::FunctionType* type);
  llvm::AllocaInst* entryAlloca(llvm::Type* type, llvm::Value* count, const std::string& name);

  // ---- expressions (emitter_expr.cc)
  llvm::Value* emitExpr(const te::Expr& e);
  llvm::Value* emitBinary(const te::Binary& n, const te::Expr& e);
  // The operation on operands of type t (already widened from a 16-bit float to float32).
  llvm::Value* emitBinaryValues(te::BinOp op, llvm::Value* a, llvm::Value* b, te::DType t, const te::Binary& n);
  llvm::Value* emitSelect(const te::Select& n);
  llvm::Value* emitCast(const te::Cast& n, te::DType to);
  llvm::Value* emitLoad(const te::BufferRef& buf, const te::Expr& index);
  void emitStore(const lower::Store& s);
  // Stores v (a scalar, or a vector of the current lanes) at buffer[index], as emitStore does.
  void storeValue(const te::BufferRef& buffer, const te::Expr& index, llvm::Value* v);
  llvm::Value* address(const te::Buffer* buf, llvm::Value* index);
  llvm::Value* splat(llvm::Value* v);
  llvm::Value* toLanes(llvm::Value* v);  // broadcast to the vector width when in vector mode
  llvm::Value* allOnesMask();
  llvm::Type* scalarType(te::DType t);
  llvm::Type* storageType(te::DType t);
  void tagAccess(llvm::Instruction* inst, const te::Buffer* buf);
  bool isVector(llvm::Value* v) const { return v->getType()->isVectorTy(); }
  // How an index depends on the vector lanes. A let-bound variable can hold a vector computed
  // from the lane variable, so the index's text alone does not tell: `affine` is true only when
  // the lane variable is the sole lane-varying part (its coefficient is then the lane stride).
  struct LaneUse {
    bool varying = false, affine = false;
  };
  LaneUse laneUse(const te::Expr& index) const;
  // Each lane's element offset from lane 0 of a vector access whose index depends on the lane
  // non-linearly but by constants only (vector base known), when they span at most a few vectors.
  std::optional<std::vector<int64_t>> laneOffsets(const te::Expr& index) const;
  // Lanes reading `index` + offsets[lane] as one masked wide load and a shuffle; nullptr when
  // masked lanes share elements.
  llvm::Value* loadAtOffsets(const te::Buffer* buf, const te::Expr& index, llvm::Value* mask,
                             const std::vector<int64_t>& offsets);

  // ---- element types (emitter_types.cc). Float16 / BFloat16 values are carried as their i16
  // bits; arithmetic widens them to float (te/dtype.h), with the integer operations of
  // te/float16.h (LLVM 14's half / bfloat lowering would call compiler-rt, which exports lack).
  llvm::Value* halfToFloat(llvm::Value* bits, te::DType t);
  llvm::Value* floatToHalf(llvm::Value* f, te::DType t);
  // float64 -> float32 rounded to odd (te/float16.h), before a narrowing to 16 bits.
  llvm::Value* doubleToFloatOdd(llvm::Value* d);
  // A value of `from` as float32 (float64 -> float32 rounded to odd when `odd`), for arithmetic on
  // or conversion to a 16-bit float.
  llvm::Value* toFloat32(llvm::Value* v, te::DType from, bool odd);
  // Float to a 16- to 64-bit integer type beyond 8 bits and Int32 / Int64: through a saturating
  // int64 conversion (UInt64: unsigned from 2^63), then wrapped by truncation.
  llvm::Value* floatToWideInt(llvm::Value* f, te::DType to, llvm::Type* tt);
  // Integer x^n wrapping in its type, square and multiply over n's bits (te::evaluator's intPow).
  llvm::Value* intPow(llvm::Value* x, llvm::Value* n, bool unsigned_n);
  // A double function of libm (exp, erf, ...), lane by lane for vectors.
  llvm::Value* libmCall(const char* name, llvm::Value* x);
  llvm::Type* intLike(llvm::Value* v, unsigned bits);  // the integer type of v's shape

  // ---- math (math.cc)
  llvm::Value* emitUnaryFloat(te::UnOp op, llvm::Value* x);
  llvm::Value* fastExp(llvm::Value* x);
  llvm::Value* fastErf(llvm::Value* x);
  llvm::Value* fastTanh(llvm::Value* x);
  // sin / cos / tan share one range reduction (which = 0, 1, 2).
  llvm::Value* fastSinCosTan(llvm::Value* x, int which);
  llvm::Value* fastAtan(llvm::Value* x);
  llvm::Value* log1p(llvm::Value* u);
  llvm::Value* emitHyperbolic(te::UnOp op, llvm::Value* x);
  llvm::Value* constF(llvm::Type* like, double v);
  llvm::Value* callIntrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args);

  llvm::LLVMContext& ctx_;
  llvm::Module& mod_;
  llvm::IRBuilder<> b_;
  std::string cpu_, features_;
  int vector_bits_;
  std::string kernel_name_;
  int outlined_ = 0;

  llvm::Function* fn_ = nullptr;
  std::unordered_map<const te::VarNode*, llvm::Value*> vars_;
  std::unordered_map<const te::Buffer*, llvm::Value*> bufs_;
  te::VarBounds bounds_;

  // Vector mode: the lane variable, its lane count, and the active lane masks (null = all
  // lanes): mask_ from lane-dependent conditions, tail_mask_ for lanes past a loop's run-time
  // extent (private tiles ignore the latter: those slots are never read).
  const te::VarNode* vvar_ = nullptr;
  te::Var vbase_;
  int lanes_ = 0;
  llvm::Value* mask_ = nullptr;
  llvm::Value* tail_mask_ = nullptr;
  static constexpr int64_t kLocalSlack = 64;  // elements allocated after every private tile
  // The mask for an access to `buf` (null when every lane may touch it).
  llvm::Value* accessMask(const te::Buffer* buf);

  // Alias analysis: every buffer is its own scope; an access is noalias with all other buffers.
  llvm::MDNode* alias_domain_ = nullptr;
  std::unordered_map<const te::Buffer*, llvm::MDNode*> scope_;
  std::unordered_map<const te::Buffer*, llvm::MDNode*> noalias_;
};

}  // namespace ttune::codegen
