#include "autotune/cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace ttune::autotune {

CostModel::~CostModel() = default;

std::vector<double> normalizedThroughputs(const std::vector<TrainingSample>& samples) {
  auto valid = [](double c) { return std::isfinite(c) && c > 0; };
  std::unordered_map<std::string, double> best;
  for (const TrainingSample& s : samples) {
    if (!valid(s.cost_s)) continue;
    auto [it, fresh] = best.emplace(s.task, s.cost_s);
    if (!fresh) it->second = std::min(it->second, s.cost_s);
  }
  std::vector<double> out(samples.size(), 0.0);
  for (size_t i = 0; i < samples.size(); ++i)
    if (valid(samples[i].cost_s)) out[i] = best.at(samples[i].task) / samples[i].cost_s;
  return out;
}

std::vector<double> RandomModel::predict(const std::vector<StateFeatures>& states) {
  std::vector<double> out(states.size());
  for (size_t i = 0; i < states.size(); ++i) {
    double r = rng_.uniform();  // drawn for every state so validity does not shift the stream
    out[i] = states[i].valid() ? r : -std::numeric_limits<double>::infinity();
  }
  return out;
}

namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k <= j; ++k) r[order[k]] = avg;
    i = j + 1;
  }
  return r;
}

}  // namespace

double rankCorrelation(const std::vector<double>& a, const std::vector<double>& b) {
  size_t n = std::min(a.size(), b.size());
  if (n < 2) return 0;
  std::vector<double> ra = ranks({a.begin(), a.begin() + static_cast<ptrdiff_t>(n)});
  std::vector<double> rb = ranks({b.begin(), b.begin() + static_cast<ptrdiff_t>(n)});
  double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / static_cast<double>(n);
  double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / static_cast<double>(n);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa == 0 || sbb == 0) return 0;
  return sab / std::sqrt(saa * sbb);
}

}  // namespace ttune::autotune
