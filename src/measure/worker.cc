// The measurement worker process: loads each candidate's object code, runs it on its inputs with
// the timing protocol, checks its outputs and answers. Anything a candidate does wrong ends at
// most this process.
//
// Two builds: the host's worker (tools/ttune-worker, linked with LLVM) loads relocatable objects
// with the JIT linker; a worker cross-built for another architecture (cross/, TTUNE_WORKER_NO_JIT)
// has no LLVM and loads shared objects, which the builder links for it. Both accept shared objects.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#ifndef TTUNE_WORKER_NO_JIT
#include "codegen/jit.h"
#endif
#include "measure/runner.h"
#include "measure/wire.h"
#include "measure/worker_request.h"
#include "runtime/abi.h"
#include "runtime/thread_pool.h"
#include "te/dtype_io.h"

namespace ttune::measure {

using schedule::ErrorKind;

namespace {

std::vector<char> reply(ErrorKind e, const std::string& msg, const Timing& t = {}, double max_err = 0) {
  RunResult r;
  r.error = e;
  r.message = msg;
  r.timing = t;
  r.max_abs_err = max_err;
  return encodeRunReply(r);
}

// Arguments of the previous request: candidates of one workload share shapes, and refilling
// large inputs with random values for every candidate costs more than timing a fast kernel.
// Outputs are cleared for every request.
struct ArgCache {
  std::vector<std::pair<te::Shape, te::DType>> specs;
  std::vector<bool> outputs;
  uint64_t seed = 0;
  std::vector<runtime::NDArray> arrays;
};
ArgCache g_cache;

// A candidate's code loaded into this process, unloaded when destroyed.
class Loaded {
 public:
  ~Loaded() {
    if (handle_) dlclose(handle_);
  }
  void operator()(void** args) const { fn_(args); }

  static Expected<std::unique_ptr<Loaded>> load(const codegen::ObjectCode& code) {
    auto out = std::make_unique<Loaded>();
    if (isSharedObject(code.bytes)) {
      // dlopen needs a file: a private temporary one, unlinked as soon as it is mapped.
      const char* dir = std::getenv("TMPDIR");
      std::string path = std::string(dir && *dir ? dir : "/tmp") + "/ttune-candidate-XXXXXX";
      int fd = mkstemp(path.data());
      if (fd < 0) return Unexpected("cannot create a file for the candidate: " + std::string(std::strerror(errno)));
      bool written = ::write(fd, code.bytes.data(), code.bytes.size()) == static_cast<ssize_t>(code.bytes.size());
      ::close(fd);
      out->handle_ = written ? dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
      std::string why = written ? (out->handle_ ? "" : dlerror()) : "short write";
      unlink(path.c_str());
      if (!out->handle_) return Unexpected("cannot load the shared object of " + code.entry + ": " + why);
      out->fn_ = reinterpret_cast<TtuneKernelFn>(dlsym(out->handle_, code.entry.c_str()));
      if (!out->fn_) return Unexpected("kernel " + code.entry + " is missing from its shared object");
      return out;
    }
#ifndef TTUNE_WORKER_NO_JIT
    auto k = codegen::loadKernel(code);
    if (!k.ok()) return Unexpected(k.error());
    out->jit_ = *k;
    out->fn_ = out->jit_->function();
    return out;
#else
    return Unexpected(
        "this worker has no JIT linker: it runs shared objects only (the tuner links them for its target)");
#endif
  }

 private:
  // ELF type ET_DYN (e_type, a 16-bit field at offset 16; little-endian on every target ttune has).
  static bool isSharedObject(const std::vector<char>& b) {
    return b.size() > 18 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F' && b[16] == 3 && b[17] == 0;
  }
  void* handle_ = nullptr;
  TtuneKernelFn fn_ = nullptr;
#ifndef TTUNE_WORKER_NO_JIT
  std::shared_ptr<codegen::LoadedKernel> jit_;
#endif
};

}  // namespace

Expected<WorkerRequest> parseWorkerRequest(const std::vector<char>& msg) {
  // Every count and size is bounded before anything is allocated for it: a malformed request
  // (a bug, or a damaged pipe) costs its candidate, never the worker's memory.
  wire::Reader rd(msg);
  WorkerRequest q;
  uint8_t flush = 0;
  uint32_t nargs = 0;
  if (!rd.str(&q.code.entry) || !rd.bytes(&q.code.bytes) || !rd.pod(&q.threads) || !rd.pod(&q.timing.warmup) ||
      !rd.pod(&q.timing.number) || !rd.pod(&q.timing.repeat) || !rd.pod(&q.timing.min_repeat_ms) || !rd.pod(&flush) ||
      !rd.pod(&q.timing.slow_cutoff_s) || !rd.pod(&q.seed) || !rd.pod(&nargs))
    return Unexpected("malformed request");
  q.timing.cache_flush = flush != 0;
  auto sane = [](double v, double hi) { return std::isfinite(v) && v >= 0 && v <= hi; };
  if (q.threads < 0 || q.threads > 4096 || q.timing.warmup < 0 || q.timing.warmup > 1000 || q.timing.number < 0 ||
      q.timing.number > 100000000 || q.timing.repeat < 1 || q.timing.repeat > 10000 ||
      !sane(q.timing.min_repeat_ms, 1e6) || !sane(q.timing.slow_cutoff_s, 1e6) || nargs > 256)
    return Unexpected("malformed request: a setting is out of range");
  int64_t total_bytes = 0;
  for (uint32_t i = 0; i < nargs; ++i) {
    uint8_t dt = 0, out = 0, has = 0;
    uint32_t nd = 0;
    if (!rd.pod(&dt) || !rd.pod(&nd)) return Unexpected("malformed request");
    // Layout-rewritten weights have one axis per tile level (a tiled batch matmul's weight easily
    // has rank 10), so the rank bound only guards against garbage.
    if (nd > 64 || dt > static_cast<uint8_t>(te::kLastDType))
      return Unexpected("malformed request: bad argument rank or dtype");
    te::Shape shape(nd);
    int64_t elements = 1;
    for (auto& d : shape) {
      if (!rd.pod(&d) || d <= 0 || d > (int64_t(1) << 32)) return Unexpected("malformed request");
      if (elements > (int64_t(1) << 32) / d) return Unexpected("malformed request: argument too large");
      elements *= d;
    }
    const int64_t bytes = elements * te::dtypeBytes(static_cast<te::DType>(dt));
    total_bytes += bytes;
    if (total_bytes > (int64_t(1) << 34)) return Unexpected("malformed request: arguments too large");
    std::vector<char> given;
    if (!rd.pod(&out) || !rd.pod(&has)) return Unexpected("malformed request");
    if (has && !rd.bytes(&given)) return Unexpected("malformed request");
    if (has && static_cast<int64_t>(given.size()) != bytes) return Unexpected("input size mismatch");
    q.specs.push_back({shape, static_cast<te::DType>(dt)});
    q.is_output.push_back(out != 0);
    q.given.push_back(std::move(given));
  }
  uint32_t nexp = 0;
  if (!rd.pod(&nexp) || nexp > nargs) return Unexpected("malformed request");
  q.expected.resize(nexp);
  for (auto& e : q.expected)
    if (!rd.bytes(&e)) return Unexpected("malformed request");
  if (!rd.pod(&q.atol) || !rd.pod(&q.rtol) || !sane(q.atol, 1e30) || !sane(q.rtol, 1e30))
    return Unexpected("malformed request");
  return q;
}

namespace {

std::vector<char> handle(const std::vector<char>& msg) {
  auto parsed = parseWorkerRequest(msg);
  if (!parsed.ok()) return reply(ErrorKind::Unknown, parsed.error());
  WorkerRequest& q = *parsed;
  const codegen::ObjectCode& code = q.code;
  const int32_t threads = q.threads;
  const TimingOptions& topt = q.timing;
  const uint64_t seed = q.seed;
  const double atol = q.atol, rtol = q.rtol;
  const auto& specs = q.specs;
  const std::vector<bool>& is_out = q.is_output;
  const auto& given = q.given;
  const auto& expected = q.expected;
  const uint32_t nargs = static_cast<uint32_t>(specs.size());
  std::vector<runtime::NDArray> arrays;
  bool any_given = false;
  for (const auto& g : given) any_given = any_given || !g.empty();
  bool reuse = !any_given && g_cache.specs == specs && g_cache.outputs == is_out && g_cache.seed == seed;
  if (reuse) {
    arrays = g_cache.arrays;
    // Only the inputs carry over: a candidate must write its outputs itself.
    for (size_t i = 0; i < arrays.size(); ++i)
      if (is_out[i]) arrays[i].fill(0);
  } else {
    for (uint32_t i = 0; i < nargs; ++i) {
      runtime::NDArray a = runtime::NDArray::empty(specs[i].first, specs[i].second);
      if (!given[i].empty()) {
        std::memcpy(a.data(), given[i].data(), given[i].size());
      } else if (is_out[i]) {
        a.fill(0);
      } else if (te::isFloat(a.dtype())) {
        a.fillRandom(seed + i, -1.0, 1.0);
      } else {
        a.fillRandom(seed + i, 0, 2);
      }
      arrays.push_back(a);
    }
    g_cache = any_given ? ArgCache{} : ArgCache{specs, is_out, seed, arrays};
  }

  if (threads > 0) runtime::ThreadPool::global().setNumThreads(threads);
  auto kernel = Loaded::load(code);
  if (!kernel.ok()) return reply(ErrorKind::CompileError, kernel.error());
  std::vector<void*> args;
  for (auto& a : arrays) args.push_back(a.data());
  auto run = [&] { (**kernel)(args.data()); };
  auto flushAll = [&] {
    for (size_t i = 0; i < arrays.size(); ++i)
      if (!is_out[i]) flushCache(arrays[i].data(), static_cast<size_t>(arrays[i].bytes()));
  };
  Timing t = timeFunction(run, topt, flushAll);

  // Outputs: finite, and equal to the reference when one was sent.
  double max_err = 0;
  size_t oi = 0;
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!is_out[i]) continue;
    const runtime::NDArray& a = arrays[i];
    if (te::isFloat(a.dtype())) {
      for (int64_t k = 0; k < a.numElements(); ++k)
        if (!std::isfinite(te::loadDouble(a.data(), a.dtype(), k)))
          return reply(ErrorKind::NonFinite,
                       "output " + std::to_string(oi) + " has a non-finite value at element " + std::to_string(k), t);
    }
    if (oi < expected.size()) {
      runtime::NDArray e = runtime::NDArray::empty(a.shape(), a.dtype());
      if (static_cast<int64_t>(expected[oi].size()) != e.bytes())
        return reply(ErrorKind::Unknown, "expected size mismatch", t);
      std::memcpy(e.data(), expected[oi].data(), expected[oi].size());
      runtime::Comparison c = runtime::compare(a, e, atol, rtol);
      max_err = std::max(max_err, c.max_abs_err);
      if (!c.ok())
        return reply(ErrorKind::WrongAnswer,
                     "output " + std::to_string(oi) + " differs from the reference in " + std::to_string(c.mismatches) +
                         " elements (max abs error " + std::to_string(c.max_abs_err) + ")",
                     t, max_err);
    }
    ++oi;
  }
  return reply(ErrorKind::None, "", t, max_err);
}

}  // namespace

std::vector<char> encodeRunReply(const RunResult& r) {
  wire::Writer w;
  w.pod<uint8_t>(static_cast<uint8_t>(r.error));
  w.str(r.message);
  w.pod<uint32_t>(static_cast<uint32_t>(r.timing.costs_s.size()));
  for (double c : r.timing.costs_s) w.pod<double>(c);
  w.pod<int32_t>(r.timing.number);
  w.pod<double>(r.max_abs_err);
  return w.buffer();
}

int workerMain(bool stdio) {
  // A faulting candidate must kill the worker by its signal, so the runner can say which one;
  // sanitizer runtimes would otherwise catch the fault in (uninstrumented) JIT code and exit.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) signal(sig, SIG_DFL);
  // The worker runs in a process group of its own (Ctrl-C at the terminal reaches the tuner,
  // which stops cleanly, not the candidate being measured); so that it never outlives the tuner,
  // it dies with it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return 1;  // the parent died before the line above
  if (stdio) {
    // Requests on stdin, answers on stdout (a worker started through ssh or an emulator's shell);
    // anything else written to stdout would corrupt the answers, so stdout becomes stderr.
    if (dup2(0, 3) < 0 || dup2(1, 4) < 0 || dup2(2, 1) < 0) return 1;
  }
  std::vector<char> msg;
  while (wire::readMessage(3, &msg, -1) == 1) {
    if (!wire::writeMessage(4, handle(msg))) return 1;
  }
  return 0;
}

}  // namespace ttune::measure
