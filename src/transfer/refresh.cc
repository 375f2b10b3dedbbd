#include "transfer/refresh.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "measure/builder.h"
#include "support/timer.h"

namespace ttune::transfer {

namespace {

// The bank's best `n` distinct schedules of a workload other than `default_steps`, fastest
// stored time first: records of this CPU and ISA level, else of any CPU of the level.
std::vector<schedule::Record> bankSchedules(const store::Bank& bank, const std::string& workload,
                                            const schedule::TargetInfo& here, const std::string& default_key, int n) {
  store::RecordQuery q;
  q.workload_key = workload;
  q.ok_only = true;
  std::vector<schedule::Record> recs;
  for (store::TargetFilter f :
       {store::TargetFilter{here.cpu, here.vector_bits, 0, here.isa}, store::TargetFilter::sameIsa(here)}) {
    q.target = f;
    recs = bank.records(q);
    if (!recs.empty()) break;
  }
  std::stable_sort(recs.begin(), recs.end(), [](const schedule::Record& a, const schedule::Record& b) {
    return a.result.median() < b.result.median();
  });
  std::set<std::string> seen{default_key};
  std::vector<schedule::Record> out;
  for (schedule::Record& r : recs) {
    if (static_cast<int>(out.size()) >= n) break;
    if (seen.insert(store::stepsKey(r.steps)).second) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

RefreshResult refreshRecords(const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                             const RefreshOptions& opt, const RecordSink& sink, const ProgressFn& progress) {
  RefreshResult res;
  Timer wall;
  measure::MeasureOptions mo = opt.measure;
  mo.timing.repeat = 1;  // the rounds are the repeats
  measure::Measurer measurer(mo);
  const schedule::Target& code = opt.measure.target;
  std::vector<graph::TunableKernel> todo = graph::tunableKernels(kernels);
  int64_t trial = 0;
  for (size_t i = 0; i < todo.size(); ++i) {
    const graph::Kernel& k = *todo[i].kernel;
    if (progress) progress({static_cast<int>(i), static_cast<int>(todo.size()), trial, wall.seconds(), k.class_name});
    std::vector<schedule::Step> def = measure::defaultScheduleFor(*k.dag, code);
    std::vector<schedule::Record> cands =
        bankSchedules(bank, k.workload_key, opt.target, store::stepsKey(def), opt.candidates);
    // One batch per kernel: the default and the bank's schedules measured side by side.
    std::vector<measure::MeasureInput> inputs{{k.dag, def}};
    for (const schedule::Record& c : cands) inputs.push_back({k.dag, c.steps});
    measure::SideBySide sbs = measurer.compareSideBySide(inputs, opt.protocol);
    const std::vector<schedule::RecordResult>& results = sbs.results;
    RefreshedKernel out;
    out.workload_key = k.workload_key;
    out.class_name = k.class_name;
    out.occurrences = todo[i].occurrences;
    out.candidates = static_cast<int>(cands.size());
    out.default_s = sbs.median_s[0];
    std::vector<schedule::Record> recs;
    for (size_t c = 0; c < inputs.size(); ++c) {
      schedule::Record r;
      r.workload_key = k.workload_key;
      r.kernel_class = k.class_name;
      r.class_id = k.class_id;
      r.target = opt.target;
      r.steps = inputs[c].steps;
      r.result = results[c];
      // A bank schedule keeps how it was found (source, origin: a tuning record stays a transfer
      // candidate once exported, e.g. into the shipped bank); the run is the refresh.
      r.provenance = c == 0 ? schedule::Provenance{opt.model, opt.run_id, "default", ++trial, wall.seconds(), ""}
                            : schedule::Provenance{opt.model, opt.run_id,     cands[c - 1].provenance.source,
                                                   ++trial,   wall.seconds(), cands[c - 1].provenance.origin};
      if (c > 0 && r.result.ok() && (!out.best || sbs.speedup[c].median > out.speedup.median)) {
        out.best = r;
        out.stored_s = cands[c - 1].result.median();
        out.speedup = sbs.speedup[c];
      }
      recs.push_back(std::move(r));
    }
    if (sink) sink(recs);
    res.measured.insert(res.measured.end(), recs.begin(), recs.end());
    res.kernels.push_back(std::move(out));
  }
  res.wall_s = wall.seconds();
  if (progress) progress({static_cast<int>(todo.size()), static_cast<int>(todo.size()), trial, res.wall_s, ""});
  return res;
}

}  // namespace ttune::transfer

namespace ttune::transfer {

namespace {

// Each kernel keeps the bank's schedule when it beat today's default side by side beyond the
// spread; the model's figures are the occurrence-weighted sums of the kernels' side-by-side times.
ModelCheck kernelLevelChoice(const RefreshResult& r) {
  std::map<std::string, schedule::Record> defaults;
  for (schedule::Record& d : defaultRecords(r.measured)) defaults.emplace(d.workload_key, std::move(d));
  std::vector<schedule::Record> chosen;
  double defaults_s = 0, picks_s = 0;
  int changed = 0;
  for (const RefreshedKernel& k : r.kernels) {
    const bool gain = k.best && k.speedup.gain();
    defaults_s += k.occurrences * k.default_s;
    picks_s += k.occurrences * (gain ? k.default_s / k.speedup.median : k.default_s);
    changed += gain;
    if (gain) {
      chosen.push_back(*k.best);
    } else if (auto d = defaults.find(k.workload_key); d != defaults.end()) {
      chosen.push_back(d->second);
    }
  }
  return kernelLevelCheck(chosen, defaults_s, picks_s, changed);
}

}  // namespace

RefreshOutcome refreshChoice(const graph::Graph& g, const std::vector<graph::Kernel>& kernels, const store::Bank& bank,
                             const RefreshOptions& opt, const RecordSink& sink, const ProgressFn& progress,
                             const std::function<void(const char*)>& phase) {
  RefreshOutcome out;
  out.refreshed = refreshRecords(kernels, bank, opt, sink, progress);
  out.wall_s = out.refreshed.wall_s;
  if (!opt.whole_model) {
    out.check = kernelLevelChoice(out.refreshed);
    return out;
  }
  // Isolated times rank candidates that can lose their edge in the model: the picks are
  // re-ranked inside it, then checked as a whole model against the defaults.
  if (phase) phase("re-ranking each kernel's schedules inside the model");
  RefineOptions ro;
  ro.target = opt.measure.target;
  ro.candidates = opt.candidates + 1;
  // A bank schedule that did not beat the default side by side is no candidate in the model.
  std::set<std::string> beaten;
  for (const RefreshedKernel& k : out.refreshed.kernels)
    if (k.best && k.speedup.gain()) beaten.insert(k.workload_key);
  std::vector<schedule::Record> cands;
  for (const schedule::Record& r : out.refreshed.measured)
    if (r.provenance.source == "default" || beaten.count(r.workload_key)) cands.push_back(r);
  out.refined = refineInModel(g, cands, ro);
  if (phase) phase("timing the model with its defaults and with the bank's picks");
  ModelCheckOptions co;
  co.target = opt.measure.target;
  out.check = checkModel(g, out.refined.chosen, defaultRecords(out.refreshed.measured), co);
  return out;
}

}  // namespace ttune::transfer
