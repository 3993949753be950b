// Streaming latency statistics the way fio keeps them (stat.c add_stat_sample / sum_stat):
// min, max, Welford mean and sum of squared deviations, sample stddev; parallel merge.
#pragma once

#include <cstdint>
#include <limits>

namespace kdio {

struct LatStat {
  uint64_t min = std::numeric_limits<uint64_t>::max();
  uint64_t max = 0;
  uint64_t samples = 0;
  double mean = 0;
  double m2 = 0;  // sum of squared deviations from the mean

  void add(uint64_t value) {
    if (value > max) max = value;
    if (value < min) min = value;
    double delta = static_cast<double>(value) - mean;
    ++samples;
    mean += delta / static_cast<double>(samples);
    m2 += delta * (static_cast<double>(value) - mean);
  }
  void merge(const LatStat& other);
  // group_reporting's sum of the members' bandwidth or IOPS samples, as fio's sum_stat with
  // pure_sum: min, max, mean and squared deviations add up, and so do the sample counts.
  void sum(const LatStat& other);
  double stddev() const;  // sample stddev (n - 1), 0 below two samples
  uint64_t min_or_zero() const { return samples ? min : 0; }
};

// fio's latency ranges (io_u_mark_latency): completions counted by their clat in ranges of
// nsec, usec and msec, each up to (not including) its label: 2, 4, 10, 20, 50, 100, 250, 500,
// 750, 1000, and for msec also 2000 and ">=2000".
struct LatencyRanges {
  uint64_t nsec[10] = {};
  uint64_t usec[10] = {};
  uint64_t msec[12] = {};

  void add(uint64_t clat_ns);
  void merge(const LatencyRanges& other);
};

}  // namespace kdio
