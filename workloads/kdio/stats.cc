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

namespace {

// The range of a value below 1000 (or up to 1999 as the 11th, above as the 12th).
int range_of(uint64_t value) {
  static constexpr uint64_t kUpperEnds[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};
  int i = 0;
  while (i < 11 && value >= kUpperEnds[i]) ++i;
  return i;
}

}  // namespace

void LatencyRanges::add(uint64_t clat_ns) {
  if (clat_ns < 1000) {
    ++nsec[range_of(clat_ns)];
  } else if (clat_ns < 1'000'000) {
    ++usec[range_of(clat_ns / 1000)];
  } else {
    ++msec[range_of(clat_ns / 1'000'000)];
  }
}

void LatencyRanges::merge(const LatencyRanges& other) {
  for (int i = 0; i < 10; ++i) nsec[i] += other.nsec[i], usec[i] += other.usec[i];
  for (int i = 0; i < 12; ++i) msec[i] += other.msec[i];
}

}  // namespace kdio
