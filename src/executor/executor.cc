#include "executor/executor.h"

#include <atomic>
#include <cstring>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "codegen/jit.h"
#include "measure/builder.h"
#include "measure/measurer.h"
#include "runtime/thread_pool.h"
#include "support/assert.h"
#include "support/error.h"
#include "support/log.h"
#include "support/rng.h"
#include "support/timer.h"
#include "te/evaluator.h"

namespace ttune::executor {

namespace {

// One distinct workload, compiled.
struct Compiled {
  std::shared_ptr<codegen::LoadedKernel> fn;
  std::shared_ptr<const te::ComputeDAG> scheduled;
  std::vector<schedule::WeightLayout> layouts;
};

// Where an argument of a kernel instance lives.
struct ArgSource {
  int value = -1;            // graph value (input, constant or intermediate)
  int packed = -1;           // index into packed_ when the schedule re-laid-out a weight
};

struct Instance {
  int kernel = -1;  // index into instances_
  int compiled = -1;
  std::vector<ArgSource> args;  // scheduled DAG inputs then outputs
  bool alias = false;
};

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
    meta.code = {};  // the loaded kernel is kept; the object code is not needed again
    map_.emplace(key, std::make_pair(c, meta));
  }
  // A constant packed into a layout, shared by every model of the cache (kernels only read it).
  runtime::NDArray packed(const runtime::NDArray& constant, const schedule::WeightLayout& lay) {
    std::string key = std::to_string(reinterpret_cast<uintptr_t>(constant.data())) + "|" + te::shapeToString(lay.packed_shape) + "|";
    for (size_t d = 0; d < lay.source_dim.size(); ++d)
      key += std::to_string(lay.source_dim[d]) + ":" + std::to_string(lay.source_stride[d]) + ",";
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

struct CompiledModel::Impl {
  graph::Graph graph;
  std::vector<graph::Kernel> kernels;  // instances, in execution order
  std::vector<Instance> inst;
  std::vector<Compiled> compiled;
  std::vector<KernelStats> stats;
  std::vector<runtime::NDArray> packed;
  // Storage of every value: graph inputs are bound per run; constants and intermediates here.
  std::vector<int> storage_of;  // value -> storage index (-1: input or constant)
  std::vector<runtime::NDArray> storage;
  std::vector<void*> ptr;  // value -> data pointer for the current run
  double compile_s = 0;
  int64_t workspace = 0;
  double flops = 0;

  void bindInputs(const std::vector<runtime::NDArray>& inputs);
  void execute(int i);
  std::vector<runtime::NDArray> outputs() const;
};

CompiledModel::CompiledModel() : impl_(std::make_unique<Impl>()) {}
CompiledModel::CompiledModel(CompiledModel&&) noexcept = default;
CompiledModel& CompiledModel::operator=(CompiledModel&&) noexcept = default;
CompiledModel::~CompiledModel() = default;

const std::vector<KernelStats>& CompiledModel::kernels() const { return impl_->stats; }
const std::vector<graph::Kernel>& CompiledModel::instances() const { return impl_->kernels; }
double CompiledModel::compileSeconds() const { return impl_->compile_s; }
int64_t CompiledModel::workspaceBytes() const { return impl_->workspace; }
double CompiledModel::flops() const { return impl_->flops; }
const graph::Graph& CompiledModel::graph() const { return impl_->graph; }

CompiledModel CompiledModel::compile(const graph::Graph& graph, const ModelOptions& options) {
  Status can = codegen::runnable(options.target);
  if (!can.ok()) fail(can.error());
  Timer timer;
  CompiledModel m;
  Impl& im = *m.impl_;
  im.graph = graph;
  im.kernels = graph::partition(im.graph);

  // Distinct workloads in first-use order.
  std::map<std::string, int> by_key;
  std::vector<int> first_instance;
  for (size_t i = 0; i < im.kernels.size(); ++i) {
    const graph::Kernel& k = im.kernels[i];
    im.flops += k.dag->flops();
    Instance in;
    in.kernel = static_cast<int>(i);
    in.alias = k.alias_only && std::find(im.graph.outputs().begin(), im.graph.outputs().end(), k.outputs[0]) == im.graph.outputs().end();
    if (!in.alias) {
      auto it = by_key.find(k.workload_key);
      if (it == by_key.end()) {
        it = by_key.emplace(k.workload_key, static_cast<int>(first_instance.size())).first;
        first_instance.push_back(static_cast<int>(i));
        KernelStats st;
        st.workload_key = k.workload_key;
        st.class_name = k.class_name;
        st.class_id = k.class_id;
        st.flops = k.dag->flops();
        im.stats.push_back(st);
      }
      in.compiled = it->second;
      im.stats[in.compiled].occurrences++;
    }
    im.inst.push_back(in);
  }

  // Compile the distinct workloads in parallel.
  im.compiled.resize(first_instance.size());
  std::atomic<size_t> next{0};
  std::mutex err_mu;
  std::string first_error;
  auto work = [&] {
    for (size_t w = next++; w < first_instance.size(); w = next++) {
      const graph::Kernel& k = im.kernels[first_instance[w]];
      KernelStats& st = im.stats[w];
      Timer t;
      std::optional<std::vector<schedule::Step>> provided = options.schedules ? options.schedules(k) : std::nullopt;
      // Builds (or finds in the cache) one schedule of the kernel.
      auto build = [&](const std::vector<schedule::Step>& steps, measure::BuildResult& b) -> std::optional<Compiled> {
        std::string key;
        if (options.cache) {
          key = k.workload_key + "|" + schedule::isaName(options.target.isa) + "|" + options.target.cpu + "|" +
                options.target.features + "|";
          for (const schedule::Step& s : steps) key += schedule::stepToJson(s).dump();
          if (auto hit = options.cache->find(key)) {
            b = hit->second;
            return hit->first;
          }
        }
        b = measure::buildOne({k.dag, steps}, "kernel", options.target);
        if (!b.ok()) return std::nullopt;
        auto fn = codegen::loadKernel(b.code);
        if (!fn.ok()) {
          b.error = schedule::ErrorKind::CompileError;
          b.message = fn.error();
          return std::nullopt;
        }
        Compiled c{*fn, b.scheduled, b.layouts};
        if (options.cache) options.cache->put(key, c, b);
        return c;
      };
      measure::BuildResult b;
      std::optional<Compiled> c;
      if (provided) {
        c = build(*provided, b);
        st.schedule_source = c ? "provided" : "default (the provided schedule failed: " + b.message + ")";
      }
      if (!c) {
        if (!provided) st.schedule_source = "default";
        c = build(measure::defaultScheduleFor(*k.dag, options.target), b);
      }
      st.compile_s = t.seconds();
      if (!c) {
        std::lock_guard<std::mutex> lock(err_mu);
        if (first_error.empty()) first_error = "kernel " + k.class_name + " (" + k.workload_key + ") does not compile: " + b.message;
        continue;
      }
      im.compiled[w] = std::move(*c);
    }
  };
  int nthreads = options.compile_threads > 0 ? options.compile_threads : runtime::defaultNumThreads();
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min<int>(nthreads, static_cast<int>(first_instance.size())); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (!first_error.empty()) fail(first_error);

  // Arguments of every instance, packing re-laid-out weights.
  for (Instance& in : im.inst) {
    if (in.alias) continue;
    const graph::Kernel& k = im.kernels[in.kernel];
    const Compiled& c = im.compiled[in.compiled];
    for (const te::Tensor& t : c.scheduled->inputs()) {
      ArgSource a;
      const std::string& n = t.name();
      bool found = false;
      for (size_t p = 0; p < k.dag->inputs().size(); ++p) {
        const std::string& pn = k.dag->inputs()[p].name();
        if (n == pn) {
          a.value = k.inputs[p];
          found = true;
        } else if (n == pn + ".packed") {
          const graph::Value& v = im.graph.value(k.inputs[p]);
          TT_ASSERT(v.isConstant(), "a packed weight that is not a constant");
          for (const auto& lay : c.layouts)
            if (lay.packed == n) {
              im.packed.push_back(options.cache ? options.cache->packed(*v.constant, lay) : measure::packWeight(lay, *v.constant));
              a.packed = static_cast<int>(im.packed.size()) - 1;
            }
          found = a.packed >= 0;
        }
      }
      TT_ASSERT(found, "kernel argument " + n + " has no source");
      in.args.push_back(a);
    }
    for (int v : k.outputs) in.args.push_back(ArgSource{v, -1});
  }

  // Memory plan: one storage per intermediate, reused after its last reader.
  const auto& values = im.graph.values();
  im.storage_of.assign(values.size(), -1);
  std::vector<int> last_use(values.size(), -1);
  for (size_t i = 0; i < im.inst.size(); ++i)
    for (int v : im.kernels[im.inst[i].kernel].inputs) last_use[v] = static_cast<int>(i);
  std::vector<bool> is_output(values.size(), false);
  for (int o : im.graph.outputs()) is_output[o] = true;
  std::vector<int> storage_last(0);
  std::vector<std::pair<int64_t, int>> free_list;  // bytes, storage
  std::vector<int64_t> storage_bytes;
  for (size_t i = 0; i < im.inst.size(); ++i) {
    const Instance& in = im.inst[i];
    const graph::Kernel& k = im.kernels[in.kernel];
    for (int v : k.outputs) {
      if (in.alias) {
        int src = im.storage_of[k.inputs[0]];
        im.storage_of[v] = src;
        if (src >= 0) storage_last[src] = std::max(storage_last[src], last_use[v]);
        continue;
      }
      int64_t need = te::shapeElements(values[v].shape) * te::dtypeBytes(values[v].dtype);
      int s = -1;
      if (!is_output[v]) {
        auto best = free_list.end();
        for (auto it = free_list.begin(); it != free_list.end(); ++it)
          if (it->first >= need && (best == free_list.end() || it->first < best->first)) best = it;
        if (best != free_list.end()) {
          s = best->second;
          free_list.erase(best);
        }
      }
      if (s < 0) {
        s = static_cast<int>(storage_bytes.size());
        storage_bytes.push_back(need);
        storage_last.push_back(-1);
      }
      im.storage_of[v] = s;
      storage_last[s] = is_output[v] ? static_cast<int>(im.inst.size()) : std::max(last_use[v], static_cast<int>(i));
    }
    for (size_t s = 0; s < storage_bytes.size(); ++s)
      if (storage_last[s] == static_cast<int>(i)) {
        free_list.emplace_back(storage_bytes[s], static_cast<int>(s));
        storage_last[s] = -2;  // released
      }
  }
  for (size_t s = 0; s < storage_bytes.size(); ++s) {
    im.storage.push_back(runtime::NDArray({std::max<int64_t>(1, storage_bytes[s])}, te::DType::Bool));
    im.workspace += storage_bytes[s];
  }
  im.ptr.assign(values.size(), nullptr);
  for (size_t v = 0; v < values.size(); ++v) {
    if (values[v].isConstant()) im.ptr[v] = values[v].constant->data();
    else if (im.storage_of[v] >= 0) im.ptr[v] = im.storage[im.storage_of[v]].data();
  }
  im.compile_s = timer.seconds();
  return m;
}

void CompiledModel::Impl::bindInputs(const std::vector<runtime::NDArray>& inputs) {
  const auto& ins = graph.inputs();
  TT_CHECK_ARG(inputs.size() == ins.size(), "the model takes ", ins.size(), " inputs, got ", inputs.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    const graph::Value& v = graph.value(ins[i]);
    TT_CHECK_ARG(inputs[i].shape() == v.shape && inputs[i].dtype() == v.dtype, "input ", v.name, " must be ",
                 te::dtypeName(v.dtype), " ", te::shapeToString(v.shape), ", got ", te::dtypeName(inputs[i].dtype()), " ",
                 te::shapeToString(inputs[i].shape()));
    ptr[ins[i]] = inputs[i].data();
  }
  // Aliases of inputs point at the bound input.
  for (const Instance& in : inst)
    if (in.alias) ptr[kernels[in.kernel].outputs[0]] = ptr[kernels[in.kernel].inputs[0]];
}

void CompiledModel::Impl::execute(int i) {
  const Instance& in = inst[i];
  if (in.alias) return;
  void* args[64];
  std::vector<void*> big;
  void** a = args;
  if (in.args.size() > 64) {
    big.resize(in.args.size());
    a = big.data();
  }
  for (size_t k = 0; k < in.args.size(); ++k) a[k] = in.args[k].packed >= 0 ? packed[in.args[k].packed].data() : ptr[in.args[k].value];
  (*compiled[in.compiled].fn)(a);
}

std::vector<runtime::NDArray> CompiledModel::Impl::outputs() const {
  std::vector<runtime::NDArray> out;
  for (int o : graph.outputs()) {
    const graph::Value& v = graph.value(o);
    runtime::NDArray a = runtime::NDArray::empty(v.shape, v.dtype);
    std::memcpy(a.data(), ptr[o], static_cast<size_t>(a.bytes()));
    out.push_back(a);
  }
  return out;
}

std::vector<runtime::NDArray> CompiledModel::run(const std::vector<runtime::NDArray>& inputs) {
  impl_->bindInputs(inputs);
  for (size_t i = 0; i < impl_->inst.size(); ++i) impl_->execute(static_cast<int>(i));
  return impl_->outputs();
}

std::vector<runtime::NDArray> CompiledModel::runProfiled(const std::vector<runtime::NDArray>& inputs,
                                                         std::vector<double>& seconds) {
  seconds.assign(impl_->stats.size(), 0.0);
  impl_->bindInputs(inputs);
  for (size_t i = 0; i < impl_->inst.size(); ++i) {
    Timer t;
    impl_->execute(static_cast<int>(i));
    const Instance& in = impl_->inst[i];
    if (!in.alias && in.compiled >= 0) seconds[in.compiled] += t.seconds();
  }
  return impl_->outputs();
}

std::vector<runtime::NDArray> CompiledModel::runChecked(const std::vector<runtime::NDArray>& inputs, CheckReport* report,
                                                        int samples, uint64_t seed, double atol, double rtol) {
  Impl& im = *impl_;
  im.bindInputs(inputs);
  CheckReport rep;
  std::vector<bool> checked(im.stats.size(), false);
  Rng rng(seed);
  double worst = -1;
  for (size_t i = 0; i < im.inst.size(); ++i) {
    im.execute(static_cast<int>(i));
    const Instance& in = im.inst[i];
    if (in.alias || checked[in.compiled]) continue;
    checked[in.compiled] = true;
    const graph::Kernel& k = im.kernels[in.kernel];
    std::vector<void*> args;
    for (int v : k.inputs) args.push_back(im.ptr[v]);
    for (size_t o = 0; o < k.outputs.size(); ++o) args.push_back(nullptr);
    for (size_t o = 0; o < k.outputs.size(); ++o) {
      const graph::Value& val = im.graph.value(k.outputs[o]);
      int64_t n = te::shapeElements(val.shape);
      std::vector<std::vector<int64_t>> pts;
      std::vector<int64_t> flat;
      for (int s = 0; s < std::min<int64_t>(samples, n); ++s) {
        int64_t f = samples >= n ? s : static_cast<int64_t>(rng.uniformInt(0, n - 1));
        flat.push_back(f);
        std::vector<int64_t> idx(val.shape.size());
        int64_t r = f;
        for (int d = static_cast<int>(val.shape.size()) - 1; d >= 0; --d) {
          idx[d] = r % val.shape[d];
          r /= val.shape[d];
        }
        pts.push_back(idx);
      }
      std::vector<double> ref = te::evaluateAt(*k.dag, args, static_cast<int>(o), pts);
      for (size_t p = 0; p < pts.size(); ++p) {
        double got;
        switch (val.dtype) {
          case te::DType::Float32: got = static_cast<const float*>(im.ptr[k.outputs[o]])[flat[p]]; break;
          case te::DType::Int32: got = static_cast<const int32_t*>(im.ptr[k.outputs[o]])[flat[p]]; break;
          case te::DType::Int64: got = static_cast<double>(static_cast<const int64_t*>(im.ptr[k.outputs[o]])[flat[p]]); break;
          default: got = static_cast<const uint8_t*>(im.ptr[k.outputs[o]])[flat[p]] != 0; break;
        }
        double err = std::fabs(got - ref[p]);
        if (!std::isfinite(got) && std::isfinite(ref[p])) err = INFINITY;
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
  if (report) *report = rep;
  return im.outputs();
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
    if (te::isFloat(v.dtype)) a.fillRandom(seed * 131 + i, -1.0, 1.0);
    else a.fillRandom(seed * 131 + i, 0, static_cast<double>(int_hi));
    out.push_back(a);
  }
  return out;
}

}  // namespace ttune::executor
