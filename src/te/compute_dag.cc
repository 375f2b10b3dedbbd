#include "te/compute_dag.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "support/assert.h"
#include "support/error.h"
#include "support/hash.h"
#include "support/overload.h"
#include "te/expr_functor.h"
#include "te/printer.h"

namespace ttune::te {

namespace {

// Arithmetic operations in one evaluation of e. Ansor's rule, arithmetic counts only in float
// dtype, plus the integer arithmetic of a reduction's value (`in_reduction`: an int8 kernel's
// widened multiply-adds, so its throughput reads in operations per second like a float one's;
// index arithmetic is Int64 and never counts). A select counts its condition plus the costlier
// branch.
double exprFlops(const Expr& e, bool in_reduction = false) {
  auto counts = [&](DType t) { return isFloat(t) || (in_reduction && isInt(t) && dtypeBytes(t) <= 4); };
  return std::visit(Overload{
                        [](const IntImm&) { return 0.0; },
                        [](const FloatImm&) { return 0.0; },
                        [](const VarRef&) { return 0.0; },
                        [&](const Binary& n) {
                          double own = counts(n.a.dtype()) ? 1.0 : 0.0;
                          return own + exprFlops(n.a, in_reduction) + exprFlops(n.b, in_reduction);
                        },
                        [&](const Unary& n) { return (counts(e.dtype()) ? 1.0 : 0.0) + exprFlops(n.a, in_reduction); },
                        [&](const Select& n) {
                          return exprFlops(n.cond, in_reduction) +
                                 std::max(exprFlops(n.t, in_reduction), exprFlops(n.f, in_reduction));
                        },
                        [&](const Cast& n) { return exprFlops(n.a, in_reduction); },
                        [&](const TensorRead& n) {
                          double s = 0;
                          for (const Expr& i : n.indices) s += exprFlops(i);
                          return s;
                        },
                        [&](const BufferLoad& n) { return exprFlops(n.index); },
                        [&](const Reduce& n) {
                          double per =
                              exprFlops(n.source, true) +
                              (isFloat(e.dtype()) || (isInt(e.dtype()) && dtypeBytes(e.dtype()) <= 4) ? 1.0 : 0.0);
                          if (n.cond.defined()) per += exprFlops(n.cond);
                          double ext = 1;
                          for (const IterVar& iv : n.axes) ext *= static_cast<double>(iv.extent);
                          return per * ext;
                        },
                    },
                    e.node().kind);
}

}  // namespace

std::string precisionTag(const Operation& op) {
  if (!op.isCompute() || !op.compute().reduce()) return "";
  std::vector<const Operation*> read;
  std::vector<DType> types;
  visitAll(op.compute().reduce()->source, [&](const Expr& e) {
    const TensorRead* r = e.as<TensorRead>();
    if (!r || std::find(read.begin(), read.end(), &r->tensor.op()) != read.end()) return;
    read.push_back(&r->tensor.op());
    types.push_back(r->tensor.dtype());
  });
  if (std::all_of(types.begin(), types.end(), [](DType t) { return t == DType::Float32; })) return "";
  // Floats of one type name it once ("bf16"); integer operands each ("u8s8").
  if (std::all_of(types.begin(), types.end(), [&](DType t) { return t == types[0] && isFloat(t); }))
    return types[0] == DType::BFloat16 ? "bf16" : dtypeName(types[0]);
  std::string tag;
  for (DType t : types)
    tag += t == DType::UInt8 ? "u8" : t == DType::Int8 ? "s8" : t == DType::BFloat16 ? "bf16" : dtypeName(t);
  return tag;
}

std::string computePrecision(const ComputeDAG& dag) {
  for (const Tensor& t : dag.ops()) {
    std::string tag = precisionTag(t.op());
    if (tag.find("u8") != std::string::npos || tag.find("s8") != std::string::npos) return "int8";
    if (tag == "bf16") return "bf16";
  }
  return "fp32";
}

double opFlops(const Operation& op) {
  if (!op.isCompute()) return 0;
  return static_cast<double>(op.numElements()) * exprFlops(op.compute().body);
}

ComputeDAG::ComputeDAG(std::vector<Tensor> inputs, std::vector<Tensor> outputs) {
  TT_CHECK_ARG(!outputs.empty(), "a compute DAG needs at least one output");
  std::unordered_set<const Operation*> input_set;
  for (const Tensor& t : inputs) {
    TT_CHECK_ARG(t.op().isPlaceholder(), "DAG input ", t.name(), " is not a placeholder");
    TT_CHECK_ARG(input_set.insert(t.get()).second, "DAG input ", t.name(), " is listed twice");
  }

  // Deterministic post-order DFS from the outputs.
  std::vector<Tensor> order;
  std::unordered_set<const Operation*> visited;
  std::function<void(const Tensor&)> dfs = [&](const Tensor& t) {
    if (!visited.insert(t.get()).second) return;
    for (const Tensor& in : t.op().inputs()) dfs(in);
    order.push_back(t);
  };
  for (const Tensor& t : inputs) dfs(t);
  for (const Tensor& t : outputs) dfs(t);
  for (const Tensor& t : order) {
    if (t.op().isPlaceholder() && !input_set.count(t.get()))
      fail("placeholder ", t.name(), " is read by the kernel but is not one of its inputs");
  }

  // Rebuild ops whose names clash (or that read a rebuilt op) so that names are unique.
  std::unordered_map<const Operation*, Tensor> remap;
  std::unordered_map<std::string, int> name_count;
  for (const Tensor& t : order) {
    std::string name = t.name();
    int& cnt = name_count[name];
    bool rename = cnt > 0;
    if (rename) {
      do {
        name = t.name() + "." + std::to_string(cnt++);
      } while (name_count.count(name));
      name_count[name] = 1;
    } else {
      cnt = 1;
    }
    bool reads_remapped = false;
    for (const Tensor& in : t.op().inputs()) reads_remapped |= !remap.at(in.get()).same(in);
    if (!rename && !reads_remapped) {
      remap[t.get()] = t;
      continue;
    }
    Tensor nt;
    if (t.op().isPlaceholder()) {
      nt = placeholder(name, t.shape(), t.dtype(), t.op().placeholder().is_constant);
    } else {
      const ComputeOp& c = t.op().compute();
      Expr body = rewriteReads(
          c.body, [&](const TensorRead& r, std::vector<Expr> idx) { return remap.at(r.tensor.get())(idx); });
      nt = computeWithAxes(name, c.axes, body, t.op().tag());
    }
    remap[t.get()] = nt;
  }

  for (const Tensor& t : inputs) inputs_.push_back(remap.at(t.get()));
  for (const Tensor& t : outputs) {
    const Tensor& nt = remap.at(t.get());
    TT_CHECK_ARG(!nt.op().isPlaceholder(), "DAG output ", t.name(), " is a placeholder");
    outputs_.push_back(nt);
  }
  tensors_ = inputs_;
  tensors_.insert(tensors_.end(), outputs_.begin(), outputs_.end());
  for (const Tensor& t : order) ops_.push_back(remap.at(t.get()));

  for (int i = 0; i < numOps(); ++i) {
    by_name_[ops_[i].name()] = i;
    by_ptr_[ops_[i].get()] = i;
  }
  producers_.assign(ops_.size(), {});
  consumers_.assign(ops_.size(), {});
  for (int i = 0; i < numOps(); ++i) {
    for (const Tensor& in : ops_[i].op().inputs()) {
      int p = by_ptr_.at(in.get());
      producers_[i].push_back(p);
      consumers_[p].push_back(i);
    }
    flops_ += opFlops(ops_[i].op());
  }
  collectSizeParams();
  computeHashes();
}

int ComputeDAG::opIndex(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

int ComputeDAG::opIndex(const Operation* op) const {
  auto it = by_ptr_.find(op);
  return it == by_ptr_.end() ? -1 : it->second;
}

bool ComputeDAG::isOutput(int op) const {
  for (const Tensor& t : outputs_)
    if (t.get() == ops_[op].get()) return true;
  return false;
}

int ComputeDAG::argIndex(int op) const {
  for (size_t i = 0; i < tensors_.size(); ++i)
    if (tensors_[i].get() == ops_[op].get()) return static_cast<int>(i);
  return -1;
}

namespace {

constexpr int kSizeParamBase = 1 << 20;

// Hashes an expression; `exact` adds constants and extents. Vars hash by their position in the
// op (axes, then reduce axes); reads hash the producer's op index.
void hashExpr(Hasher& h, const Expr& e, bool exact, const VarMap<int>& var_pos, const ComputeDAG& dag) {
  h.add(static_cast<int>(e.node().kind.index()));
  h.add(static_cast<int>(e.dtype()));
  std::visit(Overload{
                 [&](const IntImm& n) {
                   if (exact) h.add(n.value);
                 },
                 [&](const FloatImm& n) {
                   if (exact) h.add(n.value);
                 },
                 [&](const VarRef& n) {
                   auto it = var_pos.find(n.var.get());
                   h.add(it == var_pos.end() ? -1 : it->second);
                 },
                 [&](const Binary& n) { h.add(static_cast<int>(n.op)); },
                 [&](const Unary& n) { h.add(static_cast<int>(n.op)); },
                 [&](const Select&) {},
                 [&](const Cast&) {},
                 [&](const TensorRead& n) { h.add(dag.opIndex(n.tensor.get())); },
                 [&](const BufferLoad& n) { h.add(std::string_view(n.buffer->name)); },
                 [&](const Reduce& n) {
                   h.add(static_cast<int>(n.kind));
                   h.add(static_cast<int>(n.axes.size()));
                   h.add(n.cond.defined() ? 1 : 0);
                 },
             },
             e.node().kind);
  forEachChild(e, [&](const Expr& c) { hashExpr(h, c, exact, var_pos, dag); });
}

}  // namespace

void ComputeDAG::collectSizeParams() {
  // The Vars that are no axis of the op that mentions them: those of run-time extents, and those
  // a schedule moved into a body (rfactor's predicate on a reduction of a run-time extent).
  std::unordered_set<const VarNode*> seen;
  for (const Tensor& t : ops_) {
    if (!t.op().isCompute()) continue;
    const ComputeOp& c = t.op().compute();
    std::unordered_set<const VarNode*> axes;
    for (const IterVar& iv : c.axes) axes.insert(iv.var.get());
    for (const IterVar& iv : c.reduceAxes()) axes.insert(iv.var.get());
    auto collect = [&](const Expr& e) {
      visitAll(e, [&](const Expr& x) {
        const VarRef* v = x.as<VarRef>();
        if (v && !axes.count(v->var.get()) && seen.insert(v->var.get()).second) size_params_.push_back(v->var);
      });
    };
    for (const IterVar& iv : c.axes)
      if (iv.runtime_extent.defined()) collect(iv.runtime_extent);
    for (const IterVar& iv : c.reduceAxes())
      if (iv.runtime_extent.defined()) collect(iv.runtime_extent);
    collect(c.body);
  }
  std::stable_sort(size_params_.begin(), size_params_.end(),
                   [](const Var& a, const Var& b) { return a.name() < b.name(); });
  for (size_t i = 1; i < size_params_.size(); ++i)
    TT_CHECK_ARG(size_params_[i - 1].name() != size_params_[i].name(), "two size parameters are named ",
                 size_params_[i].name());
}

void ComputeDAG::computeHashes() {
  for (bool exact : {false, true}) {
    Hasher h;
    h.add(static_cast<int>(ops_.size()));
    for (const Tensor& t : ops_) {
      const Operation& op = t.op();
      h.add(std::string_view(op.name()));
      h.add(static_cast<int>(op.dtype()));
      h.add(static_cast<int>(op.shape().size()));
      if (exact)
        for (int64_t d : op.shape()) h.add(d);
      if (op.isPlaceholder()) {
        h.add(op.placeholder().is_constant ? 1 : 2);
        continue;
      }
      const ComputeOp& c = op.compute();
      VarMap<int> pos;
      // Size parameters hash by their place among the DAG's, apart from any axis position.
      for (size_t p = 0; p < size_params_.size(); ++p)
        pos[size_params_[p].get()] = kSizeParamBase + static_cast<int>(p);
      // Only axes that have one add to the hash: fixed-size kernels keep the keys the bank files
      // their records under.
      auto hashRuntimeExtent = [&](const IterVar& iv) {
        if (!exact || !iv.runtime_extent.defined()) return;
        h.add(1);
        hashExpr(h, iv.runtime_extent, true, pos, *this);
      };
      int k = 0;
      for (const IterVar& iv : c.axes) {
        pos[iv.var.get()] = k++;
        h.add(std::string_view(iv.name()));
        hashRuntimeExtent(iv);
      }
      for (const IterVar& iv : c.reduceAxes()) {
        pos[iv.var.get()] = k++;
        h.add(std::string_view(iv.name()));
        if (exact) h.add(iv.extent);
        hashRuntimeExtent(iv);
      }
      hashExpr(h, c.body, exact, pos, *this);
    }
    for (const Tensor& t : tensors_) h.add(opIndex(t.get()));
    (exact ? exact_hash_ : structural_hash_) = h.value();
  }
}

std::string ComputeDAG::workloadKey() const { return toHex(structural_hash_) + "-" + toHex(exact_hash_); }

std::string ComputeDAG::toString() const {
  std::string s;
  for (const Tensor& t : ops_) s += te::toString(t.op()) + "\n";
  return s;
}

}  // namespace ttune::te
