#include "pipeline/store_journal.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace kbisect {
namespace {

// Stores runs the way the real measurers do, without kernels.
class RunWriter : public StoringMeasurer {
 public:
  RunWriter(Store& store, int64_t session) : store_(store), session_(session) {}
  Measurement measure(const MeasureRequest&) override { return {}; }

  // A stored run of `commit` with one sample of read.iops = value.
  void store_run(const std::string& commit, double value) {
    RunRecord run;
    run.session_id = session_;
    run.commit = commit;
    SampleRecord sample;
    sample.session_id = session_;
    sample.commit = commit;
    sample.kdio_json = "{}";
    sample.metrics["read.iops"] = value;
    last_run_id_ = store_.insert_run(run, {sample});
  }

 private:
  Store& store_;
  int64_t session_;
};

class StoreJournalTest : public testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("kbisect-journal-" + std::to_string(::getpid()) + ".db");
    std::filesystem::remove(path_);
    store_.emplace(path_);
    SessionRecord session;
    session.good_commits = {std::string(40, 'a')};
    session.bad_commit = std::string(40, 'b');
    session_ = store_->create_session(session);
  }
  void TearDown() override {
    store_.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::filesystem::remove(path_.string() + suffix);
    }
  }

  JournalEntry sample(const std::string& commit, double value) {
    JournalEntry entry;
    entry.commit = commit;
    entry.value = value;
    return entry;
  }

  JournalEntry bad_verdict(const std::string& commit) {
    JournalEntry entry;
    entry.kind = JournalEntry::Kind::kVerdict;
    entry.commit = commit;
    entry.verdict.kind = VerdictKind::kBad;
    return entry;
  }

  std::filesystem::path path_;
  std::optional<Store> store_;
  int64_t session_ = 0;
  Events events_{Events::Mode::kQuiet};
};

TEST_F(StoreJournalTest, ReplaysEntriesInOrderWithVerdicts) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_, "read.iops");
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

  auto entries = StoreJournal(*store_, events_, writer, session_, "read.iops").replay();
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

// c1 builds the same image as c2, which was measured before; the search's verdict on c1 then
// belongs to a step that names c1.
TEST_F(StoreJournalTest, ACommitWithTheImageOfAnotherHasAStepOfItsOwn) {
  RunWriter writer(*store_, session_);
  StoreJournal journal(*store_, events_, writer, session_, "read.iops");
  writer.store_run("c2", 10);
  journal.append(sample("c2", 10));
  JournalEntry alias;
  alias.kind = JournalEntry::Kind::kAlias;
  alias.commit = "c1";
  alias.detail = "c2";
  alias.candidates_left = 3;
  journal.append(alias);
  journal.append(bad_verdict("c1"));

  const auto steps = store_->steps_of(session_);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[1].commit, "c1");
  EXPECT_EQ(steps[1].candidates_left, 3);
  ASSERT_EQ(store_->verdicts_of(session_).size(), 1u);
  EXPECT_EQ(store_->verdicts_of(session_)[0].step, steps[1].step);
  // Replayed, the alias is one entry as before; the step is not added twice.
  auto entries = StoreJournal(*store_, events_, writer, session_, "read.iops").replay();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1].kind, JournalEntry::Kind::kAlias);
  EXPECT_EQ(entries[1].detail, "c2");
  EXPECT_EQ(store_->steps_of(session_).size(), 2u);
}

TEST_F(StoreJournalTest, AdoptsARunStoredByAKilledProcessExactlyOnce) {
  RunWriter writer(*store_, session_);
  {
    StoreJournal journal(*store_, events_, writer, session_, "read.iops");
    writer.store_run("c1", 10);
    journal.append(sample("c1", 10));
    writer.store_run("c2", 7);  // killed before its journal entry
  }
  auto entries = StoreJournal(*store_, events_, writer, session_, "read.iops").replay();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].commit, "c2");
  EXPECT_EQ(entries[1].value, 7);
  // Opening the journal again adopts nothing more.
  EXPECT_EQ(StoreJournal(*store_, events_, writer, session_, "read.iops").replay().size(), 2u);
}

// A refuted culprit hands the session back to the search: the reopen entry replays with the
// parent check, and a run stored after it by a killed process is the search's.
TEST_F(StoreJournalTest, AfterAReopenAnAdoptedRunIsTheSearchs) {
  RunWriter writer(*store_, session_);
  {
    StoreJournal journal(*store_, events_, writer, session_, "read.iops");
    writer.store_run("c1", 10);
    JournalEntry confirming = sample("c1", 10);
    confirming.phase = Phase::kConfirm;
    journal.append(confirming);
    JournalEntry reopen;
    reopen.kind = JournalEntry::Kind::kReopen;
    reopen.commit = "c1";
    reopen.detail = "not worse than parent c0: -0.59% worse, p = 1";
    journal.append(reopen);
    writer.store_run("c2", 7);  // killed before its journal entry
  }
  auto entries = StoreJournal(*store_, events_, writer, session_, "read.iops").replay();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1].kind, JournalEntry::Kind::kReopen);
  EXPECT_EQ(entries[1].commit, "c1");
  EXPECT_EQ(entries[1].detail, "not worse than parent c0: -0.59% worse, p = 1");
  EXPECT_EQ(entries[2].commit, "c2");
  EXPECT_EQ(entries[2].phase, Phase::kSearch);
}

}  // namespace
}  // namespace kbisect
