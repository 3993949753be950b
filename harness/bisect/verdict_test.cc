#include "bisect/verdict.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kbisect {
namespace {

const std::vector<double> kGood{100.2, 99.1, 101.0, 100.5, 99.6, 100.9, 99.8, 100.1};
const std::vector<double> kBad{90.3, 89.5, 90.8, 90.1, 89.7, 91.0, 89.9, 90.4};

TEST(Verdict, BadnessIsOrientedByDirection) {
  EXPECT_GT(badness(90, Better::kHigher), badness(100, Better::kHigher));
  EXPECT_GT(badness(110, Better::kLower), badness(100, Better::kLower));
  EndpointModel model = fit_endpoints(kGood, kBad, Better::kHigher);
  EXPECT_GT(model.bad_center, model.good_center);
  EXPECT_NEAR(model.bad_center - model.good_center, std::log(100.0 / 90.0), 0.01);
  EXPECT_GT(model.log_likelihood_ratio(badness(90, Better::kHigher)), 0);
  EXPECT_LT(model.log_likelihood_ratio(badness(100, Better::kHigher)), 0);
}

TEST(Verdict, OneOutlierDoesNotDecide) {
  EndpointModel model = fit_endpoints(kGood, kBad, Better::kHigher);
  // A dip far below both endpoints leans bad, but far less than a typical bad sample.
  double dip = model.log_likelihood_ratio(badness(70, Better::kHigher));
  double typical = model.log_likelihood_ratio(badness(90, Better::kHigher));
  EXPECT_LT(dip, typical / 4);
}

TEST(Verdict, ClassifiesGoodBadAndUndecided) {
  const double threshold = 6;
  CommitVerdict bad = classify(std::vector<double>{90.2, 89.8, 90.6}, kGood, kBad, Better::kHigher,
                               threshold, false);
  EXPECT_EQ(bad.kind, VerdictKind::kBad);
  EXPECT_NEAR(bad.effect, 0.098, 0.005);
  EXPECT_LT(bad.p_vs_good, 0.01);
  EXPECT_GT(bad.p_vs_bad, 0.1);
  EXPECT_EQ(bad.samples, 3);
  EXPECT_EQ(bad.good_samples, 8);

  CommitVerdict good = classify(std::vector<double>{100.3, 99.7, 100.8}, kGood, kBad,
                                Better::kHigher, threshold, false);
  EXPECT_EQ(good.kind, VerdictKind::kGood);
  EXPECT_LT(good.p_vs_bad, 0.01);

  CommitVerdict middle =
      classify(std::vector<double>{95.5}, kGood, kBad, Better::kHigher, threshold, false);
  EXPECT_EQ(middle.kind, VerdictKind::kUndecided);
  CommitVerdict forced =
      classify(std::vector<double>{95.5}, kGood, kBad, Better::kHigher, threshold, true);
  EXPECT_NE(forced.kind, VerdictKind::kUndecided);
}

TEST(Verdict, LowerIsBetterMetrics) {
  // Latency: the regression makes values larger.
  std::vector<double> good{10.0, 10.1, 9.9, 10.2, 9.8};
  std::vector<double> bad{12.0, 12.1, 11.9, 12.2, 11.8};
  CommitVerdict verdict =
      classify(std::vector<double>{12.05, 11.95}, good, bad, Better::kLower, 4, false);
  EXPECT_EQ(verdict.kind, VerdictKind::kBad);
  EXPECT_GT(verdict.effect, 0.15);
}

TEST(Verdict, EndpointsMustDifferInTheConfiguredDirection) {
  MetricSpec metric;
  metric.name = "read.iops";
  BisectSpec spec;
  EXPECT_EQ(check_endpoints(kGood, kBad, metric, spec, false).kind, VerdictKind::kBad);

  // An improvement is not a regression.
  EndpointCheck reversed = check_endpoints(kBad, kGood, metric, spec, true);
  EXPECT_EQ(reversed.kind, VerdictKind::kGood);
  EXPECT_NE(reversed.message.find("median 90.2"), std::string::npos) << reversed.message;
  EXPECT_NE(reversed.message.find("median"), std::string::npos);
  EXPECT_NE(reversed.message.find("IQR"), std::string::npos);
  EXPECT_NE(reversed.message.find("p = "), std::string::npos);

  // Significant but tiny: below the effect floor with confidence.
  std::vector<double> slightly_worse;
  for (double v : kGood) slightly_worse.push_back(v * 0.99 - 0.2);
  EndpointCheck tiny = check_endpoints(kGood, slightly_worse, metric, spec, true);
  EXPECT_LT(tiny.p_value, 0.01);
  EXPECT_EQ(tiny.kind, VerdictKind::kGood) << tiny.p_value << " " << tiny.effect;

  // Not settled: undecided until the cap.
  std::vector<double> few_good{100, 104, 98}, few_bad{95, 99, 93};
  EXPECT_EQ(check_endpoints(few_good, few_bad, metric, spec, false).kind, VerdictKind::kUndecided);
  EXPECT_EQ(check_endpoints(few_good, few_bad, metric, spec, true).kind, VerdictKind::kGood);
}

}  // namespace
}  // namespace kbisect
