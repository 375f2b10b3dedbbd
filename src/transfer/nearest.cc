#include "transfer/nearest.h"

#include <algorithm>
#include <set>
#include <type_traits>

#include "graph/fusion.h"
#include "schedule/state.h"
#include "support/strings.h"

namespace ttune::transfer {

using schedule::Step;

namespace {

// A class name's or a stage's operator is padding.
bool isPadding(const std::string& name) { return graph::operatorName(name) == "pad"; }

// The class name's operators without padding, split after the anchor: {anchor, epilogue}.
std::pair<std::string, std::vector<std::string>> splitClass(const std::string& name) {
  std::vector<std::string> parts = split(name, '+');
  std::erase_if(parts, isPadding);
  if (parts.empty()) return {};
  return {parts[0], std::vector<std::string>(parts.begin() + 1, parts.end())};
}

int editDistance(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Calls f on every stage name a step mentions (its stage, a compute_at target, cache readers).
template <class S, class F>
void forEachStageName(S& step, F&& f) {
  std::visit(
      [&](auto& x) {
        using T = std::decay_t<decltype(x)>;
        f(x.stage);
        if constexpr (std::is_same_v<T, schedule::ComputeAtStep>) f(x.target_stage);
        if constexpr (std::is_same_v<T, schedule::CacheReadStep>)
          for (auto& r : x.readers) f(r);
      },
      step);
}

// Stages a step adds to the schedule (cache copies, rfactor stages), named as replay names them.
std::vector<std::string> createdBy(const Step& s) {
  if (auto* c = std::get_if<schedule::CacheWriteStep>(&s)) return {c->stage + "." + c->scope};
  if (auto* c = std::get_if<schedule::CacheReadStep>(&s)) return {c->stage + "." + c->scope};
  if (auto* c = std::get_if<schedule::RfactorStep>(&s)) return {c->stage + ".rf"};
  return {};
}

}  // namespace

int classDistance(const std::string& a, const std::string& b) {
  if (a == b) return -1;
  auto [pa, ea] = splitClass(a);
  auto [pb, eb] = splitClass(b);
  if (pa != pb || pa.empty()) return -1;
  return editDistance(ea, eb);
}

std::vector<std::string> paddingVariants(const std::string& class_id, const std::string& class_name,
                                         const std::map<std::string, std::string>& known) {
  std::vector<std::string> out;
  for (const auto& [id, name] : known)
    if (id != class_id && splitClass(name) == splitClass(class_name)) out.push_back(id);
  return out;
}

std::vector<std::string> nearestClasses(const std::string& class_name, const std::map<std::string, std::string>& known,
                                        int max_distance) {
  std::vector<std::pair<int, std::string>> near;
  for (const auto& [id, name] : known) {
    int d = classDistance(class_name, name);
    if (d >= 0 && d <= max_distance) near.push_back({d, id});
  }
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, id] : near)
    if (d == near.front().first) out.push_back(id);
  return out;
}

Expected<std::vector<Step>> remapStages(const std::vector<Step>& steps,
                                        const std::shared_ptr<const te::ComputeDAG>& dag) {
  if (dag->outputs().size() != 1) return Unexpected("the kernel has several outputs");
  const std::string output = dag->outputs()[0].op().name();
  schedule::State init(dag);
  std::set<std::string> target;
  for (const schedule::Stage& s : init.stages())
    if (!s.is_placeholder) target.insert(s.op);

  // Names the source schedule mentions that this kernel does not have.
  std::set<std::string> created, inlined, missing_inlined, missing_other;
  bool output_used = false;       // by the source, other than inlining it
  std::set<std::string> dropped;  // padding stages this kernel lacks: every step of theirs goes
  for (const Step& s : steps) {
    const std::string& own = schedule::stepStage(s);
    if (isPadding(own) && !target.count(own)) {
      if (!createdBy(s).empty())
        return Unexpected("the schedule caches padding stage " + own + ", which this kernel lacks");
      dropped.insert(own);
      continue;
    }
    bool inl = std::holds_alternative<schedule::ComputeInlineStep>(s);
    forEachStageName(s, [&](const std::string& n) {
      if (n == output && !inl) output_used = true;
      if (target.count(n) || created.count(n)) return;
      (inl ? missing_inlined : missing_other).insert(n);
    });
    for (const std::string& c : createdBy(s)) created.insert(c);
  }
  for (const std::string& n : missing_other) missing_inlined.erase(n);
  for (const std::string& n : missing_other)
    if (isPadding(n)) return Unexpected("the schedule places padding stage " + n + ", which this kernel lacks");
  std::map<std::string, std::string> rename;
  if (missing_other.size() > 1)
    return Unexpected("the schedule uses " + std::to_string(missing_other.size()) + " stages this kernel lacks");
  if (missing_other.size() == 1) {
    // The source's output stage (the one its loops are built on) becomes this kernel's output.
    if (output_used)
      return Unexpected("the schedule uses stage " + *missing_other.begin() + ", which this kernel lacks");
    const std::string& from = *missing_other.begin();
    rename[from] = output;
    for (const std::string& c : created)
      if (c.size() > from.size() && c.compare(0, from.size() + 1, from + ".") == 0)
        rename[c] = output + c.substr(from.size());
  }

  std::vector<Step> kept;
  std::vector<int> new_index(steps.size(), -1);
  std::set<std::string> mentioned;
  for (size_t i = 0; i < steps.size(); ++i) {
    Step s = steps[i];
    if (dropped.count(schedule::stepStage(s))) continue;
    if (auto* in = std::get_if<schedule::ComputeInlineStep>(&s)) {
      if (missing_inlined.count(in->stage) || in->stage == output || rename.count(in->stage)) continue;
    }
    forEachStageName(s, [&](std::string& n) {
      auto it = rename.find(n);
      if (it != rename.end()) n = it->second;
      mentioned.insert(n);
    });
    new_index[i] = static_cast<int>(kept.size());
    kept.push_back(std::move(s));
  }
  // This kernel's extra element-wise stages are inlined, as the sketch rules would.
  std::vector<Step> out;
  for (const schedule::Stage& s : init.stages())
    if (!s.is_placeholder && s.op != output && !mentioned.count(s.op) && !s.isReduction())
      out.push_back(schedule::ComputeInlineStep{s.op});
  const int shift = static_cast<int>(out.size());
  for (Step& s : kept) {
    bool ok = true;
    auto renumber = [&](int& src) {
      if (src < 0 || src >= static_cast<int>(new_index.size()) || new_index[src] < 0)
        ok = false;
      else
        src = new_index[src] + shift;
    };
    if (auto* f = std::get_if<schedule::FollowSplitStep>(&s)) renumber(f->src_step);
    if (auto* f = std::get_if<schedule::FollowFusedSplitStep>(&s))
      for (int& src : f->src_steps) renumber(src);
    if (!ok) return Unexpected("a follow split refers to a step that was dropped");
    out.push_back(std::move(s));
  }
  auto st = schedule::State::replay(dag, out);
  if (!st.ok()) return Unexpected(st.error());
  return out;
}

}  // namespace ttune::transfer
