// `ttune ops`, `ttune op` and `ttune show-schedule`: one operator at a time.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cli.h"
#include "cli/output.h"
#include "cli/target_option.h"
#include "codegen/codegen.h"
#include "codegen/jit.h"
#include "codegen/target.h"
#include "codegen/toolchain.h"
#include "lower/lower.h"
#include "measure/builder.h"
#include "measure/measurer.h"
#include "measure/runner.h"
#include "measure/timing.h"
#include "measure/worker_command.h"
#include "ops/registry.h"
#include "runtime/thread_pool.h"
#include "schedule/record.h"
#include "support/error.h"
#include "support/strings.h"
#include "support/timer.h"
#include "te/evaluator.h"

namespace ttune::cli {

namespace {

struct OpArgs {
  std::string name;
  std::vector<std::string> params;
};

// The steps to use for a DAG: from a records file (the record of this workload, or the only one),
// the default schedule, or none.
std::vector<schedule::Step> chooseSteps(const te::ComputeDAG& dag, const std::string& file, bool plain,
                                        const schedule::Target& target, std::string* source) {
  if (!file.empty() && file != "default") {
    auto recs = schedule::readRecordsFile(file);
    if (!recs.ok()) fail(recs.error());
    if (recs->empty()) fail("records file ", file, " holds no record");
    const schedule::Record* pick = nullptr;
    for (const auto& r : *recs)
      if (r.workload_key == dag.workloadKey() && (!pick || r.result.median() < pick->result.median())) pick = &r;
    if (!pick) {
      if (recs->size() > 1) fail("no record in ", file, " is for workload ", dag.workloadKey());
      pick = &(*recs)[0];
    }
    *source = "file";
    return pick->steps;
  }
  if (plain) {
    *source = "none";
    return {};
  }
  *source = "default";
  return measure::defaultScheduleFor(dag, target);
}

// Seeded random inputs of an operator's kernel. Integer inputs are indices (gather): they stay
// inside the smallest dimension they index.
std::vector<runtime::NDArray> opInputs(const te::ComputeDAG& dag, uint64_t seed) {
  std::vector<runtime::NDArray> inputs;
  for (size_t i = 0; i < dag.inputs().size(); ++i) {
    const te::Tensor& in = dag.inputs()[i];
    runtime::NDArray arr = runtime::NDArray::empty(in.shape(), in.dtype());
    if (te::isFloat(in.dtype()))
      arr.fillRandom(seed * 1000 + i, -1.0, 1.0);
    else
      arr.fillRandom(seed * 1000 + i, 0, 2);
    inputs.push_back(arr);
  }
  return inputs;
}

// The reference evaluator's outputs of `dag` on `inputs`.
std::vector<runtime::NDArray> referenceOutputs(const te::ComputeDAG& dag, std::vector<runtime::NDArray>& inputs) {
  std::vector<runtime::NDArray> ref;
  std::vector<void*> args;
  for (auto& x : inputs) args.push_back(x.data());
  for (const te::Tensor& o : dag.outputs()) {
    ref.push_back(runtime::NDArray(o.shape(), o.dtype()));
    args.push_back(ref.back().data());
  }
  te::evaluate(dag, args);
  return ref;
}

// `ttune op`'s text report, from its JSON one.
void printOpReport(const std::string& name, const Json& j, const measure::Timing& timing,
                   const std::string& worker_note) {
  std::cout << name << " " << j["params"].get<std::string>() << "\n";
  std::cout << "  workload  " << j["workload_key"].get<std::string>() << "\n";
  std::cout << "  flops     " << formatCount(j["flops"].get<double>()) << "\n";
  std::cout << "  target    " << j["target"].get<std::string>() << "\n";
  std::cout << "  schedule  " << j["schedule"].get<std::string>() << " (" << j["steps"].get<size_t>() << " steps)\n";
  std::cout << "  compile   " << formatSeconds(j["compile_ms"].get<double>() * 1e-3) << "\n";
  if (j.contains("check")) {
    std::cout << "  check     " << (j["check"] == "ok" ? "ok" : "FAILED") << ", max abs error "
              << j["max_abs_err"].get<double>();
    if (j.contains("max_rel_err")) std::cout << ", max rel error " << j["max_rel_err"].get<double>();
    std::cout << "\n";
  }
  if (j.contains("worker")) std::cout << "  worker    " << j["worker"].get<std::string>() << "\n";
  if (j.contains("median_ms"))
    std::cout << "  time      median " << formatSeconds(timing.median_s) << " (min " << formatSeconds(timing.min_s)
              << ", max " << formatSeconds(timing.max_s) << ", " << timing.costs_s.size() << " repeats), "
              << strFormat("%.1f", j["gflops"].get<double>()) << " GFLOP/s on " << j["threads"].get<int>() << " threads"
              << worker_note << "\n";
}

void runOp(const OpArgs& a, const std::string& schedule_file, bool plain, bool check, bool bench, bool json,
           int threads, uint64_t seed, const std::string& target_name) {
  schedule::Target target = resolveTargetOption(target_name, TargetUse::Measure);
  if (threads > 0) runtime::ThreadPool::global().setNumThreads(threads);
  ops::OpInstance inst = ops::buildOp(a.name, a.params);
  auto dag = std::make_shared<const te::ComputeDAG>(inst.dag());
  std::string source;
  std::vector<schedule::Step> steps = chooseSteps(*dag, schedule_file, plain, target, &source);
  auto state = schedule::State::replay(dag, steps);
  if (!state.ok()) fail("the schedule does not apply to ", a.name, ": ", state.error());

  Timer t;
  auto func = lower::lower(*state, "kernel", lower::lowerOptionsFor(target));
  if (!func.ok()) fail("the schedule cannot be lowered for ", a.name, ": ", func.error());
  codegen::CompileOptions co;
  co.target = target;
  auto obj = codegen::compile(*func, co);
  if (!obj.ok()) fail("compiling ", a.name, " failed: ", obj.error());
  double compile_s = t.seconds();

  std::vector<runtime::NDArray> inputs = opInputs(*dag, seed);
  std::vector<runtime::NDArray> kin = measure::scheduledInputs(*dag, inputs, state->dag(), state->weightLayouts());
  std::vector<runtime::NDArray> ref;
  if (check) ref = referenceOutputs(*dag, inputs);
  measure::TimingOptions topt;
  topt.repeat = 5;
  topt.min_repeat_ms = 100;

  Json j;
  j["op"] = a.name;
  j["params"] = ops::Params::parse(ops::findOp(a.name), a.params).toString();
  j["workload_key"] = dag->workloadKey();
  j["flops"] = dag->flops();
  j["schedule"] = source;
  j["steps"] = steps.size();
  j["compile_ms"] = compile_s * 1e3;
  j["threads"] = runtime::ThreadPool::global().numThreads();
  j["target"] = codegen::describe(target);
  j["isa"] = schedule::isaName(target.isa);
  bool check_ok = true;
  measure::Timing timing;
  std::string worker_note;
  if (codegen::runnable(target).ok()) {
    auto kernel = codegen::loadKernel(*obj);
    if (!kernel.ok()) fail(kernel.error());
    std::vector<runtime::NDArray> outs;
    std::vector<void*> args;
    for (auto& x : kin) args.push_back(x.data());
    for (const te::Tensor& o : state->dag().outputs()) {
      outs.push_back(runtime::NDArray(o.shape(), o.dtype()));
      args.push_back(outs.back().data());
    }
    (**kernel)(args.data());
    if (check) {
      runtime::Comparison total;
      for (size_t i = 0; i < ref.size(); ++i) {
        runtime::Comparison c = runtime::compare(outs[i], ref[i]);
        total.max_abs_err = std::max(total.max_abs_err, c.max_abs_err);
        total.max_rel_err = std::max(total.max_rel_err, c.max_rel_err);
        total.mismatches += c.mismatches;
        total.non_finite += c.non_finite;
      }
      check_ok = total.ok();
      j["max_abs_err"] = total.max_abs_err;
      j["max_rel_err"] = total.max_rel_err;
      j["mismatches"] = total.mismatches;
    }
    if (bench) timing = measure::timeFunction([&] { (**kernel)(args.data()); }, topt);
  } else {
    // Code for another machine runs in a measurement worker for it (on the device, or emulated),
    // which also compares the outputs with the reference and times the kernel.
    auto worker = measure::workerCommandFor(target);
    if (!worker.ok()) fail(worker.error());
    if (worker->shared_objects) {
      auto so = codegen::linkSharedObject(*obj, target);
      if (!so.ok()) fail(so.error());
      *obj = std::move(*so);
    }
    measure::Runner runner(*worker);
    measure::RunRequest req;
    req.code = std::move(*obj);
    for (const te::Tensor& x : state->dag().inputs()) req.args.push_back({x.shape(), x.dtype(), false});
    for (const te::Tensor& o : state->dag().outputs()) req.args.push_back({o.shape(), o.dtype(), true});
    req.data = kin;
    req.expected = ref;
    req.atol = 1e-4, req.rtol = 1e-4;  // runtime::compare's defaults
    req.threads = runtime::ThreadPool::global().numThreads();
    if (bench)
      req.timing = topt;
    else
      req.timing.warmup = 0, req.timing.number = 1, req.timing.repeat = 1, req.timing.min_repeat_ms = 0;
    measure::RunResult rr = runner.run(req);
    if (rr.error != schedule::ErrorKind::None && rr.error != schedule::ErrorKind::WrongAnswer)
      fail(a.name, " failed in the measurement worker (", worker->describe(), "): ", rr.message);
    check_ok = rr.error == schedule::ErrorKind::None;
    if (check) j["max_abs_err"] = rr.max_abs_err;
    if (!check_ok) std::cerr << "ttune: " << rr.message << "\n";
    if (bench) timing = rr.timing;
    j["worker"] = worker->describe();
    j["emulated"] = worker->emulated;
    worker_note = worker->emulated ? " (emulated: not the device's time)" : " (on the device)";
  }
  if (check) j["check"] = check_ok ? "ok" : "failed";
  if (bench) {
    j["median_ms"] = timing.median_s * 1e3;
    j["min_ms"] = timing.min_s * 1e3;
    j["max_ms"] = timing.max_s * 1e3;
    j["repeats"] = timing.costs_s.size();
    j["gflops"] = dag->flops() / timing.median_s * 1e-9;
  }
  if (json)
    printJson(j);
  else
    printOpReport(a.name, j, timing, worker_note);
  if (!check_ok) fail("the result of ", a.name, " differs from the reference evaluator");
}

void listOps(bool json) {
  if (json) {
    Json arr = Json::array();
    for (const auto& op : ops::allOps()) {
      Json params = Json::array();
      for (const auto& p : op.params) {
        Json d = std::visit([](const auto& v) { return Json(v); }, p.default_value);
        params.push_back({{"name", p.name}, {"default", d}, {"help", p.help}});
      }
      arr.push_back({{"name", op.name}, {"summary", op.summary}, {"params", params}});
    }
    printJson(arr);
    return;
  }
  size_t w = 0;
  for (const auto& op : ops::allOps()) w = std::max(w, op.name.size());
  for (const auto& op : ops::allOps())
    std::cout << op.name << std::string(w + 2 - op.name.size(), ' ') << op.summary << "\n";
  std::cout << "\n`ttune op NAME --help-params` shows an operator's parameters.\n";
}

void showSchedule(const std::string& file, const OpArgs& a, bool lowered, bool llvm, bool assembly, bool json,
                  const std::string& target_name) {
  schedule::Target target = resolveTargetOption(target_name, TargetUse::Compile);
  if (a.name.empty())
    fail("show-schedule needs the operator the schedule is for, e.g. `ttune show-schedule ", file, " conv2d N=1 C=64`");
  ops::OpInstance inst = ops::buildOp(a.name, a.params);
  auto dag = std::make_shared<const te::ComputeDAG>(inst.dag());
  std::string source;
  std::vector<schedule::Step> steps = chooseSteps(*dag, file, false, target, &source);
  auto state = schedule::State::replay(dag, steps);
  if (!state.ok()) fail("the schedule in ", file, " does not apply to ", a.name, ": ", state.error());
  Json j;
  Json js = Json::array();
  for (const auto& s : steps) js.push_back(schedule::stepToString(s));
  j["steps"] = js;
  j["loop_nest"] = state->toString();
  j["target"] = codegen::describe(target);
  std::string low, ir, asm_text;
  if (lowered || llvm || assembly) {
    auto f = lower::lower(*state, "kernel", lower::lowerOptionsFor(target));
    if (!f.ok()) fail("the schedule cannot be lowered: ", f.error());
    low = lower::toString(*f);
    if (lowered) j["lowered"] = low;
    if (llvm) {
      auto text = codegen::emitLLVMIR(*f, true, target);
      if (!text.ok()) fail(text.error());
      ir = *text;
      j["llvm"] = ir;
    }
    if (assembly) {
      auto text = codegen::emitAssembly(*f, target);
      if (!text.ok()) fail(text.error());
      asm_text = *text;
      j["asm"] = asm_text;
    }
  }
  if (json) {
    printJson(j);
    return;
  }
  std::cout << "steps:\n";
  for (const auto& s : steps) std::cout << "  " << schedule::stepToString(s) << "\n";
  std::cout << "\nloop nest:\n" << state->toString();
  if (lowered) std::cout << "\nlowered:\n" << low;
  if (llvm) std::cout << "\nLLVM IR (" << codegen::describe(target) << "):\n" << ir;
  if (assembly) std::cout << "\nassembly (" << codegen::describe(target) << "):\n" << asm_text;
}

}  // namespace

void addOpCommands(CLI::App& app) {
  auto* ls = app.add_subcommand("ops", "List the operators `ttune op` can build");
  auto ls_json = std::make_shared<bool>(false);
  ls->add_flag("--json", *ls_json, "Print JSON");
  ls->callback([ls_json] { listOps(*ls_json); });

  auto* op = app.add_subcommand("op", "Build one operator, run it on seeded random inputs, check and time it");
  auto a = std::make_shared<OpArgs>();
  auto sched = std::make_shared<std::string>();
  auto flags = std::make_shared<std::array<bool, 5>>();  // check bench json plain help-params
  auto threads = std::make_shared<int>(0);
  auto seed = std::make_shared<uint64_t>(1);
  auto target = std::make_shared<std::string>("host");
  op->add_option("name", a->name, "Operator name (see `ttune ops`)")->required();
  op->add_option("params", a->params, "Parameters as key=value");
  op->add_option("--schedule", *sched, "Records file (or JSON list of steps) with the schedule to apply");
  op->add_flag("--check", (*flags)[0], "Compare the result with the reference evaluator");
  op->add_flag("--bench", (*flags)[1], "Time the operator (warm-up, repeats, median)");
  op->add_flag("--json", (*flags)[2], "Print one JSON object");
  op->add_flag("--no-schedule", (*flags)[3], "Compile the plain loop nest instead of the default schedule");
  op->add_flag("--help-params", (*flags)[4], "List the operator's parameters");
  op->add_option("--threads", *threads, "Threads for parallel loops (default: all cores)");
  op->add_option("--seed", *seed, "Seed of the random inputs");
  addTargetOption(op, *target);
  op->callback([=] {
    if ((*flags)[4]) {
      std::cout << ops::usage(ops::findOp(a->name));
      return;
    }
    runOp(*a, *sched, (*flags)[3], (*flags)[0], (*flags)[1], (*flags)[2], *threads, *seed, *target);
  });

  auto* show = app.add_subcommand("show-schedule", "Print the loop nest a schedule produces for an operator");
  auto file = std::make_shared<std::string>();
  auto sa = std::make_shared<OpArgs>();
  auto sflags = std::make_shared<std::array<bool, 4>>();
  auto starget = std::make_shared<std::string>("host");
  show->add_option("file", *file, "Records file or JSON list of steps, or `default` for the target's default schedule")
      ->required();
  show->add_option("name", sa->name, "Operator the schedule is for");
  show->add_option("params", sa->params, "Operator parameters as key=value");
  show->add_flag("--lowered", (*sflags)[0], "Also print the lowered loop IR");
  show->add_flag("--llvm", (*sflags)[1], "Also print the optimized LLVM IR");
  show->add_flag("--asm", (*sflags)[3], "Also print the target's assembly");
  show->add_flag("--json", (*sflags)[2], "Print JSON");
  addTargetOption(show, *starget);
  show->callback([=] { showSchedule(*file, *sa, (*sflags)[0], (*sflags)[1], (*sflags)[3], (*sflags)[2], *starget); });
}

}  // namespace ttune::cli
