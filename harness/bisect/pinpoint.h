// Chromium Pinpoint's comparison of two changes (REFERENCES.md), for the `pinpoint` strategy
// that kbisect is measured against: p = min(Mann-Whitney U, Kolmogorov-Smirnov), both
// two-sided; different at p <= 0.01; the same when p is above a high threshold that falls as
// the samples grow, for the size of change looked for; unknown in between, when Pinpoint adds
// 10 attempts to the change with fewer.
#pragma once

#include <cstddef>
#include <span>

namespace kbisect {

enum class PinpointResult { kSame, kDifferent, kUnknown };

struct PinpointComparison {
  PinpointResult result = PinpointResult::kUnknown;
  double p_value = 1;
};

// `magnitude`: the change looked for, in the metric's units (Pinpoint takes the alert's); it
// is measured in IQRs of the more spread of the two samples, as Pinpoint does.
PinpointComparison pinpoint_compare(std::span<const double> a, std::span<const double> b,
                                    double magnitude);

// The high threshold for `n` values a side and a change of `magnitude_iqr` IQRs, derived as
// Pinpoint derives its table: the p that 99% of comparisons of two normal samples that far
// apart stay below. Pinpoint's magnitudes: steps of 0.1 IQR from 1.0 (below: 1.0) to 3.6.
double pinpoint_same_threshold(double magnitude_iqr, size_t n);

}  // namespace kbisect
