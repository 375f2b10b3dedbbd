#include "autotune/search_task.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "measure/builder.h"
#include "runtime/thread_pool.h"
#include "schedule/record.h"
#include "schedule/step.h"
#include "support/hash.h"

namespace ttune::autotune {

using schedule::State;

namespace {

// Runs fn(i) for i in [0, n) on `threads` threads (deterministic results: fn writes slot i).
void parallelFor(int n, int threads, const std::function<void(int)>& fn) {
  threads = std::max(1, std::min(threads, n));
  if (threads == 1) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

uint64_t mixSeed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return Hasher().add(a).add(b).add(c).add(d).value();
}

}  // namespace

std::string SearchTask::stepsKey(const std::vector<schedule::Step>& steps) {
  // The printed form names every field that distinguishes steps, except a split's extent (fixed
  // by the steps before it, added anyway); it is several times cheaper than the JSON record form,
  // and keys are computed for every state the search scores.
  Hasher h;
  for (const auto& s : steps) {
    h.add(std::string_view(schedule::stepToString(s)));
    if (const auto* sp = std::get_if<schedule::SplitStep>(&s)) h.add(sp->extent.value_or(-1));
  }
  return toHex(h.value());
}

std::string SearchTask::stateKey(const State& s) { return stepsKey(s.steps()); }

SearchTask::SearchTask(std::shared_ptr<const te::ComputeDAG> dag, std::string workload_key, SearchOptions options,
                       uint64_t seed)
    : dag_(std::move(dag)), key_(std::move(workload_key)), opt_(options), seed_(seed) {
  if (opt_.threads <= 0) opt_.threads = runtime::defaultNumThreads();
  opt_.sampler.target = opt_.target;
  opt_.sketch.int8_group = opt_.target.int8_group;
  opt_.sketch.bf16_group = opt_.target.bf16_group;
  sketches_ = generateSketches(dag_, opt_.sketch);
  if (opt_.seed_with_default) {
    // The untuned baseline the executor would run. Search states carry no layout rewrite
    // (finalizeForMeasurement adds them to what is searched); the default keeps its own steps.
    std::vector<schedule::Step> steps = measure::defaultScheduleFor(*dag_, opt_.target, opt_.baseline);
    auto d = State::replay(dag_, withoutLayoutRewrites(steps));
    if (d.ok()) {
      default_state_ = std::move(*d);
      default_steps_ = std::move(steps);
    }
  }
}

const StateFeatures* SearchTask::features(const State& s, const std::string& key) {
  auto it = feature_cache_.find(key);
  if (it != feature_cache_.end()) return it->second ? &*it->second : nullptr;
  return nullptr;
}

std::vector<double> SearchTask::score(const std::vector<State>& states, const std::vector<std::string>& keys,
                                      CostModel& model) {
  // Features of new states in parallel, then one prediction call.
  std::vector<int> missing;
  for (size_t i = 0; i < states.size(); ++i)
    if (!feature_cache_.count(keys[i])) {
      feature_cache_[keys[i]] = std::nullopt;  // placeholder, filled below
      missing.push_back(static_cast<int>(i));
    }
  std::vector<std::optional<StateFeatures>> computed(missing.size());
  parallelFor(static_cast<int>(missing.size()), opt_.threads, [&](int m) {
    auto f = featuresOf(states[missing[m]]);
    if (f.ok()) computed[m] = std::move(*f);
  });
  for (size_t m = 0; m < missing.size(); ++m) feature_cache_[keys[missing[m]]] = std::move(computed[m]);
  std::vector<StateFeatures> feats;
  std::vector<int> valid;
  for (size_t i = 0; i < states.size(); ++i) {
    const auto& f = feature_cache_.at(keys[i]);
    if (!f) continue;
    valid.push_back(static_cast<int>(i));
    feats.push_back(*f);
  }
  std::vector<double> out(states.size(), -std::numeric_limits<double>::infinity());
  if (feats.empty()) return out;
  std::vector<double> pred = model.predict(feats);
  for (size_t k = 0; k < valid.size(); ++k) out[valid[k]] = pred[k];
  return out;
}

std::vector<State> SearchTask::initPopulation(uint64_t round_seed) {
  std::vector<State> pop;
  std::unordered_set<std::string> seen;
  if (sketches_.empty()) return pop;
  // Sample in batches until enough unique valid states (giving up after a few empty batches).
  int empty_batches = 0;
  int batch = std::max(opt_.init_min_population, 64);
  for (int b = 0; static_cast<int>(pop.size()) < opt_.init_min_population && empty_batches < 5; ++b) {
    std::vector<std::optional<State>> drawn(batch);
    parallelFor(batch, opt_.threads, [&](int i) {
      Rng rng(mixSeed(round_seed, 1, b, i));
      drawn[i] = sampleState(sketches_[rng.index(sketches_.size())], rng, opt_.sampler);
    });
    size_t before = pop.size();
    for (auto& d : drawn) {
      if (!d) continue;
      std::string k = stateKey(*d);
      if (seen.insert(k).second) pop.push_back(std::move(*d));
    }
    empty_batches = pop.size() == before ? empty_batches + 1 : 0;
  }
  // The default schedule joins until it is measured, then competes as a measured state.
  if (default_state_ && seen.insert(stateKey(*default_state_)).second &&
      !measured_keys_.count(stateKey(*default_state_)))
    pop.push_back(*default_state_);
  // The best measured states join the population.
  std::vector<std::pair<double, const State*>> best;
  for (const auto& [s, c] : measured_)
    if (std::isfinite(c)) best.push_back({c, &s});
  std::sort(best.begin(), best.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t keep = std::min(best.size(), static_cast<size_t>(opt_.use_measured_ratio * opt_.population));
  for (size_t i = 0; i < keep; ++i)
    if (seen.insert(stateKey(*best[i].second)).second) pop.push_back(*best[i].second);
  return pop;
}

std::vector<State> SearchTask::incumbentNeighbours(int want, uint64_t round_seed, CostModel& model) {
  std::vector<const std::pair<State, double>*> best;
  for (const auto& m : measured_)
    if (std::isfinite(m.second)) best.push_back(&m);
  if (best.empty() || want <= 0) return {};
  const size_t top = std::min<size_t>(best.size(), 3);
  std::partial_sort(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(top), best.end(),
                    [](const auto* a, const auto* b) { return a->second < b->second; });
  // Half of the draws mutate the best state, the rest the runners-up; a third take a second step.
  const int draws = 8 * want;
  std::vector<std::optional<State>> drawn(draws);
  parallelFor(draws, opt_.threads, [&](int i) {
    Rng r(mixSeed(round_seed, 97, i, 0));
    size_t parent = (i % 2 == 0 || top == 1) ? 0 : 1 + static_cast<size_t>(i / 2) % (top - 1);
    auto m = mutateState(best[parent]->first, r, opt_.sampler);
    if (m && r.bernoulli(1.0 / 3)) {
      if (auto m2 = mutateState(*m, r, opt_.sampler)) m = std::move(m2);
    }
    drawn[i] = std::move(m);
  });
  std::vector<State> pool;
  std::vector<std::string> keys;
  std::unordered_set<std::string> seen;
  for (auto& d : drawn) {
    if (!d) continue;
    std::string k = stateKey(*d);
    if (taken(k) || !seen.insert(k).second) continue;
    pool.push_back(std::move(*d));
    keys.push_back(std::move(k));
  }
  std::vector<double> sc = score(pool, keys, model);
  std::vector<size_t> order;
  for (size_t i = 0; i < pool.size(); ++i)
    if (std::isfinite(sc[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sc[a] > sc[b]; });
  std::vector<State> out;
  for (size_t i = 0; i < order.size() && static_cast<int>(out.size()) < want; ++i) out.push_back(pool[order[i]]);
  return out;
}

std::vector<schedule::Step> SearchTask::stepsToMeasure(const State& s, const std::string& key) const {
  if (default_state_ && key == stateKey(*default_state_)) return default_steps_;
  return finalizeForMeasurement(s);
}

std::optional<Candidate> SearchTask::defaultCandidate() const {
  if (!default_state_ || taken(stateKey(*default_state_))) return std::nullopt;
  return Candidate{*default_state_, default_steps_};
}

std::vector<Candidate> SearchTask::nextBatch(int n, CostModel& model) {
  uint64_t round_seed = mixSeed(seed_, round_++, 0, 0);
  const int population = std::min(opt_.population, std::max(opt_.min_population, opt_.population_per_candidate * n));
  Rng rng(round_seed);
  std::vector<State> init = initPopulation(round_seed);
  if (init.empty()) return {};
  int num_random = static_cast<int>(opt_.eps_greedy * n);

  // Evolution: keep the best 2n unmeasured states seen in any generation.
  size_t out_size = static_cast<size_t>(2 * n);
  std::vector<std::pair<double, State>> heap;  // (score, state), best first after sorting
  std::unordered_set<std::string> in_heap;
  std::vector<State> pop = init;
  for (int gen = 0; gen <= opt_.generations; ++gen) {
    std::vector<std::string> keys;
    for (const State& s : pop) keys.push_back(stateKey(s));
    std::vector<double> sc = score(pop, keys, model);
    for (size_t i = 0; i < pop.size(); ++i) {
      if (!std::isfinite(sc[i]) || taken(keys[i]) || in_heap.count(keys[i])) continue;
      heap.push_back({sc[i], pop[i]});
      in_heap.insert(keys[i]);
    }
    std::stable_sort(heap.begin(), heap.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (heap.size() > out_size) {
      for (size_t i = out_size; i < heap.size(); ++i) in_heap.erase(stateKey(heap[i].second));
      heap.resize(out_size);
    }
    if (gen == opt_.generations) break;
    // Next generation: roulette-wheel parents on max(score, 0), mutated with mutation_prob.
    std::vector<double> prefix(pop.size());
    double acc = 0;
    for (size_t i = 0; i < pop.size(); ++i) {
      acc += std::isfinite(sc[i]) ? std::max(sc[i], 0.0) : 0.0;
      prefix[i] = acc;
    }
    int size = population;
    std::vector<std::optional<State>> next(size);
    parallelFor(size, opt_.threads, [&](int i) {
      Rng r(mixSeed(round_seed, 2 + gen, i, 0));
      for (int attempt = 0; attempt < 4; ++attempt) {
        size_t p = acc > 0 ? static_cast<size_t>(std::lower_bound(prefix.begin(), prefix.end(), r.uniform() * acc) -
                                                 prefix.begin())
                           : r.index(pop.size());
        p = std::min(p, pop.size() - 1);
        if (!r.bernoulli(opt_.mutation_prob)) {
          next[i] = pop[p];
          return;
        }
        auto m = mutateState(pop[p], r, opt_.sampler);
        if (m) {
          next[i] = std::move(*m);
          return;
        }
      }
    });
    pop.clear();
    for (auto& s : next)
      if (s) pop.push_back(std::move(*s));
    if (pop.empty()) break;
  }

  // Eps-greedy pick: mostly the best predicted, a few random draws from the initial population.
  std::vector<Candidate> out;
  std::unordered_set<std::string> picked;
  auto take = [&](const State& s) {
    std::string k = stateKey(s);
    if (taken(k) || !picked.insert(k).second) return false;
    out.push_back(Candidate{s, stepsToMeasure(s, k)});
    return true;
  };
  // The first batch measures the default schedule: the tuned result is then never worse than
  // the untuned one, and evolution refines a good schedule from the first round.
  if (default_state_ && n > 0) take(*default_state_);
  // Local search around the incumbents: a quarter of the batch. Roulette selection over hundreds
  // of sampled states rarely breeds from the one strong default, so a kernel whose default beats
  // every sampled schedule (Winograd products, memory-bound layers) was never improved on.
  const int local = n >= 2 ? std::max(1, n / 4) : 0;
  for (const State& s : incumbentNeighbours(local, round_seed, model)) take(s);
  for (const auto& [sc, s] : heap) {
    if (static_cast<int>(out.size()) >= n - num_random) break;
    take(s);
  }
  std::vector<size_t> order(init.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  rng.shuffle(order);
  for (size_t i : order) {
    if (static_cast<int>(out.size()) >= n) break;
    take(init[i]);
  }
  for (const auto& [sc, s] : heap) {  // fill up when random draws ran out
    if (static_cast<int>(out.size()) >= n) break;
    take(s);
  }
  return out;
}

double SearchTask::defaultCost() const { return default_cost_; }

void SearchTask::markInFlight(const State& state) { in_flight_keys_.insert(stateKey(state)); }

void SearchTask::addMeasured(const State& state, double cost_s) {
  std::string k = stateKey(state);
  in_flight_keys_.erase(k);
  if (!measured_keys_.insert(k).second) return;
  if (default_state_ && k == stateKey(*default_state_)) default_cost_ = cost_s;
  measured_.push_back({state, cost_s});
  if (std::isfinite(cost_s) && cost_s < best_cost_) {
    best_cost_ = cost_s;
    best_state_ = state;
  }
}

void SearchTask::markMeasured(const std::vector<schedule::Step>& steps) { measured_keys_.insert(stepsKey(steps)); }

std::optional<TrainingSample> SearchTask::trainingSample(const State& s, double cost_s) const {
  auto it = feature_cache_.find(stateKey(s));
  if (it != feature_cache_.end() && it->second) return TrainingSample{*it->second, key_, cost_s};
  auto f = featuresOf(s);
  if (!f.ok()) return std::nullopt;
  return TrainingSample{std::move(*f), key_, cost_s};
}

std::vector<TrainingSample> SearchTask::trainingSamples() const {
  std::vector<TrainingSample> out;
  for (const auto& [s, c] : measured_)
    if (auto t = trainingSample(s, c)) out.push_back(std::move(*t));
  return out;
}

}  // namespace ttune::autotune
