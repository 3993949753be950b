#include "bisect/strategy.h"

#include <gtest/gtest.h>

#include "bisect/test_graphs.h"

namespace kbisect {
namespace {

// `count` values from `from` in steps of `step`, in a scrambled order.
std::vector<double> evenly(size_t count, double from, double step) {
  std::vector<double> values;
  for (size_t i = 0; i < count; ++i) {
    values.push_back(from + step * static_cast<double>((i * 7) % count));
  }
  return values;
}

// The endpoint phase of adaptive with `count` samples a side, bad `lower` below good.
Action endpoint_step(size_t count, double step, double lower) {
  static const CommitGraph graph = testing::linear_graph(8);
  SearchState state(graph);
  state.good = evenly(count, 900, step);
  state.samples[0] = evenly(count, 900 - lower, step);
  BisectSpec spec;  // max_samples 10: the cap is 50 a side
  MetricSpec metric;
  return make_strategy("adaptive", spec, metric)->next(state);
}

// At the cap, p = 0.036 (between alpha and 10 alpha) with bad worse: not "no regression" yet.
TEST(EndpointPhase, LeaningWorseAtTheCapIsMeasuredOn) {
  Action action = endpoint_step(50, 4, 25);
  EXPECT_EQ(action.kind, Action::Kind::kMeasure);
}

TEST(EndpointPhase, NoRegressionAtTheCapWhenNotLeaningWorse) {
  Action action = endpoint_step(50, 4, 12);  // p = 0.32
  EXPECT_EQ(action.kind, Action::Kind::kNoRegression);
  EXPECT_NE(action.message.find("50 samples"), std::string::npos) << action.message;
}

TEST(EndpointPhase, NoRegressionAtTwiceTheCapEvenLeaningWorse) {
  Action action = endpoint_step(100, 2, 15);  // p = 0.034
  EXPECT_EQ(action.kind, Action::Kind::kNoRegression);
  EXPECT_NE(action.message.find("100 samples"), std::string::npos) << action.message;
}

}  // namespace
}  // namespace kbisect
