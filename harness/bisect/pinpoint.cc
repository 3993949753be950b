#include "bisect/pinpoint.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#include "bisect/statistics.h"

namespace kbisect {
namespace {

constexpr double kDifferentAt = 0.01;
constexpr int kFirstMagnitudeStep = 10, kLastMagnitudeStep = 36;  // 0.1 IQR steps: 1.0 to 3.6
constexpr int kDraws = 4000;
constexpr double kNormalIqr = 1.3489795003921634;  // of the standard normal

double p_value(std::span<const double> a, std::span<const double> b) {
  return std::min(mann_whitney_u(a, b).p_value, kolmogorov_smirnov(a, b).p_value);
}

double simulated_threshold(int magnitude_step, size_t n) {
  const double shift = magnitude_step / 10.0 * kNormalIqr;
  std::mt19937_64 random(static_cast<uint64_t>(magnitude_step) * 1000 + n);
  std::normal_distribution<double> normal;
  std::vector<double> p(kDraws), a(n), b(n);
  for (double& value : p) {
    for (double& x : a) x = normal(random);
    for (double& x : b) x = normal(random) + shift;
    value = p_value(a, b);
  }
  std::nth_element(p.begin(), p.begin() + kDraws * 99 / 100, p.end());
  return p[kDraws * 99 / 100];
}

}  // namespace

double pinpoint_same_threshold(double magnitude_iqr, size_t n) {
  if (n < 2) return 1;  // one value a side is never "the same"
  const int step = static_cast<int>(
      std::clamp(magnitude_iqr * 10, double{kFirstMagnitudeStep}, double{kLastMagnitudeStep}));
  static std::mutex lock;
  static std::map<std::pair<int, size_t>, double> thresholds;
  std::lock_guard guard(lock);
  auto [at, inserted] = thresholds.try_emplace({step, n}, 0.0);
  if (inserted) at->second = simulated_threshold(step, n);
  return at->second;
}

PinpointComparison pinpoint_compare(std::span<const double> a, std::span<const double> b,
                                    double magnitude) {
  PinpointComparison comparison;
  comparison.p_value = p_value(a, b);
  const double spread = std::max(iqr(a), iqr(b));
  const double magnitude_iqr = spread > 0 ? std::abs(magnitude) / spread : 1000;  // no spread
  const size_t attempts = (a.size() + b.size()) / 2;  // a side, as Pinpoint counts them
  if (comparison.p_value <= kDifferentAt) {
    comparison.result = PinpointResult::kDifferent;
  } else if (comparison.p_value > pinpoint_same_threshold(magnitude_iqr, attempts)) {
    comparison.result = PinpointResult::kSame;
  }
  return comparison;
}

}  // namespace kbisect
