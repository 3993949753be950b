#include "bisect/drift.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "bisect/statistics.h"

namespace kbisect {
namespace {

// Against ordinary least squares with an intercept per endpoint (the normal equations of
// value ~ good + bad + sequence, solved by hand): slope 0.7490196, t 5.071421 with 7 degrees
// of freedom, two-sided p 0.0014448 (the t density integrated numerically), good's intercept
// 99.854118.
TEST(Drift, SlopeAndTAgainstLeastSquares) {
  std::vector<double> good{101.0, 99.5, 104.0, 103.0, 107.5}, bad{90.0, 93.5, 92.0, 97.0, 96.5};
  std::vector<int> good_sequence{0, 2, 4, 6, 9}, bad_sequence{1, 3, 5, 8, 10};
  Drift drift = endpoint_drift(good, good_sequence, bad, bad_sequence);
  EXPECT_NEAR(drift.at(1), 0.7490196, 1e-6);
  EXPECT_NEAR(drift.p_value, 0.0014448, 1e-6);
  EXPECT_NEAR(drift.good_at_start, 99.854118, 1e-5);  // good's intercept
}

// Bad measured only after good, at its own level: the difference of the levels is the
// regression, not drift.
TEST(Drift, TheEndpointsDifferenceIsNotDrift) {
  std::vector<double> good{100, 102, 98, 101}, bad{90, 88, 91, 89};
  std::vector<int> good_sequence{0, 1, 2, 3}, bad_sequence{4, 5, 6, 7};
  Drift drift = endpoint_drift(good, good_sequence, bad, bad_sequence);
  EXPECT_NEAR(drift.at(1), -0.05, 1e-9);  // one line through both: -2.06
  EXPECT_GT(drift.p_value, 0.5);
}

TEST(Drift, APerfectLineIsClear) {
  std::vector<double> good{100, 98, 96}, bad{89, 87, 85};
  std::vector<int> good_sequence{0, 2, 4}, bad_sequence{1, 3, 5};
  Drift drift = endpoint_drift(good, good_sequence, bad, bad_sequence);
  EXPECT_NEAR(drift.at(1), -1, 1e-12);
  EXPECT_EQ(drift.p_value, 0);
}

// Good and bad in alternation, 40 samples each, with a small wobble (+-1) that is not drift.
struct Endpoints {
  std::vector<double> good, bad;
  std::vector<int> good_sequence, bad_sequence;
};

template <typename Host>
Endpoints alternating(int each, Host host) {
  Endpoints endpoints;
  for (int sequence = 0; sequence < 2 * each; ++sequence) {
    const double wobble = (sequence / 2) % 2 == 0 ? 1 : -1;
    const bool good = sequence % 2 == 0;
    (good ? endpoints.good : endpoints.bad).push_back((good ? 100 : 90) + host(sequence) + wobble);
    (good ? endpoints.good_sequence : endpoints.bad_sequence).push_back(sequence);
  }
  return endpoints;
}

Drift fit(const Endpoints& e) {
  return endpoint_drift(e.good, e.good_sequence, e.bad, e.bad_sequence);
}

// A host that slows by 15 over its first 30 samples and then holds: a straight line would
// put the late samples' offset at about -27 and take out 12 too many.
TEST(Drift, AWarmUpThatLevelsOffIsFollowed) {
  const Drift drift = fit(alternating(40, [](int s) { return -0.5 * std::min(s, 30); }));
  EXPECT_FALSE(drift.straight());
  EXPECT_NEAR(drift.at(79), -15, 1.5);
  EXPECT_NEAR(drift.at(15), -7.5, 1.5);
  EXPECT_LT(drift.p_value, kClearDrift);
  EXPECT_EQ(drift.last_sequence, 79);
  EXPECT_THAT(describe(drift), ::testing::MatchesRegex("-1[45]% of good at the start by sample 79, "
                                                       "not at an even pace \\(p = .*\\)"));
}

// Bends must pay for themselves: a straight drift stays a straight line.
TEST(Drift, AStraightDriftStaysStraight) {
  const Drift drift = fit(alternating(40, [](int s) { return -0.2 * s; }));
  EXPECT_TRUE(drift.straight());
  EXPECT_NEAR(drift.at(100), -20, 1);
  EXPECT_THAT(describe(drift),
              ::testing::MatchesRegex("-20% of good at the start per 100 samples \\(p = .*\\)"));
}

// Too few samples between bends to show a slope: the same warm-up gets a straight line.
TEST(Drift, AShortSessionGetsAStraightLine) {
  EXPECT_TRUE(fit(alternating(7, [](int s) { return -2.0 * std::min(s, 6); })).straight());
}

// A host that slows by 10 and comes back: the text says how far it went, not only where it
// ended.
TEST(Drift, AHostThatCameBackSaysHowFarItWent) {
  const Drift drift = fit(alternating(40, [](int s) { return -10 + std::fabs(s - 40) / 4; }));
  ASSERT_FALSE(drift.straight());
  EXPECT_THAT(describe(drift), ::testing::MatchesRegex("-(9|10|11)% of good at the start at sample "
                                                       "[0-9]+, [-+][0-9.]+% by sample 79, .*"));
}

// Round-off is not drift: values that do not vary, and an exact straight line, which no bend
// fits better than round-off does.
TEST(Drift, RoundOffIsNotDrift) {
  std::vector<double> good(40, 0.3), bad(40, 0.27);
  std::vector<int> good_sequence, bad_sequence;
  for (int i = 0; i < 40; ++i) good_sequence.push_back(2 * i), bad_sequence.push_back(2 * i + 1);
  EXPECT_EQ(endpoint_drift(good, good_sequence, bad, bad_sequence).p_value, 1);
  for (int i = 0; i < 40; ++i) good[i] = 0.3 - 1e-3 * i / 3, bad[i] = 0.27 - 1e-3 * i / 3;
  const Drift line = endpoint_drift(good, good_sequence, bad, bad_sequence);
  EXPECT_TRUE(line.straight());
  EXPECT_EQ(line.p_value, 0);
}

// Two commits measured late in a session while the host warms up: as the host was at the
// first of their samples, the drift between taken out and their difference kept.
TEST(Drift, ClearDriftIsTakenOutAsAtTheFirstSample) {
  Endpoints late = alternating(40, [](int s) { return -0.5 * std::min(s, 30); });
  for (auto* sequence : {&late.good_sequence, &late.bad_sequence}) {
    for (int& s : *sequence) s += 300;
  }
  const auto [good, bad, taken_out] =
      without_clear_drift(late.good, late.good_sequence, late.bad, late.bad_sequence);
  EXPECT_TRUE(taken_out);
  EXPECT_NEAR(mean(good), 100, 1);
  EXPECT_NEAR(mean(bad), 90, 1);
  EXPECT_LT(stddev(good), 1.5);  // the wobble, not the 15 the host moved
}

TEST(Drift, NoClearDriftLeavesTheSamplesAsTheyAre) {
  const Endpoints steady = alternating(40, [](int) { return 0.0; });
  const auto [good, bad, taken_out] =
      without_clear_drift(steady.good, steady.good_sequence, steady.bad, steady.bad_sequence);
  EXPECT_FALSE(taken_out);
  EXPECT_EQ(good, steady.good);
  EXPECT_EQ(bad, steady.bad);
}

TEST(Drift, TooFewOrUntimedSamplesGiveNone) {
  std::vector<double> two{1, 2}, one{1};
  std::vector<int> two_sequence{0, 1}, no_sequence;
  for (Drift drift : {endpoint_drift(two, two_sequence, one, std::vector<int>{2}),
                      endpoint_drift(two, no_sequence, two, two_sequence)}) {
    EXPECT_EQ(drift.at(1), 0);
    EXPECT_EQ(drift.p_value, 1);
  }
}

}  // namespace
}  // namespace kbisect
