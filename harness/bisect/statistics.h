// The statistics of the verdicts: rank tests that do not assume normal noise (Mann-Whitney U,
// two-sample Kolmogorov-Smirnov), robust location and spread, and effect sizes with a
// confidence interval. Conventions follow scipy.stats so results can be checked against it.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <vector>

namespace kbisect {

// kLess: x tends to be smaller than y; kGreater: larger.
enum class Alternative { kTwoSided, kLess, kGreater };

struct TestResult {
  double statistic = 0;
  double p_value = 1;
  bool exact = false;  // p from the exact null distribution, not an approximation
};

// U of x (scipy's U1 = rank sum of x - n_x (n_x + 1) / 2). When n_x n_y <= 2500, the exact
// null distribution (given the ties, if there are any: scipy's permutation method); otherwise
// the normal approximation with the tie correction and a continuity correction.
TestResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                          Alternative alternative = Alternative::kTwoSided);

// The smallest two-sided p mann_whitney_u gives for samples of these sizes (one side wholly
// above the other): where it exceeds alpha, no difference can be called significant.
double mann_whitney_smallest_p(size_t n_x, size_t n_y);

// How many relabellings a permutation test draws, p being (1 + as extreme) / (1 + drawn): up
// to `most`; it stops once p must exceed `stop_above` (above it p is only a rough figure) and,
// after `rough` draws, once p must exceed `level`: a decision at `level` needs p read finely
// below it, which can take many draws, and a rough p above it.
struct Draws {
  int most = 1000;
  double stop_above = 1;
  double level = 1;
  int rough = 1000;
};

// The p of a one-sided permutation test: `statistic()` of the labelling as it is, then of
// shuffles of `shuffled` (from a fixed seed, so the same samples give the same p) as `draws`
// says. A shuffle within `tolerance` (relative) below the observed statistic counts as extreme:
// the same value summed in another order.
template <typename T, typename Statistic>
TestResult permutation_test(std::vector<T>& shuffled, Statistic statistic, Draws draws,
                            double tolerance) {
  TestResult result;
  result.statistic = statistic();
  std::mt19937_64 random(shuffled.size());
  const double limit = result.statistic - tolerance * (1 + std::fabs(result.statistic));
  int extreme = 0, drawn = 0;
  while (drawn < draws.most) {
    const double least_p = (1.0 + extreme) / (1.0 + draws.most);
    if (least_p > draws.stop_above || (drawn >= draws.rough && least_p > draws.level)) break;
    std::shuffle(shuffled.begin(), shuffled.end(), random);
    ++drawn;
    extreme += statistic() >= limit;
  }
  result.p_value = (1.0 + extreme) / (1.0 + drawn);
  return result;
}

// One-sided permutation test that y sits above x. Each pooled sample gets the location score
// -f'(z)/f(z) of the kernel density (Gaussian kernel, `width`) of the other samples; the
// statistic is the sum of y's scores, the score test of a shift under that density. Scores
// follow the local slope, so where a share of the samples sits in a second mode the shift is
// read within each mode, and the test keeps the power that a rank test loses to cross-mode
// pairs (a fifth of the samples at 0.8x turns a 5% shift into a coin toss for most of them).
// Relabellings from a fixed seed, so the same samples give the same p; as many as `draws` says.
TestResult kernel_shift_test(std::span<const double> x, std::span<const double> y, double width,
                             Draws draws = {});

// Two-sided two-sample KS: D = max |F_x - F_y|. Exact p (lattice paths, as scipy's "exact")
// when n_x * n_y <= 10^6, else the asymptotic Kolmogorov distribution.
TestResult kolmogorov_smirnov(std::span<const double> x, std::span<const double> y);

// P(K > lambda) for the limiting Kolmogorov distribution (scipy.stats.kstwobign.sf).
double kolmogorov_sf(double lambda);

double median(std::span<const double> values);
double mean(std::span<const double> values);
double stddev(std::span<const double> values);  // sample standard deviation (n - 1)
// Median absolute deviation from the median, unscaled (scipy's median_abs_deviation).
double mad(std::span<const double> values);
// Interquartile range with linear interpolation between order statistics (numpy's default).
double iqr(std::span<const double> values);
double quantile(std::span<const double> values, double q);

// Hodges-Lehmann shift of y against x: the median of all differences y_j - x_i, with the
// distribution-free (Moses) confidence interval from the normal approximation of U.
struct Shift {
  double estimate = 0;
  double low = 0;
  double high = 0;
};
Shift hodges_lehmann(std::span<const double> x, std::span<const double> y,
                     double confidence = 0.95);

// The shift of y against x that makes their kernel density estimates (Gaussian kernel,
// `bandwidth`) overlap most, i.e. minimises the L2 distance between them: the mode of the
// smoothed pairwise differences y_j - x_i. Unlike Hodges-Lehmann it aligns the modes of
// multimodal noise even when the two samples hold the modes in different proportions.
double kernel_shift(std::span<const double> x, std::span<const double> y, double bandwidth);

// (median(after) - median(before)) / median(before). Throws Error when median(before) is 0.
double relative_change(std::span<const double> before, std::span<const double> after);

// The same for a table of every metric: NaN (printed "n/a") where median(before) is 0, as
// write.iops is for a job that only reads.
double relative_change_or_nan(std::span<const double> before, std::span<const double> after);

}  // namespace kbisect
