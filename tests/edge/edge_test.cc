// The AArch64 target without a board: target descriptions, NEON code, and AArch64 code run under
// QEMU user emulation (Debian's qemu-user with the AArch64 libc of libc6-dev-arm64-cross):
//   * single kernels (default and random schedules) in the cross-built measurement worker, checked
//     against the reference evaluator;
//   * zoo models exported with `--target cortex-a72`, run through the C example under QEMU and
//     compared with this machine's compiled model;
//   * every ONNX node-test case that passes here, compiled for AArch64, exported and run under
//     QEMU against the case's expected outputs;
//   * a tuning run measured by the emulated worker, end to end, which must not touch the bank.
// Tests that need QEMU or the cross toolchain are skipped with the reason when they are missing
// (scripts/setup.sh installs both, so CI runs them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cli/range_models.h"
#include "codegen/codegen.h"
#include "codegen/jit.h"
#include "codegen/target.h"
#include "codegen/toolchain.h"
#include "common/check.h"
#include "common/random_schedule.h"
#include "deploy/exporter.h"
#include "executor/executor.h"
#include "frontend/node_test_data.h"
#include "frontend/onnx/onnx_importer.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "lower/lower.h"
#include "measure/builder.h"
#include "measure/measurer.h"
#include "measure/runner.h"
#include "measure/worker_command.h"
#include "models/zoo.h"
#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "ops/registry.h"
#include "runtime/npy.h"
#include "support/error.h"
#include "support/json.h"
#include "support/temp_dir.h"
#include "support/timer.h"

namespace ttune {
namespace {

namespace fs = std::filesystem;
using schedule::Isa;

schedule::Target armTarget(const std::string& name = "cortex-a72") {
  auto t = codegen::resolveTarget(name);
  if (!t.ok()) throw Error(t.error());
  return *t;
}

// The emulated worker for AArch64, or the reason there is none here.
Expected<measure::WorkerCommand> emulatedWorker() {
  if (std::getenv("TTUNE_WORKER_COMMAND")) return Unexpected(std::string("TTUNE_WORKER_COMMAND points at a device"));
  auto w = measure::workerCommandFor(armTarget());
  if (!w.ok()) return w;
  if (!w->emulated) return Unexpected(std::string("this machine runs AArch64 code natively"));
  return w;
}

#define TTUNE_NEED_QEMU()                                                                  \
  auto worker_or = emulatedWorker();                                                       \
  if (!worker_or.ok()) GTEST_SKIP() << "no AArch64 emulation here: " << worker_or.error(); \
  const measure::WorkerCommand& worker = *worker_or;                                       \
  (void)worker

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int shell(const std::string& cmd, const fs::path& log) {
  int rc = std::system((cmd + " > " + log.string() + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// ---- targets and code ----------------------------------------------------------------------------

TEST(Edge, AArch64TargetsResolveWithTheirRegisterFileAndCaches) {
  for (const char* name : {"cortex-a53", "cortex-a72", "cortex-a76", "neoverse-n1", "aarch64"}) {
    auto t = codegen::resolveTarget(name);
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->isa, Isa::Neon) << name;
    EXPECT_EQ(t->lanes(), 4) << name;
    EXPECT_EQ(t->vector_registers, 32) << name;
    EXPECT_TRUE(t->fma) << name;
    EXPECT_TRUE(codegen::isAArch64(*t)) << name;
    EXPECT_TRUE(codegen::isForeign(*t)) << name;
    EXPECT_FALSE(t->caches_measured) << name << ": a cross target cannot read the device's caches";
    std::vector<std::string> f = codegen::kernelFeatures(*t);
    EXPECT_NE(std::find(f.begin(), f.end(), "neon"), f.end()) << name;
    Status run = codegen::runnable(*t);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(run.error().find(name), std::string::npos) << run.error();
  }
  // The parts differ where the defaults read them: the A72's 2-way 32 KiB L1d, the A76's 64 KiB.
  EXPECT_EQ(armTarget("cortex-a72").l1d_bytes, 32 << 10);
  EXPECT_EQ(armTarget("cortex-a72").l1d_ways, 2);
  EXPECT_EQ(armTarget("cortex-a76").l1d_bytes, 64 << 10);
  // Features beyond NEON are recorded as the part has them (dot product from ARMv8.2 on).
  std::vector<std::string> a76 = codegen::kernelFeatures(armTarget("cortex-a76"));
  EXPECT_NE(std::find(a76.begin(), a76.end(), "dotprod"), a76.end());
  std::vector<std::string> a53 = codegen::kernelFeatures(armTarget("cortex-a53"));
  EXPECT_EQ(std::find(a53.begin(), a53.end(), "dotprod"), a53.end());
  auto bad = codegen::resolveTarget("cortex-z99");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("cortex-a72"), std::string::npos) << bad.error();
}

TEST(Edge, NeonCodeUsesTheRegisterTileItWasGiven) {
  ops::OpInstance inst = ops::buildOp("dense", {"M=64", "N=256", "K=256"});
  auto dag = std::make_shared<const te::ComputeDAG>(inst.dag());
  schedule::Target arm = armTarget();
  schedule::RegisterTile rt = schedule::registerTileFor(arm);
  EXPECT_LE(schedule::registersNeeded(rt.rows * rt.vectors, rt.vectors), 32);
  EXPECT_GT(rt.rows * rt.vectors, 16) << "32 registers hold more accumulators than AVX2's 16";
  auto st = schedule::State::replay(dag, measure::defaultScheduleFor(*dag, arm));
  ASSERT_TRUE(st.ok()) << st.error();
  lower::LowerOptions lo;
  lo.vector_lanes = arm.lanes();
  auto f = lower::lower(*st, "kernel", lo);
  ASSERT_TRUE(f.ok()) << f.error();
  auto text = codegen::emitAssembly(*f, arm);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_NE(text->find("fmla"), std::string::npos) << "no NEON multiply-add";
  EXPECT_EQ(text->find("ymm"), std::string::npos);
  // AArch64 object code, which this machine's JIT refuses in one sentence instead of running it.
  codegen::CompileOptions co;
  co.target = arm;
  auto obj = codegen::compile(*f, co);
  ASSERT_TRUE(obj.ok()) << obj.error();
  ASSERT_GT(obj->bytes.size(), 20u);
  EXPECT_EQ(static_cast<unsigned char>(obj->bytes[18]) | static_cast<unsigned char>(obj->bytes[19]) << 8, 183)
      << "EM_AARCH64";
  auto loaded = codegen::loadKernel(*obj);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().find("another architecture"), std::string::npos) << loaded.error();
}

// ---- kernels under QEMU ------------------------------------------------------------------------

// One kernel for cortex-a72, run by the emulated worker on the reference evaluator's inputs and
// checked against its outputs there.
measure::RunResult runEmulated(measure::Runner& runner, const te::ComputeDAG& dag, const schedule::State& st,
                               uint64_t seed) {
  const schedule::Target arm = armTarget();
  lower::LowerOptions lo;
  lo.vector_lanes = arm.lanes();
  auto f = lower::lower(st, "kernel", lo);
  if (!f.ok()) throw Error("lowering: " + f.error());
  codegen::CompileOptions co;
  co.target = arm;
  auto obj = codegen::compile(*f, co);
  if (!obj.ok()) throw Error("compiling: " + obj.error());
  auto so = codegen::linkSharedObject(*obj, arm);
  if (!so.ok()) throw Error(so.error());
  measure::RunRequest req;
  req.code = std::move(*so);
  std::vector<runtime::NDArray> in = testing::randomInputs(dag, seed);
  req.data = measure::scheduledInputs(dag, in, st.dag(), st.weightLayouts());
  req.expected = testing::referenceOutputs(dag, in);
  for (const te::Tensor& t : st.dag().inputs()) req.args.push_back({t.shape(), t.dtype(), false});
  for (const te::Tensor& t : st.dag().outputs()) req.args.push_back({t.shape(), t.dtype(), true});
  req.atol = 1e-4, req.rtol = 1e-4;
  req.threads = 2;
  req.timing.warmup = 0, req.timing.number = 1, req.timing.repeat = 1, req.timing.min_repeat_ms = 0;
  return runner.run(req);
}

TEST(Edge, KernelsWithDefaultAndRandomSchedulesAgreeUnderQemu) {
  TTUNE_NEED_QEMU();
  measure::Runner runner(worker);
  const std::vector<std::pair<std::string, std::vector<std::string>>> ops = {
      {"conv2d", {"C=16", "K=32", "H=14", "W=14"}},
      {"conv2d", {"C=32", "K=32", "H=14", "W=14", "groups=4"}},
      {"depthwise_conv2d", {"C=24", "H=15", "W=15", "stride=2"}},
      {"dense", {"M=20", "N=70", "K=64"}},
      {"batch_matmul", {"B=3", "M=17", "N=20", "K=33"}},
      {"softmax", {}},
      {"avg_pool2d", {}},
  };
  int ran = 0;
  for (const auto& [name, params] : ops) {
    ops::OpInstance inst = ops::buildOp(name, params);
    auto dag = std::make_shared<const te::ComputeDAG>(inst.dag());
    std::vector<schedule::State> states;
    auto def = schedule::State::replay(dag, measure::defaultScheduleFor(*dag, armTarget()));
    ASSERT_TRUE(def.ok()) << def.error();
    states.push_back(*def);
    for (uint64_t seed = 1; seed <= 3; ++seed) states.push_back(testing::randomSchedule(dag, seed));
    for (size_t i = 0; i < states.size(); ++i) {
      measure::RunResult r = runEmulated(runner, *dag, states[i], 7 + i);
      EXPECT_TRUE(r.ok()) << name << " schedule " << i << ": " << schedule::errorKindName(r.error) << ": " << r.message;
      ran += r.ok();
    }
  }
  EXPECT_EQ(ran, static_cast<int>(ops.size()) * 4);
}

// ---- exported models under QEMU ----------------------------------------------------------------

// Exports graphs for cortex-a72 under the name "model" and runs them with the C example
// (examples/c/run_model.c), cross-compiled once against the first export's libmodel.so and
// pointed at each export through the guest's LD_LIBRARY_PATH.
class QemuExports {
 public:
  explicit QemuExports(const measure::WorkerCommand& worker, schedule::Target target = armTarget())
      : worker_(worker), target_(std::move(target)), dir_("ttune-edge") {}

  // The outputs of `g` on `inputs` as AArch64 code, or the reason it failed.
  Expected<std::vector<runtime::NDArray>> run(const graph::Graph& g, const std::vector<runtime::NDArray>& inputs) {
    const std::string case_dir = dir_.path + "/case" + std::to_string(count_++);
    fs::create_directories(case_dir);
    executor::ModelOptions opt;
    opt.target = target_;
    try {
      executor::ModelArtifacts art = executor::compileArtifacts(g, opt);
      deploy::ExportOptions eo;
      eo.dir = case_dir + "/export";
      eo.name = "model";
      eo.static_archive = false;
      deploy::exportModel(art, eo);
    } catch (const Error& e) {
      return Unexpected(std::string("export: ") + e.what());
    }
    const fs::path log = case_dir + "/log.txt";
    if (run_model_.empty()) {
      std::string exe = dir_.path + "/run_model";
      std::string cc = codegen::linkerDriver(target_);
      if (shell(cc + " -x c -std=c99 -O1 -I" + case_dir + "/export " + TTUNE_EXAMPLES + "/c/run_model.c -L" + case_dir +
                    "/export -lmodel -o " + exe,
                log) != 0)
        return Unexpected("cross-compiling run_model: " + slurp(log));
      run_model_ = exe;
    }
    std::string args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string p = case_dir + "/in" + std::to_string(i) + ".npy";
      if (!runtime::writeNpy(p, inputs[i]).ok()) return Unexpected("cannot write " + p);
      args += " " + p;
    }
    args += " -o";
    for (size_t i = 0; i < g.outputs().size(); ++i) args += " " + case_dir + "/out" + std::to_string(i) + ".npy";
    std::string emulator;
    for (size_t i = 0; i + 1 < worker_.argv.size(); ++i) emulator += worker_.argv[i] + " ";
    if (shell(emulator + "-E LD_LIBRARY_PATH=" + case_dir + "/export " + run_model_ + " " + case_dir + "/export" +
                  args + " --threads 2",
              log) != 0)
      return Unexpected("run_model under QEMU: " + slurp(log));
    std::vector<runtime::NDArray> outs;
    for (size_t i = 0; i < g.outputs().size(); ++i) {
      auto a = runtime::readNpy(case_dir + "/out" + std::to_string(i) + ".npy");
      if (!a.ok()) return Unexpected(a.error());
      outs.push_back(frontend::testing::asBf16If(*a, g.value(g.outputs()[i]).dtype));  // .npy has no bfloat16
    }
    std::error_code ec;
    fs::remove_all(case_dir + "/export/model.weights", ec);  // the large part; keep the library for run_model
    return outs;
  }

 private:
  measure::WorkerCommand worker_;
  schedule::Target target_;
  TempDir dir_;
  std::string run_model_;
  int count_ = 0;
};

// The zoo models run under CI's QEMU: every model but the three slowest to emulate (vgg16,
// bert_base and mobilebert: 1-2 minutes each here); TTUNE_EDGE_MODELS=all (or a list) runs more.
std::vector<std::string> edgeModels() {
  const char* env = std::getenv("TTUNE_EDGE_MODELS");
  std::vector<std::string> out;
  std::string list = env ? env : "";
  for (const models::ModelInfo& m : models::zoo()) {
    bool big = m.name == "vgg16" || m.name == "bert_base" || m.name == "mobilebert";
    if (list == "all" || (list.empty() && !big) || ("," + list + ",").find("," + m.name + ",") != std::string::npos)
      out.push_back(m.name);
  }
  return out;
}

class EdgeZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(EdgeZoo, ExportedForCortexA72MatchesThisMachineUnderQemu) {
  TTUNE_NEED_QEMU();
  QemuExports exports(worker);
  const std::string& name = GetParam();
  graph::Graph g = models::buildModel(name);
  std::vector<runtime::NDArray> inputs = executor::randomInputs(g, 5);
  std::vector<runtime::NDArray> here = executor::CompiledModel::compile(g).run(inputs);
  Timer timer;
  auto arm = exports.run(g, inputs);
  ASSERT_TRUE(arm.ok()) << arm.error();
  std::cout << "[ edge ] " << name << ": exported and run under QEMU in " << timer.seconds() << " s\n";
  ASSERT_EQ(arm->size(), here.size());
  for (size_t i = 0; i < here.size(); ++i) {
    runtime::Comparison c = runtime::compare((*arm)[i], here[i], 1e-4, 1e-3);
    EXPECT_TRUE(c.ok()) << "output " << i << ": " << c.mismatches << " mismatches, max abs error " << c.max_abs_err;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, EdgeZoo, ::testing::ValuesIn(edgeModels()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// An int8 network as the QDQ importer builds one: 8-bit activations (uint8 into the first layer,
// int8 into the second: u8 x s8 takes widened multiply-adds on Arm, s8 x s8 sdot), int8
// weights, int32 sums, the zero point padded, requantized between layers.
graph::Graph int8Net() {
  graph::Graph g;
  auto bytes = [](te::Shape s, te::DType t, uint64_t seed) {
    runtime::NDArray a(s, t);
    a.fillRandom(seed, static_cast<double>(te::intTypeMin(t)), static_cast<double>(te::intTypeMax(t)) + 1);
    return a;
  };
  auto channelwise = [&](int y, te::DType t, double lo, double hi, uint64_t seed, int64_t k) {
    runtime::NDArray a({1, k, 1, 1}, t);
    a.fillRandom(seed, lo, hi);
    return g.addNode("epilogue" + std::to_string(seed),
                     graph::BinaryAttrs{t == te::DType::Int32 ? graph::BinaryKind::Add : graph::BinaryKind::Mul},
                     {y, g.addConstant("c" + std::to_string(seed), a)});
  };
  int x = g.addInput("x", {1, 16, 10, 10}, te::DType::UInt8);
  graph::Conv2dAttrs c3;
  c3.pads = {1, 1, 1, 1};
  c3.pad_value = 7;
  int y = g.addNode("conv1", c3, {x, g.addConstant("w1", bytes({32, 16, 3, 3}, te::DType::Int8, 1))});
  y = channelwise(y, te::DType::Int32, -3000, 3000, 2, 32);
  y = g.addNode("to_float", graph::CastAttrs{te::DType::Float32}, {y});
  y = channelwise(y, te::DType::Float32, 0.001, 0.004, 3, 32);
  y = g.addNode("round", graph::UnaryAttrs{graph::UnaryKind::Round}, {y});
  y = g.addNode("saturate", graph::UnaryAttrs{graph::UnaryKind::Clip, -128, 127}, {y});
  y = g.addNode("to_s8", graph::CastAttrs{te::DType::Int8}, {y});
  y = g.addNode("conv2", graph::Conv2dAttrs{}, {y, g.addConstant("w2", bytes({24, 32, 1, 1}, te::DType::Int8, 4))});
  g.markOutput(y);
  graph::optimizeGraph(g);
  return g;
}

// A model for ranges of sizes exported for cortex-a72 (`ttune export --dim seq=1..40 --target`):
// the C example, cross-compiled, runs it under QEMU at sizes of every bucket, matching the
// reference evaluator of the model imported at each size.
TEST(Edge, ARangeExportServesEverySizeUnderQemu) {
  TTUNE_NEED_QEMU();
  TempDir dir("ttune-edge-range");
  const std::string model = dir.path + "/attention.onnx", out = dir.path + "/export", log = dir.path + "/log.txt";
  std::ofstream(model, std::ios::binary) << cli::testing::attentionModelBytes();
  ASSERT_EQ(shell(std::string(TTUNE_BIN) + " export " + model + " --dim seq=1..40 --target cortex-a72 --no-static -o " +
                      out + " --name attn",
                  log),
            0)
      << slurp(log);
  const std::string exe = dir.path + "/run_model";
  ASSERT_EQ(shell(codegen::linkerDriver(armTarget()) + " -x c -std=c99 -O1 -I" + out + " " + TTUNE_EXAMPLES +
                      "/c/run_model.c -L" + out + " -lattn -o " + exe,
                  log),
            0)
      << slurp(log);
  std::string emulator;
  for (size_t i = 0; i + 1 < worker.argv.size(); ++i) emulator += worker.argv[i] + " ";
  for (int64_t seq : {40, 23, 11, 7, 1}) {
    frontend::OnnxOptions o;
    o.dim_values["seq"] = seq;
    graph::Graph g = frontend::importOnnx(model, o);
    std::vector<runtime::NDArray> inputs = executor::randomInputs(g, static_cast<uint64_t>(seq));
    std::vector<runtime::NDArray> want = graph::evaluateGraph(g, inputs);
    const std::string in = dir.path + "/in.npy", got = dir.path + "/out.npy";
    ASSERT_TRUE(runtime::writeNpy(in, inputs[0]).ok());
    ASSERT_EQ(shell(emulator + "-E LD_LIBRARY_PATH=" + out + " " + exe + " " + out + " " + in + " -o " + got, log), 0)
        << slurp(log);
    auto a = runtime::readNpy(got);
    ASSERT_TRUE(a.ok()) << a.error();
    ASSERT_EQ(a->shape(), want[0].shape()) << "seq " << seq;
    runtime::Comparison c = runtime::compare(*a, want[0], 1e-4, 1e-4);
    EXPECT_TRUE(c.ok()) << "seq " << seq << ": max abs error " << c.max_abs_err;
  }
}

// int8 exports for an Arm CPU with dot-product instructions (cortex-a76: sdot / udot) and one
// without (cortex-a72: widened multiply-adds) compute what this machine does, exactly.
TEST(Edge, Int8ExportsWithAndWithoutDotprodMatchThisMachineUnderQemu) {
  TTUNE_NEED_QEMU();
  graph::Graph g = int8Net();
  std::vector<runtime::NDArray> inputs = executor::randomInputs(g, 9);
  inputs[0].fillRandom(9, 0, 256);
  std::vector<runtime::NDArray> here = executor::CompiledModel::compile(g).run(inputs);
  for (const char* cpu : {"cortex-a76", "cortex-a72"}) {
    SCOPED_TRACE(cpu);
    QemuExports exports(worker, armTarget(cpu));
    Timer timer;
    auto arm = exports.run(g, inputs);
    ASSERT_TRUE(arm.ok()) << arm.error();
    std::cout << "[ edge ] int8 network for " << cpu << ": exported and run under QEMU in " << timer.seconds()
              << " s\n";
    ASSERT_EQ(arm->size(), here.size());
    runtime::Comparison c = runtime::compare((*arm)[0], here[0], 0, 0);
    EXPECT_TRUE(c.ok()) << c.mismatches << " mismatches, max abs error " << c.max_abs_err;
  }
}

// ---- ONNX node tests under QEMU ----------------------------------------------------------------

bool readProto(const fs::path& p, google::protobuf::Message& m) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return f && m.ParseFromString(ss.str());
}

TEST(Edge, OnnxNodeTestsThatPassHerePassAsAArch64CodeUnderQemu) {
  TTUNE_NEED_QEMU();
  const char* env = std::getenv("TTUNE_ONNX_NODE_TESTS");
  fs::path root = env ? env : "/usr/share/libonnx-testdata/data/node";
  if (!fs::exists(root)) GTEST_SKIP() << "no ONNX node tests at " << root << " (Debian package libonnx-testdata)";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  QemuExports exports(worker);
  std::set<std::string> ops;
  int ran = 0;
  std::vector<std::string> failures;
  static const std::regex runtime_input(R"re(input "([^"]+)" (is computed at run time|has an empty dimension))re");
  for (const fs::path& dir : cases) {
    onnx::ModelProto model;
    if (!readProto(dir / "model.onnx", model)) continue;
    // As the x86 conformance test does: opsets below 11 import as 11 when no operator changed.
    for (onnx::OperatorSetIdProto& o : *model.mutable_opset_import()) {
      if (!o.domain().empty() || o.version() >= 11) continue;
      bool unchanged = true;
      for (const onnx::NodeProto& n : model.graph().node()) {
        const onnx::OpSchema* at = onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(o.version()));
        const onnx::OpSchema* at11 = onnx::OpSchemaRegistry::Schema(n.op_type(), 11);
        unchanged = unchanged && at && at11 && at->SinceVersion() == at11->SinceVersion();
      }
      if (unchanged) o.set_version(11);
    }
    std::map<std::string, onnx::TensorProto> case_inputs;
    std::set<std::string> initializers;
    for (const onnx::TensorProto& t : model.graph().initializer()) initializers.insert(t.name());
    int k = 0;
    bool readable = true;
    for (const onnx::ValueInfoProto& v : model.graph().input()) {
      if (initializers.count(v.name())) continue;
      readable = readable &&
                 readProto(dir / "test_data_set_0" / ("input_" + std::to_string(k++) + ".pb"), case_inputs[v.name()]);
    }
    if (!readable) continue;
    // The cases the x86 conformance test passes: import (inputs that must be constants bound to
    // the case's values, as there), reference evaluation and expected outputs agree here.
    graph::Graph g;
    frontend::OnnxOptions options;
    bool imported = false;
    for (int attempt = 0; attempt < 8 && !imported; ++attempt) {
      try {
        g = frontend::importOnnxModel(model, options);
        imported = true;
      } catch (const Error& e) {
        std::string msg = e.what();
        std::smatch m;
        if (!std::regex_search(msg, m, runtime_input) || !case_inputs.count(m[1]) ||
            options.constant_inputs.count(m[1]))
          break;
        try {
          options.constant_inputs[m[1]] = frontend::tensorFromProto(case_inputs[m[1]]);
        } catch (const Error&) {
          break;
        }
      }
    }
    if (!imported) continue;
    std::vector<runtime::NDArray> inputs, expected;
    try {
      for (int id : g.inputs())
        inputs.push_back(
            frontend::testing::caseInput(g, id, frontend::tensorFromProto(case_inputs.at(g.value(id).name))));
      for (int i = 0; readable && i < static_cast<int>(g.outputs().size()); ++i) {
        onnx::TensorProto t;
        readable = readProto(dir / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb"), t);
        if (readable)
          expected.push_back(frontend::testing::asBf16If(frontend::tensorFromProto(t), g.value(g.outputs()[i]).dtype));
      }
      if (!readable) continue;
      std::vector<runtime::NDArray> ref = graph::evaluateGraph(g, inputs);
      bool host_ok = ref.size() == expected.size();
      for (size_t i = 0; host_ok && i < ref.size(); ++i)
        host_ok = ref[i].shape() == expected[i].shape() && runtime::compare(ref[i], expected[i], 1e-5, 1e-4).ok();
      if (!host_ok) continue;
      graph::optimizeGraph(g);
    } catch (const std::exception&) {
      continue;
    }
    ++ran;
    ops.insert(model.graph().node(0).op_type());
    auto arm = exports.run(g, inputs);
    if (!arm.ok()) {
      failures.push_back(dir.filename().string() + ": " + arm.error());
      continue;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      runtime::Comparison c = runtime::compare((*arm)[i], expected[i], 1e-5, 1e-4);
      if (!c.ok())
        failures.push_back(dir.filename().string() + ": output " + std::to_string(i) + " has " +
                           std::to_string(c.mismatches) + " mismatches (max abs error " +
                           std::to_string(c.max_abs_err) + ")");
    }
  }
  std::cout << "[ edge ] " << ran << " node-test cases (" << ops.size()
            << " operators) run as AArch64 code under QEMU, " << failures.size() << " failed\n";
  // 837 of the x86 run's 852 passes ran here on 2026-12-03 (the floor keeps a small margin for
  // cases whose selection changes with the test data's conventions).
  EXPECT_GE(ran, 830) << "fewer cases than the x86 conformance run passes";
  for (const std::string& f : failures) ADD_FAILURE() << f;
}

// ---- tuning with the emulated worker -----------------------------------------------------------

TEST(Edge, TuningRunMeasuredUnderQemuCompletesAndStoresNothing) {
  TTUNE_NEED_QEMU();
  TempDir dir("ttune-edge-tune");
  const std::string bank = dir.path + "/bank.db";
  const fs::path log = dir.path + "/log.txt", out = dir.path + "/out.json";
  std::string cmd =
      std::string("TTUNE_DB=") + bank + " " + TTUNE_BIN + " tune " + TTUNE_SOURCE_DIR +
      "/tests/fuzz/corpus/onnx/conv_relu_pool.onnx --target cortex-a72 --trials 16 --measures-per-round 8 --json";
  ASSERT_EQ(shell(cmd + " > " + out.string() + " 2> " + log.string() + "; true", log), 0);
  std::string text = slurp(out);
  Json j = Json::parse(text, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << text << slurp(log);
  EXPECT_EQ(j.value("trials", 0), 16) << text;
  EXPECT_TRUE(j.value("emulated", false)) << text;
  EXPECT_TRUE(j["db"].is_null()) << text;
  EXPECT_NE(j.value("worker", "").find("qemu-aarch64"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(bank)) << "an emulated run wrote into the bank";
  // The search measured schedules (it has a searched estimate) rather than failing every one.
  EXPECT_TRUE(j.contains("kernel_speedup_searched")) << text;
}

TEST(Edge, TransferRunMeasuredUnderQemuAdaptsTheBanksRecordsAndStoresNothing) {
  TTUNE_NEED_QEMU();
  TempDir dir("ttune-edge-transfer");
  const std::string bank = dir.path + "/bank.db";
  const fs::path log = dir.path + "/log.txt", out = dir.path + "/out.json";
  // The user's bank: this machine's records of a tuned model (the shipped bank seeds it).
  std::string cmd = std::string("TTUNE_DB=") + bank + " " + TTUNE_BIN + " transfer " + TTUNE_SOURCE_DIR +
                    "/tests/fuzz/corpus/onnx/conv_relu_pool.onnx --target cortex-a72 --json";
  ASSERT_EQ(shell(cmd + " > " + out.string() + " 2> " + log.string() + "; true", log), 0);
  std::string text = slurp(out);
  Json j = Json::parse(text, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << text << slurp(log);
  EXPECT_TRUE(j.value("emulated", false)) << text;
  EXPECT_TRUE(j["db"].is_null()) << text;
  EXPECT_GT(j.value("measured", 0), 0) << "no x86 record was adapted and measured: " << text;
  EXPECT_FALSE(j["check"].value("whole_model", true)) << text;
  // Nothing of the run reached the user's bank: no transfer run, no record measured for the target.
  std::string runs = dir.path + "/runs.json";
  ASSERT_EQ(shell(std::string("TTUNE_DB=") + bank + " " + TTUNE_BIN + " db runs --json > " + runs, log), 0)
      << slurp(log);
  EXPECT_EQ(slurp(runs).find("transfer-"), std::string::npos) << slurp(runs);
  EXPECT_EQ(slurp(runs).find("cortex-a72"), std::string::npos) << slurp(runs);
}

// A worker on the device is a command spoken to over its stdin and stdout (ssh BOARD
// ttune-worker --stdio). Here the "device" is the cross-built worker under QEMU started by such a
// command: the run stores its records as the target CPU's, through the same protocol ssh uses.
TEST(Edge, DeviceWorkerThroughACommandStoresTheTargetsRecords) {
  TTUNE_NEED_QEMU();
  TempDir dir("ttune-edge-device");
  const std::string bank = dir.path + "/bank.db";
  const fs::path log = dir.path + "/log.txt", out = dir.path + "/out.json";
  std::string device;
  for (const std::string& a : worker.argv) device += a + " ";
  std::string env = "TTUNE_DB=" + bank + " TTUNE_WORKER_COMMAND='" + device + "' ";
  ASSERT_EQ(shell(env + TTUNE_BIN + " tune " + TTUNE_SOURCE_DIR +
                      "/tests/fuzz/corpus/onnx/conv_relu_pool.onnx --target cortex-a72 --trials 8 --measures-per-round "
                      "8 --json > " +
                      out.string() + " 2> " + log.string() + "; true",
                  dir.path + "/shell.txt"),
            0);
  Json j = Json::parse(slurp(out), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << slurp(out) << slurp(log);
  EXPECT_FALSE(j.value("emulated", true)) << "a device worker's timings are the device's";
  EXPECT_EQ(j.value("db", ""), bank);
  const std::string records = dir.path + "/records.jsonl";
  ASSERT_EQ(shell("TTUNE_DB=" + bank + " " + TTUNE_BIN + " db export " + records, log), 0) << slurp(log);
  std::ifstream in(records);
  int arm = 0;
  for (std::string line; std::getline(in, line);)
    arm += line.find(R"("cpu":"cortex-a72","isa":"neon")") != std::string::npos;
  EXPECT_GE(arm, 8) << "the run's records are not the target CPU's";
}

}  // namespace
}  // namespace ttune
