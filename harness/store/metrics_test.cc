#include "store/metrics.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "common/error.h"

namespace kbisect {
namespace {

using ::testing::HasSubstr;

nlohmann::json load(const std::string& name) {
  std::ifstream in(std::string(KBISECT_SOURCE_DIR) + "/harness/store/testdata/" + name);
  return nlohmann::json::parse(in);
}

MetricSpec metric(const std::string& name, const std::string& job = "") {
  return MetricSpec{name, job, Better::kHigher};
}

std::string error_of(const nlohmann::json& output, const MetricSpec& spec) {
  try {
    extract_metric(output, spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// fio-three-jobs.json: two "reader" clones (randread) and a "writer" (randwrite, fsync).
class MetricsTest : public ::testing::Test {
 protected:
  nlohmann::json three_ = load("fio-three-jobs.json");
  nlohmann::json group_ = load("fio-group-reporting.json");
};

TEST_F(MetricsTest, KeyNamesTheJob) {
  EXPECT_EQ(metric_key(metric("read.iops")), "read.iops");
  EXPECT_EQ(metric_key(metric("read.iops", "randread")), "randread:read.iops");
}

TEST_F(MetricsTest, CountsAndRatesAreSummedOverJobs) {
  EXPECT_NEAR(extract_metric(three_, metric("read.iops")), 2200.398804 + 2201.596806, 1e-6);
  EXPECT_EQ(extract_metric(three_, metric("read.io_bytes")), 18075648);
  EXPECT_EQ(extract_metric(three_, metric("read.clat_ns.N")), 4413);
  EXPECT_NEAR(extract_metric(three_, metric("write.iops")), 3493.519442, 1e-6);
  EXPECT_EQ(extract_metric(three_, metric("sync.total_ios")), 219);
}

TEST_F(MetricsTest, RuntimesTakeTheLongest) {
  EXPECT_EQ(extract_metric(three_, metric("job_runtime")), 1002);
  EXPECT_EQ(extract_metric(three_, metric("read.runtime")), 1003);
}

TEST_F(MetricsTest, LatencyStatisticsCombineOverJobsThatDidIo) {
  EXPECT_NEAR(extract_metric(three_, metric("read.clat_ns.mean")), 451956.5782910748, 1e-6);
  EXPECT_NEAR(extract_metric(three_, metric("read.clat_ns.stddev")), 1206197.7855883134, 1e-3);
  EXPECT_EQ(extract_metric(three_, metric("read.clat_ns.min")), 16281);  // not the writer's 0
  EXPECT_EQ(extract_metric(three_, metric("read.clat_ns.max")), 40999902);
  // Only the writer fsyncs: its statistics, percentiles included, are the answer.
  EXPECT_NEAR(extract_metric(three_, metric("sync.lat_ns.mean")), 3951008.187215, 1e-6);
  EXPECT_EQ(extract_metric(three_, metric("sync.lat_ns.percentile.99.000000")), 21102592);
}

TEST_F(MetricsTest, SaysWhichMetricsAndHowTheyCombine) {
  EXPECT_TRUE(is_latency_metric("read.clat_ns.percentile.99"));
  EXPECT_TRUE(is_latency_metric("sync.lat_ns.mean"));
  EXPECT_FALSE(is_latency_metric("read.iops"));
  EXPECT_FALSE(is_latency_metric("read.bw_mean"));
  EXPECT_TRUE(combines_across_jobs("read.clat_ns.stddev"));
  EXPECT_TRUE(combines_across_jobs("write.bw_bytes"));
  EXPECT_FALSE(combines_across_jobs("read.clat_ns.percentile.99"));
  EXPECT_FALSE(combines_across_jobs("read.bw_mean"));
}

TEST_F(MetricsTest, PercentilesOfSeveralJobsNeedAJobOrGroupReporting) {
  EXPECT_THAT(error_of(three_, metric("read.clat_ns.percentile.99.000000")),
              HasSubstr("2 jobs in kdio's output and their 99.000000 cannot be combined; name one "
                        "with job:"));
  EXPECT_THAT(error_of(three_, metric("read.bw_min")), HasSubstr("cannot be combined"));
  EXPECT_EQ(extract_metric(group_, metric("read.clat_ns.percentile.99.000000")), 5537792);
  EXPECT_EQ(extract_metric(group_, metric("read.clat_ns.percentile.99")), 5537792);
  EXPECT_EQ(extract_metric(group_, metric("read.clat_ns.percentile.99.9")), 14352384);
  EXPECT_NEAR(extract_metric(group_, metric("read.iops")), 4555.444555, 1e-6);
}

TEST_F(MetricsTest, ANamedJobSelectsItsClones) {
  EXPECT_EQ(extract_metric(three_, metric("read.iops", "writer")), 0);
  EXPECT_NEAR(extract_metric(three_, metric("write.iops", "writer")), 3493.519442, 1e-6);
  EXPECT_NEAR(extract_metric(three_, metric("read.iops", "reader")), 4401.99561, 1e-6);
  EXPECT_EQ(extract_metric(three_, metric("write.clat_ns.percentile.99", "writer")),
            three_["jobs"][2]["write"]["clat_ns"]["percentile"]["99.000000"].get<double>());
}

TEST_F(MetricsTest, ErrorsSayWhatIsWrong) {
  EXPECT_THAT(error_of(three_, metric("read.iops", "nosuch")),
              HasSubstr("no job named 'nosuch' in kdio's output (jobs: reader, writer)"));
  EXPECT_THAT(error_of(three_, metric("read.nosuch")), HasSubstr("has no number at this path"));
  EXPECT_THAT(error_of(three_, metric("read.clat_ns.percentile.42", "reader")),
              HasSubstr("job 'reader' of kdio's output has no number at this path"));
  EXPECT_THAT(error_of(group_, metric("read.clat_ns.percentile.42")),
              HasSubstr("has no number at this path"));
  EXPECT_THAT(error_of(nlohmann::json::object(), metric("read.iops")), HasSubstr("has no jobs"));
  EXPECT_THAT(error_of(nlohmann::json::array(), metric("read.iops")), HasSubstr("has no jobs"));
}

// The guest names the jobs: a name in a message (a run's stored detail) cannot move the
// terminal's cursor, and a flood of names is not listed whole.
TEST_F(MetricsTest, JobNamesInMessagesArePrintableAndFew) {
  nlohmann::json hostile = three_;
  hostile["jobs"][0]["jobname"] = "\x1b]0;owned\a\x1b[2J";
  hostile["jobs"][0]["read"].erase("iops");
  EXPECT_THAT(error_of(hostile, metric("read.iops")),
              HasSubstr("job '?]0;owned??[2J' of kdio's output has no number"));

  nlohmann::json many = three_;
  for (int i = 0; i < 20; ++i) {
    many["jobs"].push_back(three_["jobs"][0]);
    many["jobs"].back()["jobname"] = fmt::format("job{:02}", i);
  }
  EXPECT_THAT(error_of(many, metric("read.iops", "nosuch")),
              HasSubstr("(jobs: job00, job01, job02, job03, job04, job05, job06, job07, job08, "
                        "job09, ... 22 in all)"));
}

TEST_F(MetricsTest, ExtractsEveryConfiguredMetric) {
  RunMetrics run =
      extract_metrics(group_.dump(), {metric("read.iops"), metric("read.clat_ns.mean", "reader")});
  EXPECT_EQ(run.problem, "");
  ASSERT_EQ(run.values.size(), 2u);
  EXPECT_NEAR(run.values.at("read.iops"), 4555.444555, 1e-6);
  EXPECT_GT(run.values.at("reader:read.clat_ns.mean"), 0);
}

// A job that completed no write reports no write percentiles: the run has no values and says
// why, where it threw and lost the run (its caller stored nothing and stopped the command).
TEST_F(MetricsTest, AMetricTheRunDoesNotReportIsItsProblemNotAnError) {
  nlohmann::json no_writes = group_;
  no_writes["jobs"][0]["write"].erase("clat_ns");
  RunMetrics run =
      extract_metrics(no_writes.dump(), {metric("read.iops"), metric("write.clat_ns.mean")});
  EXPECT_TRUE(run.values.empty());
  EXPECT_THAT(run.problem, HasSubstr("metric write.clat_ns.mean: job"));
  EXPECT_EQ(extract_metrics("{\"jobs\": [", {metric("read.iops")}).problem,
            "kdio's output is not valid JSON");
}

// The guest wrote these numbers: one that no kdio writes is the run's problem, and nothing the
// database refuses (NaN) or the statistics cannot use (infinities) reaches a sample.
TEST_F(MetricsTest, ValuesNoKdioWritesAreRejected) {
  nlohmann::json negative = three_;
  negative["jobs"][0]["read"]["iops"] = -100;
  EXPECT_THAT(extract_metrics(negative.dump(), {metric("read.iops")}).problem,
              HasSubstr("has iops = -100, not a count, rate or time"));

  nlohmann::json huge = three_;
  for (int job : {0, 1}) {
    huge["jobs"][job]["read"]["clat_ns"]["N"] = 1e300;
    huge["jobs"][job]["read"]["clat_ns"]["mean"] = 1e300;
  }
  RunMetrics run = extract_metrics(huge.dump(), {metric("read.clat_ns.mean")});
  EXPECT_TRUE(run.values.empty());
  EXPECT_THAT(run.problem, HasSubstr("metric read.clat_ns.mean: kdio's jobs add up to"));
}

}  // namespace
}  // namespace kbisect
