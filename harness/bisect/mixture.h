// The noise of a benchmark as a mixture of normal distributions that share one spread: one
// component for plain noise, more where a share of the runs lands in another mode (a cache
// that was warm, a different NUMA node, a device that was busy). The spread is shared because
// each mode is the same noise around another level, and so that no component can shrink onto
// one sample.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

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

}  // namespace kbisect
