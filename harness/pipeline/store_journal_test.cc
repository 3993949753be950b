#include "pipeline/store_journal.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "bisect/test_journal.h"
#include "common/error.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

using testing::failure;
using testing::of_kind;
using testing::sample;

// Stores runs the way the real measurers do, without kernels: a new measurement is a run with
// one sample of read.iops = 100 + the request's sequence number.
class RunWriter : public StoringMeasurer {
 public:
  RunWriter(Store& store, int64_t session) : StoringMeasurer(store, session, "read.iops") {}

  // A stored run of `commit` with one sample of read.iops = value.
  void store_run(const std::string& commit, double value) {
    RunRecord run;
    run.session_id = session_id_;
    run.commit = commit;
    SampleRecord sample;
    sample.session_id = session_id_;
    sample.commit = commit;
    sample.kdio_json = "{}";
    sample.metrics["read.iops"] = value;
    last_run_id_ = store_.insert_run(run, {sample});
  }

  // A stored run of `commit` whose workload failed: no sample.
  void store_failed_run(const std::string& commit) {
    RunRecord run;
    run.session_id = session_id_;
    run.commit = commit;
    run.outcome = Outcome::kWorkloadFailed;
    last_run_id_ = store_.insert_run(run, {});
  }

  int new_measurements = 0;

 private:
  Measurement measure_anew(const MeasureRequest& request) override {
    ++new_measurements;
    Measurement measurement;
    measurement.status = MeasureStatus::kOk;
    measurement.value = 100.0 + request.sequence;
    store_run(request.commit, measurement.value);
    return measurement;
  }
};

class StoreJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_.emplace(temp_.path() / "kbisect.db");
    SessionRecord session;
    session.good_commits = {std::string(40, 'a')};
    session.bad_commit = std::string(40, 'b');
    session_ = store_->create_session(session);
  }

  // `commit` builds the same kernel image as `same_as`, measured before.
  static JournalEntry alias(const std::string& commit, const std::string& same_as) {
    return of_kind(JournalEntry::Kind::kAlias, commit, same_as);
  }

  static JournalEntry bad_verdict(const std::string& commit) {
    JournalEntry entry = of_kind(JournalEntry::Kind::kVerdict, commit);
    entry.verdict.kind = VerdictKind::kBad;
    return entry;
  }

  TempDir temp_;
  std::optional<Store> store_;  // closed before temp_ goes
  int64_t session_ = 0;
  Events events_{Events::Mode::kQuiet};
};

TEST_F(StoreJournalTest, ReplaysEntriesInOrderWithVerdicts) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_);
  writer.store_run("c1", 10);
  JournalEntry first = sample("c1", 10);
  first.candidates_left = 17;
  journal.append(first);
  JournalEntry verdict = bad_verdict("c1");
  verdict.verdict.effect = -0.1;
  verdict.verdict.samples = 1;
  verdict.verdict.p_vs_good = 0.004;
  verdict.verdict.ks_vs_good = 0.02;
  verdict.verdict.ks_vs_bad = 0.6;
  journal.append(verdict);

  auto entries = StoreJournal(*store_, events_, writer, session_).replay();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].kind, JournalEntry::Kind::kSample);
  EXPECT_EQ(entries[0].value, 10);
  EXPECT_EQ(entries[1].kind, JournalEntry::Kind::kVerdict);
  EXPECT_EQ(entries[1].verdict.kind, VerdictKind::kBad);
  EXPECT_DOUBLE_EQ(entries[1].verdict.effect, -0.1);
  EXPECT_DOUBLE_EQ(entries[1].verdict.ks_vs_good, 0.02);
  EXPECT_DOUBLE_EQ(entries[1].verdict.ks_vs_bad, 0.6);
  ASSERT_EQ(store_->verdicts_of(session_).size(), 1u);
  EXPECT_EQ(store_->verdicts_of(session_)[0].verdict, Verdict::kBad);
  // The stored p-values are the stronger side's of each test.
  EXPECT_EQ(store_->verdicts_of(session_)[0].p_mwu, 0.004);
  EXPECT_EQ(store_->verdicts_of(session_)[0].p_ks, 0.02);
  ASSERT_EQ(store_->steps_of(session_).size(), 1u);
  EXPECT_EQ(store_->steps_of(session_)[0].candidates_left, 17);
  // The verdict belongs to the step that measured c1, so `kbisect query steps` shows it.
  EXPECT_EQ(store_->verdicts_of(session_)[0].step, store_->steps_of(session_)[0].step);
}

// An entry, its step and its verdict are stored together or not at all: a verdict stored
// without its entry (killed between the two) was stored again when the session resumed.
TEST_F(StoreJournalTest, AnEntryThatCannotBeStoredLeavesNoStepOrVerdict) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_);
  writer.store_run("c1", 10);
  journal.append(sample("c1", 10));
  // Journaled with the last run, c1's, which has its entry: refused.
  EXPECT_THROW(journal.append(failure("c2", MeasureStatus::kBuildFailed)), Error);
  EXPECT_TRUE(store_->verdicts_of(session_).empty());
  EXPECT_EQ(store_->steps_of(session_).size(), 1u);
  EXPECT_EQ(store_->journal_of(session_).size(), 1u);
}

// A failure the session retries (its commit measured fine before) is no skip of the commit.
TEST_F(StoreJournalTest, ARetriedFailureIsNoSkipVerdict) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_);
  writer.store_run("c1", 10);
  journal.append(sample("c1", 10));
  JournalEntry retried = failure("c1", MeasureStatus::kOtherFailure);
  retried.retried = true;
  writer.store_failed_run("c1");
  journal.append(retried);
  EXPECT_TRUE(store_->verdicts_of(session_).empty());
  writer.store_failed_run("c1");
  journal.append(failure("c1", MeasureStatus::kOtherFailure));
  ASSERT_EQ(store_->verdicts_of(session_).size(), 1u);
  EXPECT_EQ(store_->verdicts_of(session_)[0].verdict, Verdict::kSkip);
  EXPECT_EQ(store_->journal_of(session_).size(), 3u);
}

// A boot failure that counts as bad (boot_failure_is_bad) is one bad verdict that says so, with
// no p-values or effect: it was not measured, and it is no skip either.
TEST_F(StoreJournalTest, ABootFailureThatCountsAsBadIsOneBadVerdictWithoutStatistics) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_);
  writer.store_failed_run("c1");
  JournalEntry failed = failure("c1", MeasureStatus::kBootFailed);
  failed.detail = "kernel panic";
  failed.counts_as_bad = true;
  journal.append(failed);
  EXPECT_TRUE(store_->verdicts_of(session_).empty());
  JournalEntry verdict = bad_verdict("c1");
  verdict.verdict.by_boot = true;
  verdict.detail = "does not boot: kernel panic";
  journal.append(verdict);

  const auto verdicts = store_->verdicts_of(session_);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kBad);
  EXPECT_EQ(verdicts[0].detail, "does not boot: kernel panic");
  EXPECT_FALSE(verdicts[0].p_mwu.has_value());
  EXPECT_FALSE(verdicts[0].p_ks.has_value());
  EXPECT_FALSE(verdicts[0].effect.has_value());
  const auto entries = StoreJournal(*store_, events_, writer, session_).replay();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(entries[1].verdict.by_boot);
  EXPECT_EQ(entries[1].detail, "does not boot: kernel panic");
}

// A commit is one step of the session however often it is measured, also after a resume:
// `kbisect query steps` lists each commit once, in the order the search first measured them.
TEST_F(StoreJournalTest, ACommitHasOneStepHoweverOftenItIsMeasured) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_);
  writer.store_run("c1", 10);
  journal.append(sample("c1", 10));
  writer.store_run("c2", 20);
  journal.append(sample("c2", 20));
  writer.store_run("c1", 11);
  journal.append(sample("c1", 11));
  writer.store_run("c1", 12);
  StoreJournal(*store_, events_, writer, session_).append(sample("c1", 12));
  const auto steps = store_->steps_of(session_);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].commit, "c1");
  EXPECT_EQ(steps[0].step, 1);
  EXPECT_EQ(steps[1].commit, "c2");
  EXPECT_EQ(steps[1].step, 2);
}

// The confirmation's failures make no verdict: the skip verdicts are the search's.
TEST_F(StoreJournalTest, AFailureInTheConfirmationIsNoSkipVerdict) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_);
  writer.store_failed_run("c1");
  JournalEntry confirming = failure("c1", MeasureStatus::kOtherFailure);
  confirming.phase = Phase::kConfirm;
  journal.append(confirming);
  EXPECT_TRUE(store_->verdicts_of(session_).empty());
  ASSERT_EQ(journal.replay().size(), 1u);
  EXPECT_EQ(journal.replay()[0].phase, Phase::kConfirm);
}

// A verdict journaled before verdicts carried Kolmogorov-Smirnov p-values replays with p = 1
// for them (no evidence), so a session started by an older kbisect resumes as it would have.
TEST_F(StoreJournalTest, AVerdictJournaledWithoutKolmogorovSmirnovPValuesReplaysWithPOne) {
  JournalRecord record;
  record.session_id = session_;
  record.kind = "verdict";
  record.phase = "search";
  record.commit = "c1";
  record.verdict_json =
      R"({"kind": "bad", "llr": 5.0, "p_vs_good": 0.004, "p_vs_bad": 0.7, "effect": 0.1, )"
      R"("shift": [0.1, 0.05, 0.15], "samples": 6, "good_samples": 6, "bad_samples": 6})";
  store_->append_journal(record);
  RunWriter writer(*store_, session_);
  const auto entries = StoreJournal(*store_, events_, writer, session_).replay();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].verdict.kind, VerdictKind::kBad);
  EXPECT_DOUBLE_EQ(entries[0].verdict.p_vs_good, 0.004);
  EXPECT_DOUBLE_EQ(entries[0].verdict.ks_vs_good, 1.0);
  EXPECT_DOUBLE_EQ(entries[0].verdict.ks_vs_bad, 1.0);
}

// c1 builds the same image as c2, which was measured before; the search's verdict on c1 then
// belongs to a step that names c1.
TEST_F(StoreJournalTest, ACommitWithTheImageOfAnotherHasAStepOfItsOwn) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_);
  writer.store_run("c2", 10);
  journal.append(sample("c2", 10));
  JournalEntry c1_as_c2 = alias("c1", "c2");
  c1_as_c2.candidates_left = 3;
  journal.append(c1_as_c2);
  journal.append(bad_verdict("c1"));

  const auto steps = store_->steps_of(session_);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[1].commit, "c1");
  EXPECT_EQ(steps[1].candidates_left, 3);
  ASSERT_EQ(store_->verdicts_of(session_).size(), 1u);
  EXPECT_EQ(store_->verdicts_of(session_)[0].step, steps[1].step);
  // Replayed, the alias is one entry as before; the step is not added twice.
  auto entries = StoreJournal(*store_, events_, writer, session_).replay();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1].kind, JournalEntry::Kind::kAlias);
  EXPECT_EQ(entries[1].detail, "c2");
  EXPECT_EQ(store_->steps_of(session_).size(), 2u);
}

// A commit with the image of one that failed is skipped with it: its skip verdict, with the
// reason the session gives, is stored for the log's skip mark. A merge base's skip verdict,
// which has no reason of its own, is not: its failure stored that.
TEST_F(StoreJournalTest, ACommitWithTheImageOfAFailedOneHasASkipVerdictOfItsOwn) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_);
  writer.store_failed_run("c2");
  journal.append(failure("c2", MeasureStatus::kBootFailed));
  journal.append(alias("c1", "c2"));
  JournalEntry skip = of_kind(JournalEntry::Kind::kVerdict, "c1",
                              "has the image of c2, which could not be measured (boot-failed: )");
  skip.verdict.kind = VerdictKind::kSkip;
  journal.append(skip);
  JournalEntry merge_base_skip = of_kind(JournalEntry::Kind::kVerdict, "c2");
  merge_base_skip.verdict.kind = VerdictKind::kSkip;
  journal.append(merge_base_skip);

  const auto verdicts = store_->verdicts_of(session_);
  ASSERT_EQ(verdicts.size(), 2u);  // c2's failure, c1's verdict
  EXPECT_EQ(verdicts[1].commit, "c1");
  EXPECT_EQ(verdicts[1].verdict, Verdict::kSkip);
  EXPECT_EQ(verdicts[1].detail, skip.detail);
}

// The process was killed between storing c2's run, the confirmation's first, and journaling
// it. The resumed session asks for that measurement first and gets the stored run, which is
// then journaled in the phase it was taken for, once.
// The samples a session took for c1 are c3's when c1 stood for c2 and c2 for c3 (the same
// image each); for the summary's medians, where the newest build of c1 (another scenario's,
// perhaps) said nothing of this session.
TEST_F(StoreJournalTest, ACommitIsMeasuredAsTheCommitItsImageStoodFor) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_);
  writer.store_run("c3", 10);
  journal.append(sample("c3", 10));
  journal.append(alias("c2", "c3"));
  journal.append(alias("c1", "c2"));
  EXPECT_EQ(measured_as(*store_, session_, "c1"), "c3");
  EXPECT_EQ(measured_as(*store_, session_, "c3"), "c3");
  EXPECT_EQ(measured_as(*store_, session_, "c9"), "c9");
}

TEST_F(StoreJournalTest, AResumedSessionGetsTheRunAKilledProcessDidNotJournal) {
  {
    RunWriter writer(*store_, session_);
    StoreJournal journal(*store_, events_, writer, session_);
    journal.append(sample("c1", writer.measure({"c1", 0, 0}).value));
    journal.append(bad_verdict("c1"));
    writer.measure({"c2", 0, 1});  // killed before its journal entry
  }
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_);
  EXPECT_EQ(journal.replay().size(), 2u);
  const Measurement stored = writer.measure({"c2", 0, 1});
  EXPECT_EQ(writer.new_measurements, 0);
  EXPECT_EQ(stored.status, MeasureStatus::kOk);
  EXPECT_EQ(stored.value, 101);
  JournalEntry confirming = sample("c2", stored.value);
  confirming.phase = Phase::kConfirm;
  journal.append(confirming);
  EXPECT_TRUE(store_->unjournaled_runs(session_, "read.iops").empty());
  const auto entries = journal.replay();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[2].phase, Phase::kConfirm);
  EXPECT_EQ(entries[2].value, 101);
  // The next request for c2 is a new measurement.
  EXPECT_EQ(writer.measure({"c2", 0, 2}).value, 102);
  EXPECT_EQ(writer.new_measurements, 1);
}

// A stored run is the answer to a request for its commit only.
TEST_F(StoreJournalTest, AStoredRunAnswersOnlyARequestForItsCommit) {
  {
    RunWriter writer(*store_, session_);
    writer.measure({"c2", 0, 0});  // killed before its journal entry
  }
  RunWriter writer(*store_, session_);
  EXPECT_EQ(writer.measure({"c3", 0, 0}).value, 100);
  EXPECT_EQ(writer.new_measurements, 1);
  EXPECT_EQ(writer.measure({"c2", 0, 1}).value, 100);
  EXPECT_EQ(writer.new_measurements, 1);
}

// A resumed KernelMeasurer reports a commit whose image it measured before it was killed as
// that commit's, as the killed one would have.
TEST_F(StoreJournalTest, TheFirstCommitOfEachImageIsReadBackFromTheRuns) {
  auto run_with_image = [&](const std::string& commit, const std::string& image) {
    BuildRecord build;
    build.commit = commit;
    build.tree_id = "tree-" + commit;
    build.image_sha256 = image;
    RunRecord run;
    run.session_id = session_;
    run.build_id = store_->insert_build(build);
    run.commit = commit;
    store_->insert_run(run);
  };
  run_with_image("c1", "image-1");
  run_with_image("c2", "image-2");
  run_with_image("c3", "image-1");  // by a process that did not know c1's image
  RunRecord sim_run;
  sim_run.session_id = session_;
  sim_run.commit = "c4";
  store_->insert_run(sim_run);
  const std::map<std::string, std::string> expected = {{"image-1", "c1"}, {"image-2", "c2"}};
  EXPECT_EQ(first_commit_of_each_image(*store_, session_), expected);
  EXPECT_TRUE(first_commit_of_each_image(*store_, session_ + 1).empty());
}

}  // namespace
}  // namespace kbisect
