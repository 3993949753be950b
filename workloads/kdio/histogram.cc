#include "histogram.h"

#include <algorithm>

namespace kdio {

uint64_t plat_idx_to_val(unsigned idx) {
  if (idx < (kPlatVal << 1)) return idx;
  unsigned error_bits = (idx >> kPlatBits) - 1;
  uint64_t base = uint64_t{1} << (error_bits + kPlatBits);
  uint64_t k = idx % kPlatVal;
  // fio computes (k + 0.5) * 2^error_bits in double and truncates on the addition.
  return base + static_cast<uint64_t>((static_cast<double>(k) + 0.5) *
                                      static_cast<double>(uint64_t{1} << error_bits));
}

void Histogram::merge(const Histogram& other) {
  for (unsigned i = 0; i < kPlatBuckets; ++i) bins[i] += other.bins[i];
}

uint64_t Histogram::total() const {
  uint64_t sum = 0;
  for (uint64_t count : bins) sum += count;
  return sum;
}

std::vector<std::pair<double, uint64_t>> Histogram::percentiles(
    std::span<const double> list) const {
  std::vector<double> sorted(list.begin(), list.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::pair<double, uint64_t>> out;
  uint64_t n = total();
  if (n == 0 || sorted.empty()) return out;
  uint64_t sum = 0;
  size_t j = 0;
  for (unsigned i = 0; i < kPlatBuckets && j < sorted.size(); ++i) {
    sum += bins[i];
    while (j < sorted.size() &&
           static_cast<long double>(sum) >= static_cast<long double>(sorted[j]) / 100.0L * n) {
      out.emplace_back(sorted[j], plat_idx_to_val(i));
      ++j;
    }
  }
  return out;
}

}  // namespace kdio
