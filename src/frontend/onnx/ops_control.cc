// ONNX control flow with a condition and trip count known at import: If imports the branch the
// condition selects; Loop is unrolled (its body imported once per iteration, loop-carried values
// threaded through, scan outputs stacked along a new axis 0). A condition or trip count computed
// at run time reaches Ctx::constant, so `ttune run` resolves it between stages
// (executor/staged_model.h) and a static import names it in one sentence. Loops whose condition
// changes with run-time data inside the body are not supported.
#include "frontend/onnx/op_table.h"

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
  std::vector<std::vector<int>> scanned(static_cast<size_t>(scans));
  int64_t i = 0;
  for (; i < trip && cond; ++i) {
    if (i == kMaxUnrolledIterations) c.fail("the loop runs beyond the ", kMaxUnrolledIterations, " iterations ttune unrolls");
    c.bindName(body.input(0).name(), c.scalarConstant(static_cast<double>(i), te::DType::Int64, "iteration"));
    c.bindName(body.input(1).name(), c.scalarConstant(cond ? 1 : 0, te::DType::Bool, "condition"));
    for (int k = 0; k < carried; ++k) c.bindName(body.input(2 + k).name(), state[k]);
    c.importSubgraph(body);
    int next = c.named(body.output(0).name());
    if (!c.val(next).isConstant())
      c.fail("the loop condition is computed from run-time data inside the body, which is not supported");
    cond = c.val(next).constant->numElements() == 1 && c.val(next).constant->as<uint8_t>()[0] != 0;
    for (int k = 0; k < carried; ++k) state[k] = c.named(body.output(1 + k).name());
    for (int k = 0; k < scans; ++k) scanned[k].push_back(c.named(body.output(1 + carried + k).name()));
  }
  for (int k = 0; k < carried; ++k)
    if (c.outputUsed(k)) c.setOutput(k, state[k]);
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

}  // namespace

void addControlOps(OpTable& t) {
  t["If"] = importIf;
  t["Loop"] = importLoop;
}

}  // namespace ttune::frontend::detail
