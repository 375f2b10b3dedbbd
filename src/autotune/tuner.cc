#include "autotune/tuner.h"

#include <chrono>
#include <cmath>
#include <map>

#include "support/log.h"
#include "support/timer.h"

namespace ttune::autotune {

using schedule::Record;

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

Tuner::Tuner(std::vector<TuneTaskSpec> tasks, TunerOptions options, CostModel& model, measure::Measurer& measurer)
    : specs_(std::move(tasks)), opt_(options), model_(model), measurer_(measurer), rng_(options.seed ^ 0x7475) {
  for (size_t i = 0; i < specs_.size(); ++i)
    search_.push_back(
        std::make_unique<SearchTask>(specs_[i].dag, specs_[i].workload_key, opt_.search, opt_.seed * 1000003 + i));
  best_history_.resize(specs_.size());
  rounds_.assign(specs_.size(), 0);
  trials_of_.assign(specs_.size(), 0);
  last_improve_trial_.assign(specs_.size(), 0);
  dead_.assign(specs_.size(), false);
}

int Tuner::preload(const std::vector<Record>& records, int64_t trials_already_done) {
  std::map<std::string, int> by_key;
  for (size_t i = 0; i < specs_.size(); ++i) by_key[specs_[i].workload_key] = static_cast<int>(i);
  std::vector<TrainingSample> samples;
  int used = 0;
  for (const Record& r : records) {
    auto it = by_key.find(r.workload_key);
    if (it == by_key.end()) continue;
    SearchTask& t = *search_[it->second];
    // Search states carry no layout rewrite (it is added when building).
    std::vector<schedule::Step> steps = withoutLayoutRewrites(r.steps);
    auto st = schedule::State::replay(t.dag(), steps);
    if (!st.ok()) {
      t.markMeasured(steps);
      continue;
    }
    double cost = r.result.ok() ? r.result.median() : kInf;
    t.addMeasured(*st, cost);
    trials_of_[it->second]++;
    ++used;
  }
  for (auto& t : search_) {
    auto s = t->trainingSamples();
    samples.insert(samples.end(), s.begin(), s.end());
  }
  if (!samples.empty()) model_.update(samples);
  trials_ = trials_at_start_ = trials_already_done;
  for (size_t i = 0; i < specs_.size(); ++i)
    if (trials_of_[i] > 0) {
      rounds_[i] = 1;
      best_history_[i].push_back(search_[i]->bestCost());
    }
  return used;
}

TunerProgress Tuner::snapshot() const {
  TunerProgress p;
  p.trials = trials_;
  p.trials_total = opt_.trials;
  p.elapsed_s = opt_.elapsed_offset_s + now() - start_;
  p.search_s = search_s_;
  p.build_s = build_s_;
  p.run_s = run_s_;
  p.current_task = current_;
  double est = 0, untuned = 0;
  for (size_t i = 0; i < specs_.size(); ++i) {
    const SearchTask& t = *search_[i];
    TaskProgress tp{specs_[i].workload_key, specs_[i].class_name, specs_[i].weight, trials_of_[i],
                    t.bestCost(),           t.defaultCost(),      dead_[i]};
    est += specs_[i].weight * tp.best_s;
    untuned += specs_[i].weight * tp.default_s;
    p.tasks.push_back(tp);
  }
  p.estimated_latency_s = est;
  p.untuned_latency_s = untuned;
  return p;
}

int Tuner::roundSize() const {
  int live = 0;
  for (size_t i = 0; i < specs_.size(); ++i) live += !dead_[i];
  int64_t left = opt_.trials - trials_ - inFlightTrials();
  // About four rounds per live task in what is left: small budgets reach many tasks, large ones
  // measure in full rounds.
  int64_t n = left / std::max<int64_t>(1, 4 * live);
  n = std::max<int64_t>(opt_.min_measures_per_round, std::min<int64_t>(opt_.measures_per_round, n));
  return static_cast<int>(std::min(n, left));
}

bool Tuner::outOfBudget() const {
  if (trials_ + inFlightTrials() >= opt_.trials) return true;
  return opt_.time_budget_s > 0 && now() - start_ >= opt_.time_budget_s;
}

int64_t Tuner::inFlightTrials() const {
  int64_t n = 0;
  for (const InFlight& f : in_flight_) n += static_cast<int64_t>(f.batch.size());
  return n;
}

bool Tuner::inFlight(int task) const {
  for (const InFlight& f : in_flight_)
    for (const auto& [ti, c] : f.batch)
      if (ti == task) return true;
  return false;
}

bool Tuner::wantsMore() const {
  if (in_flight_.empty()) return true;
  if (!measurer_.overlaps()) return false;
  return in_flight_.size() < 2 || inFlightTrials() < 2 * static_cast<int64_t>(measurer_.parallelism());
}

void Tuner::submit(Batch batch, const char* source, int task) {
  std::vector<measure::MeasureInput> inputs;
  for (const auto& [ti, c] : batch) {
    // Candidates ten times slower than the task's best so far are timed by their warm-up run only.
    double best = search_[ti]->bestCost();
    inputs.push_back({search_[ti]->dag(), c.build_steps, std::isfinite(best) ? 10 * best : 0.0});
    search_[ti]->markInFlight(c.state);
  }
  Timer tm;
  InFlight f;
  f.id = measurer_.submit(inputs);
  f.submit_s = tm.seconds();
  f.batch = std::move(batch);
  f.source = source;
  f.task = task;
  in_flight_.push_back(std::move(f));
}

void Tuner::recordOldest(const RecordSink& sink) {
  InFlight f = std::move(in_flight_.front());
  in_flight_.pop_front();
  Timer tm;
  std::vector<schedule::RecordResult> res = measurer_.collect(f.id);
  double run_sum = 0;
  for (const auto& r : res) run_sum += r.measure_s;
  run_s_ += run_sum;
  build_s_ += std::max(0.0, f.submit_s + tm.seconds() - run_sum);

  std::vector<Record> records;
  for (size_t k = 0; k < f.batch.size(); ++k) {
    const auto& [ti, c] = f.batch[k];
    SearchTask& t = *search_[ti];
    double before = t.bestCost();
    t.addMeasured(c.state, res[k].ok() ? res[k].median() : kInf);
    if (t.bestCost() < before) last_improve_trial_[ti] = trials_of_[ti] + 1;
    ++trials_;
    trials_of_[ti]++;
    Record rec;
    rec.workload_key = specs_[ti].workload_key;
    rec.kernel_class = specs_[ti].class_name;
    rec.class_id = specs_[ti].class_id;
    rec.target = opt_.target;
    rec.steps = c.build_steps;
    rec.result = res[k];
    rec.provenance = schedule::Provenance{opt_.model,
                                          opt_.run_id,
                                          f.source,
                                          trials_,
                                          opt_.elapsed_offset_s + now() - start_,
                                          f.task >= 0 ? opt_.model : ""};
    rec.provenance.baseline = opt_.search.baseline;
    records.push_back(std::move(rec));
  }
  if (sink) sink(records);
  // New samples for the shared cost model (training time counts as search).
  Timer ts;
  std::vector<TrainingSample> samples;
  for (size_t k = 0; k < f.batch.size(); ++k) {
    const auto& [ti, c] = f.batch[k];
    if (auto smp = search_[ti]->trainingSample(c.state, res[k].ok() ? res[k].median() : kInf))
      samples.push_back(std::move(*smp));
  }
  model_.update(samples);
  search_s_ += ts.seconds();

  if (f.task < 0) {  // defaults: each task has its first point
    for (const auto& [ti, c] : f.batch) {
      rounds_[ti] = std::max(rounds_[ti], 1);
      best_history_[ti].push_back(search_[ti]->bestCost());
    }
    return;
  }
  const int ti = f.task;
  best_history_[ti].push_back(search_[ti]->bestCost());
  if (opt_.early_stopping > 0 && trials_of_[ti] - last_improve_trial_[ti] >= opt_.early_stopping) dead_[ti] = true;
}

Tuner::Next Tuner::submitDefaults() {
  current_ = -1;
  Batch batch;
  for (; default_at_ < default_order_.size() && static_cast<int>(batch.size()) < opt_.defaults_per_batch;
       ++default_at_) {
    if (trials_ + inFlightTrials() + static_cast<int64_t>(batch.size()) >= opt_.trials) break;
    const int ti = default_order_[default_at_];
    if (auto c = search_[ti]->defaultCandidate()) batch.push_back({ti, std::move(*c)});
  }
  if (batch.empty()) {
    default_at_ = default_order_.size();  // the budget ends within the defaults
    return Next::Skipped;
  }
  submit(std::move(batch), "default", -1);
  return Next::Submitted;
}

Tuner::Next Tuner::submitRound(int ti) {
  SearchTask& t = *search_[ti];
  int n = roundSize();
  if (n <= 0) return Next::Exhausted;
  current_ = ti;
  Timer ts;
  std::vector<Candidate> cands = t.nextBatch(n, model_);
  search_s_ += ts.seconds();
  rounds_[ti]++;
  if (cands.empty()) {
    dead_[ti] = true;  // search space exhausted
    best_history_[ti].push_back(t.bestCost());
    return Next::Skipped;
  }
  Batch batch;
  for (Candidate& c : cands) batch.push_back({ti, std::move(c)});
  submit(std::move(batch), "tune", ti);
  return Next::Submitted;
}

Tuner::Next Tuner::submitNext() {
  if (default_at_ < default_order_.size()) return submitDefaults();
  // Tasks measured before (resumed runs) or whose default was measured have their first point; a
  // task with nothing at all gets one round so that the gradient sees it.
  for (size_t i = 0; i < specs_.size(); ++i)
    if (trials_of_[i] == 0 && rounds_[i] == 0 && !inFlight(static_cast<int>(i)))
      return submitRound(static_cast<int>(i));
  for (size_t i = 0; i < specs_.size(); ++i)
    if (!std::isfinite(search_[i]->bestCost()) && search_[i]->numMeasured() >= opt_.min_measures_per_round)
      dead_[i] = true;
  int t = chooseTask();
  if (t < 0) return Next::Exhausted;
  return submitRound(t);
}

int Tuner::chooseTask() {
  // Tasks without a valid schedule after warm-up cannot be improved by the gradient: dead.
  std::vector<int> live;
  for (size_t i = 0; i < specs_.size(); ++i)
    if (!dead_[i]) live.push_back(static_cast<int>(i));
  if (live.empty()) return -1;
  // A task without any valid schedule yet (its default failed) gets a round of its own first.
  for (int i : live)
    if (!std::isfinite(search_[i]->bestCost())) return i;
  // Similarity groups: same class and FLOP magnitude.
  auto tag = [&](size_t i) {
    double fl = specs_[i].dag->flops();
    return specs_[i].class_id + ":" + std::to_string(static_cast<int>(std::log(fl + 1) / std::log(1.618)));
  };
  double best_grad = kInf;
  int pick = -1;
  for (int i : live) {
    double g = search_[i]->bestCost();
    if (!std::isfinite(g)) continue;
    double chain = specs_[i].weight;
    const auto& h = best_history_[i];
    int W = opt_.backward_window;
    double backward = h.size() > static_cast<size_t>(W) ? (h.back() - h[h.size() - 1 - W]) / W : 0.0;
    if (!std::isfinite(backward)) backward = 0;
    double t = std::max(1, rounds_[i]);
    double g_next1 = g - g / t;
    double g_next2 = opt_.beta * 1e30;
    int members = 0;
    double best_speed = 0;
    for (size_t j = 0; j < specs_.size(); ++j) {
      if (tag(j) != tag(i)) continue;
      ++members;
      double gj = search_[j]->bestCost();
      if (std::isfinite(gj)) best_speed = std::max(best_speed, specs_[j].dag->flops() / gj);
    }
    if (members >= 2 && best_speed > 0) g_next2 = opt_.beta * specs_[i].dag->flops() / best_speed;
    double forward = std::min(g_next1, g_next2) - g;
    double grad = chain * (opt_.alpha * backward + (1 - opt_.alpha) * forward);
    if (grad < best_grad) {
      best_grad = grad;
      pick = i;
    }
  }
  if (pick < 0) pick = live[rng_.index(live.size())];
  return pick;
}

TunerProgress Tuner::run(const RecordSink& sink, const ProgressFn& progress) {
  start_ = now();
  // Heaviest tasks first (occurrences x FLOPs), so the first committed batch matters most.
  default_order_.clear();
  default_at_ = 0;
  for (size_t i = 0; i < specs_.size(); ++i)
    if (search_[i]->defaultCandidate()) default_order_.push_back(static_cast<int>(i));
  std::stable_sort(default_order_.begin(), default_order_.end(), [&](int a, int b) {
    return specs_[a].weight * specs_[a].dag->flops() > specs_[b].weight * specs_[b].dag->flops();
  });
  for (;;) {
    while (!outOfBudget() && wantsMore()) {
      Next n = submitNext();
      if (n == Next::Exhausted) break;
      if (n == Next::Skipped && progress) progress(snapshot());
    }
    if (in_flight_.empty()) break;
    recordOldest(sink);
    if (progress) progress(snapshot());
  }
  return snapshot();
}

}  // namespace ttune::autotune
