#include "tables/elapsed_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tables/test_samples.h"

namespace kbisect {
namespace {

using ::testing::HasSubstr;

// Seed 003's shape: THREADS readers (group 0) then THREADS writers (group 1), group_reporting
// off so the longest job of each group has to be found.
nlohmann::json phases(int threads, uint64_t read_ms, uint64_t write_ms) {
  std::vector<nlohmann::json> jobs;
  for (int i = 0; i < threads; ++i) {
    // The first job is the slowest; the others finish earlier.
    jobs.push_back(job_json("read", 0, {}, direction_json(4096, 1, read_ms - i, {}, {}), nullptr));
  }
  for (int i = 0; i < threads; ++i) {
    jobs.push_back(
        job_json("write", 1, {}, nullptr, direction_json(4096, 1, write_ms - i, {}, {})));
  }
  return kdio_json(jobs);
}

TEST(ElapsedTable, OneLinePerVariantOneColumnPerGroup) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {stored.set("v6.1", "THREADS=1", {phases(1, 920, 1490)}),
                                 stored.set("v6.1", "THREADS=2", {phases(2, 510, 1200)}),
                                 stored.set("v6.1", "THREADS=16", {phases(16, 230, 2240)})};
  EXPECT_EQ(elapsed_table(sets),
            "variant          read      write\n"
            "THREADS=1       0.92s      1.49s\n"
            "THREADS=2       0.51s      1.20s\n"
            "THREADS=16      0.23s      2.24s\n"
            "elapsed: the longest job of each reporting group\n");
}

TEST(ElapsedTable, TheDefaultVariantsRowLinesUpWithItsHeading) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {stored.set("v6.1", "", {phases(1, 920, 1490)})};
  EXPECT_EQ(elapsed_table(sets),
            "variant         read      write\n"
            "(default)      0.92s      1.49s\n"
            "elapsed: the longest job of each reporting group\n");
}

TEST(ElapsedTable, SidesAndMediansWhenThereAreSeveral) {
  StoredSamples stored;
  std::vector<SampleSet> sets = {
      stored.set("good", "T=1",
                 {phases(1, 1000, 3000), phases(1, 3000, 1000), phases(1, 2000, 2000)}),
      stored.set("bad", "T=1", {phases(1, 4000, 4000)})};
  std::string table = elapsed_table(sets);
  EXPECT_THAT(table, HasSubstr("variant / side       read      write\n"));
  EXPECT_THAT(table, HasSubstr("T=1 / good          2.00s      2.00s  (median of 3)\n"));
  EXPECT_THAT(table, HasSubstr("T=1 / bad           4.00s      4.00s\n"));
}

// A side whose samples lack a group or have no number for its run time shows "-" there.
TEST(ElapsedTable, AGroupNoSampleHasIsADash) {
  StoredSamples stored;
  nlohmann::json reads_only = phases(1, 1000, 2000);
  reads_only["jobs"].erase(1);
  nlohmann::json text_runtime = phases(1, 1000, 2000);
  text_runtime["jobs"][0]["read"]["runtime"] = "1s";
  std::vector<SampleSet> sets = {stored.set("v6.1", "T=1", {phases(1, 1000, 2000)}),
                                 stored.set("v6.1", "T=2", {reads_only}),
                                 stored.set("v6.1", "T=3", {text_runtime})};
  EXPECT_EQ(elapsed_table(sets),
            "variant       read      write\n"
            "T=1          1.00s      2.00s\n"
            "T=2          1.00s          -\n"
            "T=3              -      2.00s\n"
            "elapsed: the longest job of each reporting group\n");
}

}  // namespace
}  // namespace kbisect
