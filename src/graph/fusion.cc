#include "graph/fusion.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ops/transform.h"
#include "support/assert.h"
#include "support/hash.h"
#include "support/strings.h"

namespace ttune::graph {

namespace {

bool isAbsorbable(const Graph& g, const Node& n, int chain_value) {
  FusionRole r = fusionRole(n.attrs);
  if (const ReshapeAttrs* a = std::get_if<ReshapeAttrs>(&n.attrs); a && a->view) return false;
  if (r == FusionRole::Elementwise) return true;
  if (r != FusionRole::Injective) return false;
  for (int v : n.inputs)
    if (v >= 0 && v != chain_value && !g.value(v).isConstant()) return false;
  return true;
}

// A transpose that moves the innermost axis. After a Winograd output transform it ends the
// kernel: the transform writes its tiles vectorized along the output's innermost axis (channels,
// NHWC), and a fused permutation turns those stores into scatters -- r3d_18's folded 3-D
// convolutions ran at 4-7 GFLOP/s with their NCHW/NCDHW permutation fused in, against 170 for
// direct convolutions of the same model. The permutation runs as its own blocked transpose.
bool movesInnermostAxis(const Node& n) {
  const TransposeAttrs* t = std::get_if<TransposeAttrs>(&n.attrs);
  return t && !t->perm.empty() && t->perm.back() != static_cast<int64_t>(t->perm.size()) - 1;
}

// The element offset when node n is a slice selecting one contiguous run of its input.
std::optional<int64_t> viewOffset(const Graph& g, const Node& n) {
  const SliceAttrs* a = std::get_if<SliceAttrs>(&n.attrs);
  if (!a) return std::nullopt;
  const te::Shape& in = g.value(n.inputs[0]).shape;
  return ops::contiguousSliceOffset(in, ops::sliceBox(in, a->starts, a->ends, a->axes, a->steps));
}

// A kernel that only dequantizes -- a cast of 8-bit values then element-wise arithmetic with
// constants -- for one node of another kernel runs inside that kernel instead: the reader then
// loads one byte per element rather than the float a kernel of its own writes and it reads back
// (the residual branch of an int8 ResNet, whose quantized identity a convolution's epilogue
// adds: up to 1.5x on those convolutions). Only such chains move, so float models keep their kernels.
void mergeDequantizationChains(const Graph& g, const std::vector<std::vector<int>>& consumers,
                               const std::unordered_set<int>& outputs, std::vector<std::vector<int>>& groups,
                               std::vector<int>& group) {
  const auto& nodes = g.nodes();
  for (size_t gid = 0; gid < groups.size(); ++gid) {
    std::vector<int>& members = groups[gid];
    if (members.empty()) continue;
    const Node& first = nodes[members[0]];
    const CastAttrs* cast = std::get_if<CastAttrs>(&first.attrs);
    if (!cast || first.inputs.empty() || first.inputs[0] < 0 || !te::is8BitInt(g.value(first.inputs[0]).dtype))
      continue;
    bool dequantizes = true;
    for (size_t m = 0; m < members.size() && dequantizes; ++m) {
      const Node& n = nodes[members[m]];
      dequantizes = fusionRole(n.attrs) == FusionRole::Elementwise;
      for (size_t k = m == 0 ? 1 : 0; k < n.inputs.size() && dequantizes; ++k) {
        int v = n.inputs[k];
        dequantizes = v < 0 || g.value(v).isConstant() || (m > 0 && v == nodes[members[m - 1]].output);
      }
    }
    const int out = nodes[members.back()].output;
    if (!dequantizes || outputs.count(out) || consumers[out].size() != 1) continue;
    const int into = group[consumers[out][0]];
    if (into < 0 || into == static_cast<int>(gid)) continue;
    for (int m : members) group[m] = into;
    groups[into].insert(groups[into].end(), members.begin(), members.end());
    std::sort(groups[into].begin(), groups[into].end());  // graph order is topological
    members.clear();
  }
}

}  // namespace

std::string classSignature(const te::ComputeDAG& dag) {
  std::string s;
  for (const te::Tensor& t : dag.ops()) {
    const te::Operation& op = t.op();
    if (op.isPlaceholder()) {
      s += "P" + std::to_string(op.shape().size()) + (op.placeholder().is_constant ? "c" : "a") + ";";
      continue;
    }
    s += op.name();
    // Precision is part of the class (int8 and float32 convolutions tile differently); float32
    // reductions add nothing, so their classes are what they were before int8 kernels.
    if (std::string p = te::precisionTag(op); !p.empty()) s += "[" + p + "]";
    s += "(";
    for (const te::IterVar& iv : op.compute().axes) s += iv.name() + ",";
    s += "|";
    for (const te::IterVar& iv : op.compute().reduceAxes()) s += iv.name() + ",";
    s += ");";
  }
  return s;
}

std::vector<TunableKernel> tunableKernels(const std::vector<Kernel>& kernels) {
  auto has_reduction = [](const te::ComputeDAG& dag) {
    for (const te::Tensor& t : dag.ops())
      if (t.op().isCompute() && t.op().compute().reduce()) return true;
    return false;
  };
  std::vector<TunableKernel> out;
  std::unordered_map<std::string, size_t> pos;
  for (const Kernel& k : kernels) {
    if (k.alias_only || !has_reduction(*k.dag)) continue;
    auto [it, fresh] = pos.emplace(k.workload_key, out.size());
    if (fresh)
      out.push_back({&k, 1});
    else
      out[it->second].occurrences++;
  }
  return out;
}

std::string classId(const te::ComputeDAG& dag) {
  return toHex(Hasher().add(std::string_view(classSignature(dag))).value());
}

std::string operatorName(std::string_view name) {
  name = name.substr(0, name.find('.'));
  if (startsWith(name, "T_")) name.remove_prefix(2);
  return std::string(name);
}

std::string className(const te::ComputeDAG& dag) {
  std::vector<std::string> parts;
  for (const te::Tensor& t : dag.ops()) {
    if (t.op().isPlaceholder()) continue;
    std::string n = operatorName(t.name());
    if (std::string p = te::precisionTag(t.op()); !p.empty()) n += "_" + p;
    parts.push_back(n);
  }
  return join(parts, "+", [](const std::string& x) { return x; });
}

std::vector<Kernel> partition(const Graph& g) {
  const auto consumers = g.consumers();
  const auto& nodes = g.nodes();
  std::unordered_set<int> outputs(g.outputs().begin(), g.outputs().end());
  std::vector<int> group(nodes.size(), -1);
  std::vector<std::vector<int>> groups;
  // Whether value v comes from an anchor not yet in a kernel, through the chain of single-reader
  // nodes that anchor's kernel will absorb: an element-wise node reading v and a value of an
  // earlier chain is left to the anchor's kernel (its epilogue), not taken by that chain.
  auto fromPendingAnchor = [&](int v) {
    for (int depth = 0; depth < 64 && v >= 0; ++depth) {
      const int p = g.value(v).producer;
      if (p < 0 || group[p] >= 0 || consumers[v].size() != 1) return false;
      const Node& pn = nodes[p];
      if (fusionRole(pn.attrs) == FusionRole::Anchor) return true;
      int next = -1;
      for (int in : pn.inputs)
        if (in >= 0 && !g.value(in).isConstant()) {
          if (next >= 0) return false;
          next = in;
        }
      if (next < 0 || !isAbsorbable(g, pn, next)) return false;
      v = next;
    }
    return false;
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (group[i] >= 0) continue;
    int gid = static_cast<int>(groups.size());
    groups.push_back({static_cast<int>(i)});
    group[i] = gid;
    int cur = static_cast<int>(i);
    // A contiguous slice that heads its kernel (its input has other readers, e.g. one time step
    // of a recurrent layer's input projections) is a view: it takes only reshapes along, so
    // its consumers' kernels read it through a pointer and stay one workload for every offset.
    // A slice absorbed into its producer's kernel stays computed there (only what it selects).
    bool view = viewOffset(g, nodes[i]).has_value();
    bool winograd = std::holds_alternative<WinogradOutputAttrs>(nodes[i].attrs);
    while (true) {
      int v = nodes[cur].output;
      if (outputs.count(v) || consumers[v].size() != 1) break;
      int next = consumers[v][0];
      if (group[next] >= 0 || !isAbsorbable(g, nodes[next], v)) break;
      if (fusionRole(nodes[i].attrs) != FusionRole::Anchor &&
          std::any_of(nodes[next].inputs.begin(), nodes[next].inputs.end(),
                      [&](int in) { return in != v && fromPendingAnchor(in); }))
        break;
      if (view && !std::holds_alternative<ReshapeAttrs>(nodes[next].attrs)) break;
      if (winograd && movesInnermostAxis(nodes[next])) break;
      winograd = winograd || std::holds_alternative<WinogradOutputAttrs>(nodes[next].attrs);
      groups[gid].push_back(next);
      group[next] = gid;
      cur = next;
    }
  }
  mergeDequantizationChains(g, consumers, outputs, groups, group);

  // Kernel boundaries and DAGs.
  std::vector<Kernel> kernels;
  for (const auto& members : groups) {
    if (members.empty()) continue;  // merged into another kernel
    Kernel k;
    k.nodes = members;
    std::unordered_set<int> inside(members.begin(), members.end());
    std::unordered_map<int, te::Tensor> tensor;  // value id -> tensor
    std::vector<te::Tensor> dag_inputs;
    for (int ni : members) {
      const Node& n = nodes[ni];
      std::vector<te::Tensor> args;
      for (int v : n.inputs) {
        if (v < 0) {
          args.emplace_back();
          continue;
        }
        auto it = tensor.find(v);
        if (it == tensor.end()) {
          const Value& val = g.value(v);
          te::Tensor t;
          if (val.isConstant() && te::shapeElements(val.shape) == 1 && val.dtype == te::DType::Float32) {
            double c = val.constant->as<float>()[0];
            t = te::compute(
                "const", val.shape, [c](const std::vector<te::Var>&) { return te::floatImm(c); }, te::OpTag::Constant);
          } else {
            t = te::placeholder("p" + std::to_string(dag_inputs.size()), val.shape, val.dtype, val.isConstant());
            dag_inputs.push_back(t);
            k.inputs.push_back(v);
          }
          it = tensor.emplace(v, t).first;
        }
        args.push_back(it->second);
      }
      tensor[n.output] = g.buildNode(ni, args);
    }
    std::vector<te::Tensor> dag_outputs;
    for (int ni : members) {
      int v = nodes[ni].output;
      bool used_outside = outputs.count(v) > 0;
      for (int c : consumers[v]) used_outside = used_outside || !inside.count(c);
      if (used_outside) {
        k.outputs.push_back(v);
        dag_outputs.push_back(tensor.at(v));
      }
    }
    TT_ASSERT(!dag_outputs.empty(), "a kernel without outputs");
    k.dag = std::make_shared<const te::ComputeDAG>(dag_inputs, dag_outputs);
    k.class_name = className(*k.dag);
    k.class_id = classId(*k.dag);
    k.workload_key = k.dag->workloadKey();
    k.alias_only = true;
    std::optional<int64_t> view = viewOffset(g, nodes[members[0]]);
    for (size_t m = view ? 1 : 0; m < members.size(); ++m)
      k.alias_only = k.alias_only && std::holds_alternative<ReshapeAttrs>(nodes[members[m]].attrs);
    k.alias_only = k.alias_only && k.inputs.size() == 1 && k.outputs.size() == 1;
    if (k.alias_only && view) k.alias_offset_bytes = *view * te::dtypeBytes(g.value(k.inputs[0]).dtype);
    kernels.push_back(std::move(k));
  }

  // Order kernels so that each runs after the kernels producing its inputs.
  std::unordered_map<int, int> producer_kernel;
  for (size_t i = 0; i < kernels.size(); ++i)
    for (int v : kernels[i].outputs) producer_kernel[v] = static_cast<int>(i);
  std::vector<int> order, state(kernels.size(), 0);
  std::function<void(int)> visit = [&](int k) {
    if (state[k] == 2) return;
    TT_ASSERT(state[k] == 0, "fusion produced a cycle between kernels");
    state[k] = 1;
    for (int v : kernels[k].inputs) {
      auto it = producer_kernel.find(v);
      if (it != producer_kernel.end()) visit(it->second);
    }
    state[k] = 2;
    order.push_back(k);
  };
  for (size_t i = 0; i < kernels.size(); ++i) visit(static_cast<int>(i));
  std::vector<Kernel> sorted;
  for (int k : order) sorted.push_back(std::move(kernels[k]));
  return sorted;
}

}  // namespace ttune::graph
