#include "histogram.h"

#include <gtest/gtest.h>

#include <random>

#include "kdio/json_numbers.h"

namespace kdio {
namespace {

// fio 3.33 stat.c, transcribed with fio's own types, as the reference the layout must match.
unsigned fio_val_to_idx(unsigned long long val) {
  unsigned int msb, error_bits, base, offset, idx;
  if (val == 0)
    msb = 0;
  else
    msb = (sizeof(val) * 8) - __builtin_clzll(val) - 1;
  if (msb <= 6) return val;
  error_bits = msb - 6;
  base = (error_bits + 1) << 6;
  offset = (64 - 1) & (val >> error_bits);
  idx = (base + offset) < (1856 - 1) ? (base + offset) : (1856 - 1);
  return idx;
}

unsigned long long fio_idx_to_val(unsigned int idx) {
  unsigned int error_bits;
  unsigned long long k, base;
  if (idx < (64 << 1)) return idx;
  error_bits = (idx >> 6) - 1;
  base = ((unsigned long long)1) << (error_bits + 6);
  k = idx % 64;
  return base + ((k + 0.5) * (1 << error_bits));
}

TEST(Histogram, LayoutConstants) {
  EXPECT_EQ(kPlatBuckets, 1856u);
  EXPECT_EQ(kPlatVal, 64u);
}

TEST(Histogram, SmallValuesAreExact) {
  for (uint64_t v = 0; v < 128; ++v) {
    EXPECT_EQ(plat_val_to_idx(v), v);
    EXPECT_EQ(plat_idx_to_val(static_cast<unsigned>(v)), v);
  }
}

TEST(Histogram, MatchesFioFormulasForManyValues) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    // Spread over every magnitude up to beyond the saturation point.
    uint64_t v = rng() >> (rng() % 64);
    ASSERT_EQ(plat_val_to_idx(v), fio_val_to_idx(v)) << v;
  }
  for (unsigned shift = 0; shift < 64; ++shift) {
    for (int64_t d = -2; d <= 2; ++d) {
      uint64_t v = (uint64_t{1} << shift) + static_cast<uint64_t>(d);
      ASSERT_EQ(plat_val_to_idx(v), fio_val_to_idx(v)) << v;
    }
  }
  for (unsigned idx = 0; idx < kPlatBuckets; ++idx) {
    ASSERT_EQ(plat_idx_to_val(idx), fio_idx_to_val(idx)) << idx;
  }
}

TEST(Histogram, EveryBucketMidpointMapsBackToItsBucket) {
  for (unsigned idx = 0; idx < kPlatBuckets; ++idx) {
    ASSERT_EQ(plat_val_to_idx(plat_idx_to_val(idx)), idx);
  }
}

TEST(Histogram, RelativeErrorBelowOnePercent) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    uint64_t v = 128 + (rng() % 17'000'000'000ull);
    double reported = static_cast<double>(plat_idx_to_val(plat_val_to_idx(v)));
    ASSERT_LT(std::abs(reported - static_cast<double>(v)) / static_cast<double>(v), 1.0 / 128) << v;
  }
}

TEST(Histogram, KnownValuesFromFioOutput) {
  // fio 3.33 reported a 33755 ns completion in the "33536" bin.
  EXPECT_EQ(plat_idx_to_val(plat_val_to_idx(33755)), 33536u);
  // Everything above ~17.1 s saturates into the last bucket.
  EXPECT_EQ(plat_val_to_idx(100'000'000'000ull), kPlatBuckets - 1);
  EXPECT_EQ(plat_idx_to_val(kPlatBuckets - 1), 17112760320ull);
}

TEST(Histogram, PercentilesWalkLikeFio) {
  Histogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.add(v);
  auto p = h.percentiles(default_percentiles());
  ASSERT_EQ(p.size(), 17u);
  EXPECT_EQ(p[0].first, 1.0);
  EXPECT_EQ(p[0].second, 1u);
  EXPECT_EQ(p[6].first, 50.0);
  EXPECT_EQ(p[6].second, 50u);
  EXPECT_EQ(p[12].second, 99u);
  EXPECT_EQ(p[16].second, 100u);  // 99.99% of 100 needs all 100 samples
}

TEST(Histogram, PercentilesOfASingleSampleAreItsBucket) {
  Histogram h;
  h.add(1'000'000);
  for (auto& [pct, value] : h.percentiles(default_percentiles())) {
    EXPECT_EQ(value, plat_idx_to_val(plat_val_to_idx(1'000'000))) << pct;
  }
}

TEST(Histogram, EmptyHasNoPercentiles) {
  Histogram h;
  EXPECT_TRUE(h.percentiles(default_percentiles()).empty());
}

TEST(Histogram, MergeAddsCounts) {
  Histogram a, b;
  a.add(5);
  b.add(5);
  b.add(1'000'000);
  a.merge(b);
  EXPECT_EQ(a.total(), 3u);
  EXPECT_EQ(a.bins[5], 2u);
}

}  // namespace
}  // namespace kdio
