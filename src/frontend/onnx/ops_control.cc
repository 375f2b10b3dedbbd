// ONNX control flow with a condition and trip count known at import: If imports the branch the
// condition selects; Loop is unrolled (its body imported once per iteration, loop-carried values
// threaded through, scan outputs stacked along a new axis 0); Scan is unrolled over its inputs'
// sequence axis, which shapes fix at import (each step's elements are slices, scan outputs are
// stacked along their axis in either direction). A condition or trip count computed
// at run time reaches Ctx::constant, so `ttune run` resolves it between stages
// (executor/staged_model.h) and a static import names it in one sentence; a staged run evaluates
// a loop whose body needs run-time values of an iteration on the host. Loops whose condition
// changes with run-time data inside the body are not supported.
#include <algorithm>
#include <optional>

#include "frontend/onnx/op_table.h"
#include "frontend/onnx/staged_import.h"

namespace ttune::frontend::detail {

namespace {

// Iterations an unrolled loop may take: beyond it the graph would be unreasonably large.
constexpr int64_t kMaxUnrolledIterations = 4096;

void importIf(Ctx& c) {
  c.checkAttrs({"then_branch", "else_branch"});
  bool cond = c.scalar(0, "cond") != 0;
  const onnx::GraphProto& branch = c.attrGraph(cond ? "then_branch" : "else_branch");
  if (branch.output_size() != c.numOutputs())
    c.fail("the ", cond ? "then" : "else", " branch has ", branch.output_size(), " outputs, but the node has ",
           c.numOutputs());
  c.importSubgraph(branch);
  for (int k = 0; k < c.numOutputs(); ++k) c.setOutput(k, c.named(branch.output(k).name()));
}

// The axis along which the body only appends to carried value k (its output is
// Concat(v_in, ...) and nothing else reads v_in: torchvision's mask pasting), or nothing.
std::optional<int64_t> appendAxis(const onnx::GraphProto& body, int k) {
  const std::string& in = body.input(2 + k).name();
  const std::string& out = body.output(1 + k).name();
  const onnx::NodeProto* concat = nullptr;
  int reads = 0;
  for (const auto& n : body.node()) {
    for (const std::string& i : n.input()) reads += i == in;
    for (const std::string& c : capturedByNode(n)) reads += c == in;
    if (n.output_size() == 1 && n.output(0) == out) concat = &n;
  }
  for (const auto& o : body.output()) reads += o.name() == in;
  if (!concat || concat->op_type() != "Concat" || concat->input_size() < 2 || concat->input(0) != in || reads != 1)
    return std::nullopt;
  for (const auto& a : concat->attribute())
    if (a.name() == "axis") return a.i();
  return std::nullopt;
}

// The empty stand-in for an appended value inside the body: `init`'s shape, empty along the axis,
// so that the body's Concat gives only what the iteration appends.
int emptyAlong(Ctx& c, int init, int64_t axis) {
  te::Shape s = c.val(init).shape;
  s[static_cast<size_t>(normAxis(c, axis, s.size()))] = 0;
  return c.addConstant(runtime::NDArray::empty(s, c.val(init).dtype), "appended");
}

// init followed by what the iterations appended, in one concatenation (each element copied once,
// where the body's own Concat would copy the whole value again at every iteration).
int appendAll(Ctx& c, int init, const std::vector<int>& parts, int64_t axis) {
  std::vector<int> ins;  // what is empty along the axis adds nothing
  for (int v : parts) {
    const te::Shape& s = c.val(v).shape;
    if (s[static_cast<size_t>(normAxis(c, axis, s.size()))] > 0) ins.push_back(v);
  }
  const te::Shape& s = c.val(init).shape;
  if (s[static_cast<size_t>(normAxis(c, axis, s.size()))] > 0) ins.insert(ins.begin(), init);
  if (ins.empty()) return init;
  return ins.size() == 1 ? ins[0] : c.emit(graph::ConcatAttrs{axis}, ins, "appended");
}

void importLoop(Ctx& c) {
  c.checkAttrs({"body"});
  const onnx::GraphProto& body = c.attrGraph("body");
  int carried = c.numInputs() - 2;
  if (carried < 0) c.fail("needs the trip count and condition inputs (either may be empty)");
  if (body.input_size() != carried + 2 || body.output_size() < carried + 1)
    c.fail("the body takes ", body.input_size(), " inputs and gives ", body.output_size(),
           " outputs, which does not match ", carried, " loop-carried values");
  int scans = body.output_size() - 1 - carried;
  bool has_trip = c.present(0), has_cond = c.present(1);
  int64_t trip = has_trip ? static_cast<int64_t>(c.scalar(0, "M")) : kMaxUnrolledIterations + 1;
  bool cond = has_cond ? c.scalar(1, "cond") != 0 : true;
  if (!has_trip && !has_cond) c.fail("a loop without a trip count or a condition never ends");
  if (has_trip && trip > kMaxUnrolledIterations)
    c.fail("the trip count ", trip, " exceeds the ", kMaxUnrolledIterations, " iterations ttune unrolls");
  std::vector<int> state;
  for (int k = 0; k < carried; ++k) state.push_back(c.in(2 + k, "v_initial"));
  std::vector<std::optional<int64_t>> append_axis(static_cast<size_t>(carried));
  std::vector<std::vector<int>> appended(static_cast<size_t>(carried));
  std::vector<int> init = state;
  for (int k = 0; k < carried; ++k)
    if ((append_axis[k] = appendAxis(body, k))) state[k] = emptyAlong(c, init[k], *append_axis[k]);
  std::vector<std::vector<int>> scanned(static_cast<size_t>(scans));
  int64_t i = 0;
  for (; i < trip && cond; ++i) {
    if (i == kMaxUnrolledIterations)
      c.fail("the loop runs beyond the ", kMaxUnrolledIterations, " iterations ttune unrolls");
    c.bindName(body.input(0).name(), c.scalarConstant(static_cast<double>(i), te::DType::Int64, "iteration"));
    c.bindName(body.input(1).name(), c.scalarConstant(cond ? 1 : 0, te::DType::Bool, "condition"));
    for (int k = 0; k < carried; ++k) c.bindName(body.input(2 + k).name(), state[k]);
    c.importSubgraph(body);
    int next = c.named(body.output(0).name());
    if (!c.val(next).isConstant())
      c.fail("the loop condition is computed from run-time data inside the body, which is not supported");
    cond = c.val(next).constant->numElements() == 1 && c.val(next).constant->as<uint8_t>()[0] != 0;
    for (int k = 0; k < carried; ++k) {
      int v = c.named(body.output(1 + k).name());
      if (append_axis[k])
        appended[k].push_back(v);
      else
        state[k] = v;
    }
    for (int k = 0; k < scans; ++k) scanned[k].push_back(c.named(body.output(1 + carried + k).name()));
  }
  for (int k = 0; k < carried; ++k) {
    if (!c.outputUsed(k)) continue;
    c.setOutput(k, append_axis[k] ? appendAll(c, init[k], appended[k], *append_axis[k]) : state[k]);
  }
  for (int k = 0; k < scans; ++k) {
    if (!c.outputUsed(carried + k)) continue;
    if (scanned[k].empty()) c.fail("the loop runs no iteration, so its scan outputs are empty, which is not supported");
    std::vector<int> rows;
    for (int v : scanned[k]) {
      te::Shape s = c.val(v).shape;
      s.insert(s.begin(), 1);
      rows.push_back(c.reshape(v, s, "scan_row"));
    }
    c.setOutput(carried + k, rows.size() == 1 ? rows[0] : c.emit(graph::ConcatAttrs{0}, rows, "scan"));
  }
}

// Scan (opset 9 on; opset 8's batched form reaches here through the version converter).
void importScan(Ctx& c) {
  c.checkAttrs({"body", "num_scan_inputs", "scan_input_axes", "scan_input_directions", "scan_output_axes",
                "scan_output_directions"});
  const onnx::GraphProto& body = c.attrGraph("body");
  int64_t scans_in = c.attrInt("num_scan_inputs", 0);
  if (scans_in < 1 || scans_in > c.numInputs())
    c.fail("num_scan_inputs is ", scans_in, ", but the node has ", c.numInputs(), " inputs");
  int states = c.numInputs() - static_cast<int>(scans_in);
  int scans_out = body.output_size() - states;
  if (body.input_size() != c.numInputs() || scans_out < 0)
    c.fail("the body takes ", body.input_size(), " inputs and gives ", body.output_size(),
           " outputs, which does not match ", states, " state variables and ", scans_in, " scan inputs");
  if (c.numOutputs() > states + scans_out)
    c.fail("the node has ", c.numOutputs(), " outputs, but its body gives ", states + scans_out);
  auto perScan = [&](std::string_view name, int count) {
    std::vector<int64_t> v = c.attrInts(name);
    if (v.empty()) v.assign(static_cast<size_t>(count), 0);
    if (static_cast<int>(v.size()) != count) c.fail(name, " has ", v.size(), " entries for ", count, " values");
    return v;
  };
  std::vector<int64_t> in_axes = perScan("scan_input_axes", static_cast<int>(scans_in));
  std::vector<int64_t> in_dirs = perScan("scan_input_directions", static_cast<int>(scans_in));
  std::vector<int64_t> out_axes = perScan("scan_output_axes", scans_out);
  std::vector<int64_t> out_dirs = perScan("scan_output_directions", scans_out);

  int64_t steps = -1;
  for (int j = 0; j < scans_in; ++j) {
    int in = states + j;
    in_axes[j] = normAxis(c, in_axes[j], c.rank(in), "scan_input_axes");
    int64_t len = c.shape(in)[static_cast<size_t>(in_axes[j])];
    if (steps >= 0 && len != steps)
      c.fail("scan input ", j, " has ", len, " elements along its scan axis, but scan input 0 has ", steps);
    steps = len;
  }
  if (steps == 0) c.fail("the scan inputs are empty along their scan axis, which is not supported");
  if (steps > kMaxUnrolledIterations)
    c.fail("the scan runs ", steps, " steps, beyond the ", kMaxUnrolledIterations, " iterations ttune unrolls");

  std::vector<int> state;
  for (int k = 0; k < states; ++k) state.push_back(c.in(k, "initial_state"));
  std::vector<std::vector<int>> scanned(static_cast<size_t>(scans_out));
  for (int64_t t = 0; t < steps; ++t) {
    for (int k = 0; k < states; ++k) c.bindName(body.input(k).name(), state[k]);
    for (int j = 0; j < scans_in; ++j) {
      int in = states + j;
      int64_t at = in_dirs[j] != 0 ? steps - 1 - t : t;
      int64_t axis = in_axes[j];
      int row = c.emit(graph::SliceAttrs{{at}, {at + 1}, {axis}, {1}}, {c.in(in)}, "scan_element");
      te::Shape s = c.shape(in);
      s.erase(s.begin() + axis);
      c.bindName(body.input(in).name(), c.reshape(row, s, "scan_element"));
    }
    c.importSubgraph(body);
    for (int k = 0; k < states; ++k) state[k] = c.named(body.output(k).name());
    for (int k = 0; k < scans_out; ++k) scanned[k].push_back(c.named(body.output(states + k).name()));
  }
  for (int k = 0; k < states; ++k)
    if (c.outputUsed(k)) c.setOutput(k, state[k]);
  for (int k = 0; k < scans_out; ++k) {
    if (!c.outputUsed(states + k)) continue;
    if (out_dirs[k] != 0) std::reverse(scanned[k].begin(), scanned[k].end());
    size_t rank = c.val(scanned[k][0]).shape.size() + 1;
    int64_t axis = normAxis(c, out_axes[k], rank, "scan_output_axes");
    std::vector<int> rows;
    for (int v : scanned[k]) {
      te::Shape s = c.val(v).shape;
      s.insert(s.begin() + axis, 1);
      rows.push_back(c.reshape(v, s, "scan_row"));
    }
    c.setOutput(states + k, rows.size() == 1 ? rows[0] : c.emit(graph::ConcatAttrs{axis}, rows, "scan"));
  }
}

}  // namespace

void addControlOps(OpTable& t) {
  t["If"] = importIf;
  t["Loop"] = importLoop;
  t["Scan"] = importScan;
}

}  // namespace ttune::frontend::detail
