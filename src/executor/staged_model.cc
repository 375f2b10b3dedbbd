#include "executor/staged_model.h"

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>

#include "frontend/onnx/staged_import.h"
#include "onnx/onnx_pb.h"
#include "support/assert.h"
#include "support/error.h"

namespace ttune::executor {

namespace {

// Operators whose output shape depends on their input values: evaluated on the host so that the
// stage after them is compiled per output shape, not per value.
bool shapeFromValues(const std::string& op) {
  static const std::set<std::string> ops{"NonZero", "Unique", "NonMaxSuppression"};
  return ops.count(op) > 0;
}

size_t bytesOf(const runtime::NDArray& a) {
  return static_cast<size_t>(a.numElements()) * static_cast<size_t>(te::dtypeBytes(a.dtype()));
}

struct Stage {
  frontend::ImportStage import;
  std::optional<CompiledModel> model;  // empty when the stage computes no run-time value
};

}  // namespace

struct StagedModel::Impl {
  onnx::ModelProto proto;
  std::string base_dir;
  frontend::OnnxOptions options;
  graph::GraphOptions passes;
  ModelOptions model;
  std::vector<std::string> input_names;
  std::map<std::string, std::unique_ptr<Stage>> cache;
  StagedStats stats;

  std::string key(const frontend::StageRequest& r) const {
    std::string k = std::to_string(r.start_node);
    for (const auto& [n, a] : r.runtime_values) k += "|" + n + ":" + te::dtypeName(a.dtype()) + te::shapeToString(a.shape());
    for (const auto& [n, a] : r.constants)
      k += "|=" + n + ":" + te::dtypeName(a.dtype()) + te::shapeToString(a.shape()) + ":" +
           std::to_string(std::hash<std::string_view>{}(
               std::string_view(static_cast<const char*>(a.data()), bytesOf(a))));
    return k;
  }

  Stage& stage(const frontend::StageRequest& r) {
    std::string k = key(r);
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
  impl_->base_dir = base_dir;
  impl_->options = std::move(options);
  impl_->passes = passes;
  impl_->model = std::move(model);
  if (!impl_->model.cache) impl_->model.cache = makeKernelCache();
  std::set<std::string> init;
  for (const auto& t : impl_->proto.graph().initializer()) init.insert(t.name());
  for (const auto& vi : impl_->proto.graph().input())
    if (!init.count(vi.name()) && !impl_->options.constant_inputs.count(vi.name())) impl_->input_names.push_back(vi.name());
}

StagedModel::~StagedModel() = default;

std::vector<runtime::NDArray> StagedModel::sampleInputs(uint64_t seed) const {
  frontend::ImportStage first = frontend::importStage(impl_->proto, impl_->options, {}, impl_->base_dir);
  return randomInputs(first.graph, seed);
}

const std::vector<std::string>& StagedModel::inputNames() const { return impl_->input_names; }
const StagedStats& StagedModel::stats() const { return impl_->stats; }

std::vector<runtime::NDArray> StagedModel::run(const std::vector<runtime::NDArray>& inputs) {
  Impl& m = *impl_;
  if (inputs.size() != m.input_names.size())
    fail("the model takes ", m.input_names.size(), " inputs, but ", inputs.size(), " were given");
  std::map<std::string, runtime::NDArray> values;  // run-time values by ONNX name
  for (size_t i = 0; i < inputs.size(); ++i) values[m.input_names[i]] = inputs[i];
  frontend::StageRequest req;
  req.runtime_values = values;
  // Each stage either moves past a node or binds one more value as a constant.
  int limit = m.proto.graph().node_size() + m.proto.graph().input_size() + 1;
  for (const auto& n : m.proto.graph().node()) limit += n.output_size();
  for (int stage = 0; stage < limit; ++stage) {
    Stage& s = m.stage(req);
    ++m.stats.stages_run;
    if (s.model) {
      std::vector<runtime::NDArray> ins;
      for (const std::string& n : s.import.input_names) {
        auto v = values.find(n);
        TT_ASSERT(v != values.end(), "a stage input has no value");
        ins.push_back(v->second);
      }
      std::vector<runtime::NDArray> outs = s.model->run(ins);
      for (size_t i = 0; i < outs.size(); ++i) values[s.import.output_names[i]] = outs[i];
    }
    for (const auto& [n, a] : s.import.constants) req.constants[n] = a;
    if (s.import.stop_node < 0) {
      std::vector<runtime::NDArray> result;
      for (const std::string& n : s.import.output_names) result.push_back(values.at(n));
      return result;
    }
    const std::string& needed = s.import.needed;
    if (shapeFromValues(s.import.stop_op)) {
      std::map<std::string, runtime::NDArray> known = req.constants;
      for (const auto& [n, a] : values) known.emplace(n, a);
      for (auto& [n, a] : frontend::evaluateNodeOnHost(m.proto, s.import.stop_node, known)) values[n] = a;
      ++m.stats.host_nodes;
      req.start_node = s.import.stop_node + 1;
    } else {
      auto v = values.find(needed);
      if (v == values.end() || req.constants.count(needed))
        fail("node #", s.import.stop_node, " (", s.import.stop_op, "): the value \"", needed,
             "\" cannot be resolved at run time");
      req.constants[needed] = v->second;
      req.start_node = s.import.stop_node;
    }
    req.runtime_values.clear();
    for (const auto& [n, a] : values)
      if (!req.constants.count(n)) req.runtime_values[n] = a;
  }
  fail("the model did not finish in ", limit, " stages");
}

}  // namespace ttune::executor
