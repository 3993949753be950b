#include "report/report_data.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <set>

#include "common/error.h"
#include "git/revert.h"
#include "git/test_repo.h"
#include "report/scenario_facts.h"
#include "report/test_reports.h"
#include "store/store.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A bisection of a real four-commit history stored the way `kbisect bisect` stores one: the
// candidates, a run and sample per measurement, steps, verdicts and the journal.
class StoredSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = std::make_unique<TestRepo>();
    for (const char* subject : {"good base", "change one", "the culprit", "the bad end"}) {
      repo_->write("file", subject);
      commits_.push_back(repo_->commit(subject));
    }
    config_ = scratch_.path() / "sim.yaml";
    std::ofstream(config_) << "name: report-test\nkernel: {repo: " << repo_->dir().string()
                           << "}\nvm: {runner: sim}\n"
                           << "metrics: [{name: write.iops}, {name: read.iops}]\n";
    store_ = std::make_unique<Store>(scratch_.path() / "k.db");
    session_id_ = store_session();
  }

  const std::string& good() const { return commits_[0]; }
  const std::string& culprit() const { return commits_[2]; }
  const std::string& bad() const { return commits_[3]; }

  int64_t store_session(const std::string& options_json = "{}") {
    SessionRecord session;
    session.options_json = options_json;
    session.kind = SessionKind::kBisect;
    session.scenario = "report-test";
    session.config_path = config_.string();
    session.config_hash = "cfg";
    session.good_refs = {"HEAD~3"};
    session.good_commits = {good()};
    session.bad_ref = "HEAD";
    session.bad_commit = bad();
    session.strategy = "adaptive";
    int64_t id = store_->create_session(session);
    store_->set_candidates(id, {bad(), culprit(), commits_[1]});
    const std::string revert = "revert:" + culprit() + "@" + bad();
    measure(id, good(), "search", 100);
    measure(id, bad(), "search", 80);
    measure(id, culprit(), "search", 81);
    verdict(id, culprit(), Verdict::kBad, "search");
    measure(id, commits_[1], "search", 99);
    verdict(id, commits_[1], Verdict::kUndecided, "search");
    verdict(id, commits_[1], Verdict::kGood, "search");
    measure(id, culprit(), "confirm", 82);
    measure(id, commits_[1], "confirm", 101);
    measure(id, revert, "confirm", 100);
    measure(id, bad(), "confirm", 79);
    store_->append_journal(
        {.session_id = id, .kind = "alias", .phase = "search", .commit = "f00d", .detail = good()});
    RunRecord failed{.session_id = id,
                     .commit = commits_[1],
                     .host = "sim",
                     .accel = "sim",
                     .outcome = Outcome::kBootFailed,
                     .detail = "sim: no console"};
    store_->insert_run(failed);
    store_->finish_session(id, SessionStatus::kDone,
                           nlohmann::json{{"culprit", culprit()}, {"verdict", "found"}}.dump());
    return id;
  }

  // One run with one sample of both metrics, journaled as `kbisect bisect` does.
  void measure(int64_t session, const std::string& commit, const std::string& phase, double value) {
    RunRecord run{.session_id = session, .commit = commit, .host = "sim", .accel = "sim"};
    SampleRecord sample{.session_id = session,
                        .commit = commit,
                        .config_hash = "cfg",
                        .host = "sim",
                        .accel = "sim",
                        .kdio_json = "{}"};
    sample.metrics = {{"read.iops", value}, {"write.iops", value / 2}};
    int64_t run_id = store_->insert_run(run, {sample});
    store_->append_journal({.session_id = session,
                            .kind = "sample",
                            .phase = phase,
                            .commit = commit,
                            .value = value,
                            .run_id = run_id});
    if (!stepped_.insert(commit).second) return;
    store_->add_step({.session_id = session,
                      .step = static_cast<int>(stepped_.size()),
                      .commit = commit,
                      .phase = phase});
  }

  void verdict(int64_t session, const std::string& commit, Verdict kind, const std::string& phase) {
    store_->add_verdict({.session_id = session,
                         .commit = commit,
                         .verdict = kind,
                         .p_mwu = 0.01,
                         .effect = -0.2,
                         .samples = 1,
                         .phase = phase});
  }

  TempDir scratch_;
  std::unique_ptr<TestRepo> repo_;
  std::vector<std::string> commits_;
  fs::path config_;
  std::unique_ptr<Store> store_;
  std::set<std::string> stepped_;
  int64_t session_id_ = 0;
};

TEST_F(StoredSessionTest, ReadsTheSessionInTopologicalOrder) {
  ReportData data = load_report_data(*store_, session_id_);
  EXPECT_EQ(data.session.id, session_id_);
  EXPECT_EQ(data.result["verdict"], "found");
  EXPECT_THAT(data.topological_order, ElementsAre(good(), commits_[1], culprit(), bad()));
  EXPECT_THAT(data.metrics, ElementsAre("read.iops", "write.iops"));  // as stored: by name
  EXPECT_EQ(data.samples.size(), 8u);
  EXPECT_EQ(data.steps.size(), 5u);
  EXPECT_EQ(data.verdicts.size(), 3u);
  ASSERT_EQ(data.failed_runs.size(), 1u);
  EXPECT_EQ(data.failed_runs[0].detail, "sim: no console");
  EXPECT_EQ(data.same_image_as.at("f00d"), good());
  EXPECT_TRUE(data.compilers.empty());  // the sim runner builds nothing
  EXPECT_TRUE(fs::path(data.database).is_absolute());
}

TEST_F(StoredSessionTest, TellsParentAndRevertFromTheConfirmPhase) {
  ReportData data = load_report_data(*store_, session_id_);
  EXPECT_THAT(data.confirm_commits,
              ElementsAre(culprit(), commits_[1], "revert:" + culprit() + "@" + bad(), bad()));
  EXPECT_EQ(culprit_of(data), culprit());
  auto confirmation = confirmation_commits(data);
  EXPECT_THAT(confirmation.parents, ElementsAre(commits_[1]));
  EXPECT_EQ(confirmation.revert, "revert:" + culprit() + "@" + bad());
}

TEST_F(StoredSessionTest, VerdictsAndValuesPerCommit) {
  ReportData data = load_report_data(*store_, session_id_);
  EXPECT_EQ(verdict_of(data, good()), "good");
  EXPECT_EQ(verdict_of(data, bad()), "bad");
  EXPECT_EQ(verdict_of(data, culprit()), "bad");
  EXPECT_EQ(verdict_of(data, commits_[1]), "good");  // the undecided round came first
  EXPECT_EQ(verdict_of(data, "revert:x"), "");
  EXPECT_THAT(values_of(data, culprit(), "read.iops"), ElementsAre(81, 82));
  EXPECT_THAT(values_of(data, bad(), "write.iops"), ElementsAre(40, 39.5));
  EXPECT_THAT(values_of(data, "f00d", "read.iops"), ElementsAre(100));  // same image as good
  data.same_image_as["beef"] = "f00d";  // same image as f00d, so as good: as the session reads it
  EXPECT_THAT(values_of(data, "beef", "read.iops"), ElementsAre(100));
  EXPECT_TRUE(values_of(data, culprit(), "read.iops", std::string("nolock")).empty());
  EXPECT_TRUE(values_of(data, culprit(), "no.such.metric").empty());

  // An endpoint that could not be measured (the session then stops) is no bad commit.
  verdict(session_id_, bad(), Verdict::kSkip, "search");
  EXPECT_EQ(verdict_of(load_report_data(*store_, session_id_), bad()), "skip");

  // A nightly's usual answer: its tip, asked as bad, is no worse than good.
  data.result = {{"verdict", "no-regression"}, {"culprit", nullptr}};
  EXPECT_EQ(verdict_of(data, bad()), "good");
}

TEST_F(StoredSessionTest, ScenarioFactsNameSubjectsAndOrderMetrics) {
  ReportData data = load_report_data(*store_, session_id_);
  add_scenario_facts(data);
  EXPECT_EQ(data.subjects_unavailable, "");
  EXPECT_EQ(subject_of(data, culprit()), "the culprit");
  EXPECT_EQ(subject_of(data, good()), "good base");
  EXPECT_EQ(subject_of(data, "revert:" + culprit() + "@" + bad()), "subject unavailable");
  EXPECT_THAT(data.metrics, ElementsAre("write.iops", "read.iops"));  // the scenario's order
}

// The bisected metric comes first (it is the path's) whatever the scenario names first now, and
// when the scenario is gone, which would leave the samples' order (alphabetical).
TEST_F(StoredSessionTest, TheMetricJudgedByComesFirst) {
  stepped_.clear();
  const int64_t judged_by_read =
      store_session(R"({"judged_by": {"metric": "read.iops", "better": "higher"}})");
  ReportData data = load_report_data(*store_, judged_by_read);
  add_scenario_facts(data);
  EXPECT_THAT(data.metrics, ElementsAre("read.iops", "write.iops"));

  stepped_.clear();
  const int64_t judged_by_write =
      store_session(R"({"judged_by": {"metric": "write.iops", "better": "higher"}})");
  fs::remove(config_);
  data = load_report_data(*store_, judged_by_write);
  add_scenario_facts(data);
  EXPECT_NE(data.subjects_unavailable, "");
  EXPECT_THAT(data.metrics, ElementsAre("write.iops", "read.iops"));
}

// A revert-check of several commits: its reverted side is named by every revert, in order.
TEST_F(StoredSessionTest, ARevertChecksRevertedSideIsNamedByAllItsReverts) {
  repo_->write("a", "1");
  const std::string add_a = repo_->commit("add a");
  repo_->write("b", "1");
  const std::string add_b = repo_->commit("add b");
  const RevertResult reverted =
      revert_commits(Repository::open(repo_->dir()), add_b, {add_b, add_a});
  SessionRecord session;
  session.kind = SessionKind::kRevertCheck;
  session.config_path = config_.string();
  session.good_commits = {add_b};
  session.bad_commit = reverted.commit_id;
  ReportData data = load_report_data(*store_, store_->create_session(session));
  add_scenario_facts(data);
  EXPECT_EQ(subject_of(data, reverted.commit_id), "Revert \"add b\"; Revert \"add a\"");
  EXPECT_EQ(subject_of(data, add_b), "add b");
}

TEST_F(StoredSessionTest, AGoneRepositoryOrScenarioIsSaidNotFatal) {
  ReportData data = load_report_data(*store_, session_id_);
  fs::remove_all(repo_->dir());
  add_scenario_facts(data);
  EXPECT_THAT(data.subjects_unavailable, HasSubstr("the kernel repository cannot be read"));
  EXPECT_EQ(subject_of(data, culprit()), "subject unavailable");
  EXPECT_THAT(data.metrics, ElementsAre("write.iops", "read.iops"));

  ReportData without_scenario = load_report_data(*store_, session_id_);
  fs::remove(config_);
  add_scenario_facts(without_scenario);
  EXPECT_THAT(without_scenario.subjects_unavailable, HasSubstr("the scenario cannot be read"));
  EXPECT_THAT(without_scenario.metrics, ElementsAre("read.iops", "write.iops"));
}

TEST_F(StoredSessionTest, AnUnknownSessionSaysHowToListThem) {
  try {
    load_report_data(*store_, session_id_ + 41);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("there is no session"));
    EXPECT_THAT(error.what(), HasSubstr("kbisect query sessions"));
  }
}

TEST_F(StoredSessionTest, ARunningSessionWithoutResultLoads) {
  SessionRecord session;
  session.scenario = "fresh";
  session.config_path = config_.string();
  int64_t id = store_->create_session(session);
  ReportData data = load_report_data(*store_, id);
  EXPECT_TRUE(data.result.is_null());
  EXPECT_TRUE(data.samples.empty());
  EXPECT_TRUE(data.metrics.empty());
  EXPECT_FALSE(culprit_of(data));
  EXPECT_TRUE(confirmation_commits(data).parents.empty());
}

TEST(ReportData, CulpritNeedsAStringInTheResult) {
  ReportData data = empty_bisect_report();
  EXPECT_FALSE(culprit_of(data));
  data.result = {{"culprit", nullptr}, {"verdict", "no-regression"}};
  EXPECT_FALSE(culprit_of(data));
  data.result = {{"metrics", nlohmann::json::array()}};
  EXPECT_FALSE(culprit_of(data));
  EXPECT_EQ(culprit_of(finished_bisect_report()), TestCommits::C2);
}

using C = TestCommits;

// The confirmation journals a commit's samples under the commit whose image it shares: the
// culprit's under a later documentation commit's, the revert's (of a culprit at the tip) under
// the parent's. The result names what was measured.
TEST(ReportData, TheConfirmationsCommitsAreTheOnesTheResultNames) {
  ReportData data = finished_bisect_report();
  data.same_image_as[C::C2] = C::C3;
  data.confirm_commits = {C::C3, C::C1, C::R, C::B};
  auto confirmation = confirmation_commits(data);
  EXPECT_THAT(confirmation.parents, ElementsAre(C::C1));
  EXPECT_EQ(confirmation.revert, C::R);

  data.same_image_as = {{C::R, C::C1}};
  data.confirm_commits = {C::C2, C::C1, C::B};
  confirmation = confirmation_commits(data);
  EXPECT_THAT(confirmation.parents, ElementsAre(C::C1));
  EXPECT_EQ(confirmation.revert, C::R);
}

// A result stored before it named them: the journal's confirm phase tells, the culprit's
// samples under another commit's image included.
TEST(ReportData, AnOlderResultLeavesTheConfirmationsCommitsToTheJournal) {
  ReportData data = finished_bisect_report();
  data.result.erase("parents");
  data.result.erase("revert_commit");
  data.same_image_as[C::C2] = C::C3;
  data.confirm_commits = {C::C3, C::C1, C::R, C::B};
  auto confirmation = confirmation_commits(data);
  EXPECT_THAT(confirmation.parents, ElementsAre(C::C1));
  EXPECT_EQ(confirmation.revert, C::R);
}

}  // namespace
}  // namespace kbisect
