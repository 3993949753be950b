#include "bisect/posterior.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "bisect/test_graphs.h"

namespace kbisect {
namespace {

using testing::linear_graph;
using testing::merge_graph;

// Samples around `center` with a fixed pattern of up to +-`percent`: deterministic.
std::vector<double> around(double center, int count, int phase = 0, double percent = 1) {
  static const double pattern[] = {0.0, 0.6, -0.4, 0.9, -0.8, 0.3, -0.2, 0.7, -0.6, 0.1, -0.9};
  std::vector<double> values;
  for (int i = 0; i < count; ++i) {
    values.push_back(center * (1 + 0.01 * percent * pattern[(i + phase) % 11]));
  }
  return values;
}

struct Fixture {
  CommitGraph graph;
  std::vector<double> good;
  std::vector<std::vector<double>> samples;
  std::vector<bool> counted_bad;

  explicit Fixture(CommitGraph g)
      : graph(std::move(g)), samples(graph.nodes.size()), counted_bad(graph.nodes.size(), false) {}

  PosteriorInput input() const {
    PosteriorInput input;
    input.graph = &graph;
    input.good = good;
    input.samples = samples;
    input.counted_bad = counted_bad;
    input.better = Better::kHigher;
    return input;
  }

  CulpritPosterior posterior(int rounds = 2) const {
    return culprit_posterior(input(), reach_matrix(graph), rounds, 0.01);
  }

  CulpritPosterior posterior_given(int answer, size_t endpoint_samples_left_out) const {
    return kbisect::posterior_given(input(), reach_matrix(graph), answer,
                                    endpoint_samples_left_out);
  }
};

TEST(Posterior, ReachMatrixFollowsParents) {
  CommitGraph graph = merge_graph();
  auto reach = reach_matrix(graph);
  EXPECT_TRUE(reach[0][20]);   // the merge reaches the fork point
  EXPECT_TRUE(reach[1][3]);    // one side: 1 -> 3 -> 5 ...
  EXPECT_FALSE(reach[1][2]);   // not the other side
  EXPECT_TRUE(reach[5][5]);    // itself
  EXPECT_FALSE(reach[20][0]);  // not its descendants
}

// Three candidates in a line: nodes 0 (bad), 1, 2 (oldest); 1 measured bad, 2 good.
Fixture three_on_a_line() {
  Fixture f(linear_graph(3));
  f.good = around(100, 5);
  f.samples[0] = around(90, 5, 3);
  f.samples[1] = around(90, 2, 5);
  f.samples[2] = around(100, 1, 7);
  return f;
}

// Culprit c makes every node that reaches it bad, so log P(c) = sum of the llr of those nodes:
// c = 0: 0; c = 1: llr1; c = 2: llr1 + llr2 (node 0's samples say nothing: it is bad under
// every hypothesis).
TEST(Posterior, KnownValuesOnALine) {
  Fixture f = three_on_a_line();
  CulpritPosterior p = f.posterior(0);
  double llr1 = 0, llr2 = 0;
  for (double v : f.samples[1]) llr1 += p.model.log_likelihood_ratio(badness(v, Better::kHigher));
  for (double v : f.samples[2]) llr2 += p.model.log_likelihood_ratio(badness(v, Better::kHigher));
  EXPECT_DOUBLE_EQ(p.llr[1], llr1);
  EXPECT_DOUBLE_EQ(p.llr[2], llr2);
  EXPECT_GT(llr1, 0);
  EXPECT_LT(llr2, 0);
  const double z = 1 + std::exp(llr1) + std::exp(llr1 + llr2);
  EXPECT_NEAR(p.culprit[0], 1 / z, 1e-12);
  EXPECT_NEAR(p.culprit[1], std::exp(llr1) / z, 1e-12);
  EXPECT_NEAR(p.culprit[2], std::exp(llr1 + llr2) / z, 1e-12);
  EXPECT_EQ(p.most_likely, 1);
  // P(bad) of a node is the mass of the culprits it reaches.
  EXPECT_NEAR(p.bad[0], 1, 1e-12);
  EXPECT_NEAR(p.bad[1], p.culprit[1] + p.culprit[2], 1e-12);
  EXPECT_NEAR(p.bad[2], p.culprit[2], 1e-12);
}

// With centres_uncertain, m samples of a commit against a model fitted from n_good and n_bad
// samples count 1 / (1 + m (1/n_good + 1/n_bad) / 4) of what they would against exact
// centres: 5 samples of each endpoint, 2 and 1 at the commits.
TEST(Posterior, UncertainCentresWeighACommitsSamplesByTheirCount) {
  Fixture f = three_on_a_line();
  f.samples[0].pop_back();  // 4 of bad: the counts of both sides enter
  CulpritPosterior plain = f.posterior(0);
  PosteriorInput input = f.input();
  input.centres_uncertain = true;
  CulpritPosterior weighed = culprit_posterior(input, reach_matrix(f.graph), 0, 0.01);
  const double centre_variance = (1.0 / 5 + 1.0 / 4) / 4;
  EXPECT_DOUBLE_EQ(weighed.llr[1], plain.llr[1] / (1 + 2 * centre_variance));
  EXPECT_DOUBLE_EQ(weighed.llr[2], plain.llr[2] / (1 + 1 * centre_variance));
  EXPECT_LT(weighed.culprit[weighed.most_likely], plain.culprit[plain.most_likely]);
}

TEST(Posterior, WithoutSamplesEveryCountedCandidateIsEquallyLikely) {
  Fixture f(linear_graph(8));
  f.graph.nodes[3].touches_paths = false;
  f.good = around(100, 4);
  f.samples[0] = around(90, 4);
  CulpritPosterior p = f.posterior();
  EXPECT_DOUBLE_EQ(p.culprit[3], 0);
  for (int c : {0, 1, 2, 4, 5, 6, 7}) EXPECT_NEAR(p.culprit[c], 1.0 / 7, 1e-12);
  EXPECT_DOUBLE_EQ(std::accumulate(p.culprit.begin(), p.culprit.end(), 0.0), 1.0);
}

TEST(Posterior, ACountedFailureIsBad) {
  Fixture f(linear_graph(6));
  f.good = around(100, 4);
  f.samples[0] = around(90, 4);
  f.counted_bad[4] = true;
  f.samples[5] = around(100, 3);
  CulpritPosterior p = f.posterior();
  EXPECT_GT(p.culprit[4], 0.999);
  EXPECT_GT(p.bad[4], 0.999);
}

// The endpoints alone (three samples each, close together by chance) know the noise poorly.
// The noise scale comes from the repeats of every commit from the start; a dozen settled
// commits either side are then pooled into the model's shape as well.
TEST(Posterior, SettledCommitsRefitTheModel) {
  Fixture f(linear_graph(30));
  f.good = {100.0, 100.1, 99.9};
  f.samples[0] = {90.0, 90.1, 89.9};
  for (int i = 1; i <= 12; ++i) f.samples[i] = around(90, 3, i, 3);
  for (int i = 17; i <= 28; ++i) f.samples[i] = around(100, 3, i, 3);
  CulpritPosterior endpoints_only = f.posterior(0);
  CulpritPosterior pooled = f.posterior(2);
  EXPECT_EQ(endpoints_only.pooled, 0);
  EXPECT_EQ(pooled.pooled, 24);
  // The endpoints' own spread is 0.1%; the commits' repeats show 3%.
  EXPECT_GT(endpoints_only.model.scale, 0.01);
  EXPECT_EQ(endpoints_only.model.shape.size(), 6u);
  EXPECT_EQ(pooled.model.shape.size(), 6u + 24 * 3);
  EXPECT_NEAR(pooled.model.bad_center - pooled.model.good_center, std::log(100.0 / 90.0), 0.005);
  // The culprit is the last bad one (12) or one of the unmeasured 13..16, nowhere else.
  double inside = 0;
  for (int c = 12; c <= 16; ++c) inside += pooled.culprit[c];
  EXPECT_GT(inside, 0.999) << ::testing::PrintToString(pooled.culprit);
}

// The first four samples of each endpoint (the endpoint check's) put bad 20% below good; the
// later ones 10%. Left out, the model's shift is the later ones'.
TEST(PosteriorGiven, LeavesOutTheFirstSamplesOfEachEndpoint) {
  Fixture f(linear_graph(4));
  f.good = {100.0, 100.8, 99.2, 100.4, 99.6, 100.2};
  f.samples[0] = {80.0, 80.8, 79.2, 80.4, 89.6, 90.2};
  const double all = f.posterior(0).model.bad_center - f.posterior(0).model.good_center;
  CulpritPosterior given = f.posterior_given(0, 4);
  EXPECT_GT(all, std::log(100 / 85.0));
  EXPECT_NEAR(given.model.bad_center - given.model.good_center, std::log(100 / 90.0), 0.01);
  EXPECT_EQ(given.model.shape.size(), 4u);
}

// Every measured commit joins the side the answer puts it on, settled or not.
TEST(PosteriorGiven, PoolsEveryMeasuredCommitOnItsSide) {
  Fixture f(linear_graph(6));
  f.good = around(100, 3);
  f.samples[0] = around(90, 3);
  f.samples[1] = around(90, 3, 1);
  f.samples[2] = around(95, 3, 2);  // between the two: settled on neither side
  f.samples[4] = around(100, 3, 4);
  CulpritPosterior given = f.posterior_given(2, 1);
  EXPECT_EQ(given.model.shape.size(), 2u + 2u + 3 * 3u);
  EXPECT_EQ(f.posterior(2).pooled, 2);
  // With 2 the culprit, 2 is bad: its 95s pull the bad side's centre towards good.
  const double shift = given.model.bad_center - given.model.good_center;
  EXPECT_GT(shift, std::log(100 / 95.5));
  EXPECT_LT(shift, std::log(100 / 90.0));
}

}  // namespace
}  // namespace kbisect
