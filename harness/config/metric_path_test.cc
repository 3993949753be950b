#include "config/metric_path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kbisect {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

TEST(MetricPath, NumbersKdioWritesAreMetrics) {
  for (const char* name : {"read.iops",
                           "write.bw_bytes",
                           "trim.io_kbytes",
                           "read.bw",
                           "read.runtime",
                           "write.total_ios",
                           "read.short_ios",
                           "read.drop_ios",
                           "read.clat_ns.mean",
                           "read.slat_ns.max",
                           "write.lat_ns.N",
                           "read.clat_ns.stddev",
                           "read.clat_ns.min",
                           "write.clat_ns.percentile.99.000000",
                           "read.clat_ns.percentile.99",
                           "read.clat_ns.percentile.99.9",
                           "read.clat_ns.percentile.1",
                           "sync.total_ios",
                           "sync.lat_ns.mean",
                           "sync.lat_ns.percentile.99.990000",
                           "job_runtime",
                           "read.bw_min",
                           "read.bw_max",
                           "read.bw_agg",
                           "read.bw_mean",
                           "write.bw_dev",
                           "read.bw_samples",
                           "read.iops_min",
                           "read.iops_max",
                           "read.iops_mean",
                           "write.iops_stddev",
                           "read.iops_samples"}) {
    EXPECT_EQ(metric_path_problem(name), std::nullopt) << name;
  }
}

// Fields kdio does not write (fio's cachehit, a made-up one) fail before a build and a boot.
TEST(MetricPath, FioFieldsKdioDoesNotWriteAreRefused) {
  for (const char* name : {"read.cachehit", "read.bw_median"}) {
    EXPECT_THAT(metric_path_problem(name), Optional(HasSubstr("unknown field after 'read'")))
        << name;
  }
  EXPECT_THAT(metric_path_problem("elapsed"),
              Optional(std::string("it starts with read, write, trim, sync or job_runtime")));
}

TEST(MetricPath, PercentilesAreClatAndSyncOnesFromKdiosList) {
  for (const char* name : {"read.lat_ns.percentile.99", "read.slat_ns.percentile.50"}) {
    EXPECT_THAT(metric_path_problem(name),
                Optional(std::string("only clat_ns and sync.lat_ns have percentiles")))
        << name;
  }
  for (const char* name :
       {"read.clat_ns.percentile.42", "sync.lat_ns.percentile.99.5.1", "read.clat_ns.percentile",
        "read.clat_ns.percentile.101", "read.clat_ns.percentile.x", "read.clat_ns.percentile."}) {
    EXPECT_THAT(metric_path_problem(name),
                Optional(std::string("kdio reports the percentiles 1, 5, 10, 20, 30, 40, 50, 60, "
                                     "70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 "
                                     "(percentile.P)")))
        << name;
  }
}

TEST(MetricPath, MalformedPathsSayWhatIsWrong) {
  EXPECT_THAT(metric_path_problem("read.clat_ns.avg"),
              Optional(std::string("latencies have min, max, mean, stddev, N or percentile.P")));
  EXPECT_THAT(metric_path_problem("read.lat_ns"),
              Optional(std::string("latencies have min, max, mean, stddev, N")));
  EXPECT_THAT(metric_path_problem("read.iops.mean"), Optional(std::string("too many parts")));
  EXPECT_THAT(metric_path_problem("read.clat_ns.mean.x"), Optional(std::string("too many parts")));
  EXPECT_THAT(metric_path_problem("job_runtime.x"), Optional(std::string("too many parts")));
  EXPECT_THAT(metric_path_problem("sync.iops"),
              Optional(std::string("sync has total_ios and lat_ns")));
  EXPECT_THAT(metric_path_problem("read"), Optional(HasSubstr("unknown field after 'read'")));
  EXPECT_THAT(metric_path_problem("reads.iops"), Optional(HasSubstr("it starts with read")));
  EXPECT_THAT(metric_path_problem(""), Optional(HasSubstr("it starts with read")));
}

}  // namespace
}  // namespace kbisect
