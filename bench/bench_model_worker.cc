// bench_model_worker: ttune's side of the whole-model peer benchmark (bench/models/bench_models.py).
// It loads an .onnx file exactly as `ttune run model.onnx` does (cli::loadModel: ONNX import and
// the graph passes, channels-last; default schedules, or the bank's best records with --db),
// compiles it once (a model whose later shapes depend on run-time values runs staged, as `ttune
// run` runs it: executor/staged_model.h), reads the shared input, then answers line commands on stdin so that the
// driver can time it interleaved with ONNX Runtime and PyTorch, each kept alive in its own process:
//
//   run N        runs the model N times; replies {"ms": [latency of each run]}
//   output PATH  runs it once and writes its first output to PATH (.npy); replies {"ok": true}
//   quit         exits
//
// Every reply is one JSON line on stdout. The first line is {"ready": true, ...} once compiled,
// or {"error": "...", "step": "import|compile|run"} (also on stderr) with exit status 1.
//
//   bench_model_worker MODEL.onnx --input X.npy [--threads T] [--db PATH] [--precision bf16]
#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "cli/bank_access.h"
#include "cli/model_loader.h"
#include "cli/target_option.h"
#include "codegen/target.h"
#include "executor/executor.h"
#include "executor/staged_model.h"
#include "frontend/onnx/onnx_importer.h"
#include "runtime/npy.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/json.h"
#include "support/timer.h"

using namespace ttune;

namespace {

void reply(const Json& j) { std::cout << j.dump() << std::endl; }

// A start-up failure: one sentence naming the model and the step, on stdout for the driver and on
// stderr for a person running the worker by hand.
int failAt(const std::string& step, const std::string& model, const std::string& message) {
  std::string msg = "ttune could not " + step + " " + model + ": " + message;
  reply({{"error", msg}, {"step", step}});
  std::cerr << "bench_model_worker: " << msg << std::endl;
  return 1;
}

using RunFn = std::function<std::vector<runtime::NDArray>(const std::vector<runtime::NDArray>&)>;

std::vector<double> timeRuns(const RunFn& run, const std::vector<runtime::NDArray>& inputs, int n) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    Timer t;
    run(inputs);
    ms.push_back(t.millis());
  }
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ttune's worker of the whole-model peer benchmark (line commands on stdin)"};
  cli::ModelSource src;
  std::vector<std::string> input_paths;
  std::string db;
  bool use_db = false;
  int threads = 0;
  std::string target = "host";
  app.add_option("model", src.spec, "The .onnx file")->required();
  app.add_option("--target", target,
                 "Code for this target (host, x86-64-v3, x86-64-v4, an LLVM CPU name); the host must run it");
  app.add_option("--input", input_paths, "Input .npy files, one per model input, in order")->required();
  app.add_option("--threads", threads, "Threads (default: all cores)");
  app.add_option("--db", db, cli::kBankOptionHelp)->each([&](const std::string&) { use_db = true; });
  app.add_option_function<std::string>(
         "--precision", [&](const std::string& p) { src.precision = *cli::precisionNamed(p); },
         "fp32 or bf16 (as ttune run --precision)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  CLI11_PARSE(app, argc, argv);
  if (threads > 0) runtime::ThreadPool::global().setNumThreads(threads);
  const std::string name = cli::modelName(src);

  executor::ModelOptions opt;
  try {
    opt.target = cli::resolveTargetOption(target, cli::TargetUse::RunHere);
  } catch (const Error& e) {
    return failAt("compile", src.spec, e.what());
  }
  Timer load_timer;
  graph::Graph g;
  std::string staged_why;
  try {
    g = cli::loadModel(src, opt.target);
  } catch (const frontend::RuntimeValueError& e) {
    if (!cli::isOnnxSource(src)) return failAt("import", src.spec, e.what());
    staged_why = e.what();
  } catch (const Error& e) {
    return failAt("import", src.spec, e.what());
  }
  const bool staged = !staged_why.empty();
  if (staged && use_db)
    return failAt("import", src.spec, "--db does not apply to a model run in stages (" + staged_why + ")");

  std::optional<executor::CompiledModel> model;
  std::optional<executor::StagedModel> staged_model;
  RunFn run;
  try {
    std::optional<store::Bank> bank;  // the provider reads it while compiling
    if (staged) {
      staged_model.emplace(src.spec, cli::onnxOptions(src), cli::graphOptions(src, opt.target), opt);
      run = [&](const std::vector<runtime::NDArray>& in) { return staged_model->run(in); };
    } else {
      if (use_db) {
        bank.emplace(cli::openBank(db));
        opt.schedules = cli::bankProvider(*bank, name, g, opt.target, cli::BankUse{src.spec, true, true});
      }
      model = executor::CompiledModel::compile(g, opt);
      run = [&](const std::vector<runtime::NDArray>& in) { return model->run(in); };
    }
  } catch (const Error& e) {
    return failAt("compile", src.spec, e.what());
  }

  std::vector<runtime::NDArray> inputs;
  try {
    size_t expected = staged ? staged_model->inputNames().size() : g.inputs().size();
    if (input_paths.size() != expected)
      fail("the model takes ", expected, " inputs but ", input_paths.size(), " --input files were given");
    for (size_t i = 0; i < input_paths.size(); ++i) {
      auto arr = runtime::readNpy(input_paths[i]);
      if (!arr.ok()) fail(arr.error());
      if (!staged) {
        const graph::Value& v = g.value(g.inputs()[i]);
        if (arr->shape() != v.shape || arr->dtype() != v.dtype)
          fail(input_paths[i], " holds a ", te::dtypeName(arr->dtype()), " ", te::shapeToString(arr->shape()),
               " array but input '", v.name, "' is ", te::dtypeName(v.dtype), " ", te::shapeToString(v.shape));
      }
      inputs.push_back(*arr);
    }
    run(inputs);  // fails here rather than in the first timed block (and compiles every stage)
  } catch (const Error& e) {
    return failAt("run", src.spec, e.what());
  }

  Json ready{{"ready", true},
             {"runtime", "ttune"},
             {"model", name},
             {"load_s", load_timer.seconds()},
             {"threads", runtime::ThreadPool::global().numThreads()},
             {"target", codegen::describe(opt.target)},
             {"isa", schedule::isaName(opt.target.isa)},
             {"staged", staged}};
  if (staged) {
    ready["stages"] = staged_model->stats().stages_run;
    ready["compile_s"] = staged_model->stats().compile_s;
  } else {
    int provided = 0;
    for (const auto& k : model->kernels()) provided += k.schedule_source == "provided";
    ready["kernels"] = model->kernels().size();
    ready["kernel_instances"] = model->instances().size();
    ready["scheduled_kernels"] = provided;
    ready["compile_s"] = model->compileSeconds();
  }
  reply(ready);

  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream cmd(line);
    std::string verb;
    cmd >> verb;
    try {
      if (verb == "run") {
        int n = 0;
        if (!(cmd >> n) || n < 1) fail("run takes a positive count, got '", line, "'");
        reply({{"ms", timeRuns(run, inputs, n)}});
      } else if (verb == "output") {
        std::string path;
        if (!(cmd >> path)) fail("output takes a path, got '", line, "'");
        std::vector<runtime::NDArray> outs = run(inputs);
        Status st = runtime::writeNpy(path, outs.at(0));
        if (!st.ok()) fail(st.error());
        reply({{"ok", true}});
      } else if (verb == "quit") {
        return 0;
      } else {
        fail("unknown command '", line, "' (run N, output PATH, quit)");
      }
    } catch (const Error& e) {
      reply({{"error", cat(name, ": ", e.what())}});
    }
  }
  return 0;
}
