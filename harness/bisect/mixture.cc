#include "bisect/mixture.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "bisect/statistics.h"
#include "common/error.h"

namespace kbisect {
namespace {

constexpr int kMaxIterations = 200;
constexpr double kConverged = 1e-10;  // relative change of the log likelihood

double normal_density(double x, double mean, double sigma) {
  const double z = (x - mean) / sigma;
  return std::exp(-0.5 * z * z) / (std::sqrt(2 * M_PI) * sigma);
}

struct Fit {
  NormalMixture mixture;
  double log_likelihood = 0;
};

// One E step: each value's share in each component (responsibility[i * k + j]); returns the
// log likelihood of the values under the mixture as it is. The normal densities' common factor
// 1 / (sqrt(2 pi) sigma) cancels in the shares and is added to the log likelihood once, and the
// likelihood is a product kept as a fraction and a power of two (it would underflow): one log
// a step instead of one a value, which was a third of a bisection's time in the benchmark.
double expectation(std::span<const double> values, const NormalMixture& mixture,
                   std::vector<double>& responsibility) {
  const size_t k = mixture.means.size();
  const double per_sigma = 1 / mixture.sigma;
  double fraction = 1;
  int exponent = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    double total = 0;
    for (size_t j = 0; j < k; ++j) {
      const double z = (values[i] - mixture.means[j]) * per_sigma;
      const double share = mixture.weights[j] * std::exp(-0.5 * z * z);
      responsibility[i * k + j] = share;
      total += share;
    }
    total = std::max(total, std::numeric_limits<double>::min());
    int power;
    fraction = std::frexp(fraction * total, &power);
    exponent += power;
    const double per_total = 1 / total;
    for (size_t j = 0; j < k; ++j) responsibility[i * k + j] *= per_total;
  }
  const double n = static_cast<double>(values.size());
  return std::log(fraction) + exponent * std::numbers::ln2 -
         n * std::log(std::sqrt(2 * std::numbers::pi) * mixture.sigma);
}

void maximisation(std::span<const double> values, const std::vector<double>& responsibility,
                  double min_sigma, NormalMixture& mixture) {
  const size_t k = mixture.means.size();
  const double n = static_cast<double>(values.size());
  for (size_t j = 0; j < k; ++j) {
    double weight = 0, sum = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      weight += responsibility[i * k + j];
      sum += responsibility[i * k + j] * values[i];
    }
    mixture.weights[j] = weight / n;
    if (weight > 0) mixture.means[j] = sum / weight;
  }
  double squares = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < k; ++j) {
      const double d = values[i] - mixture.means[j];
      squares += responsibility[i * k + j] * d * d;
    }
  }
  mixture.sigma = std::max(std::sqrt(squares / n), min_sigma);
}

// k components at the values' quantiles, with equal weights.
Fit start_components(std::span<const double> sorted, size_t k, double min_sigma) {
  const size_t n = sorted.size();
  Fit fit;
  fit.mixture.weights.assign(k, 1.0 / static_cast<double>(k));
  for (size_t j = 0; j < k; ++j) fit.mixture.means.push_back(sorted[(2 * j + 1) * n / (2 * k)]);
  // Started narrower than the values' robust spread: the modes each component starts at stay
  // apart instead of merging in the first steps.
  fit.mixture.sigma = std::max(1.4826 * mad(sorted) / static_cast<double>(k), min_sigma);
  return fit;
}

// EM from `fit` until the log likelihood settles. `after_maximisation(responsibility)` is one
// more conditional maximisation step, of a parameter outside the mixture, that may move `values`;
// each step still raises the likelihood.
template <typename Step>
void expectation_maximisation(std::span<const double> values, double min_sigma, Fit& fit,
                              Step after_maximisation) {
  std::vector<double> responsibility(values.size() * fit.mixture.means.size());
  double previous = -std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    fit.log_likelihood = expectation(values, fit.mixture, responsibility);
    if (fit.log_likelihood - previous <= kConverged * std::fabs(fit.log_likelihood)) break;
    previous = fit.log_likelihood;
    maximisation(values, responsibility, min_sigma, fit.mixture);
    after_maximisation(responsibility);
  }
}

Fit fit_components(std::span<const double> sorted, size_t k, double min_sigma) {
  Fit fit = start_components(sorted, k, min_sigma);
  expectation_maximisation(sorted, min_sigma, fit, [](const std::vector<double>&) {});
  return fit;
}

// The log likelihood of two components fitted to `values`, those flagged in `shifted` taken as
// the same noise a fitted shift (>= 0) higher.
double shifted_mixture_log_likelihood(std::span<const double> values,
                                      const std::vector<char>& shifted, double min_sigma) {
  const size_t n = values.size();
  // Started from the difference of the medians, so that the two components start at the modes
  // of the noise rather than at the two sides.
  std::vector<double> low, high;
  for (size_t i = 0; i < n; ++i) (shifted[i] ? high : low).push_back(values[i]);
  double shift = std::max(0.0, median(high) - median(low));
  std::vector<double> aligned(n);
  auto align = [&] {
    for (size_t i = 0; i < n; ++i) aligned[i] = values[i] - (shifted[i] ? shift : 0);
  };
  align();
  std::vector<double> sorted(aligned);
  std::sort(sorted.begin(), sorted.end());
  Fit fit = start_components(sorted, 2, min_sigma);
  expectation_maximisation(aligned, min_sigma, fit, [&](const std::vector<double>& responsibility) {
    double offsets = 0, count = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!shifted[i]) continue;
      for (size_t j = 0; j < 2; ++j)
        offsets += responsibility[i * 2 + j] * (values[i] - fit.mixture.means[j]);
      count += 1;
    }
    shift = std::max(0.0, offsets / count);
    align();
  });
  return fit.log_likelihood;
}

}  // namespace

double NormalMixture::density(double x) const {
  double total = 0;
  for (size_t j = 0; j < means.size(); ++j)
    total += weights[j] * normal_density(x, means[j], sigma);
  return total;
}

NormalMixture fit_normal_mixture(std::span<const double> values, double min_sigma,
                                 int max_components) {
  if (values.empty()) fail("internal error: a normal mixture needs values");
  if (!(min_sigma > 0)) fail("internal error: a normal mixture needs a positive least sigma");
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const double n = static_cast<double>(sorted.size());
  NormalMixture best;
  double best_bic = std::numeric_limits<double>::infinity();
  for (size_t k = 1; k <= static_cast<size_t>(std::max(max_components, 1)); ++k) {
    if (k > 1 && sorted.size() < kSamplesPerComponent * k) break;
    Fit fit = fit_components(sorted, k, min_sigma);
    // k means, k - 1 free weights and the shared sigma.
    const double bic = -2 * fit.log_likelihood + 2.0 * static_cast<double>(k) * std::log(n);
    if (bic < best_bic) best_bic = bic, best = std::move(fit.mixture);
  }
  return best;
}

TestResult mixture_shift_test(std::span<const double> x, std::span<const double> y, Draws draws) {
  if (x.empty() || y.empty())
    fail("internal error: the mixture shift test needs samples on both sides");
  std::vector<double> pooled(x.begin(), x.end());
  pooled.insert(pooled.end(), y.begin(), y.end());
  std::vector<double> sorted(pooled);
  std::sort(sorted.begin(), sorted.end());
  // A floor far below any spread that could matter, above zero where the values are all equal.
  const double min_sigma =
      std::max(1e-3 * (sorted.back() - sorted.front()), 1e-12 * (1 + std::fabs(sorted.front())));
  const double one_noise = fit_components(sorted, 2, min_sigma).log_likelihood;
  std::vector<char> in_y(x.size(), 0);
  in_y.resize(pooled.size(), 1);
  // The shifted fit includes shift 0, so where its EM stops below the one-noise fit the ratio
  // is 0, not negative.
  auto statistic = [&] {
    return std::max(0.0, shifted_mixture_log_likelihood(pooled, in_y, min_sigma) - one_noise);
  };
  // EM stops within kConverged of the likelihood, not at it: a wider tolerance than a sum's.
  return permutation_test(in_y, statistic, draws, 1e-9);
}

}  // namespace kbisect
