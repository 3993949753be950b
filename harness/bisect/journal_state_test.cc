#include "bisect/journal_state.h"

#include <gtest/gtest.h>

#include "bisect/test_journal.h"

namespace kbisect {
namespace {

using testing::failure;
using testing::of_kind;
using testing::sample;

TEST(JournalState, SamplesAreCountedInOrderAndPerPhase) {
  JournalState state("good", "bad");
  state.apply(sample("good", 10));
  state.apply(sample("bad", 8));
  state.apply(sample("good", 11));
  state.apply(sample("bad", 7, Phase::kConfirm));
  EXPECT_EQ(state.samples(Phase::kSearch, "good"), (std::vector<double>{10, 11}));
  EXPECT_EQ(state.sequences(Phase::kSearch, "good"), (std::vector<int>{0, 2}));
  EXPECT_EQ(state.samples(Phase::kConfirm, "bad"), (std::vector<double>{7}));
  EXPECT_EQ(state.attempts("bad"), 2);
  EXPECT_EQ(state.sequence(), 4);
  EXPECT_EQ(state.sample_count(), 4u);
  EXPECT_TRUE(state.samples(Phase::kSearch, "never").empty());
}

TEST(JournalState, AnAliasSharesTheSamplesOfTheCommitItEquals) {
  JournalState state("good", "bad");
  state.apply(sample("a", 5));
  state.apply(of_kind(JournalEntry::Kind::kAlias, "b", "a"));
  state.apply(of_kind(JournalEntry::Kind::kAlias, "c", "b"));
  EXPECT_EQ(state.resolve("c"), "a");
  EXPECT_EQ(state.samples(Phase::kSearch, "c"), (std::vector<double>{5}));
  // An alias back to itself would loop: it is not taken.
  state.apply(of_kind(JournalEntry::Kind::kAlias, "a", "c"));
  EXPECT_EQ(state.resolve("a"), "a");
}

TEST(JournalState, AFailureAfterAGoodMeasurementIsRetriedOnceThenCounts) {
  JournalState state("good", "bad");
  state.apply(sample("a", 5));
  const JournalEntry boot_failure = failure("a", MeasureStatus::kBootFailed);
  EXPECT_TRUE(state.retries(boot_failure));
  state.apply(boot_failure);
  EXPECT_EQ(state.failure(Phase::kSearch, "a"), nullptr);
  state.apply(boot_failure);
  ASSERT_NE(state.failure(Phase::kSearch, "a"), nullptr);
  EXPECT_EQ(state.failure(Phase::kSearch, "a")->status, MeasureStatus::kBootFailed);
  EXPECT_EQ(state.search_failures().size(), 1u);
  // A build failure is the commit's own: it counts at once.
  EXPECT_FALSE(state.retries(failure("b", MeasureStatus::kBuildFailed)));
}

TEST(JournalState, TheEndpointCheckRemembersTheSamplesItHad) {
  JournalState state("good", "bad");
  EXPECT_FALSE(state.endpoint_check_samples());
  state.apply(sample("good", 10));
  state.apply(sample("bad", 8));
  state.apply(sample("good", 10));
  state.apply(of_kind(JournalEntry::Kind::kEndpointsOk, "good"));
  state.apply(sample("bad", 8));
  EXPECT_EQ(state.endpoint_check_samples(), 1u);
}

TEST(JournalState, TheLatestVerdictAboutACommitIsItsVerdict) {
  JournalState state("good", "bad");
  JournalEntry verdict = of_kind(JournalEntry::Kind::kVerdict, "a");
  verdict.verdict.kind = VerdictKind::kUndecided;
  state.apply(verdict);
  verdict.verdict.kind = VerdictKind::kBad;
  state.apply(verdict);
  EXPECT_EQ(state.verdict_of("a"), VerdictKind::kBad);
  EXPECT_FALSE(state.verdict_of("b"));
  EXPECT_EQ(state.verdicts().size(), 2u);
}

TEST(JournalState, AReopenHandsTheConfirmationsSamplesToTheSearch) {
  JournalState state("good", "bad");
  state.apply(sample("a", 5));
  state.apply(sample("a", 6, Phase::kConfirm));
  state.apply(sample("p", 9, Phase::kConfirm));
  state.apply(of_kind(JournalEntry::Kind::kReopen, "a", "not worse than parent p"));
  EXPECT_EQ(state.samples(Phase::kSearch, "a"), (std::vector<double>{5, 6}));
  EXPECT_EQ(state.sequences(Phase::kSearch, "a"), (std::vector<int>{0, 1}));
  EXPECT_EQ(state.samples(Phase::kSearch, "p"), (std::vector<double>{9}));
  EXPECT_TRUE(state.samples(Phase::kConfirm, "a").empty());
  EXPECT_EQ(state.refuted(), (std::vector<RefutedCulprit>{{"a", "not worse than parent p"}}));
}

}  // namespace
}  // namespace kbisect
