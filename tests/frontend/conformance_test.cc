// ONNX's backend node tests (libonnx-testdata) as a parameterized test, one test per case
// directory. A case is
//   skipped  when its model uses an operator the importer does not know, or is a training /
//            sequence / optional / string case;
//   rejected when the import fails with a clear one-line error (an unsupported attribute value,
//            element type or empty tensor) — the test checks the message's form;
//   passed   when the imported graph, evaluated with the reference evaluator on the case's
//            inputs, matches every expected output (1e-4 relative + 1e-5 absolute; see
//            toleranceFor for the two exceptions of the test data), and so does
//            the graph compiled (optimized, fused, default schedules, this machine's code).
// Beyond the per-case tests, one test runs every case in one process and holds each supported
// operator to a floor of passing cases (a regression that turns passes into rejections or skips
// fails it), and one fails when the test data is not installed.
// Models declaring an opset below 11 go through the importer's upgrade (ONNX's version converter,
// frontend/onnx/opset_upgrade.h) like any user's model.
// Running the whole binary prints the pass / rejected / skipped table by operator (and writes it
// to $TTUNE_CONFORMANCE_TABLE when set).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include "executor/executor.h"
#include "executor/staged_model.h"
#include "frontend/node_test_data.h"
#include "frontend/onnx/onnx_importer.h"
#include "frontend/onnx/opset_upgrade.h"
#include "graph/passes.h"
#include "graph/reference.h"
#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "support/error.h"

namespace ttune::frontend {
namespace {

namespace fs = std::filesystem;

std::string dataDir() {
  const char* env = std::getenv("TTUNE_ONNX_NODE_TESTS");
  return env ? env : "/usr/share/libonnx-testdata/data/node";
}

std::vector<std::string> listCases() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dataDir(), ec))
    if (fs::exists(e.path() / "model.onnx")) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

enum class Outcome { Pass, Rejected, Skipped, Fail };

struct CaseResult {
  Outcome outcome = Outcome::Fail;
  std::string op;       // the operator the case tests, for the table
  std::string reason;   // why skipped / rejected / failed
  bool bound = false;   // passed with run-time shape inputs bound to the case's values
  bool staged = false;  // a bound case that also passed with those inputs given at run time
};

bool readProto(const fs::path& p, google::protobuf::Message& m) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return f && m.ParseFromString(ss.str());
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

// The operator a case tests: the model's only op type, else the ONNX op whose name is the longest
// prefix of the case name (test_layer_normalization_..._expanded -> LayerNormalization).
std::string caseOp(const std::string& name, const std::set<std::string>& ops) {
  if (ops.size() == 1) return *ops.begin();
  std::string squashed;
  for (char ch : name.substr(5))
    if (ch != '_') squashed += ch;
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (const onnx::OpSchema& s : onnx::OpSchemaRegistry::get_all_schemas()) v.push_back(s.Name());
    return v;
  }();
  static const std::vector<std::pair<std::string, std::string>> aliases = {{"mvn", "MeanVarianceNormalization"},
                                                                           {"sce", "SoftmaxCrossEntropyLoss"},
                                                                           {"nllloss", "NegativeLogLikelihoodLoss"}};
  for (const auto& [prefix, op] : aliases)
    if (squashed.rfind(prefix, 0) == 0) return op;
  std::string best;
  for (const std::string& op : all)
    if (op.size() > best.size() && squashed.rfind(lower(op), 0) == 0) best = op;
  return best.empty() ? "(composite)" : best;
}

bool isTensorType(const onnx::TypeProto& t) {
  return t.has_tensor_type() && t.tensor_type().elem_type() != onnx::TensorProto::STRING;
}

// One clear sentence naming what is at fault.
bool isClearError(const std::string& msg) {
  static const std::regex form(
      R"(^(node (#[0-9]+|"[^"]*") \([A-Za-z0-9_.]+\): |input "|tensor "|the model |output "|OnnxOptions).+)");
  return !msg.empty() && msg.find('\n') == std::string::npos && msg.size() < 400 && std::regex_search(msg, form);
}

std::string describe(const runtime::NDArray& a) {
  return std::string(te::dtypeName(a.dtype())) + te::shapeToString(a.shape());
}

// The comparison is 1e-5 absolute + 1e-4 relative, with two documented exceptions about the
// expected data, not about ttune:
//  * outputs whose every value is a multiple of 1e-4 were typed in as 4-decimal literals (ONNX
//    1.12's GridSample and RoiAlign cases): half a unit of their last digit is allowed;
//  * ONNX 1.12's window cases computed their expected outputs with pi written as 3.1415 (while
//    the operators' definitions, and their function-expanded variants, use pi): they are held to
//    ONNX's own backend-runner tolerance, 1e-3 relative.
struct Tolerance {
  double abs = 1e-5, rel = 1e-4;
};

Tolerance toleranceFor(const std::string& name, const runtime::NDArray& expected) {
  Tolerance t;
  static const std::regex rounded_pi(R"(test_(hann|hamming|blackman)window(_symmetric)?(_expanded)?)");
  if (std::regex_match(name, rounded_pi)) t.rel = 1e-3;
  if (expected.dtype() == te::DType::Float32 && expected.numElements() > 0) {
    const float* v = expected.as<float>();
    bool four_decimals = true;
    for (int64_t i = 0; i < expected.numElements() && four_decimals; ++i) {
      double scaled = static_cast<double>(v[i]) * 1e4;
      four_decimals = std::abs(scaled - std::nearbyint(scaled)) < 1e-6 * std::max(1.0, std::abs(scaled));
    }
    if (four_decimals) t.abs = std::max(t.abs, 0.5e-4 + 1e-6);
  }
  return t;
}

// The case's inputs by graph input name (graph inputs that are not initializers, in order);
// a reason when one cannot be read.
std::string readCaseInputs(const onnx::ModelProto& model, const fs::path& data,
                           std::map<std::string, onnx::TensorProto>& case_inputs) {
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : model.graph().initializer()) initializers.insert(t.name());
  int k = 0;
  for (const onnx::ValueInfoProto& v : model.graph().input()) {
    if (initializers.count(v.name())) continue;
    onnx::TensorProto t;
    if (!readProto(data / ("input_" + std::to_string(k++) + ".pb"), t))
      return "cannot read the data of input " + v.name();
    case_inputs[v.name()] = t;
  }
  return "";
}

// Imports the model into g; inputs that must be constants (shapes, axes, pads fed at run time, or
// empty tensors standing for absent optional inputs) are bound to the case's values, as a
// deployment with static shapes would. Returns the importer's final error, or "" on success.
std::string importBinding(const onnx::ModelProto& model, std::map<std::string, onnx::TensorProto>& case_inputs,
                          graph::Graph& g, OnnxOptions& options) {
  static const std::regex runtime_input(R"re(input "([^"]+)" (is computed at run time|has an empty dimension))re");
  static const std::regex derived_from(R"re(is computed at run time \(from the model inputs? ([^)]+)\))re");
  static const std::regex quoted(R"re("([^"]+)")re");
  for (;;) {
    try {
      g = importOnnxModel(model, options);
      return "";
    } catch (const Error& e) {
      std::string msg = e.what();
      // The value itself, or the model inputs the message says it is computed from.
      std::vector<std::string> names;
      std::smatch m;
      if (std::regex_search(msg, m, derived_from)) {
        std::string list = m[1];
        for (std::sregex_iterator it(list.begin(), list.end(), quoted), end; it != end; ++it) names.push_back((*it)[1]);
      } else if (std::regex_search(msg, m, runtime_input)) {
        names.push_back(m[1]);
      }
      bool bound_more = false;
      try {
        for (const std::string& n : names)
          if (case_inputs.count(n) && !options.constant_inputs.count(n)) {
            options.constant_inputs[n] = tensorFromProto(case_inputs[n]);
            bound_more = true;
          }
      } catch (const Error&) {  // e.g. an empty axes tensor: keep the original rejection
        bound_more = false;
      }
      if (!bound_more) return msg;
    }
  }
}

// The graph's inputs from the case's data; a reason when one is missing or does not fit.
std::string graphInputs(const graph::Graph& g, std::map<std::string, onnx::TensorProto>& case_inputs,
                        std::vector<runtime::NDArray>& inputs) {
  for (int id : g.inputs()) {
    const std::string& n = g.value(id).name;
    if (!case_inputs.count(n)) return "no data for input " + n;
    inputs.push_back(testing::caseInput(g, id, tensorFromProto(case_inputs[n])));
    if (inputs.back().shape() != g.value(id).shape || inputs.back().dtype() != g.value(id).dtype)
      return "the data of input " + n + " is " + describe(inputs.back()) + " but the graph takes " +
             te::dtypeName(g.value(id).dtype) + te::shapeToString(g.value(id).shape);
  }
  return "";
}

// The reference evaluation's outputs against the case's expected ones (toleranceFor); a reason
// when one differs.
std::string checkExpected(const std::string& name, const fs::path& data, const std::vector<runtime::NDArray>& outs) {
  for (size_t i = 0; i < outs.size(); ++i) {
    onnx::TensorProto t;
    if (!readProto(data / ("output_" + std::to_string(i) + ".pb"), t))
      return "cannot read output_" + std::to_string(i) + ".pb";
    runtime::NDArray expected = testing::asBf16If(tensorFromProto(t), outs[i].dtype());
    if (expected.shape() != outs[i].shape() || expected.dtype() != outs[i].dtype())
      return "output " + std::to_string(i) + " is " + describe(outs[i]) + ", expected " + describe(expected);
    Tolerance tol = toleranceFor(name, expected);
    runtime::Comparison cmp = runtime::compare(outs[i], expected, tol.abs, tol.rel);
    if (!cmp.ok()) {
      std::ostringstream os;
      os << "output " << i << ": " << cmp.mismatches << " mismatches, " << cmp.non_finite << " non-finite, max abs err "
         << cmp.max_abs_err << ", max rel err " << cmp.max_rel_err;
      return os.str();
    }
  }
  return "";
}

// The same graph compiled as `ttune run` would (optimized, fused, default schedules) against the
// reference outputs; a reason when it fails or differs.
std::string checkCompiled(const graph::Graph& g, const std::vector<runtime::NDArray>& inputs,
                          const std::vector<runtime::NDArray>& outs) {
  try {
    graph::Graph og = g;
    graph::optimizeGraph(og);
    executor::CompiledModel m = executor::CompiledModel::compile(og);
    std::vector<runtime::NDArray> compiled = m.run(inputs);
    for (size_t i = 0; i < outs.size() && i < compiled.size(); ++i) {
      runtime::Comparison cmp = runtime::compare(compiled[i], outs[i], 1e-5, 1e-4);
      if (compiled[i].shape() != outs[i].shape() || !cmp.ok()) {
        std::ostringstream os;
        os << "compiled output " << i << " differs from the reference: " << cmp.mismatches
           << " mismatches, max abs err " << cmp.max_abs_err;
        return os.str();
      }
    }
    if (compiled.size() != outs.size())
      return "the compiled graph has " + std::to_string(compiled.size()) + " outputs, not " +
             std::to_string(outs.size());
  } catch (const Error& e) {
    return std::string("compiling failed: ") + e.what();
  }
  return "";
}

// A bound case again with the bound inputs given at run time, stage by stage
// (executor::StagedModel): a wrong result fails the case (the reason); an error (e.g. an empty
// bound input as a run-time tensor) leaves it a bound pass. `staged`: the staged run matched.
std::string checkStaged(const onnx::ModelProto& model, const fs::path& dir,
                        const std::map<std::string, onnx::TensorProto>& case_inputs,
                        const std::vector<runtime::NDArray>& outs, bool& staged) {
  std::vector<runtime::NDArray> outs_staged;
  try {
    executor::StagedModel sm(model, dir.string(), {}, {}, {});
    std::vector<runtime::NDArray> ins;
    for (const std::string& n : sm.inputNames()) ins.push_back(tensorFromProto(case_inputs.at(n)));
    outs_staged = sm.run(ins);
  } catch (const Error&) {
    outs_staged.clear();
  }
  if (outs_staged.empty()) return "";
  for (size_t i = 0; i < outs.size(); ++i) {
    runtime::Comparison cmp = runtime::compare(outs_staged.at(i), outs[i], 1e-5, 1e-4);
    if (outs_staged.size() != outs.size() || outs_staged[i].shape() != outs[i].shape() || !cmp.ok())
      return "the staged run's output " + std::to_string(i) + " differs from the reference";
  }
  staged = true;
  return "";
}

CaseResult runCase(const std::string& name) {
  CaseResult r;
  fs::path dir = fs::path(dataDir()) / name;
  onnx::ModelProto model;
  if (!readProto(dir / "model.onnx", model)) {
    r.reason = "model.onnx does not parse";
    return r;
  }
  std::set<std::string> ops, unsupported;
  for (const onnx::NodeProto& n : model.graph().node()) ops.insert(n.op_type());
  r.op = caseOp(name, ops);
  // What the importer sees: an old opset's model after the upgrade (Upsample is a Resize then).
  std::string upgrade_error;
  try {
    upgradeToMinOpset(model, "the model");
  } catch (const Error& e) {
    upgrade_error = e.what();
  }
  for (const onnx::NodeProto& n : model.graph().node())
    if (!isSupportedOnnxOp(n.op_type(), n.domain())) unsupported.insert(n.op_type());
  r.outcome = Outcome::Skipped;
  if (name.find("training") != std::string::npos) {
    r.reason = "training-only case";
    return r;
  }
  for (const auto* list : {&model.graph().input(), &model.graph().output()})
    for (const onnx::ValueInfoProto& v : *list)
      if (!isTensorType(v.type())) {
        r.reason = "sequence, optional or string values";
        return r;
      }
  if (!unsupported.empty()) {
    r.reason = "unsupported operator " + *unsupported.begin();
    return r;
  }
  if (!upgrade_error.empty()) {
    r.reason = upgrade_error;
    r.outcome = isClearError(upgrade_error) ? Outcome::Rejected : Outcome::Fail;
    return r;
  }

  fs::path data = dir / "test_data_set_0";
  std::map<std::string, onnx::TensorProto> case_inputs;
  r.reason = readCaseInputs(model, data, case_inputs);
  if (!r.reason.empty()) {
    r.outcome = Outcome::Fail;
    return r;
  }
  graph::Graph g;
  OnnxOptions options;
  if (std::string msg = importBinding(model, case_inputs, g, options); !msg.empty()) {
    r.reason = msg;
    r.outcome = isClearError(msg) ? Outcome::Rejected : Outcome::Fail;
    if (r.outcome == Outcome::Fail) r.reason = "unclear error message: " + msg;
    return r;
  }
  r.bound = !options.constant_inputs.empty();
  r.outcome = Outcome::Fail;
  std::vector<runtime::NDArray> inputs;
  r.reason = graphInputs(g, case_inputs, inputs);
  if (!r.reason.empty()) return r;
  std::vector<runtime::NDArray> outs;
  try {
    outs = graph::evaluateGraph(g, inputs);
  } catch (const Error& e) {
    r.reason = std::string("evaluation failed: ") + e.what();
    return r;
  }
  r.reason = checkExpected(name, data, outs);
  if (r.reason.empty()) r.reason = checkCompiled(g, inputs, outs);
  if (r.reason.empty() && r.bound) r.reason = checkStaged(model, dir, case_inputs, outs, r.staged);
  if (!r.reason.empty()) return r;
  r.outcome = Outcome::Pass;
  return r;
}

// ---- the table ----------------------------------------------------------------------------------

struct Tally {
  int pass = 0, bound = 0, staged = 0, rejected = 0, skipped = 0, fail = 0;
};

std::mutex g_mu;
std::map<std::string, Tally> g_by_op;
std::vector<std::pair<std::string, std::string>> g_rejections;

void record(const std::string& name, const CaseResult& r) {
  std::lock_guard<std::mutex> lock(g_mu);
  Tally& t = g_by_op[r.op];
  switch (r.outcome) {
    case Outcome::Pass:
      ++t.pass;
      t.bound += r.bound ? 1 : 0;
      t.staged += r.staged ? 1 : 0;
      break;
    case Outcome::Rejected:
      ++t.rejected;
      g_rejections.emplace_back(name, r.reason);
      break;
    case Outcome::Skipped:
      ++t.skipped;
      break;
    case Outcome::Fail:
      ++t.fail;
      break;
  }
}

std::string table() {
  std::ostringstream os;
  Tally total;
  os << "| operator | pass | (bound) | (staged) | rejected | skipped | fail |\n|---|---:|---:|---:|---:|---:|---:|\n";
  std::vector<std::string> skipped_only;
  for (const auto& [op, t] : g_by_op) {
    total.pass += t.pass, total.bound += t.bound, total.staged += t.staged, total.rejected += t.rejected,
        total.skipped += t.skipped;
    total.fail += t.fail;
    if (t.pass + t.rejected + t.fail == 0) {
      skipped_only.push_back(op + " (" + std::to_string(t.skipped) + ")");
      continue;
    }
    os << "| " << op << " | " << t.pass << " | " << t.bound << " | " << t.staged << " | " << t.rejected << " | "
       << t.skipped << " | " << t.fail << " |\n";
  }
  os << "| **total** | " << total.pass << " | " << total.bound << " | " << total.staged << " | " << total.rejected
     << " | " << total.skipped << " | " << total.fail
     << " |\n\n(bound): passes whose run-time shape / axes / pads / data inputs were bound to the case's values with "
     << "OnnxOptions::constant_inputs. (staged): of those, the passes that also match when those inputs are given at "
     << "run time and the model runs stage by stage (executor::StagedModel).\n\nSkipped only (operator not supported, "
        "or training / "
     << "sequence / optional / string cases): ";
  for (size_t i = 0; i < skipped_only.size(); ++i) os << (i ? ", " : "") << skipped_only[i];
  os << "\n\nRejections:\n";
  for (const auto& [n, why] : g_rejections) os << "- " << n << ": " << why << "\n";
  return os.str();
}

class TableEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    if (g_by_op.empty()) return;
    int n = 0;
    for (const auto& [op, t] : g_by_op) n += t.pass + t.rejected + t.skipped + t.fail;
    if (n < 20) return;  // a filtered run: no table
    std::string s = table();
    std::cout << "\nONNX node-test conformance by operator:\n" << s;
    if (const char* path = std::getenv("TTUNE_CONFORMANCE_TABLE")) std::ofstream(path) << s;
  }
};

[[maybe_unused]] ::testing::Environment* const kTableEnv = ::testing::AddGlobalTestEnvironment(new TableEnvironment);

// ---- the parameterized test ---------------------------------------------------------------------

class OnnxNodeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeTest, Conforms) {
  CaseResult r = runCase(GetParam());
  record(GetParam(), r);
  switch (r.outcome) {
    case Outcome::Pass:
      break;
    case Outcome::Rejected:
      RecordProperty("rejected", r.reason);
      break;
    case Outcome::Skipped:
      GTEST_SKIP() << r.reason;
    case Outcome::Fail:
      FAIL() << r.reason;
  }
}

TEST(OnnxConformance, TestDataIsInstalled) {
  std::vector<std::string> cases = listCases();
  EXPECT_GE(cases.size(), 900u) << "the ONNX node tests are not installed at " << dataDir()
                                << " (Debian package libonnx-testdata; scripts/setup.sh installs it)";
}

// Passing cases per operator: at least as many as when this floor was set (the table printed by
// a full run of this binary). Raise a floor when support grows; a drop is a regression.
// The table keeps one line per group of operators.
// clang-format off
const std::map<std::string, int> kPassingFloor = {
    {"Abs", 1}, {"Add", 3}, {"And", 8}, {"AveragePool", 13}, {"BatchNormalization", 2}, {"Ceil", 2}, {"Celu", 2},
    {"Clip", 11}, {"Concat", 12}, {"Constant", 1}, {"ConstantOfShape", 2}, {"Conv", 6}, {"ConvTranspose", 10}, {"DepthToSpace", 4},
    {"Div", 4}, {"Dropout", 6}, {"Elu", 3}, {"Equal", 2}, {"Erf", 1}, {"Exp", 2}, {"Expand", 2}, {"Flatten", 9},
    {"Floor", 2}, {"Gather", 4}, {"Gemm", 11}, {"GlobalAveragePool", 2}, {"GlobalMaxPool", 2}, {"Greater", 4}, {"GRU", 4},
    {"GreaterOrEqual", 2}, {"HardSigmoid", 3}, {"HardSwish", 2}, {"Identity", 1}, {"IsNaN", 1},
    {"LayerNormalization", 38}, {"LSTM", 4}, {"LeakyRelu", 3}, {"Less", 4}, {"LessOrEqual", 2}, {"Log", 2}, {"LogSoftmax", 14},
    {"MatMul", 3}, {"Max", 14}, {"MaxPool", 15}, {"Mean", 3}, {"MeanVarianceNormalization", 2}, {"Min", 14},
    {"Mul", 4}, {"Neg", 2}, {"NegativeLogLikelihoodLoss", 36}, {"Not", 3}, {"Or", 8}, {"PRelu", 2}, {"Pad", 3}, {"Pow", 14}, {"Range", 2},
    {"Reciprocal", 2}, {"ReduceL1", 8}, {"ReduceL2", 8}, {"ReduceLogSum", 5}, {"ReduceMax", 8}, {"ReduceMean", 8},
    {"ReduceMin", 8}, {"ReduceSum", 10}, {"ReduceSumSquare", 8}, {"Relu", 1}, {"Reshape", 9}, {"RNN", 4}, {"Resize", 23},
    {"Selu", 3}, {"Shape", 10}, {"Sigmoid", 2}, {"Sign", 1}, {"Size", 2}, {"Slice", 7}, {"Softmax", 14}, {"SoftmaxCrossEntropyLoss", 68},
    {"Softplus", 2}, {"Softsign", 2}, {"SpaceToDepth", 2}, {"Split", 6}, {"Sqrt", 2}, {"Squeeze", 2}, {"Sub", 4},
    {"Sum", 3}, {"Tanh", 2}, {"ThresholdedRelu", 3}, {"Tile", 2}, {"Transpose", 7}, {"Unsqueeze", 8}, {"Where", 2},
    {"Xor", 8},
    // Indexing, generation, argument reductions and math functions (ops/indexing.h, te math).
    {"Acos", 2}, {"Acosh", 2}, {"ArgMax", 16}, {"ArgMin", 16}, {"Asin", 2}, {"Asinh", 2}, {"Atan", 2}, {"Atanh", 2},
    {"Cos", 2}, {"Cosh", 2}, {"EyeLike", 3}, {"GatherElements", 3}, {"GatherND", 3}, {"Hardmax", 7},
    {"InstanceNormalization", 2}, {"IsInf", 3}, {"LRN", 2}, {"MaxUnpool", 2}, {"Mod", 13}, {"OneHot", 4},
    {"ReduceProd", 8}, {"ReverseSequence", 2}, {"Round", 1}, {"ScatterElements", 4}, {"ScatterND", 3},
    {"Shrink", 2}, {"Sin", 2}, {"Sinh", 2}, {"Tan", 2}, {"TopK", 3}, {"Trilu", 16},
    // Det (unrolled elimination, ops_linalg.cc) and TfIdfVectorizer over integer tokens (ops_text.cc).
    {"Det", 2}, {"TfIdfVectorizer", 7},
    // Quantization (frontend/onnx/ops_quant.cc); int8 / uint8 cases of the operators above.
    {"ConvInteger", 3}, {"DequantizeLinear", 2}, {"DynamicQuantizeLinear", 6}, {"MatMulInteger", 1},
    {"QLinearConv", 1}, {"QLinearMatMul", 2}, {"QuantizeLinear", 2},
    // sampling and signal processing
    {"BlackmanWindow", 4}, {"DFT", 3}, {"GridSample", 8}, {"HammingWindow", 4}, {"HannWindow", 4},
    {"MelWeightMatrix", 1}, {"RoiAlign", 2}, {"STFT", 2},
    // output shapes that depend on values (evaluated at import from bound inputs)
    {"Compress", 4}, {"NonMaxSuppression", 9}, {"NonZero", 1}, {"Unique", 5},
    // control flow with conditions and trip counts known at import (bound, or staged at run time)
    {"If", 1}, {"Loop", 1}, {"Scan", 1},
    // Models of opsets below 11, upgraded by ONNX's version converter (opset_upgrade.h).
    {"Scatter", 2}, {"Upsample", 1},
    // Element types beyond 8 bits (float64, float16, bfloat16, int16, uint16 / 32 / 64), BitShift
    // and integer Pow; cases of the operators above are counted there.
    {"BitShift", 8}, {"Cast", 16}, {"CastLike", 8}, {"CumSum", 7}, {"Einsum", 5}, {"ReduceLogSumExp", 8}};
// clang-format on

TEST(OnnxConformance, EverySupportedOperatorKeepsItsPassingCases) {
  std::map<std::string, int> passed;
  std::map<std::string, std::string> why;
  for (const std::string& name : listCases()) {
    CaseResult r = runCase(name);
    if (r.outcome == Outcome::Pass)
      ++passed[r.op];
    else if (kPassingFloor.count(r.op) && why[r.op].empty())
      why[r.op] = name + ": " + r.reason;
  }
  for (const auto& [op, n] : kPassingFloor)
    EXPECT_GE(passed[op], n) << op << " passes " << passed[op] << " cases, below its floor of " << n
                             << " (first other: " << why[op] << ")";
}

INSTANTIATE_TEST_SUITE_P(Onnx, OnnxNodeTest, ::testing::ValuesIn(listCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OnnxNodeTest);

}  // namespace
}  // namespace ttune::frontend
