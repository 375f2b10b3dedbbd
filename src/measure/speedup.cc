#include "measure/speedup.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "measure/timing.h"
#include "support/strings.h"

namespace ttune::measure {

namespace {

// The order statistic (1-based) of the median's interval: the largest k >= 1 with
// P(Binomial(n, 1/2) <= k - 1) <= alpha / 2.
int orderStatistic(int n, double confidence) {
  double alpha = 1 - confidence;
  double cdf = 0, term = std::pow(0.5, n);  // P(X = 0)
  int k = 0;
  for (int i = 0; i < n; ++i) {
    cdf += term;
    if (cdf > alpha / 2) break;
    k = i + 1;
    term = term * (n - i) / (i + 1);
  }
  return std::max(1, std::min(k, (n + 1) / 2));
}

}  // namespace

Speedup speedupOf(const std::vector<double>& ratios, double confidence) {
  Speedup s;
  if (ratios.empty()) return s;
  s.ratios = ratios;
  std::vector<double> v;
  for (double r : ratios) v.push_back(std::isnan(r) ? 0.0 : r);
  std::sort(v.begin(), v.end());
  int n = static_cast<int>(v.size());
  int k = orderStatistic(n, confidence);
  s.median = median(v);
  s.lo = v[k - 1];
  s.hi = v[n - k];
  return s;
}

bool roundsDone(const std::vector<Speedup>& speedups, int rounds, const RoundsProtocol& p) {
  if (rounds >= p.max_rounds) return true;
  if (rounds < p.min_rounds) return false;
  bool narrow = true, known = true;
  for (const Speedup& s : speedups) {
    narrow = narrow && s.width() < p.max_width;
    known = known && (s.gain() || s.loss());
  }
  return narrow || (p.until_decided && known);
}

std::string formatSpeedup(const Speedup& s) {
  if (s.rounds() <= 1) return strFormat("%.2fx", s.median);
  return strFormat("%.2fx (%.2f-%.2f over %d rounds)", s.median, s.lo, s.hi, s.rounds());
}

Json speedupJson(const Speedup& s, const std::string& prefix) {
  auto num = [](double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); };
  Json ratios = Json::array();
  for (double r : s.ratios) ratios.push_back(num(r));
  return Json{{prefix + "speedup", num(s.median)},
              {prefix + "speedup_lo", num(s.lo)},
              {prefix + "speedup_hi", num(s.hi)},
              {prefix + "rounds", s.rounds()},
              {prefix + "round_ratios", ratios}};
}

Speedup speedupFromJson(const Json& j, const std::string& prefix) {
  auto num = [&](const std::string& k, double dflt) {
    auto it = j.find(prefix + k);
    return it != j.end() && it->is_number() ? it->get<double>() : dflt;
  };
  Speedup s;
  s.median = num("speedup", 1);
  s.lo = num("speedup_lo", s.median);
  s.hi = num("speedup_hi", s.median);
  if (auto it = j.find(prefix + "round_ratios"); it != j.end() && it->is_array())
    for (const Json& r : *it)
      s.ratios.push_back(r.is_number() ? r.get<double>() : std::numeric_limits<double>::infinity());
  return s;
}

}  // namespace ttune::measure
