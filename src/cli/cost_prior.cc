#include "cli/cost_prior.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "autotune/features.h"
#include "autotune/sampler.h"
#include "support/timer.h"

namespace ttune::cli {

namespace {

using Group = std::vector<const schedule::Record*>;

double costOf(const schedule::Record& r) {
  return r.result.ok() ? r.result.median() : std::numeric_limits<double>::infinity();
}

// Up to `keep` records of one group: the best quarter, then the rest evenly by time (failures,
// sorted last, included).
Group sample(Group g, size_t keep) {
  std::stable_sort(g.begin(), g.end(), [](auto* a, auto* b) { return costOf(*a) < costOf(*b); });
  if (g.size() <= keep) return g;
  const size_t best = keep / 4;
  Group out(g.begin(), g.begin() + static_cast<std::ptrdiff_t>(best));
  const size_t rest = keep - best, span = g.size() - best;
  for (size_t i = 0; i < rest; ++i) out.push_back(g[best + i * span / rest]);
  return out;
}

// The largest per-group count whose total stays within `budget`.
size_t perGroupWithin(const std::vector<size_t>& sizes, size_t cap, size_t budget) {
  size_t lo = 0, hi = cap;
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2, total = 0;
    for (size_t s : sizes) total += std::min(s, mid);
    if (total <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Groups with at least two working schedules, keyed "workload @ cpu/threads".
std::map<std::string, Group> groupsOf(const std::vector<schedule::Record>& records) {
  std::map<std::string, Group> all;
  for (const schedule::Record& r : records)
    all[r.workload_key + " @ " + r.target.cpu + "/" + std::to_string(r.target.threads)].push_back(&r);
  std::map<std::string, Group> out;
  for (auto& [key, g] : all) {
    size_t ok = std::count_if(g.begin(), g.end(), [](auto* r) { return r->result.ok(); });
    if (ok >= 2) out.emplace(key, std::move(g));
  }
  return out;
}

}  // namespace

CostPrior bankCostPrior(const store::Bank& bank, const std::string& model, const schedule::TargetInfo& target,
                        SourceDags& dags, const CostPriorOptions& opt) {
  Timer timer;
  CostPrior out;
  store::RecordQuery q;
  q.exclude_model = model;
  q.target = store::TargetFilter::exactly(target);
  std::vector<schedule::Record> own = bank.records(q);
  q.target = store::TargetFilter::sameIsa(target);
  std::vector<schedule::Record> other;
  for (schedule::Record& r : bank.records(q))
    if (!(r.target == target)) other.push_back(std::move(r));
  out.records = own.size() + other.size();

  // This machine's groups first; the others fill what is left of the cap.
  std::vector<std::pair<std::string, Group>> chosen;
  size_t budget = opt.max_samples;
  for (const auto* records : {&own, &other}) {
    std::map<std::string, Group> groups = groupsOf(*records);
    std::vector<size_t> sizes;
    for (const auto& [k, g] : groups) sizes.push_back(g.size());
    size_t per = perGroupWithin(sizes, opt.per_group, budget);
    if (per < 2) continue;
    for (auto& [k, g] : groups) {
      Group s = sample(std::move(g), per);
      budget -= s.size();
      out.groups++;
      out.other_groups += records == &other;
      chosen.emplace_back(k, std::move(s));
    }
  }

  // Replay every chosen record on its kernel, then featurize them all in parallel.
  std::vector<schedule::State> states;
  std::vector<std::pair<const std::string*, double>> labels;  // (task, cost) per state
  for (const auto& [key, g] : chosen)
    for (const schedule::Record* r : g) {
      std::shared_ptr<const te::ComputeDAG> dag = dags(r->workload_key);
      if (!dag) {
        out.skipped++;
        continue;
      }
      auto st = schedule::State::replay(dag, autotune::withoutLayoutRewrites(r->steps));
      if (!st.ok()) {
        out.skipped++;
        continue;
      }
      states.push_back(std::move(*st));
      labels.emplace_back(&key, costOf(*r));
    }
  std::vector<autotune::StateFeatures> features = autotune::featuresOfAll(states, opt.threads);
  for (size_t i = 0; i < states.size(); ++i) {
    if (!features[i].valid()) {
      out.skipped++;
      continue;
    }
    out.samples.push_back({std::move(features[i]), *labels[i].first, labels[i].second});
  }
  out.seconds = timer.seconds();
  return out;
}

}  // namespace ttune::cli
