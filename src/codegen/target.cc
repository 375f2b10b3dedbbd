#include <llvm/ADT/StringMap.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <mutex>

#include "codegen/codegen.h"
#include "codegen/emitter.h"
#include "support/assert.h"

namespace ttune::codegen {

namespace {

void initLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::unique_ptr<llvm::TargetMachine> makeTargetMachine(int opt_level) {
  initLLVM();
  const HostInfo& h = hostInfo();
  std::string triple = llvm::sys::getProcessTriple();
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
  TT_ASSERT(target, "no LLVM target for " + triple + ": " + err);
  llvm::TargetOptions opts;
  opts.AllowFPOpFusion = llvm::FPOpFusion::Fast;  // multiply-adds become FMAs
  auto level = opt_level >= 3 ? llvm::CodeGenOptLevel::Aggressive
               : opt_level == 2 ? llvm::CodeGenOptLevel::Default
               : opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                : llvm::CodeGenOptLevel::None;
  return std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(triple, h.cpu, h.features, opts, llvm::Reloc::PIC_, llvm::CodeModel::Small, level));
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
  auto level = opt_level >= 3 ? llvm::OptimizationLevel::O3
               : opt_level == 2 ? llvm::OptimizationLevel::O2
               : opt_level == 1 ? llvm::OptimizationLevel::O1
                                : llvm::OptimizationLevel::O0;
  llvm::ModulePassManager mpm = opt_level == 0 ? pb.buildO0DefaultPipeline(level) : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}

struct Built {
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> mod;
  std::unique_ptr<llvm::TargetMachine> tm;
};

Expected<Built> build(const lower::LoweredFunc& func, int opt_level, bool run_opt) {
  Built b;
  b.ctx = std::make_unique<llvm::LLVMContext>();
  b.mod = std::make_unique<llvm::Module>(func.name, *b.ctx);
  b.tm = makeTargetMachine(opt_level);
  b.mod->setDataLayout(b.tm->createDataLayout());
  b.mod->setTargetTriple(b.tm->getTargetTriple().str());
  const HostInfo& h = hostInfo();
  Emitter em(*b.ctx, *b.mod, h.cpu, h.features, h.vector_bits);
  em.emitKernel(func);
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*b.mod, &os)) {
    os.flush();
    TT_UNREACHABLE("generated LLVM IR for " + func.name + " is invalid: " + err);
  }
  if (run_opt) optimize(*b.mod, b.tm.get(), opt_level);
  return b;
}

}  // namespace

const HostInfo& hostInfo() {
  static HostInfo info = [] {
    initLLVM();
    HostInfo h;
    h.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> feats = llvm::sys::getHostCPUFeatures();
    std::string f;
    for (const auto& kv : feats) {
      if (!f.empty()) f += ",";
      f += (kv.second ? "+" : "-") + kv.first().str();
    }
    h.features = f;
    auto has = [&](const char* k) { auto it = feats.find(k); return it != feats.end() && it->second; };
    h.vector_bits = has("avx512f") ? 512 : (has("avx2") || has("avx")) ? 256 : 128;
    return h;
  }();
  return info;
}

Expected<ObjectCode> compile(const lower::LoweredFunc& func, const CompileOptions& options) {
  TT_TRY(Built b, build(func, options.opt_level, true));
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

Expected<std::string> emitLLVMIR(const lower::LoweredFunc& func, bool optimized) {
  TT_TRY(Built b, build(func, 3, optimized));
  std::string s;
  llvm::raw_string_ostream os(s);
  b.mod->print(os, nullptr);
  os.flush();
  return s;
}

}  // namespace ttune::codegen
