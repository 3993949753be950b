#include "pipeline/job_check.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "common/file.h"
#include "common/temp_dir.h"
#include "config/config.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class JobCheck : public ::testing::Test {
 protected:
  // A scenario whose one job file is `text`.
  Scenario scenario_with(const std::string& text) {
    const fs::path job = dir_.path() / "job.fio";
    write_file(job, text);
    Scenario scenario;
    scenario.source_file = dir_.path() / "scenario.yaml";
    scenario.workload.job_files = {job};
    return scenario;
  }

  std::string error_of(const Scenario& scenario) {
    try {
      check_job_files(scenario);
    } catch (const Error& error) {
      return error.what();
    }
    ADD_FAILURE() << "the job files passed";
    return "";
  }

  std::string job_path() const { return (dir_.path() / "job.fio").string(); }

  TempDir dir_;
};

TEST_F(JobCheck, AMisspeltOptionNamesItsLine) {
  const Scenario scenario = scenario_with("[j]\nrw=randread\nbsize=4k\nsize=1m\n");
  EXPECT_THAT(error_of(scenario), HasSubstr(job_path() + ":3: unknown option 'bsize'"));
}

TEST_F(JobCheck, VariablesComeFromTheWorkloadTheVariantAndTheGuest) {
  Scenario scenario = scenario_with(
      "[j]\nrw=read\nsize=${SIZE}\nbs=${BS}\ndirectory=${KBISECT_DIR}\nruntime=${RUNTIME}\n");
  scenario.workload.vars = {{"SIZE", "1m"}, {"RUNTIME", "5"}};
  scenario.workload.variants = {{"small", {{"BS", "4k"}}, {}, {}},
                                {"large", {{"BS", "1m"}}, {}, {}}};
  EXPECT_NO_THROW(check_job_files(scenario));

  // The variable missing in one variant names that variant.
  scenario.workload.variants[1].vars.clear();
  EXPECT_THAT(error_of(scenario),
              HasSubstr(job_path() + ":4: ${BS} is not set (variant 'large'); give it under "
                                     "workload.vars or a variant's vars"));
}

// KBISECT_* cannot be given in the config: the message says what the guest has instead.
TEST_F(JobCheck, AGuestVariableTheGuestDoesNotSetSaysWhichItSets) {
  const Scenario scenario = scenario_with("[j]\nrw=read\nsize=1m\ndirectory=${KBISECT_MNT}\n");
  EXPECT_THAT(error_of(scenario),
              HasSubstr(":4: ${KBISECT_MNT} is not set; the guest does not set it; its own "
                        "variables are HOME, KBISECT_DEVICE, KBISECT_DIR, KBISECT_FS, "
                        "KBISECT_MOUNT_OPTIONS, LD_LIBRARY_PATH, OLDPWD, PATH, PWD, SHLVL, TERM"));
}

TEST_F(JobCheck, AVariantsBadValueIsFound) {
  Scenario scenario = scenario_with("[j]\nrw=read\nsize=1m\nbs=${BS}\n");
  scenario.workload.variants = {{"good", {{"BS", "4k"}}, {}, {}}, {"bad", {{"BS", "4q"}}, {}, {}}};
  EXPECT_THAT(error_of(scenario), HasSubstr(job_path() + ":4: "));
  EXPECT_THAT(error_of(scenario), HasSubstr("(variant 'bad')"));
}

TEST_F(JobCheck, AnIncludeIsRefusedForTheGuestHasNoOtherFiles) {
  write_file(dir_.path() / "common.fio", "size=1m\n");
  const Scenario scenario = scenario_with("[j]\nrw=read\ninclude common.fio\n");
  EXPECT_THAT(error_of(scenario),
              HasSubstr(job_path() + ":3: include: the guest would not have " +
                        (dir_.path() / "common.fio").string() +
                        ": kbisect copies only the files listed under workload.jobs"));
}

TEST_F(JobCheck, AMetricsJobMustBeOneThatKdioReports) {
  Scenario scenario = scenario_with(
      "[global]\nrw=read\nsize=1m\ngroup_reporting\n[first]\n[second]\n[other]\nnew_group\n");
  scenario.metrics = {{"read.iops", "first", Better::kHigher},
                      {"read.iops", "other", Better::kHigher}};
  EXPECT_NO_THROW(check_job_files(scenario));

  // group_reporting reports `second` within `first`'s entry, under `first`'s name.
  scenario.metrics.push_back(
      {"read.iops", "second", Better::kHigher, "scenario.yaml:9:10: metrics[2].name"});
  EXPECT_EQ(error_of(scenario),
            "scenario.yaml:9:10: metrics[2].name: metric second:read.iops: no job named 'second' "
            "in the job files (jobs: first, other); fix job: in the config");
}

// As fio: `c` has group_reporting and joins the entry of `b`, which has none.
TEST_F(JobCheck, AGroupReportingJobIsReportedWithTheJobBeforeIt) {
  Scenario scenario = scenario_with("[global]\nrw=read\nsize=1m\n[b]\n[c]\ngroup_reporting\n");
  scenario.metrics = {{"read.iops", "c", Better::kHigher, "scenario.yaml:5:10: metrics[0].name"}};
  EXPECT_EQ(error_of(scenario),
            "scenario.yaml:5:10: metrics[0].name: metric c:read.iops: no job named 'c' in the job "
            "files (jobs: b); fix job: in the config");
}

// A percentile over several reported jobs cannot be combined: said before anything is built,
// not after a boot in every sample. A job without I/O in its direction does not count, and
// means, sums and maxima combine.
TEST_F(JobCheck, AMetricThatDoesNotCombineNeedsOneReportingJob) {
  Scenario scenario = scenario_with(
      "[global]\nsize=1m\n[reader]\nrw=randread\n[writer]\nrw=randwrite\n[mixed]\n"
      "rw=randrw\nrwmixread=100\n");
  const std::string place = "scenario.yaml:7:12: metrics[0].name";
  scenario.metrics = {{"read.clat_ns.percentile.99", "", Better::kLower, place}};
  EXPECT_EQ(error_of(scenario), place +
                                    ": metric read.clat_ns.percentile.99: 2 jobs of the job files "
                                    "report it and their values cannot be combined; name one with "
                                    "job: (each job needs a name of its own), or use "
                                    "group_reporting");
  scenario.metrics = {{"write.clat_ns.percentile.99", "", Better::kLower, place},
                      {"read.clat_ns.percentile.99", "mixed", Better::kLower, place},
                      {"read.clat_ns.mean", "", Better::kLower, place},
                      {"read.iops", "", Better::kHigher, place}};
  EXPECT_NO_THROW(check_job_files(scenario));
  scenario.metrics = {{"read.bw_mean", "", Better::kHigher, place}};
  EXPECT_THAT(error_of(scenario), HasSubstr("metric read.bw_mean: 3 jobs of the job files"));
}

// A metric of a direction the jobs do no I/O in is 0 or missing in every sample: said at the
// metric, before anything is built, naming the jobs and what they do.
TEST_F(JobCheck, AMetricNeedsAJobThatDoesIoInItsDirection) {
  Scenario scenario =
      scenario_with("[global]\nsize=1m\n[writer]\nrw=randwrite\n[logger]\nrw=write\nfsync=1\n");
  const std::string place = "scenario.yaml:7:12: metrics[0].name";
  scenario.metrics = {{"read.clat_ns.percentile.99.000000", "", Better::kLower, place}};
  EXPECT_EQ(error_of(scenario),
            place +
                ": metric read.clat_ns.percentile.99.000000: no job of the job files reads "
                "(jobs: writer rw=randwrite, logger rw=write), so every sample would be 0 or "
                "have no value; measure what the jobs do, or change their rw=");
  scenario.metrics = {{"sync.lat_ns.mean", "writer", Better::kLower, place}};
  EXPECT_THAT(error_of(scenario),
              HasSubstr("job 'writer' does not call fsync or fdatasync (jobs: writer rw=randwrite)"
                        ", so every sample would be 0 or have no value; measure what the jobs do, "
                        "or change their rw= or give a writing job fsync= or fdatasync="));
  scenario.metrics = {{"write.iops", "", Better::kHigher, place},
                      {"sync.lat_ns.mean", "logger", Better::kLower, place},
                      {"usr_cpu", "logger", Better::kLower, place}};
  EXPECT_NO_THROW(check_job_files(scenario));
}

// Variants that set rw= through a var, with a metric for each direction: each metric has I/O in
// some variant, so the others only warn.
TEST_F(JobCheck, AMetricWithoutIoInSomeVariantsIsAWarningForThose) {
  Scenario scenario = scenario_with("[job]\nrw=${RW}\nsize=1m\n");
  scenario.workload.variants = {{"reads", {{"RW", "randread"}}, {}, {}},
                                {"writes", {{"RW", "randwrite"}}, {}, {}}};
  const std::string place = "scenario.yaml:7:12: metrics[1].name";
  scenario.metrics = {{"read.iops", "", Better::kHigher, place},
                      {"write.iops", "", Better::kHigher, place}};
  std::vector<std::string> warnings;
  ASSERT_NO_THROW(warnings = check_job_files(scenario));
  EXPECT_THAT(warnings, ::testing::Contains(HasSubstr(
                            "metric write.iops: no job of the job files (variant 'reads') writes "
                            "(jobs: job rw=randread)")));
  EXPECT_THAT(warnings, ::testing::Contains(HasSubstr(
                            "metric read.iops: no job of the job files (variant 'writes') reads")));
  scenario.metrics.push_back({"sync.lat_ns.mean", "", Better::kLower, place});
  EXPECT_THAT(error_of(scenario), HasSubstr("metric sync.lat_ns.mean: no job of the job files "
                                            "(variant 'reads') calls fsync or fdatasync"));
}

// Jobs side by side take the longest of them; a stonewall waits for the jobs before it.
TEST_F(JobCheck, AWorkloadTimeoutTheTimeBasedJobsOutlastIsRefused) {
  Scenario scenario = scenario_with(
      "[global]\nrw=read\nsize=1m\ntime_based\n"
      "[a]\nruntime=${RUNTIME}\n[b]\nruntime=20\nramp_time=5\n"
      "[c]\nstonewall\nruntime=30\nstartdelay=3\n"
      "[d]\nruntime=40\ntime_based=0\n");
  scenario.workload.variants = {{"short", {{"RUNTIME", "10"}}, {}, {}},
                                {"long", {{"RUNTIME", "60"}}, {}, {}}};
  scenario.vm.workload_timeout_seconds = 93;
  scenario.vm.workload_timeout_place = "scenario.yaml:9:3: vm.workload_timeout";
  EXPECT_THAT(error_of(scenario),
              HasSubstr("scenario.yaml:9:3: vm.workload_timeout: 93 s is not enough for the job "
                        "files (variant 'long'), which run for at least 93 s"));
  scenario.vm.workload_timeout_seconds = 59;
  scenario.workload.variants.pop_back();
  EXPECT_NO_THROW(check_job_files(scenario));
  scenario.vm.workload_timeout_seconds = 58;
  EXPECT_THAT(error_of(scenario), HasSubstr("58 s is not enough for the job files (variant "
                                            "'short'), which run for at least 58 s"));
}

TEST_F(JobCheck, WarningsAreReturnedOnceNamingTheVariantsThatGiveThem) {
  Scenario scenario = scenario_with(
      "[j]\nrw=read\nsize=1m\nfilename=f\nnrfiles=2\nioengine=psync\niodepth=${QD}\n");
  scenario.workload.variants = {{"a", {{"QD", "4"}}, {}, {}},
                                {"b", {{"QD", "8"}}, {}, {}},
                                {"c", {{"QD", "8"}}, {}, {}},
                                {"d", {{"QD", "1"}}, {}, {}}};
  const std::vector<std::string> warnings = check_job_files(scenario);
  ASSERT_EQ(warnings.size(), 3u) << fmt::format("{}", fmt::join(warnings, "\n"));
  // In the order kdio gives them; one given by every variant names none. kdio's own
  // "warning:" is left to the caller.
  EXPECT_THAT(warnings[0], ::testing::StartsWith(job_path() + ":7: iodepth=4 has no effect"));
  EXPECT_THAT(warnings[0], ::testing::EndsWith(" (variant 'a')"));
  EXPECT_THAT(warnings[1], ::testing::StartsWith(job_path() + ":5: nrfiles=2 but"));
  EXPECT_THAT(warnings[1], ::testing::EndsWith("(as fio does)"));
  EXPECT_THAT(warnings[2], ::testing::StartsWith(job_path() + ":7: iodepth=8 has no effect"));
  EXPECT_THAT(warnings[2], ::testing::EndsWith(" (variants 'b', 'c')"));
}

// What the repository ships parses in every variant.
TEST(ShippedConfigs, JobFilesPassTheCheck) {
  int configs = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(KBISECT_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".yaml") continue;
    ++configs;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(check_job_files(load_scenario(entry.path())));
  }
  EXPECT_EQ(configs, 6);
}

}  // namespace
}  // namespace kbisect
