// `ttune models`, `ttune inspect` and `ttune run`: whole models.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>

#include "cli/bank_access.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/model_loader.h"
#include "cli/output.h"
#include "cli/range_run.h"
#include "cli/target_option.h"
#include "codegen/target.h"
#include "executor/executor.h"
#include "executor/staged_model.h"
#include "measure/timing.h"
#include "models/zoo.h"
#include "runtime/npy.h"
#include "runtime/thread_pool.h"
#include "support/assert.h"
#include "support/error.h"
#include "support/strings.h"
#include "transfer/compare.h"

namespace ttune::cli {

namespace {

// Distinct kernels of a model with their occurrences, in first-use order.
struct KernelSummary {
  const graph::Kernel* kernel;
  int occurrences = 0;
};

std::vector<KernelSummary> summarize(const std::vector<graph::Kernel>& ks) {
  std::vector<KernelSummary> out;
  std::map<std::string, size_t> pos;
  for (const graph::Kernel& k : ks) {
    auto it = pos.find(k.workload_key);
    if (it == pos.end()) {
      pos[k.workload_key] = out.size();
      out.push_back({&k, 1});
    } else {
      out[it->second].occurrences++;
    }
  }
  return out;
}

}  // namespace

std::vector<runtime::NDArray> sampleInputs(const ModelSource& src, const graph::Graph& g, uint64_t seed) {
  std::vector<runtime::NDArray> inputs = executor::randomInputs(g, seed);
  if (models::isZooModel(src.spec)) {
    const auto& info = models::modelInfo(src.spec);
    if (!te::isFloat(info.input_dtype)) inputs[0].fillRandom(seed, info.input_lo, info.input_hi);
  }
  return inputs;
}

namespace {

// The profile's categories of what a kernel spends its time on, from the least to the most
// telling: a kernel is put in the highest category any of its ops belongs to (a convolution with
// its padding and activation is "compute").
enum class Category { Elementwise, DataMovement, Reduction, WinogradTransform, Compute };

Category categoryOf(te::OpTag tag) {
  switch (tag) {
    case te::OpTag::Convolution:
    case te::OpTag::Dense:
    case te::OpTag::Matmul:
    case te::OpTag::BatchMatmul:
      return Category::Compute;
    case te::OpTag::WinogradInput:
      return Category::WinogradTransform;
    case te::OpTag::Reduction:
    case te::OpTag::Pool:
    case te::OpTag::Softmax:
    case te::OpTag::LayerNorm:
      return Category::Reduction;
    case te::OpTag::Injective:
    case te::OpTag::Pad:
    case te::OpTag::CacheCopy:
    case te::OpTag::LayoutTransform:
      return Category::DataMovement;
    case te::OpTag::Other:
    case te::OpTag::Elementwise:
    case te::OpTag::Broadcast:
    case te::OpTag::WinogradOutput:  // fused after its batch matmul, which decides
    case te::OpTag::Constant:
      return Category::Elementwise;
  }
  TT_UNREACHABLE("unknown operator tag");
}

const char* kernelCategory(const std::vector<te::OpTag>& tags) {
  Category c = Category::Elementwise;
  for (te::OpTag t : tags) c = std::max(c, categoryOf(t));
  switch (c) {
    case Category::Compute:
      return "compute";
    case Category::WinogradTransform:
      return "winograd transform";
    case Category::Reduction:
      return "reduction";
    case Category::DataMovement:
      return "data movement";
    case Category::Elementwise:
      return "element-wise";
  }
  TT_UNREACHABLE("unknown kernel category");
}

}  // namespace

Json profileModel(executor::CompiledModel& m, const std::vector<runtime::NDArray>& inputs, int repeat) {
  std::vector<std::vector<double>> per(m.kernels().size());
  std::vector<double> secs, totals;
  runtime::ThreadPool& pool = runtime::ThreadPool::global();
  uint64_t regions_before = pool.regionsRun();
  for (int r = 0; r < std::max(1, repeat); ++r) {
    double whole = 0;
    m.runProfiled(inputs, secs, &whole);
    totals.push_back(whole);
    for (size_t k = 0; k < secs.size(); ++k) per[k].push_back(secs[k]);
  }
  double regions = static_cast<double>(pool.regionsRun() - regions_before) / std::max(1, repeat);
  double region_s = pool.numThreads() > 1 ? pool.measureRegionOverhead() : 0.0;
  std::vector<std::pair<double, size_t>> prof;
  double total = 0;
  for (size_t k = 0; k < per.size(); ++k) {
    prof.push_back({measure::median(per[k]), k});
    total += prof.back().first;
  }
  std::sort(prof.begin(), prof.end(), [](auto& x, auto& y) { return x.first > y.first; });
  Json pj = Json::array();
  std::map<std::string, double> by_category;
  for (const auto& [sec, k] : prof) {
    const executor::KernelStats& ks = m.kernels()[k];
    pj.push_back({{"workload_key", ks.workload_key},
                  {"class", ks.class_name},
                  {"occurrences", ks.occurrences},
                  {"schedule", ks.schedule_source},
                  {"category", kernelCategory(ks.op_tags)},
                  {"ms", sec * 1e3},
                  {"share", total > 0 ? sec / total : 0.0},
                  {"gflops", sec > 0 ? ks.flops * ks.occurrences / sec * 1e-9 : 0.0}});
    by_category[kernelCategory(ks.op_tags)] += sec;
  }
  // The profile adds up to the run: kernels (each including its own parallel regions' wake-up and
  // join, estimated separately), plus what happens between them (binding, output copies).
  double latency = measure::median(totals);
  Json cat = Json::object();
  for (const auto& [c, sec] : by_category) cat[c] = sec * 1e3;
  return Json{{"kernels", pj},
              {"total_ms", total * 1e3},
              {"latency_ms", latency * 1e3},
              {"outside_kernels_ms", std::max(0.0, latency - total) * 1e3},
              {"by_category_ms", cat},
              {"parallel_regions_per_run", regions},
              {"fork_join_ms_estimate", regions * region_s * 1e3},
              {"runs", std::max(1, repeat)}};
}

namespace {

void listModels(bool json) {
  Json arr = Json::array();
  for (const auto& m : models::zoo()) {
    arr.push_back({{"name", m.name},
                   {"summary", m.summary},
                   {"input", m.input_name},
                   {"input_shape", m.input_shape},
                   {"input_dtype", te::dtypeName(m.input_dtype)},
                   {"output_shape", m.output_shape}});
  }
  if (json) return printJson(arr);
  for (const auto& m : models::zoo())
    std::cout << m.name << std::string(m.name.size() < 18 ? 18 - m.name.size() : 1, ' ') << m.summary << "\n";
}

void inspect(const ModelSource& src, const std::string& target, bool json) {
  graph::Graph g = loadModel(src, resolveTargetOption(target, TargetUse::Compile));
  std::vector<graph::Kernel> ks = graph::partition(g);
  auto sum = summarize(ks);
  double total = 0;
  for (const auto& s : sum) total += s.kernel->dag->flops() * s.occurrences;
  Json arr = Json::array();
  std::map<std::string, double> by_precision;
  for (const auto& s : sum) {
    const graph::Kernel& k = *s.kernel;
    Json shapes = Json::array();
    for (int v : k.inputs) shapes.push_back(g.value(v).shape);
    Json outs = Json::array();
    for (int v : k.outputs) outs.push_back(g.value(v).shape);
    double fl = k.dag->flops() * s.occurrences;
    const std::string precision = te::computePrecision(*k.dag);
    by_precision[precision] += fl;
    arr.push_back({{"class", k.class_name},
                   {"class_id", k.class_id},
                   {"workload_key", k.workload_key},
                   {"input_shapes", shapes},
                   {"output_shapes", outs},
                   {"flops", k.dag->flops()},
                   {"occurrences", s.occurrences},
                   {"flops_share", total > 0 ? fl / total : 0.0},
                   {"precision", precision}});
  }
  // Which share of the work runs on integer (or bfloat16) kernels: the float fallback is visible.
  std::string shares;
  for (const auto& [p, fl] : by_precision)
    shares += (shares.empty() ? "" : ", ") + p + " " + strFormat("%.1f%%", 100.0 * fl / std::max(total, 1.0));
  if (json) {
    Json flops_by_precision = Json::object();
    for (const auto& [p, fl] : by_precision) flops_by_precision[p] = fl;
    printJson({{"model", modelName(src.spec)},
               {"nodes", g.nodes().size()},
               {"kernel_instances", ks.size()},
               {"kernels", sum.size()},
               {"flops", total},
               {"flops_by_precision", flops_by_precision},
               {"kernel_list", arr}});
    return;
  }
  std::cout << modelName(src.spec) << ": " << g.nodes().size() << " nodes, " << ks.size() << " kernel instances, "
            << sum.size() << " distinct kernels, " << formatCount(total) << "FLOP (" << shares << " of the FLOPs)\n\n";
  std::cout << strFormat("%-4s %-48s %-10s %5s %10s %6s  %s\n", "#", "class", "class_id", "occ", "FLOPs", "share",
                         "workload");
  for (size_t i = 0; i < sum.size(); ++i) {
    const graph::Kernel& k = *sum[i].kernel;
    std::string out_shape = te::shapeToString(g.value(k.outputs[0]).shape);
    std::string cls = ellipsize(k.class_name, 48);
    std::cout << strFormat("%-4zu %-48s %-10s %5d %10s %5.1f%%  %s -> %s\n", i, cls.c_str(),
                           k.class_id.substr(0, 8).c_str(), sum[i].occurrences, formatCount(k.dag->flops()).c_str(),
                           100.0 * k.dag->flops() * sum[i].occurrences / std::max(total, 1.0),
                           k.workload_key.substr(17).c_str(), out_shape.c_str());
  }
}

struct RunArgs {
  ModelSource src;
  std::string records, db, target = "host";
  bool use_db = false, validate = true;
  std::vector<std::string> inputs, outputs;
  std::vector<std::string> at;  // with ranges: the sizes to run at (cli/range_run.h)
  bool check = false, bench = false, json = false, profile = false;
  int threads = 0, repeat = 10;
  uint64_t seed = 1;
};

// --inputs files for inputs of the given dtypes (numpy has no bfloat16: a bfloat16 input comes
// as its uint16 bits, see npy.h).
std::vector<runtime::NDArray> readInputs(const std::vector<std::string>& paths, const std::vector<te::DType>& dtypes) {
  if (paths.size() != dtypes.size())
    fail("the model takes ", dtypes.size(), " inputs but ", paths.size(), " --inputs files were given");
  std::vector<runtime::NDArray> inputs;
  for (size_t i = 0; i < paths.size(); ++i) {
    auto arr = runtime::readNpy(paths[i]);
    if (!arr.ok()) fail(arr.error());
    if (arr->dtype() == te::DType::UInt16 && dtypes[i] == te::DType::BFloat16) {
      runtime::NDArray bits = runtime::NDArray::empty(arr->shape(), te::DType::BFloat16);
      std::memcpy(bits.data(), arr->data(), static_cast<size_t>(arr->bytes()));
      *arr = bits;
    }
    inputs.push_back(*arr);
  }
  return inputs;
}

std::vector<runtime::NDArray> readInputs(const std::vector<std::string>& paths, const graph::Graph& g) {
  std::vector<te::DType> dtypes;
  for (int v : g.inputs()) dtypes.push_back(g.value(v).dtype);
  return readInputs(paths, dtypes);
}

void addCheckJson(Json& j, const executor::CheckReport& rep) {
  j["check"] = rep.ok() ? "ok" : "failed";
  j["kernels_checked"] = rep.kernels_checked;
  j["points_checked"] = rep.points;
  j["max_abs_err"] = rep.max_abs_err;
  j["max_rel_err"] = rep.max_rel_err;
  j["mismatches"] = rep.mismatches;
}

void printCheck(const executor::CheckReport& rep) {
  std::cout << "  check    " << (rep.ok() ? "ok" : "FAILED") << ": " << rep.kernels_checked << " kernels, "
            << rep.points << " sampled outputs, max abs error " << rep.max_abs_err << " (worst: " << rep.worst_kernel
            << ")\n";
}

void addProfileJson(Json& j, const Json& p) {
  j["profile"] = p["kernels"];
  j["profile_total_ms"] = p["total_ms"];
  for (const char* k :
       {"latency_ms", "outside_kernels_ms", "by_category_ms", "parallel_regions_per_run", "fork_join_ms_estimate"})
    j["profile_" + std::string(k)] = p[k];
}

void printProfile(const Json& j) {
  std::cout << strFormat("  %-44s %4s %-9s %10s %6s %8s\n", "kernel (median over runs, all instances)", "occ",
                         "schedule", "time", "share", "GFLOP/s");
  for (const Json& p : j["profile"])
    std::cout << strFormat(
        "  %-44s %4d %-9s %10s %5.1f%% %8.1f\n", ellipsize(p["class"].get<std::string>(), 44).c_str(),
        p["occurrences"].get<int>(), p["schedule"].get<std::string>().substr(0, 9).c_str(),
        formatSeconds(p["ms"].get<double>() * 1e-3).c_str(), 100 * p["share"].get<double>(), p["gflops"].get<double>());
  auto ms = [&](const char* k) { return formatSeconds(j[std::string("profile_") + k].get<double>() * 1e-3); };
  std::cout << "  run " << ms("latency_ms") << " = kernels " << ms("total_ms") << " + outside kernels "
            << ms("outside_kernels_ms") << " (binding, output copies)\n  by kind:";
  for (const auto& [c, v] : j["profile_by_category_ms"].items())
    std::cout << " " << c << " " << formatSeconds(v.get<double>() * 1e-3) << ";";
  std::cout << strFormat(
      "\n  %.0f parallel regions per run; waking and joining the threads costs about %s of the kernels' time\n",
      j["profile_parallel_regions_per_run"].get<double>(), ms("fork_join_ms_estimate").c_str());
}

// --bench: `repeat` timed runs, one call each; the figures go into j.
measure::Timing benchRuns(const std::function<void()>& run, int repeat, Json& j) {
  measure::TimingOptions topt;
  topt.repeat = repeat;
  topt.number = 1;
  topt.min_repeat_ms = 0;
  measure::Timing t = measure::timeFunction(run, topt);
  j["median_ms"] = t.median_s * 1e3;
  j["min_ms"] = t.min_s * 1e3;
  j["max_ms"] = t.max_s * 1e3;
  j["repeats"] = t.costs_s.size();
  return t;
}

void addCheck(executor::CheckReport& total, const executor::CheckReport& r) {
  // The worst kernel named is a failing one when any stage failed.
  const bool take = r.mismatches > 0 ? total.mismatches == 0 || r.max_abs_err >= total.max_abs_err
                                     : total.mismatches == 0 && r.max_abs_err >= total.max_abs_err;
  if (take && !r.worst_kernel.empty()) total.worst_kernel = r.worst_kernel;
  total.kernels_checked += r.kernels_checked;
  total.points += r.points;
  total.kernels_checked_whole += r.kernels_checked_whole;
  total.mismatches += r.mismatches;
  total.max_rel_err = std::max(total.max_rel_err, r.max_rel_err);
  total.max_abs_err = std::max(total.max_abs_err, r.max_abs_err);
}

// One staged run's profile: the stages' profiles (profileModel, each over `repeat` runs of the
// stage) added up, kernels of the same workload in several stages merged.
void addProfile(Json& total, const Json& stage) {
  if (total.is_null()) {
    total = stage;
    return;
  }
  Json& ks = total["kernels"];
  for (const Json& k : stage["kernels"]) {
    auto same =
        std::find_if(ks.begin(), ks.end(), [&](const Json& t) { return t["workload_key"] == k["workload_key"]; });
    if (same == ks.end()) {
      ks.push_back(k);
      continue;
    }
    double flops = (*same)["gflops"].get<double>() * (*same)["ms"].get<double>() * 1e6 +
                   k["gflops"].get<double>() * k["ms"].get<double>() * 1e6;
    (*same)["ms"] = (*same)["ms"].get<double>() + k["ms"].get<double>();
    (*same)["occurrences"] = (*same)["occurrences"].get<int>() + k["occurrences"].get<int>();
    (*same)["gflops"] = (*same)["ms"].get<double>() > 0 ? flops / ((*same)["ms"].get<double>() * 1e6) : 0.0;
  }
  for (const char* f :
       {"total_ms", "latency_ms", "outside_kernels_ms", "parallel_regions_per_run", "fork_join_ms_estimate"})
    total[f] = total[f].get<double>() + stage[f].get<double>();
  for (const auto& [c, v] : stage["by_category_ms"].items())
    total["by_category_ms"][c] = total["by_category_ms"].value(c, 0.0) + v.get<double>();
}

void finishProfile(Json& p) {
  if (p.is_null())  // no stage compiled anything (every node evaluated on the host)
    p = Json{{"kernels", Json::array()},
             {"total_ms", 0.0},
             {"latency_ms", 0.0},
             {"outside_kernels_ms", 0.0},
             {"by_category_ms", Json::object()},
             {"parallel_regions_per_run", 0.0},
             {"fork_join_ms_estimate", 0.0}};
  Json& ks = p["kernels"];
  std::sort(ks.begin(), ks.end(),
            [](const Json& x, const Json& y) { return x["ms"].get<double>() > y["ms"].get<double>(); });
  const double total = p["total_ms"].get<double>();
  for (Json& k : ks) k["share"] = total > 0 ? k["ms"].get<double>() / total : 0.0;
}

// A model whose later shapes depend on run-time values: compiled and run stage by stage
// (executor/staged_model.h); --bench times runs whose stages are all compiled already; --check
// and --profile check and profile every stage of one run.
void runStaged(const RunArgs& a, const std::string& why) {
  executor::ModelOptions opt;
  opt.target = resolveTargetOption(a.target, TargetUse::RunHere);
  opt.baseline = baselineOf(a.src);
  if (a.use_db) {
    // Only the choice a run of this model stored for this CPU (tune, transfer): records measured
    // elsewhere are validated against a whole model's kernels, which a staged model knows only
    // as it runs.
    if (!a.records.empty()) fail("--records and --db both give schedules; use one");
    store::Bank bank = openBank(a.db);
    std::optional<std::vector<schedule::Record>> own =
        transfer::inModelChoice(bank, modelName(a.src), currentTarget(opt.target), opt.baseline);
    if (!own)
      fail("the bank ", bank.path(), " holds no choice of schedules for ", modelName(a.src),
           " made on this CPU, and a model that runs in stages (", why,
           ") takes no other; tune it here first (`ttune tune`)");
    opt.schedules = executor::recordsProvider(*own);
  } else if (!a.records.empty()) {
    auto recs = schedule::readRecordsFile(a.records);
    if (!recs.ok()) fail(recs.error());
    opt.schedules = executor::recordsProvider(*recs);
  }
  executor::StagedModel m(a.src.spec, onnxOptions(a.src), graphOptions(a.src, opt.target), opt);
  std::vector<runtime::NDArray> inputs =
      // (a staged model takes no bfloat16 bits from npy files: its input dtypes are known per stage)
      a.inputs.empty() ? m.sampleInputs(a.seed)
                       : readInputs(a.inputs, std::vector<te::DType>(m.inputNames().size(), te::DType::Float32));
  executor::CheckReport rep;
  Json profile;
  int provided = 0, kernels = 0;
  std::vector<runtime::NDArray> outs =
      m.run(inputs, [&](executor::CompiledModel& stage, const std::vector<runtime::NDArray>& ins) {
        for (const auto& k : stage.kernels()) provided += k.schedule_source == "provided";
        kernels += static_cast<int>(stage.kernels().size());
        if (a.profile) addProfile(profile, profileModel(stage, ins, a.repeat));
        if (!a.check) return stage.run(ins);
        executor::CheckReport r;
        std::vector<runtime::NDArray> o = stage.runChecked(ins, &r);
        addCheck(rep, r);
        return o;
      });
  for (size_t i = 0; i < a.outputs.size() && i < outs.size(); ++i) {
    Status st = runtime::writeNpy(a.outputs[i], outs[i]);
    if (!st.ok()) fail(st.error());
  }
  executor::StagedStats first = m.stats();
  Json shapes = Json::array();
  for (const auto& o : outs) shapes.push_back(o.shape());
  Json j{{"model", modelName(a.src)},
         {"staged", true},
         {"stages", first.stages_run},
         {"stages_compiled", first.stages_compiled},
         {"host_nodes", first.host_nodes},
         {"host_s", first.host_s},
         {"compile_s", first.compile_s},
         {"output_shapes", shapes},
         {"threads", runtime::ThreadPool::global().numThreads()},
         {"target", codegen::describe(opt.target)},
         {"isa", schedule::isaName(opt.target.isa)},
         {"stage_kernels", kernels},
         {"scheduled_kernels", provided}};
  if (a.check) addCheckJson(j, rep);
  if (a.profile) {
    finishProfile(profile);
    addProfileJson(j, profile);
  }
  measure::Timing t;
  double host_per_run_s = 0;
  if (a.bench) {
    int runs = 0;
    t = benchRuns(
        [&] {
          m.run(inputs);
          ++runs;
        },
        a.repeat, j);
    host_per_run_s = runs > 0 ? (m.stats().host_s - first.host_s) / runs : 0;
    j["host_ms_per_run"] = host_per_run_s * 1e3;
  }
  if (a.json) {
    printJson(j);
  } else {
    std::cout << modelName(a.src) << ": run in " << first.stages_run << " stages (shapes depend on run-time values), "
              << first.stages_compiled << " compiled in " << formatSeconds(first.compile_s) << ", " << first.host_nodes
              << " nodes evaluated on the host in " << formatSeconds(first.host_s) << "\n";
    std::cout << "  target   " << codegen::describe(opt.target) << "\n";
    for (size_t i = 0; i < outs.size(); ++i)
      std::cout << "  output " << i << " " << te::dtypeName(outs[i].dtype()) << te::shapeToString(outs[i].shape())
                << "\n";
    if (!a.records.empty() || a.use_db)
      std::cout << "  " << provided << " of the stages' " << kernels << " kernels with provided schedules\n";
    if (a.check) printCheck(rep);
    if (a.bench)
      std::cout << "  latency  median " << formatSeconds(t.median_s) << ", min " << formatSeconds(t.min_s) << " over "
                << t.costs_s.size() << " runs (stages compiled before; host nodes " << formatSeconds(host_per_run_s)
                << " of each)\n";
    if (a.profile) {
      printProfile(j);
      std::cout << "  (the stages of one run added up; host nodes and staging are outside the profile)\n";
    }
  }
  if (a.check && !rep.ok())
    fail("the compiled model differs from the reference evaluator (kernel ", rep.worst_kernel, ")");
}

// The error of a bf16 build against the same model in float32 (compiled with its defaults), on
// the same inputs: the largest absolute difference over the outputs, and the same relative to
// the largest float32 output magnitude.
Json bf16Error(const RunArgs& a, const executor::ModelOptions& opt, const std::vector<runtime::NDArray>& inputs,
               const std::vector<runtime::NDArray>& outs) {
  ModelSource fp32 = a.src;
  fp32.precision = Precision::Fp32;
  executor::ModelOptions o = opt;
  o.schedules = {};
  std::vector<runtime::NDArray> ref = executor::CompiledModel::compile(loadModel(fp32, opt.target), o).run(inputs);
  double max_abs = 0, max_ref = 0;
  for (size_t i = 0; i < ref.size() && i < outs.size(); ++i) {
    if (ref[i].dtype() != te::DType::Float32 || outs[i].dtype() != te::DType::Float32) continue;
    for (int64_t e = 0; e < ref[i].numElements(); ++e) {
      max_abs = std::max(max_abs, std::fabs(static_cast<double>(outs[i].as<float>()[e]) - ref[i].as<float>()[e]));
      max_ref = std::max(max_ref, std::fabs(static_cast<double>(ref[i].as<float>()[e])));
    }
  }
  return Json{{"max_abs_err", max_abs}, {"max_rel_err", max_ref > 0 ? max_abs / max_ref : 0.0}};
}

void runModel(const RunArgs& a) {
  if (a.threads > 0) runtime::ThreadPool::global().setNumThreads(a.threads);
  if (!sizeRanges(a.src).empty()) {
    if (!a.inputs.empty() || !a.outputs.empty() || a.profile)
      fail("--inputs, --outputs and --profile take one size: bind every --dim to run them");
    return runRanges(RangeRunArgs{a.src, a.target, a.records,
                                  a.use_db ? std::optional<std::string>(a.db) : std::nullopt, a.at, a.bench, a.json,
                                  a.seed});
  }
  executor::ModelOptions opt;
  opt.target = resolveTargetOption(a.target, TargetUse::RunHere);
  graph::Graph g;
  try {
    g = loadModel(a.src, opt.target);
  } catch (const frontend::RuntimeValueError& e) {
    if (!isOnnxSource(a.src)) throw;
    return runStaged(a, e.what());
  }
  opt.baseline = baselineOf(a.src);
  Json validation;
  opt.schedules =
      scheduleOption(a.records, a.use_db ? std::optional<std::string>(a.db) : std::nullopt, modelName(a.src), g,
                     opt.target, BankUse{a.src.spec, a.validate, a.json, &validation, opt.baseline});
  executor::CompiledModel m = executor::CompiledModel::compile(g, opt);

  std::vector<runtime::NDArray> inputs = a.inputs.empty() ? sampleInputs(a.src, g, a.seed) : readInputs(a.inputs, g);
  executor::CheckReport rep;
  std::vector<runtime::NDArray> outs = a.check ? m.runChecked(inputs, &rep) : m.run(inputs);
  for (size_t i = 0; i < a.outputs.size() && i < outs.size(); ++i) {
    Status st = runtime::writeNpy(a.outputs[i], outs[i]);
    if (!st.ok()) fail(st.error());
  }
  int provided = 0;
  for (const auto& k : m.kernels()) provided += k.schedule_source == "provided";
  Json j{{"model", modelName(a.src)},
         {"kernels", m.kernels().size()},
         {"kernel_instances", m.instances().size()},
         {"flops", m.flops()},
         {"compile_s", m.compileSeconds()},
         {"workspace_bytes", m.workspaceBytes()},
         {"threads", runtime::ThreadPool::global().numThreads()},
         {"scheduled_kernels", provided},
         {"default_kernels", static_cast<int>(m.kernels().size()) - provided},
         {"target", codegen::describe(opt.target)},
         {"isa", schedule::isaName(opt.target.isa)}};
  if (!validation.empty()) j["validation"] = validation;
  if (a.check) addCheckJson(j, rep);
  if (a.check && a.src.precision == Precision::Bf16) j["bf16_against_fp32"] = bf16Error(a, opt, inputs, outs);
  measure::Timing t;
  if (a.bench) t = benchRuns([&] { m.run(inputs); }, a.repeat, j);
  if (a.profile) addProfileJson(j, profileModel(m, inputs, a.repeat));
  if (a.json) {
    printJson(j);
  } else {
    std::cout << modelName(a.src) << ": " << m.kernels().size() << " kernels (" << m.instances().size()
              << " instances), " << provided << " with provided schedules, compiled in "
              << formatSeconds(m.compileSeconds()) << " on " << j["threads"].get<int>() << " threads\n";
    std::cout << "  target   " << codegen::describe(opt.target) << "\n";
    if (a.check) printCheck(rep);
    if (j.contains("bf16_against_fp32"))
      std::cout << "  bf16     against float32: max abs error " << j["bf16_against_fp32"]["max_abs_err"].get<double>()
                << " (" << 100 * j["bf16_against_fp32"]["max_rel_err"].get<double>()
                << "% of the largest float32 output)\n";
    if (a.bench)
      std::cout << "  latency  median " << formatSeconds(t.median_s) << ", min " << formatSeconds(t.min_s) << " over "
                << t.costs_s.size() << " runs\n";
    if (a.profile) printProfile(j);
    if (!a.bench && !a.check && !a.profile) std::cout << "  ran once; --bench times it, --check verifies it\n";
  }
  if (a.check && !rep.ok())
    fail("the compiled model differs from the reference evaluator (kernel ", rep.worst_kernel, ")");
}

}  // namespace

void addModelCommands(CLI::App& app) {
  auto* ls = app.add_subcommand("models", "List the built-in model zoo");
  auto ls_json = std::make_shared<bool>(false);
  ls->add_flag("--json", *ls_json, "Print JSON");
  ls->callback([ls_json] { listModels(*ls_json); });

  auto* insp = app.add_subcommand("inspect", "Show a model's kernels: class, workload key, shapes, FLOPs, occurrences");
  auto isrc = std::make_shared<ModelSource>();
  auto ijson = std::make_shared<bool>(false);
  auto itarget = std::make_shared<std::string>("host");
  addSourceOptions(insp, *isrc);
  addTargetOption(insp, *itarget);
  insp->add_flag("--json", *ijson, "Print JSON");
  insp->callback([=] { inspect(*isrc, *itarget, *ijson); });

  auto* run = app.add_subcommand("run", "Compile and run a model with the best schedules known");
  auto ra = std::make_shared<RunArgs>();
  addSourceOptions(run, ra->src);
  run->add_option("--records", ra->records, "Records file with schedules (the best record per workload is used)");
  run->add_option("--db", ra->db, "Use the best schedules in this bank (default bank with --db \"\")")
      ->each([ra](const std::string&) { ra->use_db = true; });
  run->add_flag("--check", ra->check, "Check every kernel against the reference evaluator (sampled outputs)");
  run->add_option("--at", ra->at,
                  "With --dim ranges (seq=1..512): run at these sizes, name=size,... (repeatable; default: each "
                  "range's smallest, two between, its largest)");
  run->add_flag("--bench", ra->bench, "Time whole-model inference (median and min latency)");
  run->add_flag("--profile", ra->profile, "Time every distinct kernel inside the model (median over --repeat runs)");
  run->add_flag(
      "!--no-validate", ra->validate,
      "With --db: use the bank's records as they are, without validating records measured elsewhere against the "
      "defaults on this CPU first");
  run->add_flag("--json", ra->json, "Print one JSON object");
  run->add_option("--inputs", ra->inputs, "Input .npy files, one per model input, in order");
  run->add_option("--outputs", ra->outputs, "Output .npy files to write, one per model output, in order");
  run->add_option("--threads", ra->threads, "Threads (default: all cores)");
  run->add_option("--repeat", ra->repeat, "Timed runs for --bench");
  run->add_option("--seed", ra->seed, "Seed of the random inputs");
  addTargetOption(run, ra->target);
  run->callback([ra] { runModel(*ra); });
}

}  // namespace ttune::cli
