#include "tables/sync_log_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "tables/test_samples.h"

namespace kbisect {
namespace {

using ::testing::HasSubstr;

// A job with a sync.lat_log of (end ms, latency ms) pairs.
nlohmann::json fsyncer(const std::string& name, std::vector<std::pair<int, double>> log) {
  nlohmann::json job = job_json(name, 0, {{"sync_lat_log", "1"}}, nullptr, nullptr);
  job["sync"]["lat_log"] = nlohmann::json::array();
  for (const auto& [ended_ms, latency_ms] : log) {
    job["sync"]["lat_log"].push_back(
        {{"time_ms", ended_ms}, {"lat_ns", static_cast<uint64_t>(latency_ms * 1e6)}});
  }
  job["sync"]["lat_log_dropped"] = 0;
  return job;
}

TEST(SyncLogTable, EachJobsFsyncTimesSideBySide) {
  StoredSamples stored;
  nlohmann::json ext4 =
      kdio_json({fsyncer("throttled", {{1005, 1005.1}, {2010, 1004.9}, {2026, 15.4}}),
                 fsyncer("unthrottled", {{1007, 1006.7}, {2015, 1007.5}})});
  std::vector<SampleSet> sets = {stored.set("v6.1@ext4", "ext4", {ext4})};
  EXPECT_EQ(sync_log_table(sets),
            "fsync time (s) of each iteration, per job; end: when its last fsync ended\n"
            "=== v6.1@ext4 ===\n"
            "    #   throttled              unthrottled\n"
            "    1   fsync time: 1.0051     fsync time: 1.0067\n"
            "    2   fsync time: 1.0049     fsync time: 1.0075\n"
            "    3   fsync time: 0.0154\n"
            "  end   at 2.026 s             at 2.015 s\n"
            "\n");
}

TEST(SyncLogTable, MedianOfEachIterationOverSamples) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {stored.set(
      "v6.1@xfs", "xfs",
      {kdio_json({fsyncer("a", {{100, 20}, {200, 30}})}), kdio_json({fsyncer("a", {{100, 40}})}),
       kdio_json({fsyncer("a", {{100, 60}, {300, 50}})})})};
  std::string table = sync_log_table(sets);
  EXPECT_THAT(table, HasSubstr("=== v6.1@xfs (median of 3 samples) ===\n"));
  EXPECT_THAT(table, HasSubstr("    1   fsync time: 0.0400\n"));
  EXPECT_THAT(table, HasSubstr("    2   fsync time: 0.0400\n"));  // of the two that have one
  EXPECT_THAT(table, HasSubstr("  end   at 0.200 s\n"));          // of 200, 100 and 300 ms
}

// A log entry that is not a pair of numbers drops that job's log of that sample, not the report.
TEST(SyncLogTable, ASampleWhoseLogDoesNotReadIsLeftOut) {
  StoredSamples stored;
  nlohmann::json text_latency = kdio_json({fsyncer("a", {{100, 90}, {200, 90}})});
  text_latency["jobs"][0]["sync"]["lat_log"][1]["lat_ns"] = "slow";
  nlohmann::json not_a_list = kdio_json({fsyncer("a", {{100, 90}})});
  not_a_list["jobs"][0]["sync"]["lat_log"] = 3;
  std::vector<SampleSet> sets = {
      stored.set("good", "", {kdio_json({fsyncer("a", {{100, 20}, {200, 30}})}), text_latency}),
      stored.set("bad", "", {text_latency, not_a_list})};
  std::string table = sync_log_table(sets);
  EXPECT_THAT(table, HasSubstr("=== good (median of 2 samples) ===\n"
                               "    #   a\n"
                               "    1   fsync time: 0.0200\n"
                               "    2   fsync time: 0.0300\n"
                               "  end   at 0.200 s\n"));
  EXPECT_THAT(table, HasSubstr("=== bad (median of 2 samples) ===\n"
                               "    #   a\n"
                               "  end   -\n"));
}

// A job without sync_lat_log=1 (a reader beside the writers) is a column that says so: the
// table is printed before the summary of a comparison that may have taken hours.
TEST(SyncLogTable, AJobWithoutALatencyLogIsAColumnThatSaysSo) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {stored.set(
      "x", "",
      {kdio_json({fsyncer("writer", {{100, 20}}), job_json("reader", 0, {}, nullptr, nullptr)})})};
  EXPECT_EQ(sync_log_table(sets),
            "fsync time (s) of each iteration, per job; end: when its last fsync ended\n"
            "=== x ===\n"
            "    #   writer                 reader\n"
            "    1   fsync time: 0.0200\n"
            "  end   at 0.100 s             no sync_lat_log\n"
            "\n");
}

TEST(SyncLogTable, WithoutAnyLatencyLogSaysWhatToAdd) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {
      stored.set("x", "", {kdio_json({job_json("plain", 0, {}, nullptr, nullptr)})})};
  EXPECT_THAT(sync_log_table(sets),
              HasSubstr("no job logs its fsyncs: add sync_lat_log=1 to the job file\n"));
}

}  // namespace
}  // namespace kbisect
