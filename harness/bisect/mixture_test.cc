#include "bisect/mixture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "common/error.h"

namespace kbisect {
namespace {

// Normal noise, and every `period`-th value (none when 0) moved by `second_mode`.
std::vector<double> draw(size_t n, uint32_t seed, size_t period, double second_mode) {
  std::mt19937 random(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> values;
  for (size_t i = 0; i < n; ++i) {
    values.push_back(noise(random) + (period && i % period == 0 ? second_mode : 0.0));
  }
  return values;
}

// One mode: one component, and its maximum-likelihood mean and spread (the values' mean and
// their root mean square deviation, n in the denominator).
TEST(Mixture, PlainNoiseIsOneNormal) {
  std::vector<double> values = draw(300, 1, 0, 0);
  NormalMixture mixture = fit_normal_mixture(values, 1e-9);
  ASSERT_EQ(mixture.means.size(), 1u);
  const double n = static_cast<double>(values.size());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  EXPECT_DOUBLE_EQ(mixture.weights[0], 1.0);
  EXPECT_NEAR(mixture.means[0], mean, 1e-9);
  EXPECT_NEAR(mixture.sigma, std::sqrt(squares / n), 1e-9);
}

// A fifth of the samples four sigmas lower (the benchmark's bimodal noise at 5% CV: a second
// mode at 0.8x): two components, at the modes, in their proportions, with the noise's spread.
TEST(Mixture, ASecondModeIsItsOwnComponent) {
  NormalMixture mixture = fit_normal_mixture(draw(500, 2, 5, -4), 1e-9);
  ASSERT_EQ(mixture.means.size(), 2u);
  EXPECT_NEAR(mixture.means[0], -4, 0.2);
  EXPECT_NEAR(mixture.means[1], 0, 0.1);
  EXPECT_NEAR(mixture.weights[0], 0.2, 0.02);
  EXPECT_NEAR(mixture.sigma, 1, 0.08);
  // Between the modes the mixture is thin, where one normal of the same spread would not be.
  EXPECT_LT(mixture.density(-2), 0.25 * mixture.density(0));
}

TEST(Mixture, TooFewValuesForASecondComponent) {
  std::vector<double> values{0.0, 0.1, -0.1, 5.0, 5.1, 4.9, 0.05};  // 7 < 2 x 4
  EXPECT_EQ(fit_normal_mixture(values, 1e-9).means.size(), 1u);
}

// Identical values: the spread stops at its floor, and the density stays finite.
TEST(Mixture, SpreadNeverBelowItsFloor) {
  std::vector<double> values(10, 3.0);
  NormalMixture mixture = fit_normal_mixture(values, 0.01);
  EXPECT_DOUBLE_EQ(mixture.sigma, 0.01);
  EXPECT_TRUE(std::isfinite(mixture.density(3.0)));
  EXPECT_GT(mixture.density(3.0), mixture.density(3.02));
}

TEST(Mixture, DensityIntegratesToOne) {
  NormalMixture mixture = fit_normal_mixture(draw(200, 3, 3, 5), 1e-9);
  double integral = 0;
  const double step = 0.001;
  for (double x = -15; x < 20; x += step) integral += mixture.density(x) * step;
  EXPECT_NEAR(integral, 1.0, 1e-6);
}

TEST(Mixture, SameValuesSameFit) {
  std::vector<double> values = draw(100, 4, 4, -3);
  std::vector<double> reversed(values.rbegin(), values.rend());
  NormalMixture a = fit_normal_mixture(values, 1e-9), b = fit_normal_mixture(reversed, 1e-9);
  EXPECT_EQ(a.means, b.means);
  EXPECT_EQ(a.sigma, b.sigma);
}

// Two levels, four values each: shifted by their distance the sides are one value (the spread at
// its floor), where one noise for both needs two components of half the weight, so the log
// likelihood ratio is 8 ln 2. Of the 70 ways to label the eight values only the observed one
// aligns them: p = 1/70.
TEST(MixtureShiftTest, TwoExactLevelsGiveTheKnownRatioAndTheExactP) {
  const std::vector<double> x(4, 0.0), y(4, 1.0);
  TestResult test = mixture_shift_test(x, y, {.most = 4000});
  EXPECT_NEAR(test.statistic, 8 * std::log(2.0), 1e-9);
  EXPECT_NEAR(test.p_value, 1.0 / 70, 0.005);
  EXPECT_EQ(mixture_shift_test(x, y, {.most = 4000}).p_value, test.p_value);  // fixed seed
  EXPECT_GT(mixture_shift_test(y, x, {.most = 4000}).p_value, 0.9);           // one-sided
}

TEST(MixtureShiftTest, StopsDrawingOncePMustExceedTheLevel) {
  const std::vector<double> x{1, 2, 3, 4, 5}, y{1.5, 2.5, 3.5, 4.5, 5.5};
  TestResult test = mixture_shift_test(x, y, {.stop_above = 0.01});
  EXPECT_GT(test.p_value, 0.01);
  EXPECT_LT(test.p_value, 1);  // stopped early: p over the relabellings drawn so far
}

// Ten samples a side of the benchmark's bimodal noise (a fifth of them at 0.8x, 5% noise, on
// the log scale), bad 10% worse: the mixture test finds the shift at p <= 0.005 far more often
// than Mann-Whitney, which loses it among the pairs across the modes.
TEST(MixtureShiftTest, KeepsItsPowerWhenAShareOfSamplesSitsInASecondMode) {
  std::mt19937 random(3);
  std::normal_distribution<double> noise(0, 0.05);
  std::bernoulli_distribution second_mode(0.2);
  auto sample = [&](double level) {
    return level + noise(random) + (second_mode(random) ? std::log(1 / 0.8) : 0);
  };
  int mixture_found = 0, rank_found = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<double> good, bad;
    for (int i = 0; i < 10; ++i) {
      good.push_back(sample(0));
      bad.push_back(sample(std::log(1 / 0.9)));
    }
    mixture_found += mixture_shift_test(good, bad, {.stop_above = 0.005}).p_value <= 0.005;
    rank_found += mann_whitney_u(bad, good, Alternative::kGreater).p_value <= 0.005;
  }
  EXPECT_GE(mixture_found, rank_found + 10) << mixture_found << " vs " << rank_found;
}

// No shift: a permutation test is exact, so at p <= 0.05 it errs in about 5% of the trials.
TEST(MixtureShiftTest, HoldsItsLevelWithoutAShift) {
  std::mt19937 random(4);
  std::normal_distribution<double> noise(0, 0.05);
  std::bernoulli_distribution second_mode(0.2);
  int found = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<double> good, bad;
    for (int i = 0; i < 8; ++i) {
      good.push_back(noise(random) + (second_mode(random) ? 0.22 : 0));
      bad.push_back(noise(random) + (second_mode(random) ? 0.22 : 0));
    }
    found += mixture_shift_test(good, bad, {.most = 200, .stop_above = 0.05}).p_value <= 0.05;
  }
  EXPECT_LE(found, 25);  // 15 expected; 25 is 2.6 binomial sigmas above
  EXPECT_GE(found, 5);
}

// A metric that does not move (an integer count, a capped device): no shift, no NaN.
TEST(MixtureShiftTest, EqualValuesShowNoShift) {
  const std::vector<double> x(5, 7.0), y(5, 7.0);
  TestResult test = mixture_shift_test(x, y);
  EXPECT_EQ(test.statistic, 0);
  EXPECT_EQ(test.p_value, 1);
}

// One sample a side is a test too: the two orders of two values, one of them observed.
TEST(MixtureShiftTest, OneSampleASide) {
  TestResult test = mixture_shift_test(std::vector<double>{1.0}, std::vector<double>{2.0});
  EXPECT_FALSE(std::isnan(test.p_value));
  EXPECT_NEAR(test.p_value, 0.5, 0.05);
}

TEST(MixtureShiftTest, RefusesEmptySamples) {
  EXPECT_THROW(mixture_shift_test(std::vector<double>{}, std::vector<double>{1.0}), Error);
}

}  // namespace
}  // namespace kbisect
