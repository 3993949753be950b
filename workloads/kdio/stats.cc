#include "stats.h"

#include <algorithm>
#include <cmath>

namespace kdio {

void LatStat::merge(const LatStat& other) {
  if (other.samples == 0) return;
  if (samples == 0) {
    *this = other;
    return;
  }
  min = std::min(min, other.min);
  max = std::max(max, other.max);
  double n_a = static_cast<double>(samples);
  double n_b = static_cast<double>(other.samples);
  double delta = other.mean - mean;
  mean = (mean * n_a + other.mean * n_b) / (n_a + n_b);
  m2 = m2 + other.m2 + delta * delta * n_a * n_b / (n_a + n_b);
  samples += other.samples;
}

void LatStat::sum(const LatStat& other) {
  if (other.samples == 0) return;
  if (samples == 0) {
    *this = other;
    return;
  }
  min += other.min;
  max += other.max;
  mean += other.mean;
  m2 += other.m2;
  samples += other.samples;
}

double LatStat::stddev() const {
  if (samples < 2) return 0;
  return std::sqrt(m2 / static_cast<double>(samples - 1));
}

}  // namespace kdio
