// The C API of an exported model (include/ttune/ttune_model.h) over the library's embedded
// kernels and image (embedded.h), its weights file and runtime::runPlan -- the interpreter the
// in-process executor runs, so that an exported model computes exactly what `ttune run` does.
// Every entry point catches everything: a C caller gets an error code and a sentence, never an
// exception or an abort for a bad argument.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "deploy/cpu_features.h"
#include "deploy/embedded.h"
#include "deploy/image.h"
#include "deploy/weights_file.h"
#include "runtime/plan.h"
#include "runtime/thread_pool.h"
#include "ttune/ttune_model.h"

struct ttune_model {
  ttune::deploy::ModelImage image;
  ttune::deploy::LoadedWeights weights;
  std::unique_ptr<char, void (*)(void*)> workspace{nullptr, &std::free};
  int threads = 1;
  std::mutex run_mu;  // one workspace: runs of one model take turns
};

namespace {

thread_local std::string t_error;
thread_local int t_status = TTUNE_OK;

void clearError() {
  t_error.clear();
  t_status = TTUNE_OK;
}

// Records the error of this thread's current call; returns `code` (negative codes are "-1 for a
// null model" returns of counting functions: their status is TTUNE_ERROR_INVALID_ARGUMENT).
int failWith(int code, std::string message) {
  t_error = std::move(message);
  t_status = code < 0 ? TTUNE_ERROR_INVALID_ARGUMENT : code;
  return code;
}

// Runs `body` as an API call: clears the thread's error, maps exceptions to codes.
template <class F>
int apiCall(F&& body) {
  clearError();
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return failWith(TTUNE_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, e.what());
  }
}

// dlclose unmaps this library, and with it the code its thread-pool workers wait in: they are
// joined first (at exit too, harmlessly).
std::atomic<bool> g_pool_started{false};
struct PoolReaper {
  ~PoolReaper() {
    if (g_pool_started.load()) ttune::runtime::ThreadPool::global().setNumThreads(1);
  }
} g_reaper;

bool isDirectory(const char* path) {
  struct stat st;
  return ::stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int fillInfo(const ttune_model* m, int index, bool input, ttune_tensor_info* info) {
  if (!m) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the model is a null pointer");
  if (!info) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the tensor info is a null pointer");
  const auto& list = input ? m->image.plan.inputs : m->image.plan.outputs;
  if (index < 0 || index >= static_cast<int>(list.size()))
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, std::string(input ? "input" : "output") + " index " +
                                                      std::to_string(index) + " is out of range: model " +
                                                      m->image.name + " has " + std::to_string(list.size()) +
                                                      (input ? " inputs" : " outputs"));
  const ttune::runtime::TensorSpec& t = list[index];
  info->name = t.name.c_str();
  info->dtype = static_cast<int32_t>(t.dtype);
  info->ndim = static_cast<int32_t>(t.shape.size());
  info->shape = t.shape.data();
  info->elements = t.elements();
  info->bytes = t.bytes();
  return TTUNE_OK;
}

int create(const char* path, int threads, ttune_model** out) {
  using namespace ttune;
  if (!path) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the weights path is a null pointer");
  if (threads < 0)
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT,
                    "the thread count must be 0 (the default) or positive, got " + std::to_string(threads));
  if (ttune_embedded.version != TTUNE_EMBEDDED_VERSION)
    return failWith(TTUNE_ERROR_CORRUPT, "this library's model tables have version " +
                                             std::to_string(ttune_embedded.version) + ", its runtime reads version " +
                                             std::to_string(TTUNE_EMBEDDED_VERSION));
  auto m = std::make_unique<ttune_model>();
  std::string error;
  if (!deploy::parseImage(reinterpret_cast<const char*>(ttune_embedded.image), ttune_embedded.image_bytes, m->image,
                          error))
    return failWith(TTUNE_ERROR_CORRUPT, error);
  if (m->image.plan.num_kernels != ttune_embedded.num_kernels)
    return failWith(TTUNE_ERROR_CORRUPT, "the library's kernel table does not match its execution plan");
  std::vector<std::string> missing = deploy::missingCpuFeatures(m->image.cpu_features);
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size() && i < 6; ++i) list += (i ? ", " : "") + missing[i];
    if (missing.size() > 6) list += ", ...";
    return failWith(TTUNE_ERROR_UNSUPPORTED_CPU, "this CPU lacks " + list + ", which the kernels of model " +
                                                     m->image.name + " were compiled for (" + m->image.target +
                                                     "); export it again with a --target this machine has");
  }
  std::string file = path;
  if (isDirectory(path)) file += "/" + m->image.name + ".weights";
  switch (deploy::loadWeightsFile(file, m->image.plan.weight_bytes, m->image.weights_digest, m->weights, error)) {
    case deploy::LoadStatus::Ok:
      break;
    case deploy::LoadStatus::IoError:
      return failWith(TTUNE_ERROR_IO, error);
    case deploy::LoadStatus::Corrupt:
      return failWith(TTUNE_ERROR_CORRUPT, error);
    case deploy::LoadStatus::OutOfMemory:
      return failWith(TTUNE_ERROR_OUT_OF_MEMORY, error);
  }
  void* ws = nullptr;
  int64_t ws_bytes = std::max<int64_t>(64, m->image.plan.workspace_bytes);
  if (posix_memalign(&ws, 64, static_cast<size_t>(ws_bytes)) != 0)
    return failWith(TTUNE_ERROR_OUT_OF_MEMORY,
                    "cannot allocate the " + std::to_string(ws_bytes) + "-byte workspace of model " + m->image.name);
  m->workspace.reset(static_cast<char*>(ws));
  m->threads = threads > 0 ? threads : runtime::defaultNumThreads();
  g_pool_started = true;
  runtime::ThreadPool::global().setNumThreads(m->threads);
  *out = m.release();
  return TTUNE_OK;
}

int run(ttune_model* m, int num_inputs, const void* const* inputs, int num_outputs, void* const* outputs) {
  using namespace ttune;
  if (!m) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the model is a null pointer");
  const runtime::Plan& plan = m->image.plan;
  if (num_inputs != static_cast<int>(plan.inputs.size()))
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "model " + m->image.name + " takes " +
                                                      std::to_string(plan.inputs.size()) + " inputs, got " +
                                                      std::to_string(num_inputs));
  if (num_outputs != static_cast<int>(plan.outputs.size()))
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "model " + m->image.name + " has " +
                                                      std::to_string(plan.outputs.size()) + " outputs, got " +
                                                      std::to_string(num_outputs) + " output buffers");
  if (!plan.inputs.empty() && !inputs)
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the input array is a null pointer");
  if (!plan.outputs.empty() && !outputs)
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the output array is a null pointer");
  for (size_t i = 0; i < plan.inputs.size(); ++i)
    if (!inputs[i])
      return failWith(TTUNE_ERROR_INVALID_ARGUMENT,
                      "input " + std::to_string(i) + " (" + plan.inputs[i].name + ") is a null pointer");
  for (size_t i = 0; i < plan.outputs.size(); ++i)
    if (!outputs[i])
      return failWith(TTUNE_ERROR_INVALID_ARGUMENT,
                      "output " + std::to_string(i) + " (" + plan.outputs[i].name + ") is a null pointer");
  std::lock_guard<std::mutex> lock(m->run_mu);
  runtime::ThreadPool& pool = runtime::ThreadPool::global();
  if (pool.numThreads() != m->threads) pool.setNumThreads(m->threads);
  runtime::PlanBindings b{ttune_embedded.kernels, m->weights.ptrs.data(), m->workspace.get(), inputs, outputs};
  runtime::runPlan(plan, b);
  return TTUNE_OK;
}

const char* nameOr(const ttune_model* m, const std::string ttune::deploy::ModelImage::*field) {
  clearError();
  if (!m) {
    failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the model is a null pointer");
    return "";
  }
  return (m->image.*field).c_str();
}

}  // namespace

extern "C" {

int ttune_abi_version(void) { return TTUNE_ABI_VERSION; }

ttune_model* ttune_model_create(const char* path, int threads) {
  ttune_model* m = nullptr;
  apiCall([&] { return create(path, threads, &m); });
  return m;
}

void ttune_model_destroy(ttune_model* model) { delete model; }

const char* ttune_model_name(const ttune_model* model) { return nameOr(model, &ttune::deploy::ModelImage::name); }
const char* ttune_model_target(const ttune_model* model) { return nameOr(model, &ttune::deploy::ModelImage::target); }
const char* ttune_model_precision(const ttune_model* model) {
  return nameOr(model, &ttune::deploy::ModelImage::precision);
}

int ttune_model_threads(const ttune_model* model) {
  clearError();
  if (!model) return failWith(-1, "the model is a null pointer");
  return model->threads;
}

int ttune_model_num_inputs(const ttune_model* model) {
  clearError();
  if (!model) return failWith(-1, "the model is a null pointer");
  return static_cast<int>(model->image.plan.inputs.size());
}

int ttune_model_num_outputs(const ttune_model* model) {
  clearError();
  if (!model) return failWith(-1, "the model is a null pointer");
  return static_cast<int>(model->image.plan.outputs.size());
}

int ttune_model_input_info(const ttune_model* model, int index, ttune_tensor_info* info) {
  return apiCall([&] { return fillInfo(model, index, true, info); });
}

int ttune_model_output_info(const ttune_model* model, int index, ttune_tensor_info* info) {
  return apiCall([&] { return fillInfo(model, index, false, info); });
}

int ttune_model_run(ttune_model* model, const void* const* inputs, void* const* outputs) {
  return apiCall([&] {
    if (!model) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the model is a null pointer");
    return run(model, static_cast<int>(model->image.plan.inputs.size()), inputs,
               static_cast<int>(model->image.plan.outputs.size()), outputs);
  });
}

int ttune_model_run_n(ttune_model* model, int num_inputs, const void* const* inputs, int num_outputs,
                      void* const* outputs) {
  return apiCall([&] { return run(model, num_inputs, inputs, num_outputs, outputs); });
}

const char* ttune_last_error(void) { return t_error.c_str(); }

int ttune_last_status(void) { return t_status; }

}  // extern "C"
