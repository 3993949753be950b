// Expected values computed independently with scipy 1.10 (scipy.stats.mannwhitneyu, ks_2samp,
// kstwobign, median_abs_deviation, iqr; numpy for the Hodges-Lehmann differences).
#include "bisect/statistics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/error.h"

namespace kbisect {
namespace {

const std::vector<double> kX{19.1, 21.5, 18.3, 22.7, 20.2, 17.9};
const std::vector<double> kY{24.3, 23.1, 25.8, 22.9, 26.4, 21.8, 27.0};

// write.iops of a job that only reads: no relative change from its median of 0. A bisection
// cannot judge by it and says what to do; a table of every metric prints "n/a".
TEST(Statistics, ARelativeChangeFromAMedianOfZero) {
  const std::vector<double> zeros{0, 0, 0}, some{1, 2, 3};
  EXPECT_THAT([&] { relative_change(zeros, some); },
              ::testing::ThrowsMessage<Error>(
                  ::testing::HasSubstr("choose a metric that good reports above 0")));
  EXPECT_TRUE(std::isnan(relative_change_or_nan(zeros, some)));
  EXPECT_DOUBLE_EQ(relative_change_or_nan(some, zeros), -1.0);
}

TEST(MannWhitneyU, ExactWithoutTies) {
  TestResult two = mann_whitney_u(kX, kY);
  EXPECT_TRUE(two.exact);
  EXPECT_DOUBLE_EQ(two.statistic, 1.0);
  EXPECT_NEAR(two.p_value, 0.002331002331002331, 1e-12);
  EXPECT_NEAR(mann_whitney_u(kX, kY, Alternative::kLess).p_value, 0.0011655011655011655, 1e-12);
  EXPECT_NEAR(mann_whitney_u(kX, kY, Alternative::kGreater).p_value, 0.9994172494172495, 1e-12);
}

// The reference values count every relabelling of the pooled values (brute force, and a DP in
// exact fractions); ties make the two tails differ.
TEST(MannWhitneyU, ExactGivenTheTiesInSmallSamples) {
  const std::vector<double> a{1, 2, 2, 3, 3, 3, 4, 5, 5, 6, 7, 8};
  const std::vector<double> b{3, 4, 4, 5, 6, 6, 7, 8, 8, 9, 9, 10, 11};
  TestResult two = mann_whitney_u(a, b);
  EXPECT_TRUE(two.exact);
  EXPECT_DOUBLE_EQ(two.statistic, 30.0);
  EXPECT_NEAR(two.p_value, 0.0073418841220698802, 1e-12);
  EXPECT_NEAR(mann_whitney_u(a, b, Alternative::kLess).p_value, 0.0036709420610349401, 1e-12);
  EXPECT_NEAR(mann_whitney_u(a, b, Alternative::kGreater).p_value, 0.99673768821029551, 1e-12);
  // The normal approximation gave 0.0044 here (the exact 0.0065): the endpoint check at alpha
  // 0.01 called these quantized endpoints different.
  const std::vector<double> good{104, 104, 102, 102, 104, 104}, bad{102, 100, 102, 100, 100, 100};
  EXPECT_NEAR(mann_whitney_u(good, bad, Alternative::kGreater).p_value, 0.0064935064935064939,
              1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_u(good, bad, Alternative::kLess).p_value, 1.0);
  // One side wholly above the other is as extreme as without ties: 2 / C(6, 3).
  EXPECT_NEAR(mann_whitney_u(std::vector<double>{2, 2, 2}, std::vector<double>{1, 1, 1}).p_value,
              mann_whitney_smallest_p(3, 3), 1e-12);
}

// A commit's few samples against an endpoint's many. The normal approximation gave 0.0124
// for the first and 0.0234 (below the exact p) for the tied one.
TEST(MannWhitneyU, ExactWhenOneSampleIsSmall) {
  std::vector<double> many;
  for (int i = 0; i < 60; ++i) many.push_back(i);
  const std::vector<double> few{50.5, 57.5, 58.5};
  TestResult two = mann_whitney_u(few, many);
  EXPECT_TRUE(two.exact);
  EXPECT_NEAR(two.p_value, 0.005137115660648183, 1e-12);
  EXPECT_NEAR(mann_whitney_u(few, many, Alternative::kGreater).p_value, 0.0025685578303240916,
              1e-12);
  EXPECT_NEAR(mann_whitney_u(many, few, Alternative::kLess).p_value, 0.0025685578303240916, 1e-12);
  EXPECT_NEAR(mann_whitney_u(std::vector<double>{100, 101, 102}, many).p_value, 2.0 / 39711, 1e-15);

  // Brute force over the C(63, 3) choices of the small sample; the many come first here.
  std::vector<double> tied;
  for (int i = 0; i < 60; ++i) tied.push_back(i % 7);
  const std::vector<double> tied_few{5, 6, 6};
  EXPECT_TRUE(mann_whitney_u(tied, tied_few).exact);
  EXPECT_NEAR(mann_whitney_u(tied, tied_few, Alternative::kLess).p_value, 0.013220518244315178,
              1e-12);
  EXPECT_NEAR(mann_whitney_u(tied, tied_few, Alternative::kGreater).p_value, 0.9969781672584422,
              1e-12);
  EXPECT_NEAR(mann_whitney_u(tied, tied_few).p_value, 2 * 0.013220518244315178, 1e-12);
}

TEST(MannWhitneyU, NormalApproximationWithTiesInLargeSamples) {
  std::vector<double> x, y;
  for (int i = 0; i < 60; ++i) x.push_back(i % 7);
  for (int i = 0; i < 55; ++i) y.push_back(i % 7 + 1);
  TestResult two = mann_whitney_u(x, y);
  EXPECT_FALSE(two.exact);
  EXPECT_DOUBLE_EQ(two.statistic, 1188.0);
  EXPECT_NEAR(two.p_value, 0.009107008623595798, 1e-10);
  EXPECT_NEAR(mann_whitney_u(x, y, Alternative::kLess).p_value, 0.004553504311797899, 1e-10);
  EXPECT_NEAR(mann_whitney_u(x, y, Alternative::kGreater).p_value, 0.99552111894685003, 1e-10);
}

TEST(MannWhitneyU, SmallestPOfTheSampleSizes) {
  EXPECT_DOUBLE_EQ(mann_whitney_smallest_p(1, 1), 1.0);
  EXPECT_NEAR(mann_whitney_smallest_p(3, 3), 0.1, 1e-12);        // 2 / C(6, 3)
  EXPECT_NEAR(mann_whitney_smallest_p(4, 4), 2.0 / 70, 1e-12);   // above alpha 0.01
  EXPECT_NEAR(mann_whitney_smallest_p(5, 5), 2.0 / 252, 1e-12);  // below it
  EXPECT_DOUBLE_EQ(mann_whitney_smallest_p(0, 5), 1.0);
}

TEST(MannWhitneyU, IdenticalSamplesAreNotDifferent) {
  const std::vector<double> same{5, 5, 5};
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p_value, 1.0);
  // As scipy: one-sided too, every relabelling is as extreme.
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same, Alternative::kLess).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same, Alternative::kGreater).p_value, 1.0);
}

TEST(Statistics, ANonFiniteSampleIsAnInternalError) {
  const std::vector<double> with_nan{1, 2, std::nan("")}, with_inf{1, HUGE_VAL}, fine{4, 5, 6};
  EXPECT_THROW(kolmogorov_smirnov(with_nan, fine), Error);  // its walk never ended
  EXPECT_THROW(mann_whitney_u(fine, with_nan), Error);
  EXPECT_THROW(mann_whitney_u(with_inf, fine), Error);
}

TEST(KolmogorovSmirnov, ExactSmall) {
  TestResult result = kolmogorov_smirnov(kX, kY);
  EXPECT_TRUE(result.exact);
  EXPECT_NEAR(result.statistic, 0.8571428571428571, 1e-12);
  EXPECT_NEAR(result.p_value, 0.008158508158508158, 1e-12);
}

TEST(KolmogorovSmirnov, ExactLarger) {
  const std::vector<double> p{0.61, 0.29, 0.06,  0.59,  -1.73, -0.74, 0.51, -0.56, 0.39,
                              1.64, 0.05, -0.06, 0.64,  -0.82, 0.37,  1.77, 1.09,  -1.28,
                              2.36, 1.31, 1.05,  -0.32, -0.4,  1.06,  -2.47};
  const std::vector<double> q{2.2,  1.66, 1.38, 0.2,  0.36,  0,     0.96, 1.56, 0.44, 1.5,
                              -0.3, 0.66, 2.31, 3.29, -0.27, -0.37, 0.38, 0.7,  0.52, -0.71};
  TestResult result = kolmogorov_smirnov(p, q);
  EXPECT_NEAR(result.statistic, 0.23, 1e-12);
  EXPECT_NEAR(result.p_value, 0.5286364448145011, 1e-9);
}

TEST(KolmogorovSmirnov, LimitingDistribution) {
  EXPECT_NEAR(kolmogorov_sf(0.1), 1.0, 1e-12);
  EXPECT_NEAR(kolmogorov_sf(0.5), 0.9639452436648751, 1e-10);
  EXPECT_NEAR(kolmogorov_sf(1.0), 0.26999967167735456, 1e-10);
  EXPECT_NEAR(kolmogorov_sf(1.36), 0.049485876755377876, 1e-10);
  EXPECT_NEAR(kolmogorov_sf(2.0), 0.0006709252557796953, 1e-12);
}

// One side wholly above the other: p = 2 / C(m + n, m). 1 minus the probability of staying
// inside gave 0 for the first; the limiting law gave 0.037 for the second.
TEST(KolmogorovSmirnov, ExactDownToTinyPAndForUnbalancedSamples) {
  std::vector<double> low, high, a, b;
  for (int i = 0; i < 50; ++i) low.push_back(i), high.push_back(100 + i);
  EXPECT_NEAR(kolmogorov_smirnov(low, high).p_value, 1.9823306042836678e-29, 1e-38);
  std::vector<double> many;
  for (int i = 0; i < 5001; ++i) many.push_back(i);
  TestResult unbalanced = kolmogorov_smirnov(std::vector<double>{10000, 10001}, many);
  EXPECT_TRUE(unbalanced.exact);
  EXPECT_NEAR(unbalanced.p_value, 1.5984012151685362e-07, 1e-17);
  for (int i = 0; i < 120; ++i) a.push_back(i), b.push_back(i + 30);
  TestResult result = kolmogorov_smirnov(a, b);
  EXPECT_TRUE(result.exact);
  EXPECT_NEAR(result.statistic, 0.25, 1e-12);
  EXPECT_NEAR(result.p_value, 0.0010543589505277117, 1e-13);
}

TEST(KolmogorovSmirnov, LargeSamplesUseTheAsymptoticP) {
  std::vector<double> a, b;
  for (int i = 0; i < 1001; ++i) a.push_back(i);
  for (int i = 0; i < 1000; ++i) b.push_back(i + 100.5);
  TestResult result = kolmogorov_smirnov(a, b);
  EXPECT_FALSE(result.exact);
  EXPECT_NEAR(result.statistic, 0.1008991008991009, 1e-12);
  EXPECT_NEAR(result.p_value, kolmogorov_sf(std::sqrt(1001.0 * 1000 / 2001) * result.statistic),
              1e-15);
}

TEST(Descriptive, MedianMadIqr) {
  std::vector<double> odd = kX;
  odd.push_back(30.0);
  EXPECT_DOUBLE_EQ(median(odd), 20.2);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{1, 2, HUGE_VAL}), 2);  // as numpy
  EXPECT_NEAR(mad(kX), 1.55, 1e-12);
  EXPECT_NEAR(iqr(kY), 3.1, 1e-12);
  EXPECT_NEAR(stddev(std::vector<double>{2, 4, 4, 4, 5, 5, 7, 9}), 2.138089935299395, 1e-12);
}

TEST(EffectSize, HodgesLehmannWithMosesInterval) {
  Shift shift = hodges_lehmann(kX, kY);
  EXPECT_NEAR(shift.estimate, 4.45, 1e-12);
  EXPECT_NEAR(shift.low, 1.6, 1e-12);
  EXPECT_NEAR(shift.high, 7.3, 1e-12);
  EXPECT_NEAR(relative_change(std::vector<double>{100, 110, 90}, std::vector<double>{95, 90}),
              -0.075, 1e-12);
}

// Reference values: the same definition in plain Python (a 1/400-width grid over the smoothed
// pairwise differences, every peak of at least 5% of the highest climbed by mean shift, the
// peak with the largest symmetric cross log-likelihood kept).
TEST(KernelShift, SymmetricDifferencesGiveTheirCentre) {
  const std::vector<double> x{0, 1, 2}, y{3.5, 4.5, 5.5};
  EXPECT_NEAR(kernel_shift(x, y, 0.5), 3.5, 1e-9);
}

TEST(KernelShift, UnimodalSamplesAgreeWithTheReference) {
  EXPECT_NEAR(kernel_shift(kX, kY, 1.0), 4.4416348612625205, 1e-9);
  EXPECT_NEAR(hodges_lehmann(kX, kY).estimate, 4.45, 1e-12);  // nearly the same here
}

TEST(KernelShift, AlignsModesHeldInDifferentProportions) {
  const std::vector<double> good{0.1, -0.2, 0.05, 0.3, -0.1, 0.0, -0.25, 0.15, 10.1, 9.8};
  const std::vector<double> bad{1.05, 0.9, 1.2, 0.8, 11.1, 10.9, 11.2, 10.8, 11.0, 10.95};
  // The largest overlap pairs bad's upper mode with good's lower one (shift ~11); the cross
  // likelihood sees that bad's lower mode would then have nothing to match.
  EXPECT_NEAR(kernel_shift(good, bad, 0.3), 0.9977395540690066, 1e-9);
  EXPECT_NEAR(hodges_lehmann(good, bad).estimate, 1.4, 1e-9);
}

TEST(KernelShift, RefusesEmptySamplesAndNoBandwidth) {
  EXPECT_THROW(kernel_shift(std::vector<double>{}, kY, 1.0), Error);
  EXPECT_THROW(kernel_shift(kX, kY, 0.0), Error);
}

// Samples that mostly repeat one value have a bandwidth near 0: the shift is found in a bounded
// grid, where the bins of a width of 1e-9 over a range of 2 took gigabytes, or std::bad_alloc.
// It is still one of the differences: -1 explains every point of these (each by one of the
// other side), 0 leaves 99 and 101 unexplained.
TEST(KernelShift, ANearZeroBandwidthKeepsTheGridBounded) {
  const std::vector<double> good = {100, 100, 100, 100, 101};
  const std::vector<double> bad = {100, 100, 100, 100, 99};
  EXPECT_NEAR(kernel_shift(good, bad, 1e-9), -1, 1e-9);
  EXPECT_NEAR(kernel_shift(std::vector<double>{0, 1}, std::vector<double>{0, 1}, 1e-9), 0, 1e-9);
}

// Two samples of two: 6 ways to label four values, the observed one the most extreme.
TEST(KernelShiftTest, EstimatesTheExactPermutationP) {
  const std::vector<double> x{0, 1}, y{2, 3};
  TestResult test = kernel_shift_test(x, y, 2.0, {.most = 4000});
  EXPECT_GT(test.statistic, 0);
  EXPECT_NEAR(test.p_value, 1.0 / 6, 0.02);
  EXPECT_EQ(kernel_shift_test(x, y, 2.0, {.most = 4000}).p_value, test.p_value);  // fixed seed
  EXPECT_GT(kernel_shift_test(y, x, 2.0, {.most = 4000}).p_value, 0.9);           // one-sided
}

TEST(KernelShiftTest, StopsDrawingOncePMustExceedTheLevel) {
  const std::vector<double> same{1, 2, 3, 4, 5};
  TestResult test = kernel_shift_test(same, same, 1.0, {.stop_above = 0.01});
  EXPECT_GT(test.p_value, 0.01);
  EXPECT_LT(test.p_value, 1);  // stopped early: p over the relabellings drawn so far
}

// The statistic is whether a shuffle leaves `values` sorted: p is 1 / values.size()!.
struct SortedStatistic {
  std::vector<int> values;
  int calls = 0;  // the labelling as it is, then one per relabelling drawn
  TestResult test(Draws draws) {
    calls = 0;
    std::sort(values.begin(), values.end());
    auto sorted = [&] { return ++calls, std::is_sorted(values.begin(), values.end()) ? 1.0 : 0.0; };
    return permutation_test(values, sorted, draws, 0);
  }
};

// A decision at a level below 1/1000 reads p finely below the level, and roughly above it.
TEST(PermutationTest, DrawsOnOnlyWhilePMayBeBelowTheLevel) {
  SortedStatistic rare{{1, 2, 3, 4, 5, 6, 7, 8}};  // p 1 / 40320
  TestResult below = rare.test({.most = 100000, .level = 1e-4});
  EXPECT_EQ(rare.calls, 100001);
  EXPECT_LE(below.p_value, 1e-4);
  SortedStatistic common{{1, 2, 3, 4}};  // p 1 / 24
  TestResult above = common.test({.most = 100000, .level = 1e-4});
  EXPECT_EQ(common.calls, 1001);  // the rough draws, at which p must exceed the level
  EXPECT_NEAR(above.p_value, 1.0 / 24, 0.02);
  common.test({.most = 100000, .stop_above = 1e-4, .level = 1e-4});
  EXPECT_LT(common.calls, 1001);  // stop_above ends it sooner, at 10 as extreme
}

// A fifth of the samples in a second mode 0.22 above the main one, the whole distribution
// shifted by one noise sigma: over 40 such pairs of 50 samples the kernel test finds the shift
// more often than Mann-Whitney, which loses it among the cross-mode pairs.
TEST(KernelShiftTest, KeepsItsPowerWhenAShareOfSamplesSitsInASecondMode) {
  std::mt19937 random(3);
  std::normal_distribution<double> noise(0, 0.05);
  std::bernoulli_distribution second_mode(0.2);
  int kernel_found = 0, rank_found = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<double> good, bad;
    for (int i = 0; i < 50; ++i) {
      good.push_back(noise(random) + (second_mode(random) ? 0.22 : 0));
      bad.push_back(noise(random) + 0.05 + (second_mode(random) ? 0.22 : 0));
    }
    kernel_found += kernel_shift_test(good, bad, 0.05, {.stop_above = 0.005}).p_value <= 0.005;
    rank_found += mann_whitney_u(bad, good, Alternative::kGreater).p_value <= 0.005;
  }
  EXPECT_GE(kernel_found, 35);
  EXPECT_GE(kernel_found, rank_found + 10) << kernel_found << " vs " << rank_found;
}

TEST(KernelShiftTest, RefusesEmptySamplesAndNoWidth) {
  EXPECT_THROW(kernel_shift_test(std::vector<double>{}, kY, 1.0), Error);
  EXPECT_THROW(kernel_shift_test(kX, kY, 0.0), Error);
}

}  // namespace
}  // namespace kbisect
