// Cost models of the auto-scheduler: they score candidate states from their features (higher =
// predicted faster) so that the search measures only promising ones.
//
// Contract of every CostModel:
//  - update() adds measured samples (features, task = workload key, measured cost) and may
//    retrain; predict() scores states, one value per input, and gives -infinity to states whose
//    features are invalid (n_stores == 0: lowering failed).
//  - Scores are comparable within one task (labels are normalized per task), not across tasks.
//  - Deterministic: the same sequence of calls with the same seed gives the same scores.
//  - Not thread-safe: call from one thread (XGBoostModel uses its own threads inside).
//
// XGBoostModel follows Ansor (reference/ansor-study.md §5.2): one row per store, the score of a
// state is the sum of its rows' predictions ("pack-sum"), trained with a custom objective whose
// gradient for every row of a pack is (sum of the pack's predictions - label) and hessian 1, both
// weighted by the label; label = normalized throughput = best cost of the task / cost, in (0, 1],
// ~0 for failures. Training restarts from scratch on all data with early stopping on the training
// pack-sum RMSE; with adaptive training it retrains only once the data grew by retrain_growth
// since the last training. Until num_warmup_samples samples exist (and no model was loaded)
// predictions are seeded uniform random numbers.
//
// Deviations, deliberate: tree_method "hist" (much faster than exact at these sizes, and
// deterministic), a weight floor min_weight so that failures and very slow states still pull
// their predictions down (Ansor weighs them ~0), a round cap, and the prediction uses the trees up
// to the best round.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "autotune/features.h"
#include "support/rng.h"

namespace ttune::autotune {

struct TrainingSample {
  StateFeatures features;
  std::string task;   // workload key: labels are normalized within a task
  double cost_s = 0;  // measured seconds; not finite or <= 0 means the candidate failed
};

// Label of each sample: min cost of its task / its cost (in (0, 1]); 0 for failures.
std::vector<double> normalizedThroughputs(const std::vector<TrainingSample>& samples);

class CostModel {
 public:
  virtual ~CostModel();
  virtual void update(const std::vector<TrainingSample>& samples) = 0;
  virtual std::vector<double> predict(const std::vector<StateFeatures>& states) = 0;
  virtual std::string name() const = 0;
};

// Uniform random scores in [0, 1) (seeded); -inf for invalid features. For warm-up and tests.
class RandomModel final : public CostModel {
 public:
  explicit RandomModel(uint64_t seed = 0) : rng_(seed) {}
  void update(const std::vector<TrainingSample>&) override {}
  std::vector<double> predict(const std::vector<StateFeatures>& states) override;
  std::string name() const override { return "random"; }

 private:
  Rng rng_;
};

struct XGBoostOptions {
  // Booster parameters (Ansor's values).
  int max_depth = 10;
  double gamma = 0.001;
  double min_child_weight = 0;
  double eta = 0.2;
  uint64_t seed = 43;
  int nthread = 0;  // 0: max(1, cores / 2)
  std::string tree_method = "hist";
  // Training: rounds stop after early_stopping_rounds without a better training p-rmse, or at
  // max_rounds.
  int max_rounds = 300;
  int early_stopping_rounds = 50;
  // Minimum sample weight (weight = max(label, min_weight)).
  double min_weight = 0.02;
  // Predictions are random until this many samples were added (0: never).
  size_t num_warmup_samples = 100;
  // Retrain only when the data grew by this fraction since the last training (0: every update).
  double retrain_growth = 0.2;
};

struct TrainStats {
  size_t packs = 0, rows = 0;
  int rounds = 0;      // boosting rounds run
  int best_round = 0;  // rounds kept for prediction
  double best_prmse = 0;
  double seconds = 0;
};

class XGBoostModel final : public CostModel {
 public:
  explicit XGBoostModel(XGBoostOptions options = {});
  ~XGBoostModel() override;
  XGBoostModel(const XGBoostModel&) = delete;
  XGBoostModel& operator=(const XGBoostModel&) = delete;

  void update(const std::vector<TrainingSample>& samples) override;
  std::vector<double> predict(const std::vector<StateFeatures>& states) override;
  std::string name() const override { return "xgboost"; }

  // Trains now on all samples, whatever the warm-up and growth thresholds say.
  void retrain();
  // A file holding the feature layout version and the booster. load() replaces the model, keeps
  // the samples, disables warm-up, and fails (Error) for a file of another feature layout.
  void save(const std::string& path) const;
  void load(const std::string& path);

  bool trained() const;
  size_t numSamples() const;
  const TrainStats& lastTraining() const;
  const XGBoostOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Spearman rank correlation (ties get their average rank); 0 when either side is constant.
double rankCorrelation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace ttune::autotune
