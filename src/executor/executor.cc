#include "executor/executor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "codegen/jit.h"
#include "measure/builder.h"
#include "measure/measurer.h"
#include "runtime/thread_pool.h"
#include "schedule/names.h"
#include "support/assert.h"
#include "support/error.h"
#include "support/hash.h"
#include "support/log.h"
#include "support/rng.h"
#include "support/timer.h"
#include "te/dtype_io.h"
#include "te/evaluator.h"

namespace ttune::executor {

namespace {

// One distinct workload, compiled.
struct Compiled {
  std::shared_ptr<codegen::LoadedKernel> fn;  // null when compiled ahead of time only
  std::shared_ptr<const codegen::ObjectCode> code;
  std::shared_ptr<const te::ComputeDAG> scheduled;
  std::vector<schedule::WeightLayout> layouts;
};

using runtime::BufferKind;
using runtime::BufferRef;

// Identifies a packed layout of a weight (with the weight's identity prepended by the caller).
std::string layoutKey(const schedule::WeightLayout& lay) {
  std::string key = te::shapeToString(lay.packed_shape) + "|";
  for (size_t d = 0; d < lay.source_dim.size(); ++d)
    key += std::to_string(lay.source_dim[d]) + ":" + std::to_string(lay.source_stride[d]) + ",";
  return key;
}

}  // namespace

class KernelCache {
 public:
  std::optional<std::pair<Compiled, measure::BuildResult>> find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  void put(const std::string& key, const Compiled& c, const measure::BuildResult& b) {
    std::lock_guard<std::mutex> lock(mu_);
    measure::BuildResult meta = b;
    meta.code = {};  // Compiled holds the object code (for export), shared
    map_.emplace(key, std::make_pair(c, meta));
  }
  // A constant packed into a layout, shared by every model of the cache (kernels only read it).
  runtime::NDArray packed(const runtime::NDArray& constant, const schedule::WeightLayout& lay) {
    std::string key = std::to_string(reinterpret_cast<uintptr_t>(constant.data())) + "|" + layoutKey(lay);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = weights_.find(key);
    if (it != weights_.end()) return it->second.second;
    runtime::NDArray p = measure::packWeight(lay, constant);
    weights_.emplace(key, std::make_pair(constant, p));  // keeps the source alive: its address is the key
    return p;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::pair<Compiled, measure::BuildResult>> map_;
  std::map<std::string, std::pair<runtime::NDArray, runtime::NDArray>> weights_;
};

std::shared_ptr<KernelCache> makeKernelCache() { return std::make_shared<KernelCache>(); }

std::string kernelCacheKey(const std::string& workload_key, const std::vector<schedule::Step>& steps,
                           const schedule::Target& target) {
  std::string key = workload_key + "|" + schedule::isaName(target.isa) + "|" + target.cpu + "|" + target.features + "|";
  for (const schedule::Step& s : steps) key += schedule::stepToJson(s).dump();
  return key;
}

// The entry symbol names the kernel's workload, schedule and target: distinct within a model (an
// exported library links them all) and the same wherever it is compiled.
std::string kernelEntry(const std::string& cache_key) { return "ttune_k" + toHex(Hasher().add(cache_key).value()); }

bool addBuilt(KernelCache& cache, const std::string& cache_key, const measure::BuildResult& built) {
  if (!built.ok() || built.code.entry != kernelEntry(cache_key) || !built.scheduled) return false;
  Compiled c{nullptr, std::make_shared<const codegen::ObjectCode>(built.code), built.scheduled, built.layouts};
  auto fn = codegen::loadKernel(*c.code);
  if (!fn.ok()) return false;
  c.fn = *fn;
  cache.put(cache_key, c, built);
  return true;
}

struct CompiledModel::Impl {
  graph::Graph graph;
  schedule::Target target;
  std::vector<graph::Kernel> kernels;  // instances, in execution order
  std::vector<Compiled> compiled;      // distinct kernels
  std::vector<KernelStats> stats;
  runtime::Plan plan;
  std::vector<int> call_instance;               // plan call -> instance
  std::vector<std::optional<BufferRef>> where;  // value -> its buffer (constants: their own data)
  std::vector<runtime::NDArray> weights;
  // Bound when the kernels are loaded.
  std::vector<TtuneKernelFn> fns;
  std::vector<void*> weight_ptrs;
  runtime::NDArray workspace;
  double compile_s = 0;
  double flops = 0;

  void build(const graph::Graph& g, const ModelOptions& options, bool load);
  void compileKernels(const ModelOptions& options, const std::vector<int>& first_instance, bool load);
  void makePlan(const ModelOptions& options);
  runtime::PlanBindings bind(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                             const std::vector<int64_t>& sizes = {});
  std::vector<runtime::NDArray> allocateOutputs(const std::vector<runtime::NDArray>& inputs,
                                                std::vector<const void*>& in_ptrs, std::vector<void*>& out_ptrs) const;
  void* valuePtr(int v, const runtime::PlanBindings& b) const {
    const graph::Value& val = graph.value(v);
    return val.isConstant() ? val.constant->data() : runtime::resolve(*where[v], b);
  }
};

CompiledModel::CompiledModel() : impl_(std::make_unique<Impl>()) {}
CompiledModel::CompiledModel(CompiledModel&&) noexcept = default;
CompiledModel& CompiledModel::operator=(CompiledModel&&) noexcept = default;
CompiledModel::~CompiledModel() = default;

const std::vector<KernelStats>& CompiledModel::kernels() const { return impl_->stats; }
const std::vector<graph::Kernel>& CompiledModel::instances() const { return impl_->kernels; }
double CompiledModel::compileSeconds() const { return impl_->compile_s; }
int64_t CompiledModel::workspaceBytes() const { return impl_->plan.workspace_bytes; }
double CompiledModel::flops() const { return impl_->flops; }
const graph::Graph& CompiledModel::graph() const { return impl_->graph; }
const runtime::Plan& CompiledModel::plan() const { return impl_->plan; }

ModelArtifacts CompiledModel::artifacts() const {
  ModelArtifacts a;
  a.target = impl_->target;
  for (const Compiled& c : impl_->compiled) a.kernels.push_back(*c.code);
  a.plan = impl_->plan;
  a.weights = impl_->weights;
  a.stats = impl_->stats;
  return a;
}

void CompiledModel::Impl::build(const graph::Graph& g, const ModelOptions& options, bool load) {
  Timer timer;
  graph = g;
  target = options.target;
  kernels = options.kernels.empty() ? graph::partition(graph) : options.kernels;

  // Distinct workloads in first-use order.
  std::map<std::string, int> by_key;
  std::vector<int> first_instance;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const graph::Kernel& k = kernels[i];
    flops += k.dag->flops();
    if (k.alias_only &&
        std::find(graph.outputs().begin(), graph.outputs().end(), k.outputs[0]) == graph.outputs().end())
      continue;
    auto it = by_key.find(k.workload_key);
    if (it == by_key.end()) {
      it = by_key.emplace(k.workload_key, static_cast<int>(first_instance.size())).first;
      first_instance.push_back(static_cast<int>(i));
      KernelStats st;
      st.workload_key = k.workload_key;
      st.class_name = k.class_name;
      st.class_id = k.class_id;
      st.flops = k.dag->flops();
      for (const te::Tensor& t : k.dag->ops())
        if (t.op().isCompute()) st.op_tags.push_back(t.op().tag());
      stats.push_back(st);
    }
    stats[it->second].occurrences++;
  }
  compileKernels(options, first_instance, load);
  makePlan(options);
  compile_s = timer.seconds();
}

// Compiles the distinct workloads in parallel.
void CompiledModel::Impl::compileKernels(const ModelOptions& options, const std::vector<int>& first_instance,
                                         bool load) {
  compiled.resize(first_instance.size());
  std::shared_ptr<KernelCache> cache = load ? options.cache : nullptr;  // cached kernels are loaded ones
  std::atomic<size_t> next{0};
  std::mutex err_mu;
  std::string first_error;
  auto work = [&] {
    for (size_t w = next++; w < first_instance.size(); w = next++) {
      const graph::Kernel& k = kernels[first_instance[w]];
      KernelStats& st = stats[w];
      Timer t;
      std::optional<std::vector<schedule::Step>> provided = options.schedules ? options.schedules(k) : std::nullopt;
      // Builds (or finds in the cache) one schedule of the kernel.
      auto buildSchedule = [&](const std::vector<schedule::Step>& steps,
                               measure::BuildResult& b) -> std::optional<Compiled> {
        const std::string key = kernelCacheKey(k.workload_key, steps, options.target);
        if (cache)
          if (auto hit = cache->find(key)) {
            b = hit->second;
            st.cached = true;
            return hit->first;
          }
        st.cached = false;
        b = measure::buildOne({k.dag, steps}, kernelEntry(key), options.target);
        if (!b.ok()) return std::nullopt;
        Compiled c{nullptr, std::make_shared<const codegen::ObjectCode>(std::move(b.code)), b.scheduled, b.layouts};
        if (load) {
          auto fn = codegen::loadKernel(*c.code);
          if (!fn.ok()) {
            b.error = schedule::ErrorKind::CompileError;
            b.message = fn.error();
            return std::nullopt;
          }
          c.fn = *fn;
        }
        if (cache) cache->put(key, c, b);
        return c;
      };
      measure::BuildResult b;
      std::optional<Compiled> c;
      if (provided) {
        c = buildSchedule(*provided, b);
        st.schedule_source = c ? "provided" : "default (the provided schedule failed: " + b.message + ")";
      }
      if (!c) {
        if (!provided) st.schedule_source = "default";
        c = buildSchedule(measure::defaultScheduleFor(*k.dag, options.target, options.baseline), b);
      }
      st.compile_s = t.seconds();
      if (!c) {
        std::lock_guard<std::mutex> lock(err_mu);
        if (first_error.empty())
          first_error = "kernel " + k.class_name + " (" + k.workload_key + ") does not compile: " + b.message;
        continue;
      }
      compiled[w] = std::move(*c);
    }
  };
  int nthreads = options.compile_threads > 0 ? options.compile_threads : runtime::defaultNumThreads();
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min<int>(nthreads, static_cast<int>(first_instance.size())); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (!first_error.empty()) fail(first_error);
}

// The plan: every non-alias instance is a call; model outputs are written by their producers
// straight into the output buffers; every weight a call reads (a constant, or a constant packed
// into a schedule's layout) is stored once; each intermediate gets a workspace range, reused after
// its last reader has run; reshape-only instances alias their input.
namespace {

// The arguments passing a kernel's size parameters (te::ComputeDAG::sizeParams) from the run's
// sizes, named in `names` order.
std::vector<BufferRef> sizeArgs(const te::ComputeDAG& scheduled, const std::vector<std::string>& names) {
  std::vector<BufferRef> out;
  for (const te::Var& param : scheduled.sizeParams()) {
    auto it = std::find(names.begin(), names.end(), param.name());
    TT_ASSERT(it != names.end(), "kernel size parameter " + param.name() + " is no size of the model");
    out.push_back(BufferRef{BufferKind::Size, static_cast<uint32_t>(it - names.begin()), 0});
  }
  return out;
}

}  // namespace

void CompiledModel::Impl::makePlan(const ModelOptions& options) {
  const auto& values = graph.values();
  auto spec = [&](int v) {
    const graph::Value& val = values[v];
    return runtime::TensorSpec{val.name, val.shape, static_cast<runtime::ElemType>(val.dtype)};
  };
  for (int v : graph.inputs()) plan.inputs.push_back(spec(v));
  for (int v : graph.outputs()) plan.outputs.push_back(spec(v));
  plan.num_kernels = static_cast<uint32_t>(compiled.size());
  plan.num_sizes = static_cast<uint32_t>(options.size_names.size());

  std::map<std::string, uint32_t> weight_of;  // "value" or "value|packed layout" -> weight
  auto weight = [&](const runtime::NDArray& data, const std::string& key) {
    auto it = weight_of.find(key);
    if (it != weight_of.end()) return BufferRef{BufferKind::Weight, it->second, 0};
    uint32_t i = static_cast<uint32_t>(weights.size());
    weights.push_back(data);
    plan.weight_bytes.push_back(data.bytes());
    weight_of.emplace(key, i);
    return BufferRef{BufferKind::Weight, i, 0};
  };
  auto ref = [&](int v) {
    if (values[v].isConstant()) return weight(*values[v].constant, std::to_string(v));
    TT_ASSERT(where[v].has_value(), "value " + values[v].name + " is read before it is computed");
    return *where[v];
  };

  // Inputs, and the outputs a kernel writes.
  where.assign(values.size(), std::nullopt);
  for (size_t i = 0; i < graph.inputs().size(); ++i)
    where[graph.inputs()[i]] = BufferRef{BufferKind::Input, static_cast<uint32_t>(i), 0};
  std::vector<bool> is_instance_alias(kernels.size());
  std::map<std::string, int> distinct;
  for (size_t w = 0; w < stats.size(); ++w) distinct[stats[w].workload_key] = static_cast<int>(w);
  for (size_t i = 0; i < kernels.size(); ++i) {
    const graph::Kernel& k = kernels[i];
    is_instance_alias[i] = k.alias_only && std::find(graph.outputs().begin(), graph.outputs().end(), k.outputs[0]) ==
                                               graph.outputs().end();
    if (is_instance_alias[i]) continue;
    for (int v : k.outputs)
      for (size_t o = 0; o < graph.outputs().size(); ++o)
        if (graph.outputs()[o] == v && !where[v]) where[v] = BufferRef{BufferKind::Output, static_cast<uint32_t>(o), 0};
  }

  // Memory plan of the intermediates: storage per value, reused after its last reader.
  std::vector<int> storage_of(values.size(), -1);
  std::vector<int> last_use(values.size(), -1);
  for (size_t i = 0; i < kernels.size(); ++i)
    for (int v : kernels[i].inputs) last_use[v] = static_cast<int>(i);
  std::vector<int> storage_last;
  std::vector<int64_t> storage_bytes;
  std::vector<std::pair<int64_t, int>> free_list;  // bytes, storage
  for (size_t i = 0; i < kernels.size(); ++i) {
    const graph::Kernel& k = kernels[i];
    for (int v : k.outputs) {
      if (is_instance_alias[i]) {
        int src = storage_of[k.inputs[0]];
        storage_of[v] = src;
        if (src >= 0) storage_last[src] = std::max(storage_last[src], last_use[v]);
        continue;
      }
      if (where[v]) continue;  // a model output
      int64_t need = te::shapeElements(values[v].shape) * te::dtypeBytes(values[v].dtype);
      int s = -1;
      auto best = free_list.end();
      for (auto it = free_list.begin(); it != free_list.end(); ++it)
        if (it->first >= need && (best == free_list.end() || it->first < best->first)) best = it;
      if (best != free_list.end()) {
        s = best->second;
        free_list.erase(best);
      } else {
        s = static_cast<int>(storage_bytes.size());
        storage_bytes.push_back(need);
        storage_last.push_back(-1);
      }
      storage_of[v] = s;
      storage_last[s] = std::max(last_use[v], static_cast<int>(i));
    }
    for (size_t s = 0; s < storage_bytes.size(); ++s)
      if (storage_last[s] == static_cast<int>(i)) {
        free_list.emplace_back(storage_bytes[s], static_cast<int>(s));
        storage_last[s] = -2;  // released
      }
  }
  std::vector<int64_t> offset(storage_bytes.size());
  for (size_t s = 0; s < storage_bytes.size(); ++s) {
    offset[s] = plan.workspace_bytes;
    plan.workspace_bytes += (std::max<int64_t>(storage_bytes[s], 1) + 63) / 64 * 64;
  }

  // Calls, in instance order (aliases take their input's buffer).
  for (size_t i = 0; i < kernels.size(); ++i) {
    const graph::Kernel& k = kernels[i];
    if (is_instance_alias[i]) {
      BufferRef r = ref(k.inputs[0]);
      r.offset += static_cast<uint64_t>(k.alias_offset_bytes);
      where[k.outputs[0]] = r;
      continue;
    }
    for (int v : k.outputs)
      if (!where[v]) where[v] = BufferRef{BufferKind::Workspace, 0, static_cast<uint64_t>(offset[storage_of[v]])};
    int w = distinct.at(k.workload_key);
    const Compiled& c = compiled[w];
    runtime::KernelCall call{static_cast<uint32_t>(w), static_cast<uint32_t>(plan.args.size()), 0};
    for (const te::Tensor& t : c.scheduled->inputs()) {
      const std::string& n = t.name();
      std::optional<BufferRef> a;
      for (size_t p = 0; p < k.dag->inputs().size() && !a; ++p) {
        const std::string& pn = k.dag->inputs()[p].name();
        if (n == pn)
          a = ref(k.inputs[p]);
        else if (n == schedule::names::packedWeight(pn)) {
          const graph::Value& v = graph.value(k.inputs[p]);
          TT_ASSERT(v.isConstant(), "a packed weight that is not a constant");
          for (const auto& lay : c.layouts)
            if (lay.packed == n) {
              std::string key = std::to_string(k.inputs[p]) + "|" + layoutKey(lay);
              auto it = weight_of.find(key);
              if (it != weight_of.end())
                a = BufferRef{BufferKind::Weight, it->second, 0};
              else
                a = weight(
                    options.cache ? options.cache->packed(*v.constant, lay) : measure::packWeight(lay, *v.constant),
                    key);
            }
        }
      }
      TT_ASSERT(a.has_value(), "kernel argument " + n + " has no source");
      plan.args.push_back(*a);
    }
    for (int v : k.outputs) plan.args.push_back(*where[v]);
    for (const BufferRef& r : sizeArgs(*c.scheduled, options.size_names)) plan.args.push_back(r);
    call.num_args = static_cast<uint32_t>(plan.args.size()) - call.first_arg;
    plan.calls.push_back(call);
    call_instance.push_back(static_cast<int>(i));
  }

  // Outputs no kernel wrote: model inputs, constants, an output listed twice.
  for (size_t o = 0; o < graph.outputs().size(); ++o) {
    int v = graph.outputs()[o];
    BufferRef src = ref(v);
    if (!(src == BufferRef{BufferKind::Output, static_cast<uint32_t>(o), 0}))
      plan.copies.push_back({static_cast<uint32_t>(o), src});
  }
  std::string bad = runtime::validatePlan(plan);
  TT_ASSERT(bad.empty(), "the executor built an invalid plan: " + bad);
}

CompiledModel CompiledModel::compile(const graph::Graph& graph, const ModelOptions& options) {
  Status can = codegen::runnable(options.target);
  if (!can.ok()) fail(can.error());
  CompiledModel m;
  Impl& im = *m.impl_;
  im.build(graph, options, true);
  for (const Compiled& c : im.compiled) im.fns.push_back(c.fn->function());
  for (const runtime::NDArray& w : im.weights) im.weight_ptrs.push_back(w.data());
  im.workspace = runtime::NDArray({std::max<int64_t>(1, im.plan.workspace_bytes)}, te::DType::Bool);
  return m;
}

ModelArtifacts compileArtifacts(const graph::Graph& graph, const ModelOptions& options) {
  CompiledModel m;
  m.impl_->build(graph, options, false);
  return m.artifacts();
}

runtime::PlanBindings CompiledModel::Impl::bind(const std::vector<const void*>& inputs,
                                                const std::vector<void*>& outputs, const std::vector<int64_t>& sizes) {
  TT_CHECK_ARG(sizes.size() == plan.num_sizes, "the model takes ", plan.num_sizes, " sizes, got ", sizes.size());
  TT_CHECK_ARG(inputs.size() == plan.inputs.size(), "the model takes ", plan.inputs.size(), " inputs, got ",
               inputs.size());
  TT_CHECK_ARG(outputs.size() == plan.outputs.size(), "the model has ", plan.outputs.size(), " outputs, got ",
               outputs.size(), " output buffers");
  for (size_t i = 0; i < inputs.size(); ++i)
    TT_CHECK_ARG(inputs[i], "input ", plan.inputs[i].name, " is a null pointer");
  for (size_t i = 0; i < outputs.size(); ++i)
    TT_CHECK_ARG(outputs[i], "output ", plan.outputs[i].name, " is a null pointer");
  return runtime::PlanBindings{fns.data(),    weight_ptrs.data(), static_cast<char*>(workspace.data()),
                               inputs.data(), outputs.data(),     sizes.data()};
}

std::vector<runtime::NDArray> CompiledModel::Impl::allocateOutputs(const std::vector<runtime::NDArray>& inputs,
                                                                   std::vector<const void*>& in_ptrs,
                                                                   std::vector<void*>& out_ptrs) const {
  const auto& ins = graph.inputs();
  TT_CHECK_ARG(inputs.size() == ins.size(), "the model takes ", ins.size(), " inputs, got ", inputs.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    const graph::Value& v = graph.value(ins[i]);
    TT_CHECK_ARG(inputs[i].shape() == v.shape && inputs[i].dtype() == v.dtype, "input ", v.name, " must be ",
                 te::dtypeName(v.dtype), " ", te::shapeToString(v.shape), ", got ", te::dtypeName(inputs[i].dtype()),
                 " ", te::shapeToString(inputs[i].shape()));
    in_ptrs.push_back(inputs[i].data());
  }
  std::vector<runtime::NDArray> out;
  for (int o : graph.outputs()) {
    const graph::Value& v = graph.value(o);
    out.push_back(runtime::NDArray::empty(v.shape, v.dtype));
    out_ptrs.push_back(out.back().data());
  }
  return out;
}

std::vector<runtime::NDArray> CompiledModel::run(const std::vector<runtime::NDArray>& inputs) {
  std::vector<const void*> in;
  std::vector<void*> out;
  std::vector<runtime::NDArray> outs = impl_->allocateOutputs(inputs, in, out);
  runtime::runPlan(impl_->plan, impl_->bind(in, out));
  return outs;
}

void CompiledModel::runInto(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                            const std::vector<int64_t>& sizes) {
  runtime::runPlan(impl_->plan, impl_->bind(inputs, outputs, sizes));
}

std::vector<runtime::NDArray> CompiledModel::runProfiled(const std::vector<runtime::NDArray>& inputs,
                                                         std::vector<double>& seconds, double* total_s,
                                                         const std::vector<int64_t>& sizes) {
  Timer whole;
  Impl& im = *impl_;
  seconds.assign(im.stats.size(), 0.0);
  std::vector<const void*> in;
  std::vector<void*> out;
  std::vector<runtime::NDArray> outs = im.allocateOutputs(inputs, in, out);
  runtime::PlanBindings b = im.bind(in, out, sizes);
  for (size_t c = 0; c < im.plan.calls.size(); ++c) {
    Timer t;
    runtime::runCall(im.plan, b, c);
    seconds[im.plan.calls[c].kernel] += t.seconds();
  }
  runtime::runCopies(im.plan, b);
  if (total_s) *total_s = whole.seconds();
  return outs;
}

namespace {
double elementAt(const void* data, te::DType t, int64_t i) { return te::loadDouble(data, t, i); }
}  // namespace

std::vector<runtime::NDArray> CompiledModel::runChecked(const std::vector<runtime::NDArray>& inputs,
                                                        CheckReport* report, const CheckOptions& opt) {
  Impl& im = *impl_;
  std::vector<const void*> in;
  std::vector<void*> out;
  std::vector<runtime::NDArray> outs = im.allocateOutputs(inputs, in, out);
  runtime::PlanBindings b = im.bind(in, out);
  CheckReport rep;
  std::vector<bool> checked(im.stats.size(), false);
  Rng rng(opt.seed);
  const double atol = opt.atol, rtol = opt.rtol;
  double worst = -1;
  for (size_t c = 0; c < im.plan.calls.size(); ++c) {
    runtime::runCall(im.plan, b, c);
    uint32_t w = im.plan.calls[c].kernel;
    if (checked[w]) continue;
    checked[w] = true;
    const graph::Kernel& k = im.kernels[im.call_instance[c]];
    std::vector<void*> args;
    for (int v : k.inputs) args.push_back(im.valuePtr(v, b));
    for (size_t o = 0; o < k.outputs.size(); ++o) args.push_back(nullptr);
    // A kernel whose outputs are all small enough to check everywhere is evaluated whole (far
    // cheaper than point by point); larger ones at a random sample of points.
    bool whole = opt.whole_up_to_flops <= 0 || k.dag->flops() <= opt.whole_up_to_flops;
    for (int v : k.outputs) whole = whole && te::shapeElements(im.graph.value(v).shape) <= opt.whole_up_to_elements;
    rep.kernels_checked_whole += whole;
    std::vector<runtime::NDArray> full;
    if (whole) {
      for (size_t o = 0; o < k.outputs.size(); ++o) {
        const graph::Value& val = im.graph.value(k.outputs[o]);
        full.push_back(runtime::NDArray::empty(val.shape, val.dtype));
        args[k.inputs.size() + o] = full.back().data();
      }
      te::evaluate(*k.dag, args);
    }
    for (size_t o = 0; o < k.outputs.size(); ++o) {
      const graph::Value& val = im.graph.value(k.outputs[o]);
      int64_t n = te::shapeElements(val.shape);
      std::vector<double> ref;
      std::vector<int64_t> flat;
      if (whole) {
        flat.resize(n);
        for (int64_t f = 0; f < n; ++f) flat[f] = f;
        ref.resize(n);
        for (int64_t f = 0; f < n; ++f) ref[f] = elementAt(full[o].data(), val.dtype, f);
      } else {
        std::vector<std::vector<int64_t>> pts;
        for (int s = 0; s < opt.samples_per_output; ++s) {
          int64_t f = static_cast<int64_t>(rng.uniformInt(0, n - 1));
          flat.push_back(f);
          std::vector<int64_t> idx(val.shape.size());
          int64_t r = f;
          for (int d = static_cast<int>(val.shape.size()) - 1; d >= 0; --d) {
            idx[d] = r % val.shape[d];
            r /= val.shape[d];
          }
          pts.push_back(idx);
        }
        ref = te::evaluateAt(*k.dag, args, static_cast<int>(o), pts);
      }
      const void* got_ptr = im.valuePtr(k.outputs[o], b);
      for (size_t p = 0; p < flat.size(); ++p) {
        double got = elementAt(got_ptr, val.dtype, flat[p]);
        // Equal values are exact matches, infinities too: a causal mask's -inf scores would
        // otherwise give inf - inf = NaN and count as a mismatch.
        bool same = got == ref[p] || (std::isnan(got) && std::isnan(ref[p]));
        double err = same ? 0.0 : std::fabs(got - ref[p]);
        if (!same && !std::isfinite(got) && std::isfinite(ref[p])) err = INFINITY;
        rep.max_abs_err = std::max(rep.max_abs_err, err);
        if (std::fabs(ref[p]) > 1e-6) rep.max_rel_err = std::max(rep.max_rel_err, err / std::fabs(ref[p]));
        if (!(err <= atol + rtol * std::fabs(ref[p]))) ++rep.mismatches;
        if (err > worst) {
          worst = err;
          rep.worst_kernel = k.class_name;
        }
        ++rep.points;
      }
    }
    ++rep.kernels_checked;
  }
  runtime::runCopies(im.plan, b);
  if (report) *report = rep;
  return outs;
}

ScheduleProvider recordsProvider(const std::vector<schedule::Record>& records) {
  auto best = std::make_shared<std::map<std::string, schedule::Record>>();
  for (const schedule::Record& r : records) {
    if (!r.result.ok()) continue;
    auto it = best->find(r.workload_key);
    if (it == best->end() || r.result.median() < it->second.result.median()) (*best)[r.workload_key] = r;
  }
  return [best](const graph::Kernel& k) -> std::optional<std::vector<schedule::Step>> {
    auto it = best->find(k.workload_key);
    if (it == best->end()) return std::nullopt;
    return it->second.steps;
  };
}

std::vector<runtime::NDArray> randomInputs(const graph::Graph& g, uint64_t seed, int64_t int_hi) {
  std::vector<runtime::NDArray> out;
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const graph::Value& v = g.value(g.inputs()[i]);
    runtime::NDArray a = runtime::NDArray::empty(v.shape, v.dtype);
    if (te::isFloat(v.dtype))
      a.fillRandom(seed * 131 + i, -1.0, 1.0);
    else
      a.fillRandom(seed * 131 + i, 0, static_cast<double>(int_hi));
    out.push_back(a);
  }
  return out;
}

}  // namespace ttune::executor
