// fio's latency histogram (stat.h/stat.c): log-linear with 6 bits of mantissa, 64 buckets per
// power of two, 29 groups = 1856 buckets. Values below 128 are stored exactly; a bucket
// reports its midpoint. The layout and the percentile walk match fio so that percentiles
// compare one to one.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace kdio {

inline constexpr unsigned kPlatBits = 6;
inline constexpr unsigned kPlatVal = 1u << kPlatBits;
inline constexpr unsigned kPlatGroups = 29;
inline constexpr unsigned kPlatBuckets = kPlatGroups * kPlatVal;

// fio's plat_val_to_idx: the bucket of a value (saturating in the last bucket).
inline unsigned plat_val_to_idx(uint64_t value) {
  unsigned msb = value == 0 ? 0 : 63 - static_cast<unsigned>(__builtin_clzll(value));
  if (msb <= kPlatBits) return static_cast<unsigned>(value);
  unsigned error_bits = msb - kPlatBits;
  unsigned base = (error_bits + 1) << kPlatBits;
  unsigned offset = (kPlatVal - 1) & static_cast<unsigned>(value >> error_bits);
  unsigned idx = base + offset;
  return idx < kPlatBuckets - 1 ? idx : kPlatBuckets - 1;
}

// fio's plat_idx_to_val: the value a bucket reports (its midpoint).
uint64_t plat_idx_to_val(unsigned idx);

struct Histogram {
  std::array<uint64_t, kPlatBuckets> bins{};

  void add(uint64_t value) { ++bins[plat_val_to_idx(value)]; }
  void merge(const Histogram& other);
  uint64_t total() const;
  // fio's calc_clat_percentiles: for each requested percentile (ascending), the value of the
  // first bucket where the running count reaches percentile/100 * total.
  std::vector<std::pair<double, uint64_t>> percentiles(std::span<const double> list) const;
};

}  // namespace kdio
