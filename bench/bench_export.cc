// bench_export: an exported model (libNAME.so through its C API, loaded with dlopen as a deploying
// program would) against the same compiled model run by the in-process executor, timed
// interleaved in one process (alternating blocks of runs; the ratio is the median of the
// per-round ratios), after checking that both give bit-identical outputs. Both run the same
// kernels, plan and packed weights; the exported one on the library's own copy of the runtime
// (thread pool, plan interpreter). The goal is a latency ratio within 5% of 1.
//
//   bench_export [--model resnet50] [--threads N] [--rounds R] [--block-ms MS] [--db FILE | --records FILE] [--json]
#include <dlfcn.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cases.h"
#include "cli/bank_access.h"
#include "cli/commands.h"
#include "cli/model_loader.h"
#include "codegen/target.h"
#include "deploy/exporter.h"
#include "executor/executor.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/json.h"
#include "ttune/ttune_model.h"

using namespace ttune;
namespace fs = std::filesystem;

namespace {

// The C API of the exported library (loaded RTLD_LOCAL, so its runtime stays its own).
struct ExportedApi {
  decltype(&ttune_model_create) create = nullptr;
  decltype(&ttune_model_run) run = nullptr;
  decltype(&ttune_model_destroy) destroy = nullptr;
  decltype(&ttune_last_error) last_error = nullptr;

  bool load(const std::string& path) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) return std::fprintf(stderr, "bench_export: %s\n", dlerror()), false;
    create = reinterpret_cast<decltype(create)>(dlsym(h, "ttune_model_create"));
    run = reinterpret_cast<decltype(run)>(dlsym(h, "ttune_model_run"));
    destroy = reinterpret_cast<decltype(destroy)>(dlsym(h, "ttune_model_destroy"));
    last_error = reinterpret_cast<decltype(last_error)>(dlsym(h, "ttune_last_error"));
    return create && run && destroy && last_error;
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Exported library (C API) against the in-process executor, same model, timed interleaved"};
  cli::ModelSource src;
  src.spec = "resnet50";
  int threads = runtime::defaultNumThreads(), rounds = 10;
  double block_ms = 300;
  std::string records, db;
  bool use_db = false, json = false;
  app.add_option("--model", src.spec, "Zoo model or .onnx file");
  app.add_option("--threads", threads, "Threads of both runtimes");
  app.add_option("--rounds", rounds, "Interleaved rounds (each one block of runs per side)");
  app.add_option("--block-ms", block_ms, "Minimum length of a block of runs");
  app.add_option("--records", records, "Schedules from a records file");
  app.add_option("--db", db, "Schedules from a bank (\"\" the default bank)")->each([&](const std::string&) {
    use_db = true;
  });
  app.add_flag("--json", json, "Print one JSON object");
  CLI11_PARSE(app, argc, argv);

  try {
    runtime::ThreadPool::global().setNumThreads(threads);
    executor::ModelOptions opt;
    graph::Graph g = cli::loadModel(src, opt.target);
    opt.schedules = cli::scheduleOption(records, use_db ? std::optional<std::string>(db) : std::nullopt,
                                        cli::modelName(src.spec), g, opt.target, cli::BankUse{src.spec});
    executor::CompiledModel m = executor::CompiledModel::compile(g, opt);

    std::string tmpl = (fs::temp_directory_path() / "bench-export-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) return std::perror("bench_export: mkdtemp"), 1;
    fs::path dir = tmpl;
    deploy::ExportOptions eo;
    eo.dir = dir.string();
    eo.name = deploy::exportName(cli::modelName(src.spec));
    eo.source = src.spec;
    eo.static_archive = false;
    deploy::ExportResult r = deploy::exportModel(m.artifacts(), eo);
    ExportedApi api;
    if (!api.load(r.library)) return 1;
    ttune_model* em = api.create(dir.c_str(), threads);
    if (!em) return std::fprintf(stderr, "bench_export: %s\n", api.last_error()), 1;

    // The same inputs; each side writes its own preallocated outputs.
    std::vector<runtime::NDArray> inputs = cli::sampleInputs(src, g, 1);
    std::vector<const void*> in;
    for (const auto& a : inputs) in.push_back(a.data());
    std::vector<runtime::NDArray> out_a, out_b;
    std::vector<void*> pa, pb;
    for (const runtime::TensorSpec& t : m.plan().outputs) {
      out_a.push_back(runtime::NDArray::empty(t.shape, static_cast<te::DType>(t.dtype)));
      out_b.push_back(runtime::NDArray::empty(t.shape, static_cast<te::DType>(t.dtype)));
      pa.push_back(out_a.back().data());
      pb.push_back(out_b.back().data());
    }
    auto in_process = [&] { m.runInto(in, pa); };
    auto exported = [&] {
      if (api.run(em, in.data(), pb.data()) != TTUNE_OK) {
        std::fprintf(stderr, "bench_export: %s\n", api.last_error());
        std::exit(1);
      }
    };
    in_process();
    exported();
    for (size_t i = 0; i < out_a.size(); ++i)
      if (std::memcmp(out_a[i].data(), out_b[i].data(), static_cast<size_t>(out_a[i].bytes())) != 0)
        return std::fprintf(stderr, "bench_export: output %zu of the exported model differs from the executor's\n", i),
               1;

    bench::Interleaved t = bench::timeInterleaved(in_process, exported, rounds, block_ms);
    api.destroy(em);
    fs::remove_all(dir);
    Json j{{"model", cli::modelName(src.spec)},
           {"host", codegen::describe(codegen::hostTarget())},
           {"threads", threads},
           {"rounds", rounds},
           {"in_process_ms", t.a_s * 1e3},
           {"exported_ms", t.b_s * 1e3},
           {"latency_ratio", t.speed_ratio},
           {"bit_identical", true},
           {"library_bytes", r.library_bytes},
           {"weights_bytes", r.weights_bytes}};
    if (json) {
      std::cout << j.dump() << std::endl;
    } else {
      std::printf("host %s, %d threads\n", codegen::describe(codegen::hostTarget()).c_str(), threads);
      std::printf("%s: in-process %.2f ms, exported %.2f ms (median of %d interleaved rounds); outputs bit-identical\n",
                  j["model"].get<std::string>().c_str(), t.a_s * 1e3, t.b_s * 1e3, rounds);
      std::printf("latency ratio exported / in-process %.3f (median of per-round ratios; goal within 5%%)\n",
                  t.speed_ratio);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_export: %s\n", e.what());
    return 1;
  }
  return 0;
}
