#include "stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace kdio {
namespace {

double two_pass_sample_stddev(const std::vector<uint64_t>& v) {
  double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double ss = 0;
  for (uint64_t x : v) ss += (static_cast<double>(x) - mean) * (static_cast<double>(x) - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

TEST(LatStat, EmptyReportsZeros) {
  LatStat s;
  EXPECT_EQ(s.samples, 0u);
  EXPECT_EQ(s.min_or_zero(), 0u);
  EXPECT_EQ(s.stddev(), 0.0);
}

TEST(LatStat, SmallKnownSet) {
  LatStat s;
  for (uint64_t v : {2, 4, 4, 4, 5, 5, 7, 9}) s.add(v);
  EXPECT_EQ(s.min, 2u);
  EXPECT_EQ(s.max, 9u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_NEAR(s.stddev(), std::sqrt(32.0 / 7.0), 1e-12);  // sample, not population
}

TEST(LatStat, WelfordMatchesTwoPass) {
  std::mt19937_64 rng(1);
  std::vector<uint64_t> v;
  LatStat s;
  for (int i = 0; i < 100000; ++i) {
    uint64_t x = 50'000 + rng() % 1'000'000;
    v.push_back(x);
    s.add(x);
  }
  EXPECT_NEAR(s.stddev(), two_pass_sample_stddev(v), 1e-6 * s.stddev());
}

TEST(LatStat, MergeEqualsOneStream) {
  std::mt19937_64 rng(2);
  LatStat all, a, b, c;
  for (int i = 0; i < 30000; ++i) {
    uint64_t x = rng() % 10'000'000;
    all.add(x);
    (i % 3 == 0 ? a : i % 3 == 1 ? b : c).add(x + 0);
  }
  LatStat merged;
  merged.merge(a);
  merged.merge(b);
  merged.merge(c);
  merged.merge(LatStat{});
  EXPECT_EQ(merged.samples, all.samples);
  EXPECT_EQ(merged.min, all.min);
  EXPECT_EQ(merged.max, all.max);
  EXPECT_NEAR(merged.mean, all.mean, 1e-9 * all.mean);
  EXPECT_NEAR(merged.stddev(), all.stddev(), 1e-9 * all.stddev());
}

TEST(LatStat, SumAddsTheMembersRatesAsFioGroupReporting) {
  // fio 3.33, group_reporting over rate_iops=1000 and rate_iops=300: bw_min 5200 = 4000 + 1200.
  LatStat a, b;
  for (uint64_t v : {4000, 4008, 4000}) a.add(v);
  for (uint64_t v : {1200, 1200, 1208}) b.add(v);
  LatStat group;
  group.sum(a);
  group.sum(LatStat{});
  group.sum(b);
  EXPECT_EQ(group.min, 5200u);
  EXPECT_EQ(group.max, 5216u);
  EXPECT_EQ(group.samples, 6u);
  EXPECT_NEAR(group.mean, a.mean + b.mean, 1e-9);
  EXPECT_NEAR(group.stddev(), std::sqrt((a.m2 + b.m2) / 5), 1e-9);
}

TEST(LatencyRanges, ValuesFallInFiosRangesUpToTheirLabel) {
  LatencyRanges r;
  for (uint64_t ns : {0, 1, 2, 999}) r.add(ns);
  for (uint64_t ns : {1000, 1999, 2000, 249'999, 250'000, 999'999}) r.add(ns);
  for (uint64_t ns : {1'000'000, 999'999'999, 1'000'000'000, 1'999'999'999, 2'000'000'000}) {
    r.add(ns);
  }
  EXPECT_EQ(r.nsec[0], 2u);  // 0 and 1: "2"
  EXPECT_EQ(r.nsec[1], 1u);  // 2: "4"
  EXPECT_EQ(r.nsec[9], 1u);  // 999: "1000"
  EXPECT_EQ(r.usec[0], 2u);  // 1.0 and 1.999 us
  EXPECT_EQ(r.usec[1], 1u);
  EXPECT_EQ(r.usec[6], 1u);  // 249 us: "250"
  EXPECT_EQ(r.usec[7], 1u);  // 250 us: "500"
  EXPECT_EQ(r.usec[9], 1u);
  EXPECT_EQ(r.msec[0], 1u);   // 1 ms: "2"
  EXPECT_EQ(r.msec[9], 1u);   // 999 ms: "1000"
  EXPECT_EQ(r.msec[10], 2u);  // 1000 and 1999 ms: "2000"
  EXPECT_EQ(r.msec[11], 1u);  // 2 s: ">=2000"
  LatencyRanges twice = r;
  twice.merge(r);
  EXPECT_EQ(twice.msec[10], 4u);
  EXPECT_EQ(twice.nsec[0], 4u);
}

}  // namespace
}  // namespace kdio
