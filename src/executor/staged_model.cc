#include "executor/staged_model.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>

#include "frontend/onnx/opset_upgrade.h"
#include "frontend/onnx/staged_import.h"
#include "onnx/onnx_pb.h"
#include "support/assert.h"
#include "support/error.h"
#include "te/dtype_io.h"

namespace ttune::executor {

namespace {

// Operators whose output shape depends on their input values, and TopK of run-time data (a sort,
// O(n log n) on the host where a kernel compares every pair; a run-time K is bound instead):
// evaluated on the host, so that the stage after them is compiled per output shape, not per value.
//
// A Loop or Scan whose body needs a run-time value of an iteration (a mask resized to its box's
// size) is evaluated on the host as a whole: every value it reads is then known, so its unrolled
// body folds everything it computes (the reference evaluator, native concatenations and
// resampling). These are
// post-processing loops over a few hundred detections; compiling each iteration's shapes would
// cost more than evaluating them.
bool onHost(const onnx::NodeProto& node, const std::string& needed) {
  static const std::set<std::string> ops{"NonZero", "Unique", "NonMaxSuppression"};
  if (ops.count(node.op_type()) > 0 || (node.op_type() == "TopK" && needed == node.input(0))) return true;
  bool body_needs = std::find(node.input().begin(), node.input().end(), needed) == node.input().end();
  return (node.op_type() == "Loop" || node.op_type() == "Scan") && body_needs;
}

size_t bytesOf(const runtime::NDArray& a) {
  return static_cast<size_t>(a.numElements()) * static_cast<size_t>(te::dtypeBytes(a.dtype()));
}

struct Stage {
  frontend::ImportStage import;
  std::optional<CompiledModel> model;  // empty when the stage computes no run-time value
  // The cache-key parts of import.constants, hashed once: the later stages' keys include them,
  // and hashing a detection head's folded constants at every stage of every run cost 8 ms per
  // stage (Faster R-CNN: half of its run time).
  std::map<std::string, std::string> constant_keys;
};

// The cache-key parts of a run's values by name: of StageRequest::runtime_values (name, dtype,
// shape) and of StageRequest::constants (name, dtype, shape, contents), each made once.
struct RequestKeys {
  std::map<std::string, std::string> runtime, constants;
};

std::string runtimeKey(const std::string& n, const runtime::NDArray& a) {
  return n + ":" + te::dtypeName(a.dtype()) + te::shapeToString(a.shape());
}

}  // namespace

struct StagedModel::Impl {
  onnx::ModelProto proto;
  std::string base_dir;
  frontend::OnnxOptions options;
  graph::GraphOptions passes;
  ModelOptions model;
  std::vector<std::string> input_names;
  std::map<std::string, std::unique_ptr<Stage>> cache;
  // If branches that stopped inside, run as models of their own: by node, branch and the bound
  // constants they read.
  std::map<std::string, std::unique_ptr<StagedModel>> branches;
  StagedStats stats;
  std::map<std::string, runtime::NDArray> initializers;  // read by host-evaluated bodies, loaded once

  // The names node `n` reads: its inputs and, for a node with bodies, what they capture.
  static std::vector<std::string> readBy(const onnx::NodeProto& n) {
    std::vector<std::string> r(n.input().begin(), n.input().end());
    for (std::string& c : frontend::capturedByNode(n)) r.push_back(std::move(c));
    return r;
  }

  const runtime::NDArray* initializer(const std::string& n) {
    if (auto it = initializers.find(n); it != initializers.end()) return &it->second;
    for (const auto& t : proto.graph().initializer())
      if (t.name() == n) return &(initializers[n] = frontend::tensorFromProto(t, base_dir));
    return nullptr;
  }

  StagedModel& branch(const frontend::BranchModel& b, int node, bool cond) {
    std::string k = std::to_string(node) + (cond ? "|then" : "|else");
    for (const auto& [n, a] : b.options.constant_inputs) k += "|" + constantKey(n, a);
    auto it = branches.find(k);
    if (it != branches.end()) return *it->second;
    auto sub = std::make_unique<StagedModel>(*b.model, base_dir, b.options, passes, model);
    return *branches.emplace(k, std::move(sub)).first->second;
  }

  static std::string constantKey(const std::string& n, const runtime::NDArray& a) {
    return "=" + n + ":" + te::dtypeName(a.dtype()) + te::shapeToString(a.shape()) + ":" +
           std::to_string(
               std::hash<std::string_view>{}(std::string_view(static_cast<const char*>(a.data()), bytesOf(a))));
  }

  static std::string key(const frontend::StageRequest& r, const RequestKeys& keys) {
    TT_ASSERT(keys.runtime.size() == r.runtime_values.size() && keys.constants.size() == r.constants.size(),
              "a value of the stage request has no key");
    std::string k = std::to_string(r.start_node);
    for (const auto& part : {&keys.runtime, &keys.constants})
      for (const auto& [n, ck] : *part) {
        k += '|';
        k += ck;
      }
    return k;
  }

  Stage& stage(const frontend::StageRequest& r, const RequestKeys& keys) {
    std::string k = key(r, keys);
    auto it = cache.find(k);
    if (it != cache.end()) return *it->second;
    auto t0 = std::chrono::steady_clock::now();
    auto s = std::make_unique<Stage>();
    frontend::OnnxOptions opt = options;
    if (r.start_node == 0)
      for (const auto& [n, a] : r.runtime_values) opt.input_shapes[n] = a.shape();
    s->import = frontend::importStage(proto, opt, r, base_dir);
    if (!s->import.output_names.empty()) {
      graph::optimizeGraph(s->import.graph, passes);
      s->model.emplace(CompiledModel::compile(s->import.graph, model));
    }
    for (const auto& [n, a] : s->import.constants) s->constant_keys[n] = constantKey(n, a);
    stats.compile_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++stats.stages_compiled;
    return *cache.emplace(k, std::move(s)).first->second;
  }
};

namespace {
onnx::ModelProto readModel(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open the ONNX file \"", path, "\"");
  onnx::ModelProto m;
  if (!m.ParseFromIstream(&f)) fail("the ONNX file \"", path, "\" is not a valid ONNX model (protobuf parsing failed)");
  return m;
}
std::string dirOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}
}  // namespace

StagedModel::StagedModel(const std::string& path, frontend::OnnxOptions options, graph::GraphOptions passes,
                         ModelOptions model)
    : StagedModel(readModel(path), dirOf(path), std::move(options), passes, std::move(model)) {}

StagedModel::StagedModel(const onnx::ModelProto& proto, const std::string& base_dir, frontend::OnnxOptions options,
                         graph::GraphOptions passes, ModelOptions model)
    : impl_(std::make_unique<Impl>()) {
  impl_->proto = proto;
  frontend::upgradeToMinOpset(impl_->proto, "the model", base_dir);
  impl_->base_dir = base_dir;
  impl_->options = std::move(options);
  impl_->passes = passes;
  impl_->model = std::move(model);
  if (!impl_->model.cache) impl_->model.cache = makeKernelCache();
  std::set<std::string> init;
  for (const auto& t : impl_->proto.graph().initializer()) init.insert(t.name());
  for (const auto& vi : impl_->proto.graph().input())
    if (!init.count(vi.name()) && !impl_->options.constant_inputs.count(vi.name()))
      impl_->input_names.push_back(vi.name());
}

StagedModel::~StagedModel() = default;

std::vector<runtime::NDArray> StagedModel::sampleInputs(uint64_t seed) const {
  frontend::ImportStage first = frontend::importStage(impl_->proto, impl_->options, {}, impl_->base_dir);
  return randomInputs(first.graph, seed);
}

const std::vector<std::string>& StagedModel::inputNames() const { return impl_->input_names; }
const StagedStats& StagedModel::stats() const { return impl_->stats; }

std::vector<runtime::NDArray> StagedModel::run(const std::vector<runtime::NDArray>& inputs) {
  return run(inputs, nullptr);
}

std::vector<runtime::NDArray> StagedModel::run(const std::vector<runtime::NDArray>& inputs,
                                               const StageRunner& stage_run) {
  Impl& m = *impl_;
  if (inputs.size() != m.input_names.size())
    fail("the model takes ", m.input_names.size(), " inputs, but ", inputs.size(), " were given");
  std::map<std::string, runtime::NDArray> values;  // run-time values by ONNX name
  for (size_t i = 0; i < inputs.size(); ++i) values[m.input_names[i]] = inputs[i];
  frontend::StageRequest req;
  RequestKeys keys;
  req.runtime_values = values;
  for (const auto& [n, a] : values) keys.runtime[n] = runtimeKey(n, a);
  // req.runtime_values stays `values` minus req.constants, kept up to date value by value (a
  // detection model's post-processing runs hundreds of stages over a thousand values).
  auto setValue = [&](const std::string& n, runtime::NDArray a) {
    if (!req.constants.count(n)) {
      req.runtime_values[n] = a;
      keys.runtime[n] = runtimeKey(n, a);
    }
    values[n] = std::move(a);
  };
  auto bind = [&](const std::string& n, runtime::NDArray a, std::string key) {
    req.runtime_values.erase(n);
    keys.runtime.erase(n);
    req.constants[n] = std::move(a);
    keys.constants[n] = std::move(key);
  };
  // Each stage either moves past a node or binds one more value as a constant.
  int limit = m.proto.graph().node_size() + m.proto.graph().input_size() + 1;
  for (const auto& n : m.proto.graph().node()) limit += n.output_size();
  for (int stage = 0; stage < limit; ++stage) {
    Stage& s = m.stage(req, keys);
    ++m.stats.stages_run;
    if (s.model) {
      std::vector<runtime::NDArray> ins;
      for (const std::string& n : s.import.input_names) {
        auto v = values.find(n);
        TT_ASSERT(v != values.end(), "a stage input has no value");
        ins.push_back(v->second);
      }
      std::vector<runtime::NDArray> outs = stage_run ? stage_run(*s.model, ins) : s.model->run(ins);
      for (size_t i = 0; i < outs.size(); ++i) setValue(s.import.output_names[i], outs[i]);
    }
    for (const auto& [n, a] : s.import.constants) bind(n, a, s.constant_keys.at(n));
    if (s.import.stop_node < 0) {
      std::vector<runtime::NDArray> result;
      for (const auto& o : m.proto.graph().output()) {
        auto v = values.find(o.name());
        auto c = req.constants.find(o.name());
        TT_ASSERT(v != values.end() || c != req.constants.end(), "a model output has no value");
        result.push_back(v != values.end() ? v->second : c->second);
      }
      return result;
    }
    const std::string& needed = s.import.needed;
    const onnx::NodeProto& stop = m.proto.graph().node(s.import.stop_node);
    if (s.import.stop_op == "If" && needed != stop.input(0)) {
      // A node inside the selected branch needs a run-time value: run the branch staged.
      const std::string& cn = stop.input(0);
      const runtime::NDArray* c = nullptr;
      if (auto k = req.constants.find(cn); k != req.constants.end())
        c = &k->second;
      else if (auto v = values.find(cn); v != values.end())
        c = &v->second;
      TT_ASSERT(c && c->numElements() == 1, "an If stopped inside before its condition was known");
      bool cond = te::loadDouble(c->data(), c->dtype(), 0) != 0;
      frontend::BranchModel b = frontend::ifBranchModel(m.proto, s.import.stop_node, cond, values, req.constants);
      StagedModel& sub = m.branch(b, s.import.stop_node, cond);
      const StagedStats before = sub.stats();
      std::vector<runtime::NDArray> ins;
      for (const std::string& n : b.inputs) ins.push_back(values.at(n));
      std::vector<runtime::NDArray> outs = sub.run(ins, stage_run);
      for (int k = 0; k < stop.output_size() && k < static_cast<int>(outs.size()); ++k)
        if (!stop.output(k).empty()) setValue(stop.output(k), outs[k]);
      const StagedStats& after = sub.stats();  // the branch's share of this run
      m.stats.stages_run += after.stages_run - before.stages_run;
      m.stats.stages_compiled += after.stages_compiled - before.stages_compiled;
      m.stats.host_nodes += after.host_nodes - before.host_nodes;
      m.stats.host_s += after.host_s - before.host_s;
      m.stats.compile_s += after.compile_s - before.compile_s;
      req.start_node = s.import.stop_node + 1;
    } else if (onHost(stop, needed)) {
      std::map<std::string, runtime::NDArray> known;  // what the node reads
      for (const std::string& n : m.readBy(stop)) {
        if (auto c = req.constants.find(n); c != req.constants.end())
          known.emplace(n, c->second);
        else if (auto v = values.find(n); v != values.end())
          known.emplace(n, v->second);
        else if (const runtime::NDArray* t = m.initializer(n))
          known.emplace(n, *t);
      }
      auto t0 = std::chrono::steady_clock::now();
      for (auto& [n, a] : frontend::evaluateNodeOnHost(m.proto, s.import.stop_node, known)) setValue(n, std::move(a));
      m.stats.host_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      ++m.stats.host_nodes;
      req.start_node = s.import.stop_node + 1;
    } else {
      auto v = values.find(needed);
      if (v == values.end() || req.constants.count(needed))
        fail("node #", s.import.stop_node, " (", s.import.stop_op, "): the value \"", needed,
             "\" cannot be resolved at run time");
      bind(needed, v->second, Impl::constantKey(needed, v->second));
      req.start_node = s.import.stop_node;
    }
  }
  fail("the model did not finish in ", limit, " stages");
}

}  // namespace ttune::executor
