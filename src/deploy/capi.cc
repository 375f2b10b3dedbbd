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
#include <vector>

#include "deploy/cpu_features.h"
#include "deploy/embedded.h"
#include "deploy/image.h"
#include "deploy/weights_file.h"
#include "runtime/plan.h"
#include "runtime/thread_pool.h"
#include "ttune/ttune_model.h"

using AlignedBuffer = std::unique_ptr<char, void (*)(void*)>;

struct ttune_model {
  ttune::deploy::ModelImage image;
  ttune::deploy::LoadedWeights weights;
  AlignedBuffer workspace{nullptr, &std::free};
  int threads = 1;
  std::mutex run_mu;  // one workspace: runs of one model take turns
  // A model for ranges of sizes: its tensors as ttune_tensor_info reports them (-1 for a
  // dimension that follows a size), and buffers at any bucket's largest sizes that the tensors
  // of a call of smaller sizes are staged in.
  std::vector<std::vector<int64_t>> info_in, info_out;
  std::vector<AlignedBuffer> in_stage, out_stage;
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
  info->shape = m->image.ranges.empty() ? t.shape.data() : (input ? m->info_in : m->info_out)[index].data();
  info->elements = t.elements();
  info->bytes = t.bytes();
  return TTUNE_OK;
}

bool allocate(AlignedBuffer& buffer, int64_t bytes, const std::string& what, const std::string& model) {
  void* p = nullptr;
  bytes = std::max<int64_t>(64, bytes);
  if (posix_memalign(&p, 64, static_cast<size_t>(bytes)) != 0)
    return failWith(TTUNE_ERROR_OUT_OF_MEMORY,
                    "cannot allocate the " + std::to_string(bytes) + "-byte " + what + " of model " + model),
           false;
  buffer.reset(static_cast<char*>(p));
  return true;
}

// The reported shapes and the staging buffers of a model for ranges of sizes.
int prepareRanges(ttune_model& m) {
  using namespace ttune;
  const runtime::RangePlan& rp = m.image.ranges;
  if (rp.empty()) return TTUNE_OK;
  const runtime::Plan& plan = m.image.plan;
  auto prepare = [&](const std::vector<std::vector<runtime::DimFormula>>& dims, bool input,
                     std::vector<std::vector<int64_t>>& info, std::vector<AlignedBuffer>& stage) {
    for (size_t t = 0; t < dims.size(); ++t) {
      info.emplace_back();
      for (const runtime::DimFormula& f : dims[t]) info.back().push_back(f.fixed() ? f.offset : -1);
      int64_t bytes = 0;
      for (const runtime::RangeBucket& b : rp.buckets)
        bytes = std::max(bytes, (input ? b.plan.inputs : b.plan.outputs)[t].bytes());
      stage.emplace_back(nullptr, &std::free);
      const std::string& name = (input ? plan.inputs : plan.outputs)[t].name;
      if (!allocate(stage.back(), bytes, "staging buffer of " + name, m.image.name)) return false;
    }
    return true;
  };
  if (!prepare(rp.input_dims, true, m.info_in, m.in_stage) || !prepare(rp.output_dims, false, m.info_out, m.out_stage))
    return t_status;
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
  if (!allocate(m->workspace, m->image.plan.workspace_bytes, "workspace", m->image.name)) return t_status;
  int status = prepareRanges(*m);
  if (status != TTUNE_OK) return status;
  m->threads = threads > 0 ? threads : runtime::defaultNumThreads();
  g_pool_started = true;
  runtime::ThreadPool::global().setNumThreads(m->threads);
  *out = m.release();
  return TTUNE_OK;
}

// The buffer arrays of a run hold what the model takes; TTUNE_OK or the error.
int checkBuffers(const ttune_model* m, int num_inputs, const void* const* inputs, int num_outputs,
                 void* const* outputs) {
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
  return TTUNE_OK;
}

// Runs `plan` with the model's thread count; the caller holds the model's run lock.
void runLocked(ttune_model* m, const ttune::runtime::Plan& plan, const void* const* inputs, void* const* outputs,
               const int64_t* sizes) {
  using namespace ttune;
  runtime::ThreadPool& pool = runtime::ThreadPool::global();
  if (pool.numThreads() != m->threads) pool.setNumThreads(m->threads);
  runtime::PlanBindings b{ttune_embedded.kernels, m->weights.ptrs.data(), m->workspace.get(), inputs, outputs, sizes};
  runtime::runPlan(plan, b);
}

std::string rangesText(const ttune::runtime::RangePlan& rp) {
  std::string t;
  for (size_t s = 0; s < rp.sizes.size(); ++s)
    t += (s ? ", " : "") + rp.sizes[s].name + " " + std::to_string(rp.sizes[s].min) + ".." +
         std::to_string(rp.sizes[s].max);
  return t;
}

// The sizes of a call whose inputs have these shapes, or the error.
int callSizes(const ttune_model* m, const int64_t* const* input_shapes, std::vector<int64_t>& sizes) {
  using namespace ttune;
  const runtime::Plan& plan = m->image.plan;
  if (!input_shapes)
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "model " + m->image.name + " takes inputs of several sizes (" +
                                                      rangesText(m->image.ranges) +
                                                      "): the input shapes are a null pointer");
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    if (!input_shapes[i])
      return failWith(TTUNE_ERROR_INVALID_ARGUMENT,
                      "the shape of input " + std::to_string(i) + " (" + plan.inputs[i].name + ") is a null pointer");
    shapes.emplace_back(input_shapes[i], input_shapes[i] + plan.inputs[i].shape.size());
  }
  std::string error = runtime::readSizes(m->image.ranges, plan.inputs, shapes, sizes);
  if (!error.empty()) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, error);
  return TTUNE_OK;
}

int run(ttune_model* m, int num_inputs, const void* const* inputs, int num_outputs, void* const* outputs) {
  int status = checkBuffers(m, num_inputs, inputs, num_outputs, outputs);
  if (status != TTUNE_OK) return status;
  if (!m->image.ranges.empty())
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "model " + m->image.name + " takes inputs of several sizes (" +
                                                      rangesText(m->image.ranges) +
                                                      "): run it with ttune_model_run_shaped and their shapes");
  std::lock_guard<std::mutex> lock(m->run_mu);
  runLocked(m, m->image.plan, inputs, outputs, nullptr);
  return TTUNE_OK;
}

int runShaped(ttune_model* m, int num_inputs, const void* const* inputs, const int64_t* const* input_shapes,
              int num_outputs, void* const* outputs) {
  using namespace ttune;
  int status = checkBuffers(m, num_inputs, inputs, num_outputs, outputs);
  if (status != TTUNE_OK) return status;
  const runtime::RangePlan& rp = m->image.ranges;
  if (rp.empty()) {
    for (size_t i = 0; input_shapes && i < m->image.plan.inputs.size(); ++i) {
      const runtime::TensorSpec& t = m->image.plan.inputs[i];
      if (!input_shapes[i] || !std::equal(t.shape.begin(), t.shape.end(), input_shapes[i]))
        return failWith(TTUNE_ERROR_INVALID_ARGUMENT,
                        "input " + t.name + " of model " + m->image.name + " must have its declared shape");
    }
    return run(m, num_inputs, inputs, num_outputs, outputs);
  }
  std::vector<int64_t> sizes;
  status = callSizes(m, input_shapes, sizes);
  if (status != TTUNE_OK) return status;
  size_t bucket = runtime::bucketOf(rp, sizes);
  if (bucket == rp.buckets.size())
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT,
                    "model " + m->image.name + " has no kernels for sizes " + rangesText(rp) + " at these values");
  const runtime::Plan& plan = rp.buckets[bucket].plan;
  std::lock_guard<std::mutex> lock(m->run_mu);
  std::vector<const void*> in;
  std::vector<void*> out;
  for (size_t i = 0; i < plan.inputs.size(); ++i)
    in.push_back(runtime::stageInput(inputs[i], m->in_stage[i].get(), runtime::shapeAt(rp.input_dims[i], sizes),
                                     plan.inputs[i].shape, runtime::elemBytes(plan.inputs[i].dtype)));
  for (size_t o = 0; o < plan.outputs.size(); ++o)
    out.push_back(runtime::outputBuffer(outputs[o], m->out_stage[o].get(), runtime::shapeAt(rp.output_dims[o], sizes),
                                        plan.outputs[o].shape));
  runLocked(m, plan, in.data(), out.data(), sizes.data());
  for (size_t o = 0; o < plan.outputs.size(); ++o)
    runtime::unstageOutput(out[o], outputs[o], runtime::shapeAt(rp.output_dims[o], sizes), plan.outputs[o].shape,
                           runtime::elemBytes(plan.outputs[o].dtype));
  return TTUNE_OK;
}

std::string tensorText(int32_t dtype, int32_t ndim, const int64_t* shape) {
  std::string t = (dtype >= 0 && dtype <= 12 ? ttune::runtime::elemName(static_cast<ttune::runtime::ElemType>(dtype))
                                             : "dtype " + std::to_string(dtype)) +
                  std::string(" [");
  for (int32_t d = 0; shape && d < ndim; ++d) t += (d ? ", " : "") + std::to_string(shape[d]);
  return t + "]";
}

// Checks a described tensor against the model's `spec`: its dtype and rank, and (for an input,
// `shape` given) that its buffer holds it. TTUNE_OK or the error.
int checkTensor(const ttune_model* m, const ttune_tensor& t, const ttune::runtime::TensorSpec& spec, bool input,
                const std::vector<int64_t>& shape) {
  using namespace ttune;
  std::string who = std::string(input ? "input " : "output ") + spec.name + " of model " + m->image.name;
  if (!t.data || !t.shape) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, who + " has a null data or shape pointer");
  if (t.dtype != static_cast<int32_t>(spec.dtype) || t.ndim != static_cast<int32_t>(spec.shape.size()))
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT,
                    who + " must be " + runtime::elemName(spec.dtype) + " of rank " +
                        std::to_string(spec.shape.size()) + ", got " +
                        (input ? tensorText(t.dtype, t.ndim, t.shape) : tensorText(t.dtype, t.ndim, nullptr)));
  int64_t elements = 1;
  for (int64_t d : shape) elements *= d;
  int64_t need = elements * runtime::elemBytes(spec.dtype);
  if (t.bytes < need)
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT,
                    who + " needs " + std::to_string(need) + " bytes, its buffer has " + std::to_string(t.bytes));
  return TTUNE_OK;
}

int runTensors(ttune_model* m, int num_inputs, const ttune_tensor* inputs, int num_outputs, ttune_tensor* outputs) {
  using namespace ttune;
  if (!m) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the model is a null pointer");
  const runtime::Plan& plan = m->image.plan;
  if (num_inputs != static_cast<int>(plan.inputs.size()) || num_outputs != static_cast<int>(plan.outputs.size()))
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT,
                    "model " + m->image.name + " takes " + std::to_string(plan.inputs.size()) + " inputs and has " +
                        std::to_string(plan.outputs.size()) + " outputs, got " + std::to_string(num_inputs) + " and " +
                        std::to_string(num_outputs));
  if ((num_inputs && !inputs) || (num_outputs && !outputs))
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the tensor array is a null pointer");
  std::vector<const int64_t*> shapes;
  std::vector<const void*> in;
  std::vector<void*> out;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    // Dtype and rank first: the shape array is read only once its rank is known.
    int status = checkTensor(m, inputs[i], plan.inputs[i], true, {});
    if (status != TTUNE_OK) return status;
    shapes.push_back(inputs[i].shape);
    in.push_back(inputs[i].data);
  }
  // A model of one size takes its declared shapes; a model for ranges, the shapes its sizes give
  // (callSizes checks them).
  for (size_t i = 0; m->image.ranges.empty() && i < plan.inputs.size(); ++i)
    if (!std::equal(plan.inputs[i].shape.begin(), plan.inputs[i].shape.end(), inputs[i].shape))
      return failWith(TTUNE_ERROR_INVALID_ARGUMENT,
                      "input " + plan.inputs[i].name + " of model " + m->image.name + " must be " +
                          tensorText(static_cast<int32_t>(plan.inputs[i].dtype),
                                     static_cast<int32_t>(plan.inputs[i].shape.size()), plan.inputs[i].shape.data()) +
                          ", got " + tensorText(inputs[i].dtype, inputs[i].ndim, inputs[i].shape));
  // The outputs' shapes: the declared ones, or those the sizes the inputs give (read once).
  std::vector<std::vector<int64_t>> out_shapes;
  std::vector<int64_t> sizes;
  if (!m->image.ranges.empty()) {
    int status = callSizes(m, shapes.data(), sizes);
    if (status != TTUNE_OK) return status;
  }
  for (size_t o = 0; o < plan.outputs.size(); ++o) {
    out_shapes.push_back(m->image.ranges.empty() ? plan.outputs[o].shape
                                                 : runtime::shapeAt(m->image.ranges.output_dims[o], sizes));
    int status = checkTensor(m, outputs[o], plan.outputs[o], false, out_shapes.back());
    if (status != TTUNE_OK) return status;
    out.push_back(outputs[o].data);
  }
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    std::vector<int64_t> shape(inputs[i].shape, inputs[i].shape + inputs[i].ndim);
    int status = checkTensor(m, inputs[i], plan.inputs[i], true, shape);
    if (status != TTUNE_OK) return status;
  }
  int status = runShaped(m, num_inputs, in.data(), shapes.data(), num_outputs, out.data());
  if (status != TTUNE_OK) return status;
  for (size_t o = 0; o < out_shapes.size(); ++o)
    std::copy(out_shapes[o].begin(), out_shapes[o].end(), outputs[o].shape);
  return TTUNE_OK;
}

int outputShape(const ttune_model* m, const int64_t* const* input_shapes, int output, int64_t* shape) {
  using namespace ttune;
  if (!m) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the model is a null pointer");
  if (!shape) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the shape to fill is a null pointer");
  const runtime::Plan& plan = m->image.plan;
  if (output < 0 || output >= static_cast<int>(plan.outputs.size()))
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "output index " + std::to_string(output) +
                                                      " is out of range: model " + m->image.name + " has " +
                                                      std::to_string(plan.outputs.size()) + " outputs");
  std::vector<int64_t> s = plan.outputs[output].shape;
  if (!m->image.ranges.empty()) {
    std::vector<int64_t> sizes;
    int status = callSizes(m, input_shapes, sizes);
    if (status != TTUNE_OK) return status;
    s = runtime::shapeAt(m->image.ranges.output_dims[output], sizes);
  }
  std::copy(s.begin(), s.end(), shape);
  return TTUNE_OK;
}

int sizeInfo(const ttune_model* m, int index, ttune_size_info* info) {
  if (!m) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the model is a null pointer");
  if (!info) return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "the size info is a null pointer");
  const auto& sizes = m->image.ranges.sizes;
  if (index < 0 || index >= static_cast<int>(sizes.size()))
    return failWith(TTUNE_ERROR_INVALID_ARGUMENT, "size index " + std::to_string(index) + " is out of range: model " +
                                                      m->image.name + " has " + std::to_string(sizes.size()) +
                                                      " sizes");
  const auto& p = sizes[index];
  *info = {p.name.c_str(), p.min, p.max, static_cast<int32_t>(p.input), static_cast<int32_t>(p.axis)};
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

int ttune_model_num_sizes(const ttune_model* model) {
  clearError();
  if (!model) return failWith(-1, "the model is a null pointer");
  return static_cast<int>(model->image.ranges.sizes.size());
}

int ttune_model_size_info(const ttune_model* model, int index, ttune_size_info* info) {
  return apiCall([&] { return sizeInfo(model, index, info); });
}

int ttune_model_output_shape(const ttune_model* model, const int64_t* const* input_shapes, int output, int64_t* shape) {
  return apiCall([&] { return outputShape(model, input_shapes, output, shape); });
}

int ttune_model_run_shaped(ttune_model* model, int num_inputs, const void* const* inputs,
                           const int64_t* const* input_shapes, int num_outputs, void* const* outputs) {
  return apiCall([&] { return runShaped(model, num_inputs, inputs, input_shapes, num_outputs, outputs); });
}

int ttune_model_run_tensors(ttune_model* model, int num_inputs, const ttune_tensor* inputs, int num_outputs,
                            ttune_tensor* outputs) {
  return apiCall([&] { return runTensors(model, num_inputs, inputs, num_outputs, outputs); });
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
