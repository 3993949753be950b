#include "bisect/drift.h"

#include <gtest/gtest.h>

#include <vector>

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
  EXPECT_NEAR(drift.per_sample, 0.7490196, 1e-6);
  EXPECT_NEAR(drift.p_value, 0.0014448, 1e-6);
  EXPECT_NEAR(drift.good_at_start, 99.854118, 1e-5);  // good's intercept
}

// Bad measured only after good, at its own level: the difference of the levels is the
// regression, not drift.
TEST(Drift, TheEndpointsDifferenceIsNotDrift) {
  std::vector<double> good{100, 102, 98, 101}, bad{90, 88, 91, 89};
  std::vector<int> good_sequence{0, 1, 2, 3}, bad_sequence{4, 5, 6, 7};
  Drift drift = endpoint_drift(good, good_sequence, bad, bad_sequence);
  EXPECT_NEAR(drift.per_sample, -0.05, 1e-9);  // one line through both: -2.06
  EXPECT_GT(drift.p_value, 0.5);
}

TEST(Drift, APerfectLineIsClear) {
  std::vector<double> good{100, 98, 96}, bad{89, 87, 85};
  std::vector<int> good_sequence{0, 2, 4}, bad_sequence{1, 3, 5};
  Drift drift = endpoint_drift(good, good_sequence, bad, bad_sequence);
  EXPECT_DOUBLE_EQ(drift.per_sample, -1);
  EXPECT_EQ(drift.p_value, 0);
}

TEST(Drift, TooFewOrUntimedSamplesGiveNone) {
  std::vector<double> two{1, 2}, one{1};
  std::vector<int> two_sequence{0, 1}, no_sequence;
  for (Drift drift : {endpoint_drift(two, two_sequence, one, std::vector<int>{2}),
                      endpoint_drift(two, no_sequence, two, two_sequence)}) {
    EXPECT_EQ(drift.per_sample, 0);
    EXPECT_EQ(drift.p_value, 1);
  }
}

}  // namespace
}  // namespace kbisect
