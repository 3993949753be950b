#include "report/text_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/test_reports.h"

namespace kbisect {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using C = TestCommits;

TEST(TextReport, ABisectionReadsLikeA0DayMail) {
  const std::string text = text_report(finished_bisect_report());
  EXPECT_THAT(text,
              testing::StartsWith("commit:      " + C::C2 +
                                  " (ext4: take the inode lock exclusively for direct reads)\n"
                                  "in testcase: ext4-dio\n"));
  EXPECT_THAT(text, HasSubstr("verdict:     found, confirmed; 4 steps, 17 samples\n"));
  EXPECT_THAT(text, HasSubstr("skipped:     333333333333\n"));
  EXPECT_THAT(text, HasSubstr("host drift:  the endpoints moved by -3.5% of good at the start "
                              "per 100 samples (p = 2.1e-09)\n"));
  // parent C1 {1003, 995, 1010} against the culprit C2 {805, 810, 798}: medians 1003 and 805,
  // exact Mann-Whitney p of 3 against 3 fully separated samples 0.1.
  EXPECT_THAT(text, HasSubstr("culprit vs parent\n"
                              "        parent  %stddev   %change        culprit  %stddev"
                              "         p  metric\n"
                              "  111111111111                      222222222222\n"
                              "  ------------  -------   -------   ------------  -------"
                              "   -------  ------\n"
                              "          1003      ±1%    -19.7%            805      ±1%"
                              "       0.1  read.iops\n"));
  EXPECT_THAT(text, HasSubstr("revert on bad (confirmation)\n"));
  EXPECT_THAT(text, HasSubstr("\nconfirmation, on samples taken after the search, unbiased by "
                              "its choice (the tables pool all samples):\n"
                              "  culprit vs parent: worse than parent 111111111111"));
  EXPECT_THAT(text, HasSubstr("  revert on bad:     fixes the regression"));
}

TEST(TextReport, OnlyAFoundCulpritIsConfirmedOrNot) {
  ReportData data = finished_bisect_report();
  data.result["verdict"] = "no-regression";
  data.result["culprit"] = nullptr;
  EXPECT_THAT(text_report(data), HasSubstr("verdict:     no-regression; 4 steps, 17 samples\n"));
  data.result["verdict"] = "found";
  data.result["confirmed"] = false;
  EXPECT_THAT(text_report(data), HasSubstr("verdict:     found, not confirmed; 4 steps"));
}

TEST(TextReport, ThePathShowsEveryStepWithItsVerdict) {
  const std::string text = text_report(finished_bisect_report());
  EXPECT_THAT(text, HasSubstr("bisection path (read.iops):\n"
                              "  (worse: the median against good's, > 0 is worse; p: the "
                              "verdict's, against good or bad)\n"
                              "  step  commit        phase    verdict    samples      median"
                              "     worse         p  subject\n"));
  EXPECT_THAT(text, HasSubstr("     4  222222222222  search   bad              3         805"
                              "    -19.5%    0.0012  ext4: take the inode lock exclusively for "
                              "direct reads  [culprit]\n"));
  EXPECT_THAT(text, HasSubstr("     3  333333333333  search   skip             0           -"
                              "         -         -  nvme: a change that does not build\n"));
  // C1: the decided verdict, not the undecided round before it.
  EXPECT_THAT(text, HasSubstr("     5  111111111111  search   good             3        1003"
                              "     +0.3%   9.0e-04  xfs: tidy up\n"));
  EXPECT_THAT(text, HasSubstr("     6  cccccccccccc  confirm                   3        1001"
                              "         -         -  Revert"));
  EXPECT_THAT(text, HasSubstr("[bad - culprit]"));
  EXPECT_THAT(text, HasSubstr("not measured:\n  333333333333: build-failed: the kernel does not "
                              "build\n"));
}

// A boot regression's culprit fails in the search and again in its confirmation.
TEST(TextReport, ACommitThatFailedTheSameWayTwiceIsOneLineWithItsCount) {
  ReportData data = finished_bisect_report();
  const RunRecord failed_boot{
      .commit = C::C2, .outcome = Outcome::kBootFailed, .detail = "no init found"};
  data.failed_runs = {failed_boot, failed_boot};
  data.failed_runs.push_back(
      {.commit = C::C2, .outcome = Outcome::kBootFailed, .detail = "kernel panic"});
  const std::string text = text_report(data);
  EXPECT_THAT(text, HasSubstr("not measured:\n"
                              "  222222222222: boot-failed: no init found (2 runs)\n"
                              "  222222222222: boot-failed: kernel panic\n"));
}

// "worse" is the row's median against good's, from the same samples: here the culprit also has
// three confirmation samples, which its verdict's effect (from the search's three) does not see.
TEST(TextReport, ThePathsWorseIsFromTheSamplesOfTheMedianBesideIt) {
  ReportData data = finished_bisect_report();
  data.session.options_json = R"({"judged_by": {"metric": "read.iops", "better": "higher"}})";
  const SampleMetrics culprit_sample = *std::find_if(
      data.samples.begin(), data.samples.end(), [](const auto& s) { return s.commit == C::C2; });
  for (int i = 0; i < 3; ++i) {
    SampleMetrics sample = culprit_sample;
    sample.sample_id = static_cast<int64_t>(data.samples.size() + 1);
    sample.metrics["read.iops"] = 700;
    data.samples.push_back(sample);
  }
  EXPECT_THAT(text_report(data), HasSubstr("     4  222222222222  search   bad              6"
                                           "         749    +25.1%    0.0012"));
}

// The culprit built the same kernel image as bad (documentation commits between them): its
// row says both, and shows the samples it was judged by, bad's.
TEST(TextReport, ACulpritWithTheImageOfAnotherCommitSaysSo) {
  ReportData data = finished_bisect_report();
  data.same_image_as[C::C2] = C::B;
  EXPECT_THAT(text_report(data), HasSubstr("     4  222222222222  search   bad              3    "
                                           "     800    -19.5%    0.0012  ext4: take the inode "
                                           "lock exclusively for direct reads  [culprit; same "
                                           "image as bbbbbbbbbbbb]\n"));
}

TEST(TextReport, ReproduceGivesTheScenarioAndExactCommands) {
  const std::string text = text_report(finished_bisect_report());
  EXPECT_THAT(text, HasSubstr("To reproduce:\n\n"
                              "        # the scenario: /configs/ext4 dio.yaml\n"
                              "        # kernels built with: gcc (Debian 12.2.0-14) 12.2.0\n"
                              "        kbisect --db /results/kbisect.db bisect -c "
                              "'/configs/ext4 dio.yaml' --good " +
                              C::G + " --bad " + C::B +
                              " --strategy adaptive --fresh\n"
                              "        kbisect --db /results/kbisect.db report last\n"));
}

// A bisection that stopped before it finished is continued with --resume, before starting over.
TEST(TextReport, AnInterruptedBisectionSaysHowToContinueIt) {
  ReportData data = finished_bisect_report();
  data.session.status = SessionStatus::kRunning;
  EXPECT_THAT(
      text_report(data),
      HasSubstr("        # it stopped before it finished; to continue it:\n"
                "        kbisect --db /results/kbisect.db bisect -c '/configs/ext4 dio.yaml' "
                "--resume 7\n"
                "        kbisect --db /results/kbisect.db report 7\n"
                "        # to start it over:\n"
                "        kbisect --db /results/kbisect.db bisect -c "));
  EXPECT_THAT(text_report(data),
              HasSubstr("--fresh\n        kbisect --db /results/kbisect.db report last\n"));
}

// One still running (its process holds the session's lock) is not continued by a second one.
TEST(TextReport, ARunningBisectionSaysWhichProcessRunsIt) {
  ReportData data = finished_bisect_report();
  data.session.status = SessionStatus::kRunning;
  data.running_in = LockHolder{4242, "nightly-host.example", "2026-11-30T09:15:02.123Z"};
  const std::string text = text_report(data);
  EXPECT_THAT(text,
              HasSubstr("        # it is running in process 4242 on nightly-host.example since "
                        "2026-11-30T09:15:02.123Z; what it has found so far:\n"
                        "        kbisect --db /results/kbisect.db report 7\n"
                        "        # to start it over:\n"));
  EXPECT_THAT(text, testing::Not(HasSubstr("--resume")));
}

TEST(TextReport, ACompareSessionComparesItsTwoSidesAndVariants) {
  const std::string text = text_report(compare_report());
  EXPECT_THAT(text, HasSubstr("commit:        " + C::B +
                              " (Merge branch 'block') variant nolock, given as 'HEAD@nolock'\n"));
  EXPECT_THAT(text, HasSubstr("compared with: " + C::G + " (Linux 6.1), given as 'v6.1'\n"));
  // B's samples of the other variant (700...) are not B's side.
  EXPECT_THAT(text, HasSubstr("          1000      ±2%     -9.5%            905      ±1%       "
                              "0.1  read.iops  (too few samples)\n"));
  EXPECT_THAT(text, Not(HasSubstr("bisection path")));
  EXPECT_THAT(text, HasSubstr("compare -c /configs/ext4.yaml --a " + C::G + " --b " + C::B +
                              "@nolock --samples 3\n"));
}

// A against A, one commit and variant on both sides (to measure the noise): each side is its
// own samples, as the comparison stored them, not both sides' samples twice.
TEST(TextReport, AnAAgainstACompareKeepsItsSidesApart) {
  ReportData data = compare_report();
  data.session.bad_commit = C::G;
  data.session.options_json = R"({"a_variant": "", "b_variant": "", "samples": 3})";
  for (auto& sample : data.samples) {
    sample.commit = C::G;
    sample.variant = "";
  }
  data.result = {{"metrics",
                  {{{"metric", "read.iops"},
                    {"a", {1000, 1020, 980}},
                    {"b", {900, 910, 905}},
                    {"finding", "too few samples"}}}}};
  EXPECT_THAT(text_report(data), HasSubstr("          1000      ±2%     -9.5%            905      "
                                           "±1%       0.1  read.iops  (too few samples)\n"));
}

// A metric whose median is 0 on the first side, as write.iops of a job that only reads: its
// change is "n/a", where rendering the report failed.
TEST(TextReport, AChangeFromAZeroMedianIsNotApplicable) {
  ReportData data = compare_report();
  for (auto& sample : data.samples) {
    if (sample.commit == C::G) sample.metrics["read.iops"] = 0;
  }
  EXPECT_THAT(text_report(data),
              HasSubstr("             0                n/a            905      ±1%       0.1  "
                        "read.iops  (too few samples)\n"));
}

TEST(TextReport, ARevertCheckNamesTheRevertedCommits) {
  ReportData data = compare_report();
  data.session.kind = SessionKind::kRevertCheck;
  data.session.bad_ref = "v6.1 -abc123 -def456";
  data.session.options_json = R"({"a_variant": "nolock", "b_variant": "nolock", "samples": 3})";
  const std::string text = text_report(data);
  EXPECT_THAT(text, HasSubstr("commit:      " + C::G + " (Linux 6.1) variant nolock"));
  EXPECT_THAT(text, HasSubstr("reverted:    " + C::B));
  EXPECT_THAT(text, HasSubstr("reverted vs base\n"));
  EXPECT_THAT(text, HasSubstr("revert-check -c /configs/ext4.yaml --base " + C::G +
                              " --revert abc123,def456 --variant nolock --samples 3\n"));
}

TEST(TextReport, ARevertCheckOfSeveralVariantsComparesEach) {
  const ReportData data = two_variant_revert_check_report();
  const std::string text = text_report(data);
  EXPECT_THAT(text, HasSubstr("commit:      " + C::G + " (Linux 6.1), given as 'v6.1'\n"));
  EXPECT_THAT(text, HasSubstr("variants:    lock, nolock\n"));
  EXPECT_THAT(text, HasSubstr("\nreverted vs base, variant lock\n"));
  EXPECT_THAT(text, HasSubstr("-30.0%            700      ±1%       0.1  read.iops  (too few "
                              "samples)\n"));
  EXPECT_THAT(text, HasSubstr("\nreverted vs base, variant nolock\n"));
  EXPECT_THAT(text,
              HasSubstr("-5.2%            905      ±1%       0.1  read.iops  (significant)\n"));
  EXPECT_THAT(text, HasSubstr("--revert abc123 --variant lock --variant nolock --samples 3\n"));
}

TEST(TextReport, AnEmptySessionSaysSoAndStillReproduces) {
  const std::string text = text_report(empty_bisect_report());
  EXPECT_THAT(text, HasSubstr("commit:      no culprit named\n"));
  EXPECT_THAT(text, HasSubstr("session:     7: bisect (strategy adaptive), running, started"));
  EXPECT_THAT(text, HasSubstr("no samples stored for this session yet\n"));
  EXPECT_THAT(text, HasSubstr("bad vs good\n"));
  EXPECT_THAT(text, Not(HasSubstr("bisection path")));
  EXPECT_THAT(text, HasSubstr("bisect -c '/configs/ext4 dio.yaml' --good " + C::G));
}

TEST(TextReport, AnAbortedComparisonSaysWhy) {
  ReportData data = compare_report();
  data.session.status = SessionStatus::kAborted;
  data.result = {{"message", "cannot create /work/src: Permission denied"}};
  data.samples.clear();
  const std::string text = text_report(data);
  EXPECT_THAT(text, HasSubstr("session:       9: compare, aborted"));
  EXPECT_THAT(text, HasSubstr("message:       cannot create /work/src: Permission denied\n"));
  EXPECT_THAT(text, HasSubstr("no samples stored for this session\n"));
}

TEST(TextReport, MissingSubjectsAreNamedAsSuch) {
  ReportData data = finished_bisect_report();
  data.subjects.clear();
  data.subjects_unavailable = "the kernel repository cannot be read: gone";
  const std::string text = text_report(data);
  EXPECT_THAT(text, HasSubstr("commit:      " + C::C2 + " (subject unavailable)\n"));
  EXPECT_THAT(text, HasSubstr("  subject unavailable  [culprit]\n"));
  EXPECT_THAT(text, HasSubstr("  bad with the culprit reverted  [bad - culprit]\n"));
  EXPECT_THAT(text,
              HasSubstr("note:        commit subjects are unavailable: the kernel repository"));
}

}  // namespace
}  // namespace kbisect
