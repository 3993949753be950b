#include "bisect/drift.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstddef>

namespace kbisect {
namespace {

struct Sums {
  double xx = 0, xy = 0, yy = 0;  // about each endpoint's own means
  size_t n = 0;
};

struct Means {
  double x = 0, y = 0;
};

Means add_side(std::span<const double> values, std::span<const int> sequence, Sums& sums) {
  const size_t n = values.size();
  Means mean;
  for (size_t i = 0; i < n; ++i) mean.x += sequence[i], mean.y += values[i];
  mean.x /= static_cast<double>(n);
  mean.y /= static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    const double dx = sequence[i] - mean.x, dy = values[i] - mean.y;
    sums.xx += dx * dx, sums.xy += dx * dy, sums.yy += dy * dy;
  }
  sums.n += n;
  return mean;
}

}  // namespace

Drift endpoint_drift(std::span<const double> good, std::span<const int> good_sequence,
                     std::span<const double> bad, std::span<const int> bad_sequence) {
  if (good.size() != good_sequence.size() || bad.size() != bad_sequence.size() || good.size() < 2 ||
      bad.size() < 2) {
    return {};
  }
  Sums sums;
  const Means good_mean = add_side(good, good_sequence, sums);
  add_side(bad, bad_sequence, sums);
  if (sums.xx <= 0) return {};
  Drift drift;
  drift.per_sample = sums.xy / sums.xx;
  drift.good_at_start = good_mean.y - drift.per_sample * good_mean.x;
  // n - 3 degrees of freedom: two means and the slope.
  const double degrees = static_cast<double>(sums.n - 3);
  const double residual = std::max(0.0, sums.yy - drift.per_sample * sums.xy);
  const double standard_error = std::sqrt(residual / degrees / sums.xx);
  if (standard_error == 0) {  // a perfect line: as clear as drift gets, unless it is flat
    drift.p_value = drift.per_sample == 0 ? 1 : 0;
    return drift;
  }
  const double t = std::fabs(drift.per_sample) / standard_error;
  drift.p_value = 2 * boost::math::cdf(boost::math::complement(
                          boost::math::students_t_distribution<double>(degrees), t));
  return drift;
}

}  // namespace kbisect
