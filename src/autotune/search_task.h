// SearchTask: the Ansor-style search for one workload (Ansor §5.1). Each round proposes a
// batch of unmeasured candidates: an initial population sampled from the sketches (plus the best
// measured states and the default schedule), evolved for a few generations by mutation with
// roulette-wheel selection on the cost model's scores, and picked eps-greedily (mostly the best
// predicted, a few random). The first batch also measures the default schedule itself, so a
// tuned kernel is never slower than the untuned one.
//
// States are identified by their step list (so duplicates and measured states are never
// proposed twice). Features are cached per state; scores are recomputed each round because the
// model is retrained between rounds. Deterministic for a seed: every random draw comes from a
// generator derived from (seed, round, generation, slot), whatever the thread count.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "autotune/cost_model.h"
#include "autotune/sampler.h"
#include "autotune/sketch.h"
#include "codegen/target.h"
#include "schedule/baseline.h"
#include "schedule/state.h"

namespace ttune::autotune {

struct SearchOptions {
  int population = 2048;
  int min_population = 256;
  int population_per_candidate = 32;
  int generations = 4;
  double mutation_prob = 0.85;
  double eps_greedy = 0.05;
  int init_min_population = 50;
  double use_measured_ratio = 0.2;
  // Measure the default schedule in the first batch and evolve from it too (not in Ansor).
  bool seed_with_default = true;
  int threads = 0;                                  // 0: one per core
  schedule::Target target = codegen::hostTarget();  // the default schedule and register budgets follow it
  // Which default schedule seeds the search (seed_with_default): the basic baseline's is what the
  // paper's Ansor started from at most (it measures no hand-made default).
  schedule::Baseline baseline = schedule::Baseline::Strong;
  SketchOptions sketch;
  SamplerOptions sampler;
};

// A candidate chosen for measurement: the search state (features, identity) and the steps to
// build and record (the state's steps plus layout rewrites).
struct Candidate {
  schedule::State state;
  std::vector<schedule::Step> build_steps;
};

class SearchTask {
 public:
  SearchTask(std::shared_ptr<const te::ComputeDAG> dag, std::string workload_key, SearchOptions options, uint64_t seed);

  // Up to n candidates never measured before (fewer when the space is exhausted). The
  // population shrinks with n (evolving 2048 states to pick 8 costs more than measuring them):
  // min(population, max(min_population, population_per_candidate * n)).
  std::vector<Candidate> nextBatch(int n, CostModel& model);
  // The default schedule as a candidate, until it has been measured (the tuner measures every
  // task's default first, in one batch across tasks).
  std::optional<Candidate> defaultCandidate() const;
  // A candidate handed to measurement: later batches do not propose it again while its result is
  // outstanding (rounds in flight, tuner.h); addMeasured ends that.
  void markInFlight(const schedule::State& state);
  // Records a measurement; cost_s is +inf for failures. Previously measured states (from the
  // bank, when resuming) are added the same way.
  void addMeasured(const schedule::State& state, double cost_s);
  // Marks steps as measured without a usable state (e.g. a record whose steps no longer replay).
  void markMeasured(const std::vector<schedule::Step>& steps);

  const std::string& workloadKey() const { return key_; }
  const std::shared_ptr<const te::ComputeDAG>& dag() const { return dag_; }
  double bestCost() const { return best_cost_; }
  double defaultCost() const;  // +inf until the default schedule is measured (or when it failed)
  const std::optional<schedule::State>& bestState() const { return best_state_; }
  int numMeasured() const { return static_cast<int>(measured_keys_.size()); }
  // Training data of the cost model: features and costs of every measured state.
  std::vector<TrainingSample> trainingSamples() const;
  std::optional<TrainingSample> trainingSample(const schedule::State& s, double cost_s) const;
  int numSketches() const { return static_cast<int>(sketches_.size()); }

  static std::string stateKey(const schedule::State& s);
  static std::string stepsKey(const std::vector<schedule::Step>& steps);

 private:
  const StateFeatures* features(const schedule::State& s, const std::string& key);
  std::vector<double> score(const std::vector<schedule::State>& states, const std::vector<std::string>& keys,
                            CostModel& model);
  std::vector<schedule::State> initPopulation(uint64_t round_seed);
  // The `want` best-predicted unmeasured mutations of the best measured states.
  std::vector<schedule::State> incumbentNeighbours(int want, uint64_t round_seed, CostModel& model);

  std::shared_ptr<const te::ComputeDAG> dag_;
  std::string key_;
  SearchOptions opt_;
  uint64_t seed_;
  uint64_t round_ = 0;
  std::vector<schedule::State> sketches_;
  std::optional<schedule::State> default_state_;
  // What the default state builds as: the default schedule exactly as the executor runs it
  // untuned. Not finalizeForMeasurement(default_state_): that adds a layout rewrite to every tiled
  // reduction, which the basic baseline's defaults do not have (its dense layers ran 6x faster
  // as "default" in `tune` than untuned anywhere else).
  std::vector<schedule::Step> default_steps_;
  // The steps a state is built and recorded with.
  std::vector<schedule::Step> stepsToMeasure(const schedule::State& s, const std::string& key) const;
  std::unordered_set<std::string> measured_keys_, in_flight_keys_;
  bool taken(const std::string& key) const { return measured_keys_.count(key) || in_flight_keys_.count(key); }
  std::vector<std::pair<schedule::State, double>> measured_;  // replayable measured states
  std::unordered_map<std::string, std::optional<StateFeatures>> feature_cache_;
  double best_cost_ = std::numeric_limits<double>::infinity();
  double default_cost_ = std::numeric_limits<double>::infinity();
  std::optional<schedule::State> best_state_;
};

}  // namespace ttune::autotune
