#include "bisect/strategy.h"

#include <gtest/gtest.h>

#include "bisect/pinpoint.h"
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

// Two-mode noise: `main` samples at `level`, `second` at 0.8x, each mode 0.4% wide.
std::vector<double> two_modes(double level, size_t main, size_t second) {
  std::vector<double> values = evenly(main, level, level * 0.004);
  for (double v : evenly(second, 0.8 * level, level * 0.004)) values.push_back(v);
  return values;
}

// The endpoint phase of adaptive with these samples at good and at bad.
Action endpoint_step(std::vector<double> good, std::vector<double> bad) {
  static const CommitGraph graph = testing::linear_graph(8);
  SearchState state(graph);
  state.good = std::move(good);
  state.samples[0] = std::move(bad);
  BisectSpec spec;  // max_samples 10: the cap is 50 a side
  MetricSpec metric;
  return make_strategy("adaptive", spec, metric)->next(state);
}

// The same with `count` samples a side, bad `lower` below good.
Action endpoint_step(size_t count, double step, double lower) {
  return endpoint_step(evenly(count, 900, step), evenly(count, 900 - lower, step));
}

// Past max_samples (10) a side the check is asked only every 3 pairs: at 14 and 15 a side a
// significant difference waits for 16.
TEST(EndpointPhase, PastMaxSamplesTheCheckIsAskedEveryFewPairs) {
  BisectSpec spec;
  MetricSpec metric;
  for (size_t count : {14, 15}) {
    ASSERT_EQ(check_endpoints(evenly(count, 900, 4), evenly(count, 860, 4), metric, spec,
                              EndpointAsk::kWhetherSettled)
                  .kind,
              VerdictKind::kBad);
    EXPECT_EQ(endpoint_step(count, 4, 40).kind, Action::Kind::kMeasure) << count;
  }
  EXPECT_EQ(endpoint_step(16, 4, 40).kind, Action::Kind::kEndpointsOk);
}

// Bad 5% below good in both modes. Up to max_samples (10) a side the check's second test is
// the kernel shift test, which leaves the search's model samples to learn the noise from
// (verdict.h); past it, the mixture shift test, which settles two-mode noise sooner.
TEST(EndpointPhase, PastMaxSamplesTheMixtureShiftTestJoinsTheCheck) {
  BisectSpec spec;
  MetricSpec metric;
  auto good = two_modes(1000, 6, 2), bad = two_modes(950, 6, 2);
  ASSERT_EQ(
      check_endpoints(good, bad, metric, spec, EndpointAsk::kWhetherSettled, ShiftTest::kMixture)
          .kind,
      VerdictKind::kBad);
  EXPECT_EQ(endpoint_step(good, bad).kind, Action::Kind::kMeasure);

  good = two_modes(1000, 10, 3);  // 13 a side: a late ask
  bad = two_modes(950, 10, 3);
  ASSERT_EQ(
      check_endpoints(good, bad, metric, spec, EndpointAsk::kWhetherSettled, ShiftTest::kKernel)
          .kind,
      VerdictKind::kUndecided);
  EXPECT_EQ(endpoint_step(good, bad).kind, Action::Kind::kEndpointsOk);
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

// Pinpoint on an 8-commit history whose endpoints (10 attempts each) differ by less than
// their spread: compared, they are neither different nor the same yet.
class PinpointSearch : public ::testing::Test {
 protected:
  PinpointSearch() {
    state.good = evenly(10, 900, 1);
    state.samples[0] = evenly(10, 897, 1);
  }
  // 10 more attempts of `commit`.
  void expect_attempts(const Action& action, int commit) const {
    EXPECT_EQ(action.kind, Action::Kind::kMeasure);
    EXPECT_EQ(action.commit, commit);
    EXPECT_EQ(action.samples, 10);
  }
  CommitGraph graph = testing::linear_graph(8);
  std::unique_ptr<Strategy> pinpoint = make_strategy("pinpoint", BisectSpec{}, MetricSpec{});
  SearchState state{graph};
};

// While a comparison is unknown, the change with fewer attempts gets 10 more.
TEST_F(PinpointSearch, AnUnknownComparisonGetsTenMoreAttemptsOnTheChangeWithFewer) {
  ASSERT_EQ(pinpoint_compare(state.good, state.samples[0], 3).result, PinpointResult::kUnknown);
  expect_attempts(pinpoint->next(state), kGoodEndpoint);

  state.good = evenly(20, 900, 0.5);
  ASSERT_EQ(pinpoint_compare(state.good, state.samples[0], 3.25).result, PinpointResult::kUnknown);
  expect_attempts(pinpoint->next(state), 0);
}

// The session takes one sample an action: a round of attempts begun is finished before the
// changes are compared again, even where the samples so far would settle the comparison.
TEST_F(PinpointSearch, ARoundOfAttemptsIsFinishedBeforeTheNextComparison) {
  state.good = evenly(14, 1000, 1);  // 10, and 4 of the next 10
  ASSERT_EQ(pinpoint_compare(state.good, state.samples[0], 3).result, PinpointResult::kDifferent);
  Action rest = pinpoint->next(state);
  EXPECT_EQ(rest.kind, Action::Kind::kMeasure);
  EXPECT_EQ(rest.commit, kGoodEndpoint);
  EXPECT_EQ(rest.samples, 6);

  state.endpoints_verified = true;
  state.good = evenly(10, 1000, 1);
  const int commit = pinpoint->next(state).commit;
  state.samples[commit] = evenly(13, 897, 1);
  Action visit = pinpoint->next(state);
  EXPECT_EQ(visit.kind, Action::Kind::kMeasure);
  EXPECT_EQ(visit.commit, commit);
  EXPECT_EQ(visit.samples, 7);
}

// With more attempts per change (the benchmark's --pinpoint-attempts), that many at a time.
TEST_F(PinpointSearch, MoreAttemptsPerChangeAreTakenThatManyAtATime) {
  auto pinpoint_30 = make_strategy("pinpoint", BisectSpec{}, MetricSpec{}, std::nullopt, 30);
  Action first = pinpoint_30->next(state);
  EXPECT_EQ(first.kind, Action::Kind::kMeasure);
  EXPECT_EQ(first.commit, kGoodEndpoint);
  EXPECT_EQ(first.samples, 20);  // up to 30 of the 10 it has
}

// The commit under test is compared with its nearest measured neighbours: here the good one is
// commit 6, not the good endpoint, and it gets the 10 attempts of an unknown comparison.
TEST_F(PinpointSearch, ComparesWithTheNearestGoodAndBadCommits) {
  state.endpoints_verified = true;
  state.samples[6] = evenly(10, 900, 1);
  CommitVerdict good;
  good.kind = VerdictKind::kGood;
  state.verdicts.emplace_back(6, good);
  Action visit = pinpoint->next(state);
  ASSERT_EQ(visit.kind, Action::Kind::kMeasure);
  ASSERT_NE(visit.commit, 6);
  expect_attempts(visit, visit.commit);

  state.samples[visit.commit] = evenly(10, 897, 1);  // the same as bad, unknown against 6
  expect_attempts(pinpoint->next(state), 6);
}

// classic, lkp and pinpoint decide by their own rules, but their verdicts carry what the
// samples say against the endpoints, as adaptive's do: the stored effect is no made-up 0.
TEST(GitLikeSearch, VerdictsCarryTheEvidenceAgainstTheEndpoints) {
  CommitGraph graph = testing::linear_graph(8);
  for (const char* name : {"classic", "lkp", "pinpoint"}) {
    SCOPED_TRACE(name);
    auto strategy = make_strategy(name, BisectSpec{}, MetricSpec{});
    SearchState state(graph);
    state.endpoints_verified = true;
    state.good = evenly(10, 1000, 1);
    state.samples[0] = evenly(10, 800, 1);
    Action visit = strategy->next(state);
    ASSERT_EQ(visit.kind, Action::Kind::kMeasure);
    state.samples[visit.commit] = evenly(10, 800, 1);  // as bad: every rule calls it bad
    Action verdict = strategy->next(state);
    ASSERT_EQ(verdict.kind, Action::Kind::kVerdict);
    EXPECT_EQ(verdict.verdict.kind, VerdictKind::kBad);
    EXPECT_NEAR(verdict.verdict.effect, 0.2, 0.002);
    EXPECT_LT(verdict.verdict.p_vs_good, 0.001);
    EXPECT_LT(verdict.verdict.ks_vs_good, 0.001);
    EXPECT_EQ(verdict.verdict.good_samples, 10);
    EXPECT_EQ(verdict.verdict.bad_samples, 10);
  }
}

// Run 6 of the benchmark's linear bimodal 10%/10% cell (culprit 58, 20% of the samples in a
// second mode at 0.8x) after 56 samples. The endpoint check passed at 5 samples a side, and
// node 57, truly bad, gave five samples at good's level. A model resting on the check's samples
// holds node 56 the culprit with P > 0.999, but one without them does not: adaptive measures
// on (and names 58 in the end).
SearchState bimodal_run_6(const CommitGraph& graph, size_t endpoint_check_samples) {
  SearchState state(graph);
  state.endpoints_verified = true;
  state.endpoint_check_samples = endpoint_check_samples;
  state.good = {10668.4, 9517.2, 10496.1, 9819.8, 11041.0, 10902.7};
  state.samples[0] = {8617.8, 6486.7, 7062.5, 9241.3, 9023.4, 8876.6};
  state.samples[32] = {9291.7, 6949.9, 6992.9};
  state.samples[48] = {7415.7, 8499.4, 6503.4};
  state.samples[56] = {10026.5, 7259.7, 8519.7, 7187.8, 8000.6, 9581.7, 8445.9, 8084.6, 8324.9,
                       7819.0,  9663.1, 8384.0, 7786.2, 9432.1, 7189.8, 9108.0, 7838.3};
  state.samples[57] = {11745.0, 10728.4, 11347.5, 9918.1, 10307.1};
  state.samples[58] = {8462.9, 7968.3, 8851.7, 9411.7, 8313.6, 8266.2, 9960.0, 8353.5, 10117.3};
  state.samples[59] = {6916.8, 10496.9, 9071.9, 11346.8};
  state.samples[60] = {10584.3, 9645.2, 9825.3};
  return state;
}

TEST(AdaptiveSearch, AnAnswerMustHoldWithoutTheEndpointChecksSamples) {
  const CommitGraph graph = testing::linear_graph(64);
  BisectSpec spec;
  MetricSpec metric;
  auto adaptive = make_strategy("adaptive", spec, metric);
  Action action = adaptive->next(bimodal_run_6(graph, 5));
  EXPECT_EQ(action.kind, Action::Kind::kMeasure);
  // With those samples vouching for the model, the search ends: verdicts, then the answer.
  action = adaptive->next(bimodal_run_6(graph, 0));
  EXPECT_EQ(action.kind, Action::Kind::kVerdict);
}

// Run 13 of the benchmark's linear bimodal 10%/10% cell (culprit 61) after 34 samples, the
// endpoint check passed at 5 a side. bayes holds the answer at 0.95 under a model resting on
// the check's samples, but not under one without them: it measures on.
SearchState bimodal_run_13(const CommitGraph& graph, size_t endpoint_check_samples) {
  SearchState state(graph);
  state.endpoints_verified = true;
  state.endpoint_check_samples = endpoint_check_samples;
  state.good = {10727.7, 10137.7, 9403.4,  10138.4, 11557.2, 8141.9,
                11543.8, 8260.0,  11542.3, 10015.7, 11192.3};
  state.samples[0] = {9284.1, 8901.6, 8386.7, 8755.6, 7881.3, 7988.2,
                      8576.5, 7795.1, 7727.4, 6858.4, 7695.6};
  state.samples[32] = {9440.5};
  state.samples[33] = {8694.7};
  state.samples[47] = {7834.0};
  state.samples[54] = {6511.5};
  state.samples[58] = {8289.2};
  state.samples[60] = {8209.9};
  state.samples[61] = {8119.5, 9606.2, 7385.0};
  state.samples[62] = {10593.6, 9323.3, 10244.5};
  return state;
}

TEST(BayesSearch, AnAnswerMustHoldWithoutTheEndpointChecksSamples) {
  const CommitGraph graph = testing::linear_graph(64);
  auto bayes = make_strategy("bayes", BisectSpec{}, MetricSpec{});
  Action action = bayes->next(bimodal_run_13(graph, 5));
  EXPECT_EQ(action.kind, Action::Kind::kMeasure);
  action = bayes->next(bimodal_run_13(graph, 0));
  EXPECT_EQ(action.kind, Action::Kind::kVerdict);
}

}  // namespace
}  // namespace kbisect
