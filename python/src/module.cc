// _ttune: the native half of the `ttune` Python package (ttune/__init__.py is the public API).
// Thin bindings over the same library functions the command line calls -- model loading,
// schedule options, the executor, profiling, export, tuning and transfer-tuning -- so Python and
// the CLI behave alike and fail with the same sentences (ttune::Error becomes ttune.Error).
// Long calls release the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <mutex>

#include "cli/bank_access.h"
#include "cli/commands.h"
#include "cli/model_loader.h"
#include "cli/range_run.h"
#include "cli/target_option.h"
#include "cli/version.h"
#include "codegen/target.h"
#include "executor/executor.h"
#include "executor/range_model.h"
#include "models/zoo.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/version.h"
#include "ttune/ttune_model.h"

namespace py = pybind11;

namespace ttune::python {

namespace {

py::object toPython(const Json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

cli::ModelSource modelSource(const std::string& model, const std::map<std::string, std::vector<int64_t>>& input_shapes,
                             const std::map<std::string, int64_t>& dims, const std::string& layout,
                             const std::string& precision) {
  cli::ModelSource src;
  src.spec = model;
  const std::optional<graph::Layout> l = cli::layoutNamed(layout);
  if (!l) fail("layout must be \"nhwc\" or \"nchw\", got \"", layout, "\"");
  const std::optional<cli::Precision> p = cli::precisionNamed(precision);
  if (!p) fail("precision must be \"fp32\" or \"bf16\", got \"", precision, "\"");
  src.layout = *l;
  src.precision = *p;
  for (const auto& [name, shape] : input_shapes) {
    std::string s = name + "=";
    for (size_t i = 0; i < shape.size(); ++i) {
      if (i) s += 'x';
      s += std::to_string(shape[i]);
    }
    src.input_shapes.push_back(s);
  }
  for (const auto& [name, v] : dims) src.dims.push_back(name + "=" + std::to_string(v));
  return src;
}

void useThreads(int threads) {
  if (threads < 0) fail("threads must be 0 (all cores) or positive, got ", threads);
  if (threads > 0 && runtime::ThreadPool::global().numThreads() != threads)
    runtime::ThreadPool::global().setNumThreads(threads);
}

runtime::NDArray toNDArray(const py::array& a, const runtime::TensorSpec& spec) {
  runtime::NDArray out = runtime::NDArray::empty(spec.shape, static_cast<te::DType>(spec.dtype));
  std::memcpy(out.data(), a.data(), static_cast<size_t>(out.bytes()));
  return out;
}

// The buffers of arrays the Python side has checked; checked again here (sizes, contiguity) so
// that a direct call of this private module cannot make a kernel read out of bounds.
template <class Ptr>
std::vector<Ptr> buffers(const std::vector<py::array>& arrays, const std::vector<runtime::TensorSpec>& specs,
                         const char* what) {
  if (arrays.size() != specs.size())
    throw py::value_error(cat("expected ", specs.size(), " ", what, ", got ", arrays.size()));
  std::vector<Ptr> out;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const py::array& a = arrays[i];
    if (!(a.flags() & py::array::c_style) || a.nbytes() != specs[i].bytes() ||
        a.itemsize() != runtime::elemBytes(specs[i].dtype))
      throw py::value_error(cat(what, " ", i, " (", specs[i].name, ") must be a C-contiguous ",
                                runtime::elemName(specs[i].dtype), " array of ", specs[i].bytes(), " bytes"));
    if constexpr (std::is_same_v<Ptr, void*>) {
      if (!a.writeable()) throw py::value_error(cat(what, " ", i, " (", specs[i].name, ") is read-only"));
      out.push_back(const_cast<void*>(a.data()));
    } else {
      out.push_back(a.data());
    }
  }
  return out;
}

// Model.export and RangeModel.export (as `ttune export`): the summary as a dict.
template <class Artifacts>
py::object exportModel(Artifacts artifacts, const cli::ModelSource& src, const std::string& dir,
                       const std::string& name, const std::string& compiler, bool static_archive) {
  deploy::ExportOptions eo;
  eo.dir = dir;
  eo.name = name.empty() ? deploy::exportName(cli::modelName(src.spec)) : name;
  eo.source = src.spec;
  eo.precision = cli::precisionName(src.precision);
  eo.compiler = compiler;
  eo.static_archive = static_archive;
  Json j;
  {
    py::gil_scoped_release release;
    j = cli::exportArtifacts(artifacts(), eo, cli::modelName(src.spec));
  }
  return toPython(j);
}

// A model compiled in this process.
class Model {
 public:
  Model(executor::CompiledModel m, cli::ModelSource src, int threads)
      : m_(std::move(m)),
        src_(std::move(src)),
        threads_(threads > 0 ? threads : runtime::ThreadPool::global().numThreads()) {}

  const runtime::Plan& plan() const { return m_.plan(); }
  std::string name() const { return cli::modelName(src_.spec); }
  int threads() const { return threads_; }

  void runInto(const std::vector<py::array>& inputs, const std::vector<py::array>& outputs) {
    std::vector<const void*> in = buffers<const void*>(inputs, plan().inputs, "input");
    std::vector<void*> out = buffers<void*>(outputs, plan().outputs, "output");
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mu_);
    useThreads(threads_);
    m_.runInto(in, out);
  }

  std::vector<runtime::NDArray> arrays(const std::vector<py::array>& inputs, uint64_t seed) const {
    if (inputs.empty()) return cli::sampleInputs(src_, m_.graph(), seed);
    buffers<const void*>(inputs, plan().inputs, "input");
    std::vector<runtime::NDArray> out;
    for (size_t i = 0; i < inputs.size(); ++i) out.push_back(toNDArray(inputs[i], plan().inputs[i]));
    return out;
  }

  py::object profile(const std::vector<py::array>& inputs, int repeat) {
    std::vector<runtime::NDArray> in = arrays(inputs, 1);
    Json j;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      useThreads(threads_);
      j = cli::profileModel(m_, in, repeat);
    }
    return toPython(j);
  }

  py::object check(const std::vector<py::array>& inputs) {
    std::vector<runtime::NDArray> in = arrays(inputs, 1);
    executor::CheckReport rep;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      useThreads(threads_);
      m_.runChecked(in, &rep);
    }
    return toPython(Json{{"ok", rep.ok()},
                         {"kernels_checked", rep.kernels_checked},
                         {"points_checked", rep.points},
                         {"max_abs_err", rep.max_abs_err},
                         {"max_rel_err", rep.max_rel_err},
                         {"mismatches", rep.mismatches},
                         {"worst_kernel", rep.worst_kernel}});
  }

  py::object exportTo(const std::string& dir, const std::string& name, const std::string& compiler,
                      bool static_archive) {
    return exportModel([this] { return m_.artifacts(); }, src_, dir, name, compiler, static_archive);
  }

  py::object kernels() const {
    Json arr = Json::array();
    for (const executor::KernelStats& k : m_.kernels())
      arr.push_back({{"class", k.class_name},
                     {"workload_key", k.workload_key},
                     {"occurrences", k.occurrences},
                     {"schedule", k.schedule_source},
                     {"flops", k.flops}});
    return toPython(arr);
  }

  double compileSeconds() const { return m_.compileSeconds(); }
  int64_t workspaceBytes() const { return m_.workspaceBytes(); }

 private:
  executor::CompiledModel m_;
  cli::ModelSource src_;
  int threads_;
  std::mutex mu_;  // one workspace: runs from several Python threads take turns
};

// A model compiled for ranges of sizes (executor/range_model.h): each run takes inputs of any size
// in the ranges; its sizes come from the inputs' shapes.
class RangeModel {
 public:
  RangeModel(std::unique_ptr<executor::RangeCompiledModel> m, cli::ModelSource src, int threads)
      : m_(std::move(m)),
        src_(std::move(src)),
        threads_(threads > 0 ? threads : runtime::ThreadPool::global().numThreads()) {}

  std::string name() const { return cli::modelName(src_.spec); }
  int threads() const { return threads_; }

  py::list ranges() const {
    py::list out;
    for (const graph::SizeRange& r : m_->ranges()) out.append(py::make_tuple(r.name, r.min, r.max));
    return out;
  }

  // Per input or output: (name, shape with None for the axes that follow a size, dtype).
  py::list tensors(bool inputs) const {
    const graph::RangeModel& rm = m_->bucketModel(0);
    py::list out;
    for (int v : inputs ? rm.graph.inputs() : rm.graph.outputs()) {
      py::list shape;
      for (const te::Expr& e : rm.value_extents[v]) {
        int64_t n = 0;
        if (te::isConstInt(e, &n))
          shape.append(n);
        else
          shape.append(py::none());
      }
      out.append(py::make_tuple(rm.graph.value(v).name, py::tuple(shape),
                                runtime::elemName(static_cast<runtime::ElemType>(rm.graph.value(v).dtype))));
    }
    return out;
  }

  // The Python side passes C-contiguous arrays of the inputs' dtypes; the shapes are checked here
  // (a size out of its range, a shape the sizes do not give: ttune.Error, the model stays usable).
  std::vector<py::array> run(const std::vector<py::array>& inputs) {
    const graph::Graph& g = m_->bucketModel(0).graph;
    if (inputs.size() != g.inputs().size())
      throw py::value_error(cat("expected ", g.inputs().size(), " inputs, got ", inputs.size()));
    std::vector<runtime::NDArray> in;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const py::array& a = inputs[i];
      te::DType t = g.value(g.inputs()[i]).dtype;
      if (!(a.flags() & py::array::c_style) || a.itemsize() != te::dtypeBytes(t))
        throw py::value_error(cat("input ", i, " must be a C-contiguous ", te::dtypeName(t), " array"));
      te::Shape shape(a.shape(), a.shape() + a.ndim());
      in.push_back(runtime::NDArray::empty(shape, t));
      std::memcpy(in.back().data(), a.data(), static_cast<size_t>(in.back().bytes()));
    }
    std::vector<runtime::NDArray> outs;
    {
      py::gil_scoped_release release;
      useThreads(threads_);
      outs = m_->run(in);
    }
    std::vector<py::array> result;
    for (const runtime::NDArray& o : outs) {
      py::array arr(py::dtype(runtime::elemName(static_cast<runtime::ElemType>(o.dtype())) == std::string("bfloat16")
                                  ? "uint16"
                                  : runtime::elemName(static_cast<runtime::ElemType>(o.dtype()))),
                    std::vector<py::ssize_t>(o.shape().begin(), o.shape().end()));
      std::memcpy(arr.mutable_data(), o.data(), static_cast<size_t>(o.bytes()));
      result.push_back(arr);
    }
    return result;
  }

  size_t buckets() const { return m_->numBuckets(); }

  py::object exportTo(const std::string& dir, const std::string& name, const std::string& compiler,
                      bool static_archive) {
    return exportModel([this] { return m_->artifacts(); }, src_, dir, name, compiler, static_archive);
  }

 private:
  std::unique_ptr<executor::RangeCompiledModel> m_;
  cli::ModelSource src_;
  int threads_;
};

std::unique_ptr<RangeModel> compileRanges(const std::string& model, const std::string& target, int threads,
                                          const std::string& layout,
                                          const std::map<std::string, std::vector<int64_t>>& input_shapes,
                                          const std::map<std::string, int64_t>& dims,
                                          const std::map<std::string, std::pair<int64_t, int64_t>>& ranges,
                                          const std::string& precision, const std::optional<std::string>& db,
                                          const std::string& records, bool validate) {
  cli::ModelSource src = modelSource(model, input_shapes, dims, layout, precision);
  for (const auto& [name, r] : ranges)
    src.dims.push_back(name + "=" + std::to_string(r.first) + ".." + std::to_string(r.second));
  py::gil_scoped_release release;
  useThreads(threads);
  executor::ModelOptions opt;
  opt.target = cli::resolveTargetOption(target, cli::TargetUse::RunHere);
  opt.baseline = cli::baselineOf(src);
  std::vector<graph::RangeModel> buckets = cli::loadRangeBuckets(src, opt.target);
  // Each bucket takes the schedules of the model at its largest sizes, as `ttune run` does.
  std::vector<executor::ScheduleProvider> schedules =
      cli::bucketSchedules(records, db, src, buckets, opt.target, cli::BankUse{src.spec, validate});
  auto m = executor::RangeCompiledModel::compile(std::move(buckets), opt, schedules);
  return std::make_unique<RangeModel>(std::move(m), src, threads);
}

// A command of cli/commands.h (tune, transfer) with the GIL released; its summary as a dict.
template <class Args>
py::object runCommand(Json (*command)(const Args&), const Args& a) {
  Json j;
  {
    py::gil_scoped_release release;
    useThreads(a.threads);
    j = command(a);
  }
  return toPython(j);
}

py::list tensorList(const std::vector<runtime::TensorSpec>& ts) {
  py::list out;
  for (const runtime::TensorSpec& t : ts)
    out.append(py::make_tuple(t.name, py::tuple(py::cast(t.shape)), runtime::elemName(t.dtype)));
  return out;
}

std::unique_ptr<Model> compileModel(const std::string& model, const std::optional<std::string>& db,
                                    const std::string& records, const std::string& target, int threads,
                                    const std::string& layout,
                                    const std::map<std::string, std::vector<int64_t>>& input_shapes,
                                    const std::map<std::string, int64_t>& dims, bool validate,
                                    const std::string& precision) {
  cli::ModelSource src = modelSource(model, input_shapes, dims, layout, precision);
  py::gil_scoped_release release;
  useThreads(threads);
  executor::ModelOptions opt;
  opt.target = cli::resolveTargetOption(target, cli::TargetUse::RunHere);
  graph::Graph g = cli::loadModel(src, opt.target);
  opt.schedules =
      cli::scheduleOption(records, db, cli::modelName(src), g, opt.target, cli::BankUse{src.spec, validate});
  return std::make_unique<Model>(executor::CompiledModel::compile(g, opt), src, threads);
}

}  // namespace

PYBIND11_MODULE(_ttune, m) {
  m.doc() = "ttune's native bindings; use the ttune package";
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);
  m.attr("ABI_VERSION") = TTUNE_ABI_VERSION;

  py::class_<Model>(m, "CompiledModel")
      .def_property_readonly("name", &Model::name)
      .def_property_readonly("threads", &Model::threads)
      .def_property_readonly("inputs", [](const Model& self) { return tensorList(self.plan().inputs); })
      .def_property_readonly("outputs", [](const Model& self) { return tensorList(self.plan().outputs); })
      .def_property_readonly("kernels", &Model::kernels)
      .def_property_readonly("compile_seconds", &Model::compileSeconds)
      .def_property_readonly("workspace_bytes", &Model::workspaceBytes)
      .def("run_into", &Model::runInto, py::arg("inputs"), py::arg("outputs"))
      .def("profile", &Model::profile, py::arg("inputs"), py::arg("repeat"))
      .def("check", &Model::check, py::arg("inputs"))
      .def("export", &Model::exportTo, py::arg("dir"), py::arg("name"), py::arg("compiler"), py::arg("static"));

  py::class_<RangeModel>(m, "RangeModel")
      .def_property_readonly("name", &RangeModel::name)
      .def_property_readonly("threads", &RangeModel::threads)
      .def_property_readonly("ranges", &RangeModel::ranges)
      .def_property_readonly("buckets", &RangeModel::buckets)
      .def_property_readonly("inputs", [](const RangeModel& self) { return self.tensors(true); })
      .def_property_readonly("outputs", [](const RangeModel& self) { return self.tensors(false); })
      .def("run", &RangeModel::run, py::arg("inputs"))
      .def("export", &RangeModel::exportTo, py::arg("dir"), py::arg("name"), py::arg("compiler"), py::arg("static"));

  m.def("compile_ranges", &compileRanges, py::arg("model"), py::arg("target"), py::arg("threads"), py::arg("layout"),
        py::arg("input_shapes"), py::arg("dims"), py::arg("ranges"), py::arg("precision"), py::arg("db"),
        py::arg("records"), py::arg("validate"));

  m.def("compile", &compileModel, py::arg("model"), py::arg("db"), py::arg("records"), py::arg("target"),
        py::arg("threads"), py::arg("layout"), py::arg("input_shapes"), py::arg("dims"), py::arg("validate"),
        py::arg("precision"));

  m.def("tune",
        [](const std::string& model, int64_t trials, const std::optional<std::string>& db, double time_budget_min,
           uint64_t seed, int threads, const std::string& target, bool new_run, bool warm_start, bool refine,
           const std::string& layout, const std::map<std::string, std::vector<int64_t>>& input_shapes,
           const std::map<std::string, int64_t>& dims, const std::string& precision, const std::string& cost_model) {
          cli::TuneArgs a;
          a.src = modelSource(model, input_shapes, dims, layout, precision);
          std::optional<cli::CostModelStart> start = cli::spelledValue(cli::kCostModelStarts, cost_model);
          if (!start) throw py::value_error("cost_model must be 'bank' or 'scratch', not '" + cost_model + "'");
          a.cost_model = *start;
          a.trials = trials;
          a.db = db.value_or("");
          a.time_budget_min = time_budget_min;
          a.seed = seed;
          a.threads = threads;
          a.target = target;
          a.new_run = new_run;
          a.warm_start = warm_start;
          a.refine = refine;
          return runCommand(&cli::tuneModel, a);
        });

  m.def("transfer", [](const std::string& model, const std::optional<std::string>& db,
                       const std::vector<std::string>& from, const std::string& sources, int64_t budget, int top_k,
                       const std::string& adapt, bool refine, int threads, const std::string& target,
                       const std::string& layout, const std::map<std::string, std::vector<int64_t>>& input_shapes,
                       const std::map<std::string, int64_t>& dims, const std::string& precision) {
    cli::TransferArgs a;
    a.src = modelSource(model, input_shapes, dims, layout, precision);
    a.db = db.value_or("");
    a.from = from;
    a.sources = cli::parseSourceMode(sources);
    a.budget = budget;
    a.top_k = top_k;
    a.adapt = cli::parseAdapt(adapt);
    a.refine = refine;
    a.threads = threads;
    a.target = target;
    return runCommand(&cli::transferModel, a);
  });

  m.attr("VERSION") = TTUNE_VERSION;
  m.def("version", [] { return toPython(cli::versionJson()); });

  m.def("models", [] {
    Json arr = Json::array();
    for (const auto& z : models::zoo())
      arr.push_back({{"name", z.name},
                     {"summary", z.summary},
                     {"input", z.input_name},
                     {"input_shape", z.input_shape},
                     {"input_dtype", te::dtypeName(z.input_dtype)},
                     {"output_shape", z.output_shape}});
    return toPython(arr);
  });
}

}  // namespace ttune::python
