// The noise of a benchmark as a mixture of normal distributions that share one spread: one
// component for plain noise, more where a share of the runs lands in another mode (a cache
// that was warm, a different NUMA node, a device that was busy). The spread is shared because
// each mode is the same noise around another level, and so that no component can shrink onto
// one sample.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "bisect/statistics.h"

namespace kbisect {

struct NormalMixture {
  std::vector<double> weights;  // of the components, summing to 1
  std::vector<double> means;
  double sigma = 1;

  double density(double x) const;
};

// A count of components is tried only with at least this many values per component.
constexpr size_t kSamplesPerComponent = 4;

// Expectation-maximisation for each count of components from 1 to `max_components` (started
// at the values' quantiles, so the same values give the same fit), keeping the count with the
// lowest BIC. sigma never drops below `min_sigma` (> 0).
NormalMixture fit_normal_mixture(std::span<const double> values, double min_sigma,
                                 int max_components = 3);

// One-sided permutation test that y's values are x's noise shifted up. The statistic is the log
// likelihood ratio of that (the shift >= 0 fitted) against one noise for both, each a mixture of
// two components as above. Where a share of the samples sits in a second mode a rank test loses
// its power: pairs across the modes say nothing about the shift and outnumber the rest. With a
// fifth of the samples at 0.8x, 5% noise and a 10% regression, 10 samples a side reach p <= 0.005
// in 40% of trials by Mann-Whitney and in 69% by this test (200 trials). Relabellings from a
// fixed seed, so the same samples give the same p; as many as `draws` says.
TestResult mixture_shift_test(std::span<const double> x, std::span<const double> y,
                              Draws draws = {});

}  // namespace kbisect
