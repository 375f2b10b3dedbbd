#include "schedule/state.h"

#include <functional>
#include <unordered_map>

#include "support/assert.h"
#include "support/overload.h"

namespace ttune::schedule {

int Stage::iterIndex(const std::string& name) const {
  for (size_t i = 0; i < iters.size(); ++i)
    if (iters[i].name == name) return static_cast<int>(i);
  return -1;
}

const Iterator* Stage::findIter(const std::string& name) const {
  int i = iterIndex(name);
  return i < 0 ? nullptr : &iters[i];
}

bool Stage::isReduction() const {
  for (const RootAxis& a : root)
    if (a.kind == te::IterKind::Reduce) return true;
  return false;
}

Stage makeStage(const te::ComputeDAG& dag, int index) {
  const te::Operation& op = dag.op(index);
  Stage s;
  s.op = op.name();
  s.is_placeholder = op.isPlaceholder();
  if (op.isCompute()) {
    for (const te::IterVar& iv : op.compute().axes) s.root.push_back({iv.name(), iv.extent, te::IterKind::Spatial});
    for (const te::IterVar& iv : op.compute().reduceAxes())
      s.root.push_back({iv.name(), iv.extent, te::IterKind::Reduce});
  }
  for (const RootAxis& a : s.root) {
    s.region.push_back(a.full_extent);
    s.iters.push_back(Iterator{a.name, a.full_extent, a.kind, IterAnnotation::None});
  }
  return s;
}

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

void computeLeafExtents(Stage& stage) {
  std::unordered_map<std::string, std::optional<int64_t>> ext;
  for (size_t i = 0; i < stage.root.size(); ++i) ext[stage.root[i].name] = stage.region[i];
  for (const Relation& rel : stage.relations) {
    std::visit(Overload{
                   [&](const SplitRelation& r) {
                     // children[0] is outermost; factors[k] splits children[k+1] off the rest.
                     size_t n = r.children.size();
                     std::optional<int64_t> rest = ext[r.parent];
                     for (size_t k = n - 1; k >= 1; --k) {
                       const auto& f = r.factors[k - 1];
                       if (rest && f) {
                         ext[r.children[k]] = std::min(*f, *rest);
                         rest = ceilDiv(*rest, *f);
                       } else {
                         ext[r.children[k]] = f;
                         rest = std::nullopt;
                       }
                     }
                     ext[r.children[0]] = rest;
                   },
                   [&](const FuseRelation& r) {
                     std::optional<int64_t> p = 1;
                     for (const std::string& name : r.parents) {
                       auto e = ext[name];
                       p = (p && e) ? std::optional<int64_t>(*p * *e) : std::nullopt;
                     }
                     ext[r.child] = p;
                   },
               },
               rel);
  }
  for (Iterator& it : stage.iters) it.extent = ext[it.name];
}

State::State(std::shared_ptr<const te::ComputeDAG> dag) : dag_(std::move(dag)) {
  original_dag_ = dag_;
  resetStages();
}

void State::resetStages() {
  stages_.clear();
  for (int i = 0; i < dag_->numOps(); ++i) stages_.push_back(makeStage(*dag_, i));
}

int State::stageIndex(const std::string& op) const {
  for (size_t i = 0; i < stages_.size(); ++i)
    if (stages_[i].op == op) return static_cast<int>(i);
  return -1;
}

const Stage& State::stage(const std::string& op) const {
  int i = stageIndex(op);
  TT_ASSERT(i >= 0, "no stage named " + op);
  return stages_[i];
}

std::vector<int> State::attachedAt(const std::string& stage, const std::string& iter) const {
  std::vector<int> out;
  for (size_t i = 0; i < stages_.size(); ++i) {
    const Stage& s = stages_[i];
    if (s.location == ComputeLocation::At && s.attach_stage == stage && s.attach_iter == iter)
      out.push_back(static_cast<int>(i));
  }
  return out;
}

std::vector<int> State::effectiveConsumers(int stage) const {
  std::vector<int> out;
  std::function<void(int)> walk = [&](int s) {
    for (int c : dag_->consumers(s)) {
      if (stages_[c].location == ComputeLocation::Inlined)
        walk(c);
      else if (std::find(out.begin(), out.end(), c) == out.end())
        out.push_back(c);
    }
  };
  walk(stage);
  return out;
}

bool State::concrete() const {
  for (const Step& st : steps_)
    if (const SplitStep* sp = std::get_if<SplitStep>(&st))
      for (const auto& l : sp->lengths)
        if (!l) return false;
  for (const Stage& s : stages_)
    for (const Relation& r : s.relations)
      if (const SplitRelation* sp = std::get_if<SplitRelation>(&r))
        for (const auto& f : sp->factors)
          if (!f) return false;
  return true;
}

std::string State::toString() const {
  std::string out;
  std::vector<std::string> inputs;
  for (const Stage& s : stages_)
    if (s.is_placeholder) inputs.push_back(s.op);
  out += "placeholders: ";
  for (size_t i = 0; i < inputs.size(); ++i) out += (i ? ", " : "") + inputs[i];
  out += "\n";
  std::function<void(int, int)> printStage = [&](int si, int depth) {
    const Stage& s = stages_[si];
    int d = depth;
    auto indent = [&](int k) { return std::string(2 * k, ' '); };
    if (s.auto_unroll_max_step > 0)
      out += indent(d) + s.op + " auto_unroll: " + std::to_string(s.auto_unroll_max_step) + "\n";
    for (const Iterator& it : s.iters) {
      bool trivial = it.extent && *it.extent == 1 && it.annotation == IterAnnotation::None;
      if (!trivial) {
        const char* kw = it.annotation == IterAnnotation::None ? "for" : annotationName(it.annotation);
        out += indent(d) + kw + " " + it.name + " (0," + (it.extent ? std::to_string(*it.extent) : "?") + ")\n";
        ++d;
      }
      for (int a : attachedAt(s.op, it.name)) printStage(a, d);
    }
    out += indent(d) + s.op + " = ...\n";
  };
  for (size_t i = 0; i < stages_.size(); ++i) {
    const Stage& s = stages_[i];
    if (s.is_placeholder || s.location != ComputeLocation::Root) continue;
    printStage(static_cast<int>(i), 0);
  }
  return out;
}

}  // namespace ttune::schedule
