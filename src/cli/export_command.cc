// `ttune export`: a model compiled ahead of time into a deployable library (deploy/exporter.h).
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/bank_access.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/range_run.h"
#include "cli/target_option.h"
#include "codegen/target.h"
#include "deploy/exporter.h"
#include "executor/range_model.h"
#include "support/error.h"
#include "support/strings.h"

namespace ttune::cli {

namespace {

// The tensors with their shapes: in a model for ranges of sizes, -1 for a dimension that
// follows a size, and "max_shape" at the largest sizes.
Json tensorsJson(const std::vector<runtime::TensorSpec>& ts,
                 const std::vector<std::vector<runtime::DimFormula>>& dims) {
  Json arr = Json::array();
  for (size_t i = 0; i < ts.size(); ++i) {
    const runtime::TensorSpec& t = ts[i];
    Json j{{"name", t.name}, {"dtype", runtime::elemName(t.dtype)}, {"shape", t.shape}};
    if (!dims.empty()) {
      for (size_t d = 0; d < t.shape.size(); ++d)
        if (!dims[i][d].fixed()) j["shape"][d] = -1;
      j["max_shape"] = t.shape;
    }
    arr.push_back(j);
  }
  return arr;
}

Json sizesJson(const runtime::RangePlan& rp) {
  Json arr = Json::array();
  for (const runtime::SizeParam& p : rp.sizes)
    arr.push_back({{"name", p.name}, {"min", p.min}, {"max", p.max}, {"input", p.input}, {"axis", p.axis}});
  return arr;
}

std::string megabytes(const Json& bytes) { return strFormat("%.1f MB", bytes.get<double>() / 1e6); }

std::string tensorText(const Json& t) {
  return t["name"].get<std::string>() + " " + t["dtype"].get<std::string>() + " [" +
         join(t["shape"], ", ", [](const Json& d) { return std::to_string(d.get<int64_t>()); }) + "]";
}

}  // namespace

Json exportCommand(const ExportArgs& a) {
  if (a.out.empty()) fail("ttune export needs an output directory (-o DIR)");
  executor::ModelOptions opt;
  opt.target = resolveTargetOption(a.target, TargetUse::Compile);  // any target: the code is not run here
  graph::Graph g;
  // Ranges of sizes (--dim seq=1..512): one library for all of them (executor/range_model.h).
  const bool ranged = !sizeRanges(a.src).empty();
  try {
    if (!ranged) g = loadModel(a.src, opt.target);
  } catch (const frontend::RuntimeValueError& e) {
    // An export is one static plan; a model that needs stages has none.
    fail("cannot export ", modelName(a.src),
         ": its later shapes depend on run-time values, and an exported "
         "library runs one static plan (`ttune run` runs it in stages) — ",
         e.what());
  }
  opt.baseline = baselineOf(a.src);
  Json validation;
  executor::ModelArtifacts art;
  if (ranged) {
    std::vector<graph::RangeModel> buckets = loadRangeBuckets(a.src, opt.target);
    std::vector<executor::ScheduleProvider> schedules =
        bucketSchedules(a.records, a.db, a.src, buckets, opt.target,
                        BankUse{a.src.spec, a.validate, a.json, &validation, opt.baseline});
    art = executor::compileRangeArtifacts(std::move(buckets), opt, schedules);
  } else {
    opt.schedules = scheduleOption(a.records, a.db, modelName(a.src), g, opt.target,
                                   BankUse{a.src.spec, a.validate, a.json, &validation, opt.baseline});
    art = executor::compileArtifacts(g, opt);
  }
  deploy::ExportOptions eo;
  eo.dir = a.out;
  eo.name = a.name.empty() ? deploy::exportName(modelName(a.src)) : a.name;
  eo.source = a.src.spec;
  eo.compiler = a.compiler;
  eo.static_archive = a.static_archive;
  eo.precision = precisionName(a.src.precision);
  Json j = exportArtifacts(art, eo, modelName(a.src));
  if (!validation.empty()) j["validation"] = validation;
  return j;
}

Json exportArtifacts(const executor::ModelArtifacts& art, const deploy::ExportOptions& eo, const std::string& model) {
  deploy::ExportResult r = deploy::exportModel(art, eo);
  int provided = 0;
  for (const auto& k : art.stats) provided += k.schedule_source == "provided";
  return Json{{"model", model},
              {"name", r.name},
              {"dir", r.dir},
              {"library", r.library},
              {"library_bytes", r.library_bytes},
              {"archive", r.archive},
              {"archive_bytes", r.archive_bytes},
              {"weights", r.weights},
              {"weights_bytes", r.weights_bytes},
              {"header", r.header},
              {"api_header", r.api_header},
              {"cmake_config", r.cmake_config},
              {"pkg_config", r.pkg_config},
              {"workspace_bytes", r.workspace_bytes},
              {"kernels", r.kernels},
              {"calls", r.calls},
              {"scheduled_kernels", provided},
              {"default_kernels", r.kernels - provided},
              {"target", codegen::describe(art.target)},
              {"isa", schedule::isaName(art.target.isa)},
              {"cpu_features", r.cpu_features},
              {"compiler", r.compiler},
              {"inputs", tensorsJson(art.plan.inputs, art.ranges.input_dims)},
              {"outputs", tensorsJson(art.plan.outputs, art.ranges.output_dims)},
              {"sizes", sizesJson(art.ranges)},
              {"buckets", art.ranges.buckets.size()}};
}

void addExportCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "export", "Compile a model ahead of time into a shared library with a C API, its header and weights");
  auto a = std::make_shared<ExportArgs>();
  addSourceOptions(cmd, a->src);
  cmd->add_option("-o,--out", a->out, "Output directory (created if missing)")->required();
  cmd->add_option("--name", a->name, "Name of the library and files (a C identifier; default: the model's name)");
  cmd->add_option("--records", a->records, "Records file with schedules (the best record per workload is used)");
  cmd->add_option("--db")
      ->description("Use the best schedules in this bank (default bank with --db \"\")")
      ->each([a](const std::string& path) { a->db = path; });
  cmd->add_flag(
      "!--no-validate", a->validate,
      "With --db: use the bank's records as they are, without validating records measured elsewhere on this CPU first");
  cmd->add_option("--cc", a->compiler, "C++ compiler driver that links the library (default: $CXX, else c++)");
  cmd->add_flag("!--no-static", a->static_archive, "Do not write the static archive libNAME.a");
  cmd->add_flag("--json", a->json, "Print one JSON object");
  addTargetOption(cmd, a->target);
  cmd->callback([a] {
    Json j = exportCommand(*a);
    if (a->json) return printJson(j);
    std::cout << j["model"].get<std::string>() << " exported to " << j["dir"].get<std::string>() << ": "
              << j["kernels"].get<int>() << " kernels (" << j["scheduled_kernels"].get<int>()
              << " with provided schedules), " << j["calls"].get<int>() << " calls, for "
              << j["target"].get<std::string>() << "\n";
    std::cout << "  library  " << j["library"].get<std::string>() << " (" << megabytes(j["library_bytes"]) << ")\n";
    if (!j["archive"].get<std::string>().empty())
      std::cout << "  archive  " << j["archive"].get<std::string>() << " (" << megabytes(j["archive_bytes"]) << ")\n";
    std::cout << "  weights  " << j["weights"].get<std::string>() << " (" << megabytes(j["weights_bytes"]) << ")\n";
    std::cout << "  headers  " << j["header"].get<std::string>() << ", " << j["api_header"].get<std::string>() << "\n";
    std::cout << "  packages " << j["cmake_config"].get<std::string>() << " (CMake find_package), "
              << j["pkg_config"].get<std::string>() << " (pkg-config)\n";
    for (const Json& p : j["sizes"])
      std::cout << "  size     " << p["name"].get<std::string>() << " " << p["min"].get<int64_t>() << ".."
                << p["max"].get<int64_t>() << " (" << j["buckets"].get<size_t>() << " buckets in all)\n";
    for (const Json& t : j["inputs"]) std::cout << "  input    " << tensorText(t) << "\n";
    for (const Json& t : j["outputs"]) std::cout << "  output   " << tensorText(t) << "\n";
  });
}

}  // namespace ttune::cli
