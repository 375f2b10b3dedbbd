#include "codegen/jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include <atomic>
#include <mutex>

#include "support/assert.h"

namespace ttune::codegen {

namespace {

struct Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::mutex mu;
  std::atomic<uint64_t> counter{0};
  std::atomic<int64_t> live{0};

  Jit() {
    initLLVMTargets();
    auto j = llvm::orc::LLJITBuilder().create();
    if (!j) TT_UNREACHABLE("cannot create the LLVM JIT: " + llvm::toString(j.takeError()));
    lljit = std::move(*j);
    llvm::orc::JITDylib& main = lljit->getMainJITDylib();
    llvm::orc::SymbolMap syms;
    for (const auto& [name, addr] : runtime::runtimeSymbols()) {
      syms[lljit->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(addr), llvm::JITSymbolFlags::Exported};
    }
    llvm::cantFail(main.define(llvm::orc::absoluteSymbols(std::move(syms))));
    auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(lljit->getDataLayout().getGlobalPrefix());
    if (!gen) TT_UNREACHABLE("cannot search process symbols: " + llvm::toString(gen.takeError()));
    main.addGenerator(std::move(*gen));
  }

  static Jit& get() {
    static Jit* jit = new Jit();  // kept alive until exit: kernels may be called from static dtors
    return *jit;
  }
};

}  // namespace

LoadedKernel::~LoadedKernel() {
  if (!dylib_) return;
  Jit& j = Jit::get();
  std::lock_guard<std::mutex> lock(j.mu);
  auto* jd = static_cast<llvm::orc::JITDylib*>(dylib_);
  llvm::consumeError(j.lljit->getExecutionSession().removeJITDylib(*jd));
  j.live--;
}

int64_t liveKernelLibraries() { return Jit::get().live.load(); }

Expected<std::shared_ptr<LoadedKernel>> loadKernel(const ObjectCode& code) {
  // Code for another architecture (an AArch64 target compiled here) must never reach the JIT:
  // the ELF machine field (16 bits at offset 18) says whose code it is.
  auto machine = [](const std::vector<char>& b) {
    return b.size() > 20
               ? static_cast<unsigned>(static_cast<unsigned char>(b[18]) | static_cast<unsigned char>(b[19]) << 8)
               : 0u;
  };
#if defined(__x86_64__)
  constexpr unsigned kHostMachine = 62;  // EM_X86_64
#elif defined(__aarch64__)
  constexpr unsigned kHostMachine = 183;  // EM_AARCH64
#else
  constexpr unsigned kHostMachine = 0;
#endif
  if (kHostMachine && machine(code.bytes) != kHostMachine)
    return Unexpected("the object code of " + code.entry + " is for another architecture (ELF machine " +
                      std::to_string(machine(code.bytes)) + "); it runs on its device or through a worker for it");
  Jit& j = Jit::get();
  std::lock_guard<std::mutex> lock(j.mu);
  auto jd = j.lljit->createJITDylib("kernel" + std::to_string(j.counter++));
  if (!jd) return Unexpected("cannot create a JIT library: " + llvm::toString(jd.takeError()));
  jd->addToLinkOrder(j.lljit->getMainJITDylib());
  j.live++;
  // On any failure the library is removed again (it would otherwise stay for the process's life).
  auto drop = [&] {
    llvm::consumeError(j.lljit->getExecutionSession().removeJITDylib(*jd));
    j.live--;
  };
  auto buf = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(code.bytes.data(), code.bytes.size()), code.entry);
  if (auto err = j.lljit->addObjectFile(*jd, std::move(buf))) {
    std::string why = llvm::toString(std::move(err));
    drop();
    return Unexpected("cannot load the object code of " + code.entry + ": " + why);
  }
  auto sym = j.lljit->lookup(*jd, code.entry);
  if (!sym) {
    std::string why = llvm::toString(sym.takeError());
    drop();
    return Unexpected("kernel " + code.entry + " is missing from its object code: " + why);
  }
  std::shared_ptr<LoadedKernel> k(new LoadedKernel());
  k->fn_ = sym->toPtr<TtuneKernelFn>();
  k->dylib_ = &*jd;
  return k;
}

}  // namespace ttune::codegen
