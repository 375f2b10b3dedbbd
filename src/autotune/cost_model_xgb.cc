// XGBoostModel: the pack-sum XGBoost cost model through the XGBoost C API (see cost_model.h).
#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <thread>

#include "autotune/cost_model.h"
#include "support/assert.h"
#include "support/error.h"
#include "support/timer.h"

namespace ttune::autotune {

namespace {

void check(int rc, const char* what) {
  if (rc != 0) fail("XGBoost ", what, " failed: ", XGBGetLastError());
}

// Owns a DMatrix.
class Matrix {
 public:
  Matrix(const std::vector<float>& rows, size_t nrow) {
    check(XGDMatrixCreateFromMat(rows.data(), nrow, kNumFeatures, std::numeric_limits<float>::quiet_NaN(), &h_),
          "XGDMatrixCreateFromMat");
  }
  ~Matrix() { XGDMatrixFree(h_); }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  DMatrixHandle get() const { return h_; }

 private:
  DMatrixHandle h_ = nullptr;
};

constexpr const char* kFileMagic = "ttune-xgboost-model";
constexpr int kFileVersion = 2;

}  // namespace

struct XGBoostModel::Impl {
  XGBoostOptions opt;
  std::vector<TrainingSample> samples;
  BoosterHandle booster = nullptr;
  bool loaded = false;
  size_t trained_on = 0;  // samples at the last training
  size_t prior = 0;       // samples[0, prior) came from setPrior
  TrainStats stats;
  Rng rng;
  // Ranking scores are mapped to the throughput scale: label ~ exp(calib_a * score + calib_b).
  bool calibrated = false;
  double calib_a = 1, calib_b = 0;

  explicit Impl(XGBoostOptions o) : opt(std::move(o)), rng(opt.seed) {
    if (opt.nthread <= 0) opt.nthread = std::max(1u, std::thread::hardware_concurrency() / 2);
  }
  ~Impl() { freeBooster(); }

  void freeBooster() {
    if (booster) XGBoosterFree(booster);
    booster = nullptr;
  }

  void setParams(BoosterHandle h) const {
    auto set = [&](const char* k, const std::string& v) {
      check(XGBoosterSetParam(h, k, v.c_str()), "XGBoosterSetParam");
    };
    set("verbosity", "0");
    set("objective", "reg:squarederror");  // never evaluated: gradients are ours
    set("disable_default_eval_metric", "1");
    set("base_score", "0");
    set("tree_method", opt.tree_method);
    set("max_depth", std::to_string(opt.max_depth));
    set("max_bin", std::to_string(opt.max_bin));
    set("gamma", std::to_string(opt.gamma));
    set("min_child_weight", std::to_string(opt.min_child_weight));
    set("eta", std::to_string(opt.eta));
    set("seed", std::to_string(opt.seed));
    set("nthread", std::to_string(opt.nthread));
    for (const auto& [k, v] : opt.extra_params) set(k.c_str(), v);
  }

  // Squared error: per pack (sum - label) * weight, hessian weight. Ranking: pairwise logistic.
  void gradients(const std::vector<double>& pack, const std::vector<double>& labels, const std::vector<double>& weights,
                 const std::vector<std::pair<size_t, size_t>>& pairs, std::vector<double>& g,
                 std::vector<double>& h) const {
    if (opt.objective == XGBoostObjective::kPackSumSquare) {
      for (size_t p = 0; p < pack.size(); ++p) {
        g[p] = (pack[p] - labels[p]) * weights[p];
        h[p] = weights[p];
      }
      return;
    }
    std::fill(g.begin(), g.end(), 0.0);
    std::fill(h.begin(), h.end(), 1e-6);
    for (const auto& [a, b] : pairs) {
      double q = 1.0 / (1.0 + std::exp(pack[a] - pack[b]));  // probability the pair is misordered
      g[a] -= q;
      g[b] += q;
      h[a] += q * (1 - q);
      h[b] += q * (1 - q);
    }
  }

  // p-rmse for the squared objective, mean pairwise logistic loss for ranking.
  double trainingLoss(const std::vector<double>& pack, const std::vector<double>& labels,
                      const std::vector<std::pair<size_t, size_t>>& pairs) const {
    double loss = 0;
    if (opt.objective == XGBoostObjective::kPackSumSquare) {
      for (size_t p = 0; p < pack.size(); ++p) loss += (pack[p] - labels[p]) * (pack[p] - labels[p]);
      return std::sqrt(loss / static_cast<double>(std::max<size_t>(pack.size(), 1)));
    }
    for (const auto& [a, b] : pairs) loss += std::log1p(std::exp(pack[b] - pack[a]));
    return loss / static_cast<double>(std::max<size_t>(pairs.size(), 1));
  }

  // For each state, rank_pairs_per_state partners of its task with another label (seeded).
  std::vector<std::pair<size_t, size_t>> samplePairs(const std::vector<const std::string*>& tasks,
                                                     const std::vector<double>& labels) const {
    std::vector<std::pair<size_t, size_t>> pairs;
    std::map<std::string, std::vector<size_t>> groups;
    for (size_t p = 0; p < tasks.size(); ++p) groups[*tasks[p]].push_back(p);
    Rng prng(opt.seed);
    for (const auto& [task, members] : groups) {
      if (members.size() < 2) continue;
      for (size_t a : members)
        for (int k = 0; k < opt.rank_pairs_per_state; ++k) {
          size_t b = members[prng.index(members.size())];
          if (labels[a] > labels[b])
            pairs.emplace_back(a, b);
          else if (labels[b] > labels[a])
            pairs.emplace_back(b, a);
        }
    }
    return pairs;
  }

  // Least squares of log(label) on the pack scores of the final model (positive slope), so that
  // exp(a * score + b) is a strictly increasing estimate of the normalized throughput.
  void calibrate(const std::vector<double>& pack, const std::vector<double>& labels) {
    calibrated = opt.objective == XGBoostObjective::kPackSumRank;
    if (!calibrated) return;
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t p = 0; p < pack.size(); ++p) {
      if (labels[p] <= 0) continue;
      double x = pack[p], y = std::log(labels[p]);
      n += 1;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    double var = n > 0 ? sxx / n - (sx / n) * (sx / n) : 0;
    calib_a = var > 1e-12 ? std::max((sxy / n - (sx / n) * (sy / n)) / var, 1e-3) : 1.0;
    calib_b = n > 0 ? sy / n - calib_a * sx / n : 0.0;
  }

  void train() {
    Timer timer;
    stats = {};
    // Rows of every featurizable sample; pack p owns rows [begin[p], begin[p+1]).
    std::vector<double> labels_all = normalizedThroughputs(samples);
    std::vector<float> rows;
    std::vector<size_t> begin{0};
    std::vector<double> labels, weights;
    std::vector<const std::string*> tasks;
    for (size_t i = 0; i < samples.size(); ++i) {
      const StateFeatures& f = samples[i].features;
      if (!f.valid()) continue;
      tasks.push_back(&samples[i].task);
      rows.insert(rows.end(), f.data.begin(), f.data.end());
      begin.push_back(begin.back() + static_cast<size_t>(f.n_stores));
      double y = opt.label_power == 1.0 ? labels_all[i] : std::pow(labels_all[i], opt.label_power);
      labels.push_back(y);
      weights.push_back(std::max(y, opt.min_weight));
    }
    size_t npacks = labels.size(), nrows = begin.back();
    stats.packs = npacks;
    stats.rows = nrows;
    if (npacks == 0) return;
    freeBooster();
    Matrix dtrain(rows, nrows);
    DMatrixHandle dm[] = {dtrain.get()};
    check(XGBoosterCreate(dm, 1, &booster), "XGBoosterCreate");
    setParams(booster);

    // Pairs (better, worse) within a task for the ranking objective.
    std::vector<std::pair<size_t, size_t>> pairs;
    if (opt.objective == XGBoostObjective::kPackSumRank) pairs = samplePairs(tasks, labels);

    std::vector<float> grad(nrows), hess(nrows);
    std::vector<double> pack(npacks, 0.0);  // current pack sums (base score 0)
    std::vector<double> g(npacks), h(npacks);
    double best = std::numeric_limits<double>::infinity();
    int best_round = 0;
    const char* cfg =
        R"({"type": 1, "training": true, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})";
    for (int r = 0; r < opt.max_rounds; ++r) {
      gradients(pack, labels, weights, pairs, g, h);
      for (size_t p = 0; p < npacks; ++p)
        for (size_t k = begin[p]; k < begin[p + 1]; ++k) {
          grad[k] = static_cast<float>(g[p]);
          hess[k] = static_cast<float>(h[p]);
        }
      check(XGBoosterBoostOneIter(booster, dtrain.get(), grad.data(), hess.data(), nrows), "XGBoosterBoostOneIter");
      const bst_ulong* shape = nullptr;
      bst_ulong dim = 0;
      const float* pred = nullptr;
      check(XGBoosterPredictFromDMatrix(booster, dtrain.get(), cfg, &shape, &dim, &pred),
            "XGBoosterPredictFromDMatrix");
      for (size_t p = 0; p < npacks; ++p) {
        double s = 0;
        for (size_t k = begin[p]; k < begin[p + 1]; ++k) s += pred[k];
        pack[p] = s;
      }
      double loss = trainingLoss(pack, labels, pairs);
      stats.rounds = r + 1;
      if (loss < best) {
        best = loss;
        best_round = r + 1;
      } else if (r + 1 - best_round >= opt.early_stopping_rounds) {
        break;
      }
    }
    if (best_round < stats.rounds) {  // keep the trees up to the best round
      BoosterHandle sliced = nullptr;
      check(XGBoosterSlice(booster, 0, best_round, 1, &sliced), "XGBoosterSlice");
      freeBooster();
      booster = sliced;
    }
    calibrate(pack, labels);
    stats.best_round = best_round;
    stats.best_loss = best;
    stats.seconds = timer.seconds();
    trained_on = samples.size() - prior;
  }

  std::vector<double> predictBooster(const std::vector<StateFeatures>& states) const {
    const double kNegInf = -std::numeric_limits<double>::infinity();
    std::vector<double> out(states.size(), kNegInf);
    std::vector<float> rows;
    size_t nrows = 0;
    for (const StateFeatures& f : states)
      if (f.valid()) {
        rows.insert(rows.end(), f.data.begin(), f.data.end());
        nrows += static_cast<size_t>(f.n_stores);
      }
    if (nrows == 0) return out;
    Matrix m(rows, nrows);
    const bst_ulong* shape = nullptr;
    bst_ulong dim = 0;
    const float* pred = nullptr;
    const char* cfg =
        R"({"type": 1, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})";
    check(XGBoosterPredictFromDMatrix(booster, m.get(), cfg, &shape, &dim, &pred), "XGBoosterPredictFromDMatrix");
    size_t k = 0;
    for (size_t i = 0; i < states.size(); ++i) {
      if (!states[i].valid()) continue;
      double s = 0;
      for (int r = 0; r < states[i].n_stores; ++r) s += pred[k++];
      out[i] = calibrated ? std::exp(calib_a * s + calib_b) : s;
    }
    return out;
  }
};

XGBoostModel::XGBoostModel(XGBoostOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
XGBoostModel::~XGBoostModel() = default;

void XGBoostModel::update(const std::vector<TrainingSample>& samples) {
  for (const TrainingSample& s : samples) {
    TT_CHECK_ARG(
        !s.features.valid() || s.features.data.size() == static_cast<size_t>(s.features.n_stores) * kNumFeatures,
        "training sample of task ", s.task, " has ", s.features.data.size(), " values for ", s.features.n_stores,
        " stores of ", kNumFeatures, " features");
    impl_->samples.push_back(s);
  }
  // Warm-up and growth count this model's own samples; a prior makes it warm from the start.
  size_t own = impl_->samples.size() - impl_->prior;
  if (own == 0 || (impl_->prior == 0 && own < impl_->opt.num_warmup_samples)) return;
  bool grown = impl_->trained_on == 0 ||
               static_cast<double>(own) >= static_cast<double>(impl_->trained_on) * (1.0 + impl_->opt.retrain_growth);
  if (grown) impl_->train();
}

void XGBoostModel::setPrior(const std::vector<TrainingSample>& samples) {
  TT_ASSERT(impl_->samples.size() == impl_->prior, "XGBoostModel::setPrior after update()");
  impl_->samples.insert(impl_->samples.begin(), samples.begin(), samples.end());
  impl_->prior += samples.size();
  if (impl_->prior > 0) impl_->train();
}

size_t XGBoostModel::numPriorSamples() const { return impl_->prior; }

void XGBoostModel::retrain() { impl_->train(); }

std::vector<double> XGBoostModel::predict(const std::vector<StateFeatures>& states) {
  bool warm = impl_->loaded || impl_->prior > 0 || impl_->samples.size() >= impl_->opt.num_warmup_samples;
  if (!impl_->booster || !warm) {
    std::vector<double> out(states.size());
    for (size_t i = 0; i < states.size(); ++i) {
      double r = impl_->rng.uniform();
      out[i] = states[i].valid() ? r : -std::numeric_limits<double>::infinity();
    }
    return out;
  }
  return impl_->predictBooster(states);
}

void XGBoostModel::save(const std::string& path) const {
  TT_CHECK_ARG(impl_->booster, "cannot save the cost model to ", path, ": it was never trained");
  bst_ulong len = 0;
  const char* buf = nullptr;
  check(XGBoosterSaveModelToBuffer(impl_->booster, R"({"format": "json"})", &len, &buf), "XGBoosterSaveModelToBuffer");
  std::ofstream out(path, std::ios::binary);
  TT_CHECK_ARG(out.good(), "cannot write the cost model to ", path);
  out.precision(17);
  out << kFileMagic << " " << kFileVersion << " features " << StoreFeatures::kVersion << " " << kNumFeatures
      << " calibration " << (impl_->calibrated ? 1 : 0) << " " << impl_->calib_a << " " << impl_->calib_b << " bytes "
      << len << "\n";
  out.write(buf, static_cast<std::streamsize>(len));
  TT_CHECK_ARG(out.good(), "cannot write the cost model to ", path);
}

void XGBoostModel::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TT_CHECK_ARG(in.good(), "cannot read the cost model ", path);
  std::string header;
  std::getline(in, header);
  std::istringstream hs(header);
  std::string magic, kw1, kw2, kw3;
  int version = 0, calibrated = 0;
  uint32_t feature_version = 0;
  size_t num_features = 0, len = 0;
  double a = 1, b = 0;
  hs >> magic >> version;
  TT_CHECK_ARG(hs && magic == kFileMagic, path, " is not a ttune cost model file");
  TT_CHECK_ARG(version == kFileVersion, path, " has cost model file version ", version, ", expected ", kFileVersion);
  hs >> kw1 >> feature_version >> num_features >> kw2 >> calibrated >> a >> b >> kw3 >> len;
  TT_CHECK_ARG(hs && kw1 == "features" && kw2 == "calibration" && kw3 == "bytes", path, " has a malformed header");
  TT_CHECK_ARG(feature_version == StoreFeatures::kVersion && num_features == kNumFeatures, path,
               " was trained on feature layout v", feature_version, " (", num_features, " features); this build uses v",
               StoreFeatures::kVersion, " (", kNumFeatures, " features)");
  std::string body(len, '\0');
  in.read(body.data(), static_cast<std::streamsize>(len));
  TT_CHECK_ARG(static_cast<size_t>(in.gcount()) == len, path, " is truncated");
  BoosterHandle h = nullptr;
  check(XGBoosterCreate(nullptr, 0, &h), "XGBoosterCreate");
  if (XGBoosterLoadModelFromBuffer(h, body.data(), len) != 0) {
    std::string err = XGBGetLastError();
    XGBoosterFree(h);
    fail("cannot load the cost model ", path, ": ", err);
  }
  impl_->setParams(h);
  impl_->freeBooster();
  impl_->booster = h;
  impl_->loaded = true;
  impl_->trained_on = 0;
  impl_->calibrated = calibrated != 0;
  impl_->calib_a = a;
  impl_->calib_b = b;
}

bool XGBoostModel::trained() const { return impl_->booster != nullptr; }
size_t XGBoostModel::numSamples() const { return impl_->samples.size(); }
const TrainStats& XGBoostModel::lastTraining() const { return impl_->stats; }
const XGBoostOptions& XGBoostModel::options() const { return impl_->opt; }

}  // namespace ttune::autotune
