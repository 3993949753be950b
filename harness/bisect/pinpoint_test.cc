#include "bisect/pinpoint.h"

#include <gtest/gtest.h>

#include <vector>

namespace kbisect {
namespace {

// Pinpoint's own table (catapult's thresholds.py, performance, 1.0 IQR) starts at 0.57 for 10
// values a side, is 0.08 at 20 and falls below 0.01 at 30; for 2.0 IQR below 0.01 at 10.
TEST(PinpointThreshold, FallsWithTheSamplesUntilEveryComparisonIsDecided) {
  EXPECT_GT(pinpoint_same_threshold(1.0, 10), 0.4);
  EXPECT_LT(pinpoint_same_threshold(1.0, 10), 0.7);
  EXPECT_GT(pinpoint_same_threshold(1.0, 20), 0.04);
  EXPECT_LT(pinpoint_same_threshold(1.0, 20), 0.15);
  EXPECT_LT(pinpoint_same_threshold(1.0, 32), 0.01);
  EXPECT_LT(pinpoint_same_threshold(2.0, 10), 0.01);
  EXPECT_GT(pinpoint_same_threshold(2.0, 5), pinpoint_same_threshold(2.0, 10));
}

TEST(PinpointThreshold, MagnitudesBelowOneIqrUseOneAndAbove3Point6Use3Point6) {
  EXPECT_EQ(pinpoint_same_threshold(0.3, 10), pinpoint_same_threshold(1.0, 10));
  EXPECT_EQ(pinpoint_same_threshold(9.0, 3), pinpoint_same_threshold(3.6, 3));
  EXPECT_NE(pinpoint_same_threshold(1.5, 10), pinpoint_same_threshold(1.0, 10));
}

std::vector<double> values(int count, double from) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) out.push_back(from + (i * 7) % count);
  return out;
}

TEST(PinpointCompare, DifferentSameOrUnknown) {
  // Ten values a side, spread (IQR) 4.5, looking for a change of 4.5.
  PinpointComparison apart = pinpoint_compare(values(10, 0), values(10, 20), 4.5);
  EXPECT_EQ(apart.result, PinpointResult::kDifferent);
  EXPECT_LE(apart.p_value, 0.01);

  PinpointComparison alike = pinpoint_compare(values(10, 0), values(10, 0), 4.5);
  EXPECT_EQ(alike.result, PinpointResult::kSame);

  // p between 0.01 and the threshold for 10 values (about 0.5): 10 more attempts.
  PinpointComparison between = pinpoint_compare(values(10, 0), values(10, 3), 4.5);
  EXPECT_GT(between.p_value, 0.01);
  EXPECT_LT(between.p_value, pinpoint_same_threshold(1.0, 10));
  EXPECT_EQ(between.result, PinpointResult::kUnknown);
  // The same samples, looking for a change of 4 IQR: decided at once.
  EXPECT_EQ(pinpoint_compare(values(10, 0), values(10, 3), 18).result, PinpointResult::kSame);
}

}  // namespace
}  // namespace kbisect
