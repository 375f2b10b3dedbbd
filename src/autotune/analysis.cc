#include "autotune/analysis.h"

#include "support/overload.h"
#include "te/arith.h"
#include "te/expr_functor.h"

namespace ttune::autotune {

namespace {

// Reads of each producer op in an expression.
std::vector<const te::TensorRead*> reads(const te::Expr& e) {
  std::vector<const te::TensorRead*> out;
  te::visitAll(e, [&](const te::Expr& x) {
    if (const te::TensorRead* r = x.as<te::TensorRead>()) out.push_back(r);
  });
  return out;
}

// If idx is `axis + c` for one of the op's axis vars, the axis position; -1 for a constant; -2 otherwise.
int axisOf(const te::Expr& idx, const te::VarMap<int>& axes) {
  te::LinearForm f = te::toLinear(idx);
  if (f.terms.empty()) return -1;
  if (f.terms.size() != 1 || f.terms[0].second != 1) return -2;
  const te::VarRef* v = f.terms[0].first.as<te::VarRef>();
  if (!v) return -2;
  auto it = axes.find(v->var.get());
  return it == axes.end() ? -2 : it->second;
}

bool hasExpOrBranch(const te::Expr& e) {
  bool found = false;
  te::visitAll(e, [&](const te::Expr& x) {
    if (const te::Unary* u = x.as<te::Unary>(); u && u->op == te::UnOp::Exp) found = true;
    if (x.as<te::Select>()) found = true;
  });
  return found;
}

}  // namespace

DagAnalysis::DagAnalysis(const te::ComputeDAG& dag) : dag_(dag), info_(dag.numOps()) {
  for (int i = 0; i < dag.numOps(); ++i) {
    const te::Operation& op = dag.op(i);
    OpInfo& in = info_[i];
    in.is_output = dag.isOutput(i);
    if (!op.isCompute()) continue;
    in.is_compute = true;
    const te::ComputeOp& c = op.compute();
    in.has_reduce = c.reduce() != nullptr;
    for (const te::IterVar& iv : c.axes) in.space_len *= iv.extent;
    for (const te::IterVar& iv : c.reduceAxes()) in.reduce_len *= iv.extent;
    te::VarMap<int> axes;
    for (size_t d = 0; d < c.axes.size(); ++d) axes[c.axes[d].var.get()] = static_cast<int>(d);
    auto rs = reads(c.body);
    bool simple = true, same_order = true;
    for (const te::TensorRead* r : rs) {
      std::vector<int> pos;
      for (const te::Expr& idx : r->indices) {
        int a = axisOf(idx, axes);
        if (a == -2) simple = false;
        if (a >= 0) pos.push_back(a);
      }
      for (size_t k = 1; k < pos.size(); ++k)
        if (pos[k] <= pos[k - 1]) same_order = false;  // transposed or duplicated axes
    }
    in.simple_access = simple;
    in.strictly_inlineable = rs.empty() || (simple && same_order && !hasExpOrBranch(c.body));
    // Data reuse: producers that miss spatial axes of this op.
    int missing = 0;
    std::vector<const te::Operation*> seen;
    for (const te::TensorRead* r : rs) {
      if (std::find(seen.begin(), seen.end(), r->tensor.get()) != seen.end()) continue;
      seen.push_back(r->tensor.get());
      // Spatial axes (extent > 1) that no read of this producer uses.
      for (const te::IterVar& iv : c.axes) {
        if (iv.extent <= 1) continue;
        bool used = false;
        for (const te::TensorRead* r2 : rs) {
          if (r2->tensor.get() != r->tensor.get()) continue;
          for (const te::Expr& idx : r2->indices) used = used || te::usesVar(idx, iv.var.get());
        }
        if (!used) {
          ++missing;
          break;
        }
      }
    }
    in.needs_multi_level_tiling = missing >= 2 || (missing >= 1 && in.has_reduce);
  }
}

bool DagAnalysis::elementwiseMatch(int op, int target) const {
  int cur = op;
  while (cur != target) {
    const auto& cons = dag_.consumers(cur);
    if (cons.size() != 1) return false;
    int next = cons[0];
    const te::Operation& a = dag_.op(cur);
    const te::Operation& b = dag_.op(next);
    if (!b.isCompute() || a.shape() != b.shape() || b.compute().reduce()) return false;
    // b reads a element-wise: every read of a uses b's axes in order, all of them.
    const te::ComputeOp& c = b.compute();
    te::VarMap<int> axes;
    for (size_t d = 0; d < c.axes.size(); ++d) axes[c.axes[d].var.get()] = static_cast<int>(d);
    for (const te::TensorRead* r : reads(c.body)) {
      if (r->tensor.get() != &a) continue;
      for (size_t d = 0; d < r->indices.size(); ++d) {
        const te::VarRef* v = r->indices[d].as<te::VarRef>();
        if (!v || !axes.count(v->var.get()) || axes.at(v->var.get()) != static_cast<int>(d)) return false;
      }
    }
    cur = next;
  }
  return true;
}

}  // namespace ttune::autotune
