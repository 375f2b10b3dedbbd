#include <llvm/ADT/StringMap.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <cstdlib>
#include <mutex>

#include "codegen/codegen.h"
#include "codegen/emitter.h"
#include "lower/version_tiles.h"
#include "support/assert.h"

namespace ttune::codegen {

namespace {

std::unique_ptr<llvm::TargetMachine> makeTargetMachine(int opt_level, const schedule::Target& t) {
  initLLVMTargets();
  const std::string& triple = t.triple;
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
  TT_ASSERT(target, "no LLVM target for " + triple + ": " + err);
  llvm::TargetOptions opts;
  opts.AllowFPOpFusion = llvm::FPOpFusion::Fast;  // multiply-adds become FMAs
  auto level = opt_level >= 3   ? llvm::CodeGenOptLevel::Aggressive
               : opt_level == 2 ? llvm::CodeGenOptLevel::Default
               : opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                : llvm::CodeGenOptLevel::None;
  return std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(triple, t.cpu, t.features, opts, llvm::Reloc::PIC_, llvm::CodeModel::Small, level));
}

void optimize(llvm::Module& m, llvm::TargetMachine* tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  auto level = opt_level >= 3   ? llvm::OptimizationLevel::O3
               : opt_level == 2 ? llvm::OptimizationLevel::O2
               : opt_level == 1 ? llvm::OptimizationLevel::O1
                                : llvm::OptimizationLevel::O0;
  llvm::ModulePassManager mpm =
      opt_level == 0 ? pb.buildO0DefaultPipeline(level) : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}

struct Built {
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> mod;
  std::unique_ptr<llvm::TargetMachine> tm;
};

Expected<Built> build(const lower::LoweredFunc& func, int opt_level, bool run_opt, const schedule::Target& t) {
  Built b;
  b.ctx = std::make_unique<llvm::LLVMContext>();
  b.mod = std::make_unique<llvm::Module>(func.name, *b.ctx);
  b.tm = makeTargetMachine(opt_level, t);
  b.mod->setDataLayout(b.tm->createDataLayout());
  b.mod->setTargetTriple(b.tm->getTargetTriple().str());
  Emitter em(*b.ctx, *b.mod, t.cpu, t.features, t.vector_bits);
  // Full register tiles get straight-line versions here, not in lowering: the loop IR (and the
  // cost model's features of it) keeps one copy of every store.
  lower::LoweredFunc versioned = func;
  versioned.body = lower::versionTiles(func.body);
  em.emitKernel(versioned);
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*b.mod, &os)) {
    os.flush();
    if (std::getenv("TTUNE_DEBUG_IR")) {  // codegen/README.md
      llvm::errs() << lower::toString(versioned) << "\n";
      b.mod->print(llvm::errs(), nullptr);
    }
    TT_UNREACHABLE("generated LLVM IR for " + func.name + " is invalid: " + err);
  }
  if (run_opt) optimize(*b.mod, b.tm.get(), opt_level);
  return b;
}

}  // namespace

Expected<ObjectCode> compile(const lower::LoweredFunc& func, const CompileOptions& options) {
  TT_TRY(Built b, build(func, options.opt_level, true, options.target));
  ObjectCode out;
  out.entry = func.name;
  llvm::SmallVector<char, 0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  if (b.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    return Unexpected("LLVM cannot emit object code for this target");
  pm.run(*b.mod);
  out.bytes.assign(buf.begin(), buf.end());
  return out;
}

Expected<std::string> emitLLVMIR(const lower::LoweredFunc& func, bool optimized, const schedule::Target& target) {
  TT_TRY(Built b, build(func, 3, optimized, target));
  std::string s;
  llvm::raw_string_ostream os(s);
  b.mod->print(os, nullptr);
  os.flush();
  return s;
}

Expected<std::string> emitAssembly(const lower::LoweredFunc& func, const schedule::Target& target) {
  TT_TRY(Built b, build(func, 3, true, target));
  llvm::SmallVector<char, 0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  if (b.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return Unexpected("LLVM cannot emit assembly for target " + target.name);
  pm.run(*b.mod);
  return std::string(buf.begin(), buf.end());
}

}  // namespace ttune::codegen
