#include "bisect/sim_measurer.h"

#include <gtest/gtest.h>

#include "bisect/statistics.h"
#include "bisect/test_graphs.h"
#include "common/error.h"

namespace kbisect {
namespace {

using testing::fake_id;
using testing::good_id;

std::vector<double> draw(SimMeasurer& sim, const std::string& commit, int count) {
  std::vector<double> values;
  for (int i = 0; i < count; ++i) {
    Measurement m = sim.measure({commit, i, 0});
    EXPECT_EQ(m.status, MeasureStatus::kOk);
    values.push_back(m.value);
  }
  return values;
}

TEST(SimMeasurer, ChangesMultiplyDescendantsOnly) {
  CommitGraph graph = testing::merge_graph();
  SimSpec spec;
  spec.changes = {{fake_id(12), 0.9}, {"commit 3", 0.5}};
  SimMeasurer sim(graph, good_id(), spec);
  EXPECT_DOUBLE_EQ(sim.true_value(good_id()), 10000);
  EXPECT_DOUBLE_EQ(sim.true_value(fake_id(14)), 10000);  // older, same side
  EXPECT_DOUBLE_EQ(sim.true_value(fake_id(12)), 9000);
  EXPECT_DOUBLE_EQ(sim.true_value(fake_id(10)), 9000);   // descends from 12
  EXPECT_DOUBLE_EQ(sim.true_value(fake_id(11)), 10000);  // the other side
  EXPECT_DOUBLE_EQ(sim.true_value(fake_id(3)), 5000);    // other side, its own change
  EXPECT_DOUBLE_EQ(sim.true_value(fake_id(0)), 4500);    // the merge has both
  EXPECT_DOUBLE_EQ(sim.true_value(fake_id(99)), 10000);  // outside the candidates: a merge base
  RevertPlan plan = sim.revert(fake_id(0), fake_id(12));
  ASSERT_TRUE(plan.ok);
  EXPECT_DOUBLE_EQ(sim.true_value(plan.measure_id), 5000);
}

TEST(SimMeasurer, DeterministicPerCommitAndAttempt) {
  CommitGraph graph = testing::linear_graph(4);
  SimMeasurer a(graph, good_id(), SimSpec{}), b(graph, good_id(), SimSpec{});
  EXPECT_EQ(a.measure({fake_id(1), 3, 0}).value, b.measure({fake_id(1), 3, 0}).value);
  EXPECT_NE(a.measure({fake_id(1), 3, 0}).value, a.measure({fake_id(1), 4, 0}).value);
  SimSpec other;
  other.seed = 2;
  SimMeasurer c(graph, good_id(), other);
  EXPECT_NE(a.measure({fake_id(1), 3, 0}).value, c.measure({fake_id(1), 3, 0}).value);
}

TEST(SimMeasurer, NoiseModels) {
  CommitGraph graph = testing::linear_graph(2);
  SimSpec spec;
  spec.cv = 0.05;
  for (auto noise : {NoiseDistribution::kNormal, NoiseDistribution::kLognormal}) {
    spec.noise = noise;
    SimMeasurer sim(graph, good_id(), spec);
    auto values = draw(sim, good_id(), 4000);
    EXPECT_NEAR(mean(values), 10000, 30);
    EXPECT_NEAR(stddev(values) / mean(values), 0.05, 0.004);
  }
  spec.noise = NoiseDistribution::kBimodal;
  spec.cv = 0.01;
  SimMeasurer sim(graph, good_id(), spec);
  int low = 0;
  for (double v : draw(sim, good_id(), 4000)) low += v < 9000;
  EXPECT_NEAR(low / 4000.0, 0.2, 0.02);
}

TEST(SimMeasurer, DriftAndOutcomes) {
  CommitGraph graph = testing::linear_graph(4);
  SimSpec spec;
  spec.cv = 0;
  spec.drift_per_sample = 0.01;
  spec.outcomes = {{fake_id(2), "build-failed"}, {"commit 1", "boot-failed"}};
  SimMeasurer sim(graph, good_id(), spec);
  EXPECT_DOUBLE_EQ(sim.measure({fake_id(0), 0, 10}).value, 11000);
  spec.drift_until = 5;  // a warm-up: the host's speed levels off after 5 samples
  SimMeasurer warming(graph, good_id(), spec);
  EXPECT_DOUBLE_EQ(warming.measure({fake_id(0), 0, 3}).value, 10300);
  EXPECT_DOUBLE_EQ(warming.measure({fake_id(0), 0, 10}).value, 10500);
  EXPECT_EQ(sim.measure({fake_id(2), 0, 0}).status, MeasureStatus::kBuildFailed);
  EXPECT_EQ(sim.measure({fake_id(1), 0, 0}).status, MeasureStatus::kBootFailed);
}

TEST(SimMeasurer, BadReferencesAreErrors) {
  CommitGraph graph = testing::linear_graph(4);
  SimSpec spec;
  spec.changes = {{"nosuchcommit", 0.9, "s.yaml:9:15: sim.changes[0].commit"}};
  try {
    SimMeasurer sim(graph, good_id(), spec);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "s.yaml:9:15: sim.changes[0].commit: 'nosuchcommit' is not among the candidate "
                 "commits");
  }
  spec.changes = {{"0000", 0.9}};  // a prefix of every id
  EXPECT_THROW(SimMeasurer(graph, good_id(), spec), Error);
  // The same commit twice, by two names.
  spec.changes = {{fake_id(2), 0.9}, {"commit 2", 0.9, "s.yaml:10:15"}};
  try {
    SimMeasurer sim(graph, good_id(), spec);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "s.yaml:10:15: 'commit 2' is the commit of an earlier change; give it one "
                 "change, with the factors multiplied");
  }
  spec.changes = {};
  spec.outcomes = {{fake_id(1), "exploded"}};
  EXPECT_THROW(SimMeasurer(graph, good_id(), spec), Error);
  // The same commit twice, by two names, with different outcomes.
  spec.outcomes = {{fake_id(2), "build-failed"}, {"commit 2", "boot-failed", "s.yaml:11:15"}};
  try {
    SimMeasurer sim(graph, good_id(), spec);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "s.yaml:11:15: 'commit 2' is the commit of an earlier outcome; give it one "
                 "outcome");
  }
}

}  // namespace
}  // namespace kbisect
